//! Loops with a memory budget (`#[checkpoint]`): Bennett's reversible checkpointing written
//! as nested compute–copy–uncompute blocks.
//!
//! A loop `for i in a..b { body }` that carries state from one iteration to the next saves,
//! in the store form, what each iteration overwrites: memory proportional to the trip count
//! `n`. Under `#[checkpoint(levels = L)]` the iterations run in chunks of `s = c^L`
//! iterations (`c = ⌈n^{1/(L+1)}⌉`, [`chunk_length`]), each chunk a compute–copy–uncompute
//! block over the variables the loop carries: the chunk runs on shadows of them, its result is
//! copied out, the chunk is uncomputed (its own saved values popped again), and only the
//! carried state at the chunk's start stays on the tape. Inside a chunk the same is done with
//! chunks of `c^{L−1}` iterations, down to single iterations in the store form. At most `c`
//! chunk starts per level and `c` iterations' saved values are live at once: `O(L·c)` where
//! the store form keeps `n`; each level runs its computation twice forward, so the forward
//! work is about `2^L` times the loop's, and the gradient recomputes each chunk once more.
//!
//! [`chunk_length`]: ../../nilang/checkpoint/fn.chunk_length.html

use super::{overwritten, Emitter, Result};
use crate::nir::{self, Checkpoint, Id, Range, Stmt, Ty};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use std::collections::BTreeSet;

/// What every chunk of a checkpointed loop shares.
struct Chunked<'s> {
    /// The loop variable.
    var: Id,
    /// The loop's body.
    body: &'s [Stmt],
    /// The outer bindings the body writes (the carried state and accumulated outputs).
    carried: BTreeSet<Id>,
    /// What the body reads, and what it overwrites.
    read: BTreeSet<Id>,
    overwritten: BTreeSet<Id>,
    /// The chunk length `c` (a plain variable of the program).
    chunk: syn::Ident,
    span: Span,
}

impl Emitter<'_> {
    /// `for var in range { body }` under `#[checkpoint(levels = L)]`.
    pub(super) fn checkpointed_loop(
        &mut self,
        var: Id,
        range: &Range,
        body: &[Stmt],
        checkpoint: Checkpoint,
        span: Span,
    ) -> Result<Vec<TokenStream>> {
        let carried = &nir::written(body) - &nir::declared(body);
        if let Some(o) = carried.iter().find(|o| self.f.binds[**o].ty == Ty::Plain) {
            return Err(syn::Error::new(
                span,
                format!(
                    "a `#[checkpoint]` loop may carry only numbers and vectors of numbers from \
                     one iteration to the next, but it changes the index or count `{}`: \
                     compute it from the loop variable instead, or remove `#[checkpoint]`",
                    self.f.binds[*o].name
                ),
            ));
        }
        let (lo, hi) = bounds(&self.render(&nir::Expr {
            syn: range.syn.clone(),
            reads: range.reads.clone(),
            real: false,
        }))
        .ok_or_else(|| syn::Error::new(span, "a `#[checkpoint]` loop runs over `a..b`"))?;
        let chunked = Chunked {
            var,
            body,
            read: nir::read(body),
            overwritten: overwritten(body, &self.tested),
            carried,
            chunk: self.names.fresh("chunk", span),
            span,
        };
        let levels = checkpoint.levels;
        let c = &chunked.chunk;
        let length = quote_spanned!(span=>
            ::nilang::checkpoint::chunk_length((#hi).saturating_sub(#lo), #levels)
        );
        let chunks = self.chunks(&chunked, levels, lo, hi)?;
        Ok(vec![quote_spanned! {span=>
            let #c = #length;
            #(#chunks)*
            dealloc!(#c = #length);
        }])
    }

    /// The iterations `start..end` as chunks of `c^level` iterations, each a
    /// compute–copy–uncompute block (level 0: the iterations themselves).
    fn chunks(
        &mut self,
        l: &Chunked,
        level: usize,
        start: TokenStream,
        end: TokenStream,
    ) -> Result<Vec<TokenStream>> {
        let span = l.span;
        if level == 0 {
            let var = self.name(l.var);
            let body = self.block(l.body)?;
            return Ok(vec![
                quote_spanned!(span=> for #var in #start..#end { #(#body)* }),
            ]);
        }
        let (c, power) = (&l.chunk, level as u32);
        let size = quote_spanned!(span=> #c.pow(#power));
        let k = self.names.fresh("chunk_index", span);
        let first = quote_spanned!(span=> (#start) + #k * #size);
        let last = quote_spanned!(span=> ::core::cmp::min(#first + #size, #end));
        let saved_subst = self.subst.clone();
        let mut parts = self.shadow_outer(&l.carried, &l.read, &l.overwritten, span);
        parts
            .compute
            .extend(self.chunks(l, level - 1, first, last)?);
        self.subst = saved_subst;
        let block = parts.assemble(span);
        let count = quote_spanned!(span=> ((#end) - (#start) + #size - 1) / #size);
        Ok(vec![
            quote_spanned!(span=> for #k in 0..#count { #(#block)* }),
        ])
    }
}

/// The bounds of a range `a..b` (`a..=b` as `a..b + 1`).
fn bounds(e: &syn::Expr) -> Option<(TokenStream, TokenStream)> {
    match e {
        syn::Expr::Paren(p) => bounds(&p.expr),
        syn::Expr::Range(r) => {
            let (a, b) = (r.start.as_ref()?, r.end.as_ref()?);
            let end = match r.limits {
                syn::RangeLimits::HalfOpen(_) => quote!(#b),
                syn::RangeLimits::Closed(_) => quote!((#b) + 1),
            };
            Some((quote!(#a), end))
        }
        _ => None,
    }
}
