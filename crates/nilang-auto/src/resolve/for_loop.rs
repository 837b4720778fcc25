//! `for` loops: over a range, or over the elements of vectors (one, enumerated, zipped),
//! with a `#[checkpoint]` memory budget on a range.

use super::{err, loop_attributes, Resolver, Result};
use crate::nir::{Id, Origin, Range, Stmt, StmtKind, Ty};
use proc_macro2::Span;
use syn::spanned::Spanned;

impl Resolver<'_> {
    /// `for pattern in iterator { body }`: a range, or the elements of vectors.
    pub(super) fn for_loop(&mut self, f: &syn::ExprForLoop, out: &mut Vec<Stmt>) -> Result<()> {
        if f.label.is_some() {
            return err(f, "loop labels are not supported");
        }
        let checkpoint = loop_attributes::checkpoint(&f.attrs)?;
        let pattern = crate::loops::loop_pattern(&f.pat, &f.expr)?;
        if checkpoint.is_some() && !loop_attributes::is_plain_range(&f.expr) {
            return err(
                &f.expr,
                "a `#[checkpoint]` loop runs over a range `a..b` (or `a..=b`) of indices, in \
                 order: loop over indices (`for i in 0..v.len()`) and read the elements by index",
            );
        }
        let mark = self.scope.len();
        let (var, range, elements) = match pattern {
            crate::loops::LoopPattern::Range { var, range } => {
                let range = self.range(range)?;
                let id = match &var {
                    Some(v) => self.declare(v, Ty::Plain, Origin::LoopVar),
                    None => self.temporary("step", Ty::Plain, f.pat.span()),
                };
                (id, range, (Vec::new(), Vec::new()))
            }
            crate::loops::LoopPattern::Slice { index, elements } => {
                self.slice_loop(index, elements, f.expr.span(), f.pat.span())?
            }
        };
        self.flush(out);
        let (elements, reads) = elements;
        for (element, vec) in elements {
            let ty = if self.binds[vec].ty == Ty::RealVec {
                Ty::Real
            } else {
                Ty::Plain
            };
            self.declare(&element, ty, Origin::Element { vec, index: var });
        }
        let mut body = Vec::new();
        for read in &reads {
            self.stmt(read, &mut body)?;
        }
        body.extend(self.block(&f.body)?);
        self.scope.truncate(mark);
        out.push(Stmt {
            kind: StmtKind::For {
                var,
                range,
                body,
                checkpoint,
            },
            span: f.span(),
        });
        Ok(())
    }

    /// A loop over the elements of vectors (one, or several zipped): the hidden (or
    /// enumerated) index, the range up to the shortest vector's length, each element variable
    /// of a vector binding with that binding (declared after the index by the caller), and for
    /// each element of a part of a vector (`x[1..].iter()`), a constant table
    /// (`COEFFS.iter()`) or a local vector of plain values, the `let c = COEFFS[i];` that
    /// starts the body.
    fn slice_loop(
        &mut self,
        index: Option<syn::Ident>,
        elements: Vec<(syn::Ident, &syn::Expr)>,
        iter: Span,
        pat: Span,
    ) -> Result<(Id, Range, SliceElements)> {
        let (mut bound, mut read) = (Vec::new(), Vec::new());
        for (element, vec) in &elements {
            let binding = match vec {
                syn::Expr::Path(p) => p.path.get_ident().and_then(|v| self.lookup(v)),
                _ => None,
            };
            match binding {
                Some(id) if self.binds[id].ty == Ty::RealVec || self.sig.is_slice(id) => {
                    bound.push((element.clone(), id))
                }
                Some(id) if self.binds[id].ty != Ty::Plain => {
                    return err(
                        vec,
                        "a loop over elements needs a vector variable: `for v in x.iter()`, \
                         or loop over indices: `for i in 0..x.len()`",
                    )
                }
                _ => read.push((element.clone(), *vec)),
            }
        }
        if read.is_empty() {
            let index_id = match &index {
                Some(i) => self.declare(i, Ty::Plain, Origin::LoopVar),
                None => self.temporary("i", Ty::Plain, pat),
            };
            let names: Vec<_> = bound
                .iter()
                .map(|(_, id)| self.binds[*id].name.clone())
                .collect();
            let (first, rest) = (&names[0], &names[1..]);
            let range = Range {
                syn: syn::parse_quote_spanned!(iter=> 0..#first.len() #(.min(#rest.len()))*),
                reads: bound.iter().map(|(_, id)| *id).collect(),
            };
            return Ok((index_id, range, (bound, Vec::new())));
        }
        // the range and the reads in the user's syntax, resolved as the user's code
        let paths: Vec<&syn::Expr> = elements.iter().map(|(_, p)| *p).collect();
        let (first, rest) = (paths[0], &paths[1..]);
        let range = self.range(&syn::parse_quote_spanned!(iter=>
            0..#first.len() #(.min(#rest.len()))*
        ))?;
        let index = index.unwrap_or_else(|| self.names.user_fresh("i", pat));
        let index_id = self.declare(&index, Ty::Plain, Origin::LoopVar);
        let reads = read
            .into_iter()
            .map(|(element, vec)| {
                let at = element_of(vec, &index);
                syn::parse_quote_spanned!(pat=> let #element = #at;)
            })
            .collect();
        Ok((index_id, range, (bound, reads)))
    }
}

/// Element `index` of `vec`: `x[index]`, or of a part `x[a..b]`, `x[a + index]`.
fn element_of(vec: &syn::Expr, index: &syn::Ident) -> syn::Expr {
    if let syn::Expr::Index(i) = vec {
        if let syn::Expr::Range(r) = &*i.index {
            let whole = &i.expr;
            return match &r.start {
                Some(start) => syn::parse_quote!(#whole[(#start) + #index]),
                None => syn::parse_quote!(#whole[#index]),
            };
        }
    }
    syn::parse_quote!(#vec[#index])
}

/// The elements of a loop over vectors: those of vector bindings, and the `let`s that read
/// the others at the start of the body.
type SliceElements = (Vec<(syn::Ident, Id)>, Vec<syn::Stmt>);
