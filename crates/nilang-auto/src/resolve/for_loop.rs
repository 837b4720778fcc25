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
                (id, range, Vec::new())
            }
            crate::loops::LoopPattern::Slice { index, elements } => {
                self.slice_loop(index, elements, f.expr.span(), f.pat.span())?
            }
        };
        self.flush(out);
        for (element, vec) in elements {
            let ty = if self.binds[vec].ty == Ty::RealVec {
                Ty::Real
            } else {
                Ty::Plain
            };
            self.declare(&element, ty, Origin::Element { vec, index: var });
        }
        let body = self.block(&f.body)?;
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
    /// enumerated) index, the range up to the shortest vector's length, and each element
    /// variable with its vector, declared after the index by the caller.
    #[allow(clippy::type_complexity)]
    fn slice_loop(
        &mut self,
        index: Option<syn::Ident>,
        elements: Vec<(syn::Ident, &syn::Path)>,
        iter: Span,
        pat: Span,
    ) -> Result<(Id, Range, Vec<(syn::Ident, Id)>)> {
        let mut vecs = Vec::new();
        for (_, vec) in &elements {
            match vec.get_ident().and_then(|v| self.lookup(v)) {
                Some(id) if self.binds[id].ty == Ty::RealVec || self.sig.is_slice(id) => {
                    vecs.push(id)
                }
                _ => {
                    return err(
                        vec,
                        "a loop over elements needs a vector variable: `for v in x.iter()`, \
                         or loop over indices: `for i in 0..x.len()`",
                    )
                }
            }
        }
        let index_id = match &index {
            Some(i) => self.declare(i, Ty::Plain, Origin::LoopVar),
            None => self.temporary("i", Ty::Plain, pat),
        };
        let names: Vec<_> = vecs.iter().map(|id| self.binds[*id].name.clone()).collect();
        let (first, rest) = (&names[0], &names[1..]);
        let range = Range {
            syn: syn::parse_quote_spanned!(iter=> 0..#first.len() #(.min(#rest.len()))*),
            reads: vecs.iter().copied().collect(),
        };
        let elements = elements.into_iter().map(|(e, _)| e).zip(vecs).collect();
        Ok((index_id, range, elements))
    }
}
