//! A call as a statement: `g(&x, &mut v)` to another differentiable function that writes
//! output parameters, which changes its outputs as the plain call does.

use super::{err, Resolver, Result};
use crate::nir::{Expr, Init, Origin, Stmt, StmtKind, Ty};
use proc_macro2::Span;
use syn::spanned::Spanned;

impl Resolver<'_> {
    /// `g(args…);` where some arguments are outputs: `&mut v` or `&mut v[a..b]` of a local
    /// vector, or an output parameter of this function passed on (`out`, `&mut out[a..b]`).
    pub(super) fn call_into(&mut self, c: &syn::ExprCall, out: &mut Vec<Stmt>) -> Result<()> {
        let syn::Expr::Path(p) = &*c.func else {
            return err(&c.func, "call a function by its name or path");
        };
        let (mut args, mut outputs, mut is_output) = (Vec::new(), Vec::new(), Vec::new());
        for a in &c.args {
            let output = self.output(a)?;
            is_output.push(output.is_some());
            match output {
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
        self.flush(out);
        for (a, _) in args.iter_mut().zip(&is_output).filter(|(_, out)| !**out) {
            // a number read from a vector the call writes (`g(v[0], &mut v)`) is taken before
            // the call, into a temporary of the block
            if a.real && outputs.iter().any(|o| a.reads.contains(o)) {
                *a = self.hoist_before(a.clone(), c.span(), out);
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

    /// `let t = value;` added to `out`, and `t` as an expression.
    fn hoist_before(&mut self, value: Expr, span: Span, out: &mut Vec<Stmt>) -> Expr {
        let id = self.temporary("arg", Ty::Real, span);
        out.push(Stmt {
            kind: StmtKind::Let {
                id,
                init: Init::Expr(value),
            },
            span,
        });
        let name = &self.binds[id].name;
        Expr {
            syn: syn::parse_quote!(#name),
            reads: [id].into(),
            real: true,
        }
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
