//! Adjoint loops that sum the gradients of loop-invariant operands in partial accumulators
//! (`nilang_ir::partials`): the loop runs four iterations per turn, each adding to its own
//! accumulator, so the additions form four independent chains instead of one.

use super::Gen;
use crate::tokens::private;
use nilang_ir::ast::{Dataview, Stmt};
use proc_macro2::TokenStream;
use quote::quote;

/// How many iterations a turn of such a loop runs, each with its own accumulators.
const WAYS: usize = 4;

/// The most statements a body copied [`WAYS`] times may have.
const MAX_BODY: usize = 8;

impl Gen {
    /// `for var in iter { body }` in an unchecked adjoint program, with the loop variable
    /// declared and the body's indices hoisted by the caller: unrolled with partial gradient
    /// accumulators when the body reads operands whose place and value the loop does not
    /// change and that carry gradients here; `None` for the plain loop.
    pub(crate) fn loop_with_partials(
        &mut self,
        var: &syn::Ident,
        iter: &TokenStream,
        body: &[Stmt],
    ) -> Option<TokenStream> {
        let views = self.partial_gradients(var, body);
        if views.is_empty() {
            return None;
        }
        let (p, lane) = (private(), self.lane());
        let parts: Vec<Vec<(Dataview, syn::Ident)>> = (1..WAYS)
            .map(|_| {
                views
                    .iter()
                    .map(|v| (v.clone(), self.fresh("partial")))
                    .collect()
            })
            .collect();
        let mut inits = TokenStream::new();
        let mut merge = TokenStream::new();
        for (v, part) in parts.iter().flatten() {
            let (place, shadow) = (self.place(v), self.shadow_place(v));
            inits.extend(quote!(let mut #part = #p::zero_grad::<_, #lane>(&#place);));
            merge.extend(quote!(#p::add_grad_into::<_, #lane>(&#place, &mut #shadow, #part);));
        }
        // the first copy adds to the gradients' own places, the others to their partials
        let mut turn = TokenStream::new();
        for k in 0..WAYS {
            self.partials = if k == 0 {
                Vec::new()
            } else {
                parts[k - 1].clone()
            };
            let copy = self.block(body);
            turn.extend(quote!(
                let ::core::option::Option::Some(#var) = ::core::iter::Iterator::next(&mut __iter)
                else { break };
                { #copy }
            ));
        }
        self.partials.clear();
        Some(quote!({
            #inits
            let mut __iter = #iter;
            loop { #turn }
            #merge
        }))
    }

    /// The operands of `body` whose gradients [`Gen::loop_with_partials`] splits.
    fn partial_gradients(&self, var: &syn::Ident, body: &[Stmt]) -> Vec<Dataview> {
        if self.shadow.is_none() || self.checked || body.len() > MAX_BODY {
            return Vec::new();
        }
        let par_place = |v: &Dataview| {
            let root = v.root.to_string();
            self.par.cells.contains(&root)
                || self.par.local_shadows.contains(&root)
                || self.par.deref.contains(&root)
                || self.par.reductions.iter().any(|(r, ..)| r.root == v.root)
        };
        nilang_ir::partials::invariant_operands(var, body)
            .into_iter()
            .filter(|v| self.writable(v) && !self.inactive(v) && !par_place(v))
            .collect()
    }
}
