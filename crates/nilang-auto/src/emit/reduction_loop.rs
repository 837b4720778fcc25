//! A loop that folds a value into one variable by `min` or `max` (see [`crate::reduction`]):
//! the chosen iteration found on values, then the body run for it alone.

use super::{Emitter, Result};
use crate::nir::{self, Expr, Id, Stmt, StmtKind};
use crate::reduction::Reduction;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use std::collections::BTreeSet;

impl Emitter<'_> {
    /// A loop that folds a value into one variable by `min` or `max` (see [`crate::reduction`]):
    /// the chosen iteration found on values, then the body run for it alone.
    pub(super) fn reduction_loop(
        &mut self,
        var: Id,
        range: &nir::Range,
        body: &[Stmt],
        span: Span,
    ) -> Result<Vec<TokenStream>> {
        let reduction = Reduction::of(self.f, self.sig, body).expect("checked by the caller");
        let typing = crate::expr::Typing {
            binds: &self.f.binds,
            sig: self.sig,
        };
        // a table serves the searches of one call: worth building only for a search that
        // runs again in the call, inside a loop
        let fixed = nir::in_loop(&self.f.body, var).then(|| self.fixed_bindings());
        let (mut search, table) =
            reduction.search(typing, self.names, (var, range), fixed.as_ref());
        self.tapes.search_tables.extend(table);
        self.substitute_shadows(&mut search, |_| true);
        let (pos, count) = (
            self.names.fresh("pos", span),
            self.names.fresh("count", span),
        );
        let over_elements = self
            .f
            .binds
            .iter()
            .any(|b| matches!(b.origin, nir::Origin::Element { index, .. } if index == var));
        let var = self.name(var);
        let range = self.render(&Expr {
            syn: range.syn.clone(),
            reads: range.reads.clone(),
            real: false,
        });
        let body = self.block(body)?;
        let tape = self.decisions_tape();
        // over `lo..hi` the chosen iteration is `lo + pos`; the hidden index of a loop over a
        // vector's elements runs over `0..v.len()`, so there it is `pos`
        let first = match &range {
            _ if over_elements => Some(quote!(0)),
            syn::Expr::Range(syn::ExprRange {
                start: Some(lo),
                limits: syn::RangeLimits::HalfOpen(_),
                end: Some(_),
                ..
            }) => Some(quote!((#lo))),
            _ => None,
        };
        if let Some(first) = first {
            return Ok(vec![quote_spanned! {span=>
                let #pos = #search;
                if #pos != usize::MAX {
                    for #var in #first + #pos..#first + #pos + 1 {
                        #(#body)*
                    }
                }
                push!(#tape, #pos);
                dealloc!(#pos = 0usize);
            }]);
        }
        Ok(vec![quote_spanned! {span=>
            let #pos = #search;
            let #count = 0usize;
            for #var in #range {
                if #count == #pos {
                    #(#body)*
                }
                #count += 1;
            }
            push!(#tape, #count);
            dealloc!(#count = 0usize);
            push!(#tape, #pos);
            dealloc!(#pos = 0usize);
        }])
    }

    /// The bindings that hold one value for a whole call: the parameters other than outputs,
    /// and the `let`s of the body's top level that nothing assigns.
    fn fixed_bindings(&self) -> BTreeSet<Id> {
        let written = nir::written(&self.f.body);
        let params = (0..self.f.binds.len())
            .filter(|id| matches!(self.f.binds[*id].origin, nir::Origin::Param));
        let lets = self.f.body.iter().filter_map(|s| match &s.kind {
            StmtKind::Let { id, .. } => Some(*id),
            _ => None,
        });
        params
            .chain(lets)
            .filter(|id| !written.contains(id))
            .collect()
    }
}
