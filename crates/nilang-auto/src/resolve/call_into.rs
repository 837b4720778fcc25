//! A call as a statement: `g(&x, &mut v)` to another differentiable function that writes
//! output parameters, which changes its outputs as the plain call does.

use super::{err, Resolver, Result};
use crate::nir::{Expr, Origin, Stmt, StmtKind, Ty};
use syn::spanned::Spanned;

impl Resolver<'_> {
    /// `g(args…);` where some arguments are outputs: `&mut v` or `&mut v[a..b]` of a local
    /// vector, or an output parameter of this function passed on (`out`, `&mut out[a..b]`).
    pub(super) fn call_into(&mut self, c: &syn::ExprCall, out: &mut Vec<Stmt>) -> Result<()> {
        let syn::Expr::Path(p) = &*c.func else {
            return err(&c.func, "call a function by its name or path");
        };
        let (mut args, mut outputs) = (Vec::new(), Vec::new());
        for a in &c.args {
            match self.output(a)? {
                Some((place, root)) => {
                    if outputs.contains(&root) {
                        return err(
                            a,
                            "two outputs of one call are parts of the same vector: pass them \
                             as separate vectors",
                        );
                    }
                    outputs.push(root);
                    args.push(place);
                }
                None => args.push(self.expr(a)?),
            }
        }
        if outputs.is_empty() {
            return err(
                c,
                "this call's value is not used: a differentiable function's value goes into a \
                 variable (`let y = g(…);`), and a function that writes outputs takes them as \
                 `&mut v`",
            );
        }
        let mut func = p.path.clone();
        let last = func.segments.last_mut().expect("a path has a segment");
        last.ident = quote::format_ident!("{}_rev_taped", last.ident, span = last.ident.span());
        self.flush(out);
        out.push(Stmt {
            kind: StmtKind::CallInto {
                func,
                args,
                outputs,
            },
            span: c.span(),
        });
        Ok(())
    }

    /// An output argument: the place it writes and the vector it is part of; `None` for an
    /// input.
    fn output(&mut self, a: &syn::Expr) -> Result<Option<(Expr, usize)>> {
        let place = match a {
            syn::Expr::Reference(r) if r.mutability.is_some() => &*r.expr,
            syn::Expr::Path(p) => match p.path.get_ident().and_then(|i| self.lookup(i)) {
                Some(id) if matches!(self.binds[id].origin, Origin::Output) => a,
                _ => return Ok(None),
            },
            _ => return Ok(None),
        };
        let root = match place {
            syn::Expr::Index(i) if matches!(&*i.index, syn::Expr::Range(_)) => &*i.expr,
            other => other,
        };
        let id = match root {
            syn::Expr::Path(p) => p.path.get_ident().and_then(|i| self.lookup(i)),
            _ => None,
        };
        let Some(id) = id else {
            return err(
                a,
                "an output of a call is a local vector or a part of one: `&mut v` or \
                 `&mut v[a..b]`",
            );
        };
        let bind = &self.binds[id];
        if bind.ty != Ty::RealVec {
            return err(
                a,
                "an output of a call is a vector of numbers (`&mut [f64]`): pass `&mut v` or \
                 `&mut v[a..b]` of a `let mut v = vec![0.0; n];`",
            );
        }
        if !matches!(bind.origin, Origin::Local | Origin::Output) {
            return err(
                a,
                format!(
                    "`{}` is a parameter, which a differentiable function only reads: let the \
                     call write a local vector (`let mut v = vec![0.0; n];`) or an output \
                     parameter",
                    quote::ToTokens::to_token_stream(root)
                ),
            );
        }
        Ok(Some((self.expr(place)?, id)))
    }
}
