//! The frame of a compute–copy–uncompute block: shadows of the outer bindings it writes, the
//! copies out, and the saves and swaps after the uncomputation.

use super::{Emitter, Ident};
use crate::nir::{Id, Ty};
use proc_macro2::{Span, TokenStream};
use quote::quote_spanned;
use std::collections::BTreeSet;

impl Emitter<'_> {
    /// The frame of a compute–copy–uncompute block that writes the outer bindings `written`
    /// (scalars or vectors): each gets a shadow the computation runs on (`subst` is set to
    /// them; the caller restores it), copied out after it; one that the block reads or
    /// overwrites starts from its value, and its old value is saved on the tape and replaced
    /// by the new one after the uncomputation.
    pub(super) fn shadow_outer(
        &mut self,
        written: &BTreeSet<Id>,
        read: &BTreeSet<Id>,
        overwritten: &BTreeSet<Id>,
        span: Span,
    ) -> RoutineParts {
        let zero = self.negative_zero();
        let mut parts = RoutineParts::default();
        let mut shadows = Vec::new();
        for &o in written {
            let outer = self.name(o);
            let shadow = self.names.fresh(&format!("{outer}_in"), span);
            let carried = read.contains(&o) || overwritten.contains(&o);
            if self.f.binds[o].ty == Ty::RealVec {
                self.shadow_vector(&mut parts, &outer, &shadow, carried, span);
            } else if carried {
                let new = self.names.fresh(&format!("{outer}_out"), span);
                let tape = self.value_tape();
                parts.pre.push(quote_spanned!(span=> let #new = #zero;));
                parts
                    .compute
                    .push(quote_spanned!(span=> let #shadow = #zero; #shadow += #outer;));
                parts.copy.push(quote_spanned!(span=> #new += #shadow;));
                parts.post.push(quote_spanned!(span=>
                    push!(#tape, #outer);
                    swap(#outer, #new);
                    dealloc!(#new = #zero);
                ));
            } else {
                parts
                    .compute
                    .push(quote_spanned!(span=> let #shadow = #zero;));
                parts.copy.push(quote_spanned!(span=> #outer += #shadow;));
            }
            shadows.push((o, shadow));
        }
        for (o, shadow) in shadows {
            self.subst.insert(o, shadow);
        }
        parts
    }

    /// [`Self::shadow_outer`] for a vector: element by element.
    fn shadow_vector(
        &mut self,
        parts: &mut RoutineParts,
        outer: &Ident,
        shadow: &Ident,
        carried: bool,
        span: Span,
    ) {
        let zero = self.zero();
        let j = self.names.fresh("j", span);
        let zeros = quote_spanned!(span=> ::std::vec![#zero; #outer.len()]);
        parts
            .compute
            .push(quote_spanned!(span=> let #shadow = #zeros;));
        if !carried {
            parts.copy.push(quote_spanned!(span=>
                for #j in 0..#outer.len() { #outer[#j] += #shadow[#j]; }
            ));
            return;
        }
        let new = self.names.fresh(&format!("{outer}_out"), span);
        let tape = self.value_tape();
        parts.pre.push(quote_spanned!(span=> let #new = #zeros;));
        parts.compute.push(quote_spanned!(span=>
            for #j in 0..#outer.len() { #shadow[#j] += #outer[#j]; }
        ));
        parts.copy.push(quote_spanned!(span=>
            for #j in 0..#outer.len() { #new[#j] += #shadow[#j]; }
        ));
        parts.post.push(quote_spanned!(span=>
            for #j in 0..#outer.len() {
                push!(#tape, #outer[#j]);
                swap(#outer[#j], #new[#j]);
            }
            dealloc!(#new = #zeros);
        ));
    }
}

/// The four parts of a compute–copy–uncompute block: `pre` (allocations of the new values)
/// `routine! { compute } copy uncompute!(); post` (the saves and swaps).
#[derive(Default)]
pub(super) struct RoutineParts {
    pub(super) pre: Vec<TokenStream>,
    pub(super) compute: Vec<TokenStream>,
    pub(super) copy: Vec<TokenStream>,
    pub(super) post: Vec<TokenStream>,
}

impl RoutineParts {
    pub(super) fn assemble(self, span: Span) -> Vec<TokenStream> {
        let (compute, copy) = (self.compute, self.copy);
        let mut out = self.pre;
        out.push(quote_spanned!(span=> routine! { #(#compute)* }));
        out.extend(copy);
        out.push(quote_spanned!(span=> uncompute!();));
        out.extend(self.post);
        out
    }
}
