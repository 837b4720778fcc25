//! The programs of a function: `f_rev` (on tapes of its own: the body computed, its value
//! copied out, the body uncomputed), `f_rev_taped` (on its caller's tapes, which keep what it
//! saved) and `f_rev` over it; the tapes they save on.

use super::{Emitter, Result};
use crate::nir::{self, Id};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use std::collections::BTreeSet;
use syn::Ident;

/// The tapes a program uses: real values, and decisions (branches taken, trip counts, saved
/// integers: one `nilang::stack::Decisions`).
#[derive(Default)]
pub(super) struct Tapes {
    values: Option<Ident>,
    decisions: Option<Ident>,
    /// The tables the function's searches read (`nilang::__private::search::SearchTable`):
    /// ancillas of the whole call, so that each is built once per call.
    pub search_tables: Vec<Ident>,
    /// Whether the program written so far saves a value or hands the value tape to a callee.
    values_used: bool,
    /// Whether `f_rev` allocates its value tape as a plain empty `Vec` (its taped program
    /// never pushes): no visit to the thread's pool of buffers on each call.
    values_unpooled: bool,
}

/// The tapes a taped program (`f_rev_taped`) takes from its caller.
pub struct CallerTapes<'a> {
    /// The `&mut Vec<T>` of saved real values.
    pub values: &'a Ident,
    /// The `&mut nilang::stack::Decisions`.
    pub decisions: &'a Ident,
}

impl Emitter<'_> {
    /// The body of the reversible program: `routine! { body } out += value; uncompute!();`
    /// between the tapes' allocation and deallocation: nothing is left saved.
    pub fn body(&mut self, out: &Ident) -> Result<TokenStream> {
        let (compute, result) = match &self.f.ret {
            Some(ret) => {
                let compute = self.stmts(&self.f.body)?;
                let value = self.rhs(ret);
                (compute, vec![quote!(#out += #value;)])
            }
            None => self.outputs()?,
        };
        let (allocs, deallocs) = self.local_tapes();
        Ok(quote! {
            #(#allocs)*
            routine! {
                #(#compute)*
            }
            #(#result)*
            uncompute!();
            #(#deallocs)*
        })
    }

    /// The body of the taped program: the body's statements, `out += value` for a function
    /// with a value, and its temporaries freed as a block's are (saved on the caller's tapes
    /// where they cannot be uncomputed): what it saved is left to the caller, whose inverse
    /// pops it, so a call costs one run of the body, not two. A function that writes outputs
    /// writes them in place, as the plain call does (an overwritten element is saved on the
    /// tape), so its outputs need not start from zeros.
    pub fn taped_body(&mut self, out: &Ident, tapes: CallerTapes) -> Result<TokenStream> {
        self.tapes.values = Some(tapes.values.clone());
        self.tapes.decisions = Some(tapes.decisions.clone());
        let mut body = self.stmts(&self.f.body)?;
        if let Some(ret) = &self.f.ret {
            let value = self.rhs(ret);
            body.push(quote!(#out += #value;));
        }
        body.extend(self.free_temporaries(&self.f.body)?);
        let (allocs, deallocs) = self.search_tables();
        Ok(quote!(#(#allocs)* #(#body)* #(#deallocs)*))
    }

    /// The body of `f_rev` over its taped program `taped` (under `store`): on tapes of its own,
    /// `routine! { value = f_rev_taped(…) } out += value; uncompute!()`, so `f_rev` leaves
    /// nothing saved, and calls between functions run each callee once.
    /// `pushes`: whether the taped program may push on its value tape (see
    /// [`Self::uses_value_tape`]); when it never does, `f_rev` gives it a plain empty `Vec`,
    /// which costs nothing, where a pooled `nilang::stack::Tape` visits the thread's pool twice
    /// a call (a sixth of natural bundle adjustment's Jacobian went to those visits for the
    /// weight residuals' gradients, `1 − w²`, which save nothing).
    pub fn over_taped(&mut self, out: &Ident, taped: &Ident, pushes: bool) -> TokenStream {
        self.tapes.values_unpooled = !pushes;
        let value = self.names.fresh("value", Span::call_site());
        let (tape, decisions) = (self.value_tape(), self.decisions_tape());
        let start = self.negative_zero();
        let params = self.sig.params.iter().map(|p| &p.ident);
        let (allocs, deallocs) = self.local_tapes();
        quote! {
            #(#allocs)*
            routine! {
                let #value = #start;
                #taped(#value, #tape, #decisions, #(#params),*);
            }
            #out += #value;
            uncompute!();
            #(#deallocs)*
        }
    }

    /// The tapes' allocations and deallocations, for a program that keeps its tapes.
    fn local_tapes(&self) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let t = &self.sig.rev_real;
        let mut allocs = Vec::new();
        let mut deallocs = Vec::new();
        if let Some(tape) = &self.tapes.values {
            // its buffer is reused by the next call on this thread (`nilang::stack::Tape`)
            let empty = match self.tapes.values_unpooled {
                true => quote!(::std::vec::Vec::<#t>::new()),
                false => quote!(::nilang::stack::Tape::<#t>::new()),
            };
            allocs.push(quote!(let #tape = #empty;));
            deallocs.push(quote!(dealloc!(#tape = #empty);));
        }
        if let Some(tape) = &self.tapes.decisions {
            let empty = quote!(::nilang::stack::Decisions::new());
            allocs.push(quote!(let #tape = #empty;));
            deallocs.push(quote!(dealloc!(#tape = #empty);));
        }
        let (tables, freed) = self.search_tables();
        allocs.extend(tables);
        deallocs.extend(freed);
        (allocs, deallocs)
    }

    /// The search tables' declarations and deallocations.
    fn search_tables(&self) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let empty = quote!(::nilang::__private::search::SearchTable::new());
        let tables = &self.tapes.search_tables;
        (
            tables.iter().map(|t| quote!(let #t = #empty;)).collect(),
            tables
                .iter()
                .map(|t| quote!(dealloc!(#t = #empty);))
                .collect(),
        )
    }

    /// The body of a function that writes outputs: it runs on zero vectors standing for them
    /// (its shadows), whose values are then added to the outputs.
    fn outputs(&mut self) -> Result<(Vec<TokenStream>, Vec<TokenStream>)> {
        let outputs: BTreeSet<Id> = (0..self.f.binds.len())
            .filter(|id| matches!(self.f.binds[*id].origin, nir::Origin::Output))
            .collect();
        let span = Span::call_site();
        let nothing = BTreeSet::new();
        let mut parts = self.shadow_outer(&outputs, &nothing, &nothing, span);
        parts.compute.extend(self.stmts(&self.f.body)?);
        Ok((parts.compute, parts.copy))
    }

    pub(super) fn zero(&self) -> TokenStream {
        let t = &self.sig.rev_real;
        quote!(#t::zero())
    }

    /// `−0`, where a temporary starts that is then computed by `+=`: `−0 + e` is `e` to the
    /// bit (as the plain function's `let t = e` is; `+0 + e` turns `e = −0` into `+0`), and the
    /// compiler drops the addition, which it must keep for `+0`.
    pub(super) fn negative_zero(&self) -> TokenStream {
        let t = &self.sig.rev_real;
        quote!(#t::lit(-0.0))
    }

    fn tape(&mut self, which: fn(&mut Tapes) -> &mut Option<Ident>, base: &str) -> Ident {
        let span = Span::call_site();
        if which(&mut self.tapes).is_none() {
            let name = self.names.fresh(base, span);
            *which(&mut self.tapes) = Some(name);
        }
        which(&mut self.tapes).clone().expect("set above")
    }

    pub(super) fn value_tape(&mut self) -> Ident {
        self.tapes.values_used = true;
        self.tape(|t| &mut t.values, "tape")
    }

    /// Whether the program written so far saves values or hands its value tape to a callee
    /// (every use goes through [`Self::value_tape`]; a use that ends up unwritten only costs
    /// the plain-`Vec` tape of [`Self::over_taped`]).
    pub fn uses_value_tape(&self) -> bool {
        self.tapes.values_used
    }

    pub(super) fn decisions_tape(&mut self) -> Ident {
        self.tape(|t| &mut t.decisions, "decisions")
    }
}
