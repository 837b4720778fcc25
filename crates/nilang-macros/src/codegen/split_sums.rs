//! Split gradient sums: in an unchecked adjoint program, a loop whose body reads a value that
//! no iteration changes (`xc[a]` in `qx[b] -= l[…] · xc[a]` over `b`) adds one term per
//! iteration to that value's gradient, a chain of additions whose order the compiler must
//! keep: the loop runs at the latency of one addition per iteration. Here such a loop runs its
//! body for four iterations in turn, each adding to a partial sum of its own, and the partial
//! sums are added to the gradient after the loop, pairwise — four independent chains. The
//! iterations keep their order, so values are unchanged; only the gradient's summation order
//! differs (rounding).
//!
//! A loop qualifies when its body is instructions only (an innermost loop: no calls, stacks,
//! branches or allocations), and the value is an operand with a gradient that no instruction of
//! the body writes, indexed by nothing the body writes and not by the loop variable.

use super::Gen;
use crate::tokens::private;
use nilang_ir::ast::*;
use nilang_ir::scope::VarKind;
use proc_macro2::{TokenStream, TokenTree};
use quote::{quote, ToTokens};
use std::collections::BTreeSet;

/// How many partial sums (independent chains) a split loop keeps.
const PARTS: usize = 4;

impl Gen {
    /// The operands of an adjoint loop's body whose gradient sums can be split (see the module
    /// documentation); empty outside adjoint programs and inside parallel chunks.
    pub(super) fn split_sums(&self, var: &syn::Ident, body: &[Stmt]) -> Vec<Dataview> {
        let par = &self.par;
        if self.shadow.is_none()
            || self.checked
            || !(par.cells.is_empty() && par.reductions.is_empty() && par.local_shadows.is_empty())
        {
            return Vec::new();
        }
        let mut instrs = Vec::new();
        for s in body {
            match &s.kind {
                StmtKind::Instr(i) => instrs.push(i),
                _ => return Vec::new(),
            }
        }
        let targets: BTreeSet<String> = instrs.iter().map(|i| i.target.root.to_string()).collect();
        let mut out: Vec<Dataview> = Vec::new();
        for v in instrs.iter().flat_map(|i| &i.args).filter_map(|a| match a {
            Operand::View(v) => Some(v),
            Operand::Const(_) => None,
        }) {
            let split = !targets.contains(&v.root.to_string())
                && self.writable(v)
                && self.has_shadow(v)
                && !self.inactive(v)
                && invariant_indices(v, var, &targets)
                && !out.iter().any(|o| o.same_as(v));
            if split {
                out.push(v.clone());
            }
        }
        out
    }

    /// `for var in iter { body }` with the gradient sums of `sums` split into [`PARTS`]
    /// partial sums (the loop runs at least once: the caller checked it is not empty).
    pub(super) fn split_sum_loop(
        &mut self,
        var: &syn::Ident,
        iter: &TokenStream,
        body: &[Stmt],
        sums: &[Dataview],
    ) -> TokenStream {
        let p = private();
        let lane = self.lane();
        let (mut before, mut after, mut parts) = (TokenStream::new(), TokenStream::new(), vec![]);
        for v in sums {
            let value = self.fresh("sum_value");
            let partial: Vec<syn::Ident> = (0..PARTS).map(|_| self.fresh("sum_part")).collect();
            let (place, shadow) = (self.place(v), self.shadow_place(v));
            before.extend(quote!(let mut #value = #p::copy(&#place);));
            for g in &partial {
                before.extend(quote!(let mut #g = #p::zero_grad::<_, #lane>(&#value);));
            }
            let [g0, g1, g2, g3] = &partial[..] else {
                unreachable!("PARTS is 4")
            };
            after.extend(quote!(
                #p::add_grad_into::<_, #lane>(&#value, &mut #g0, #g1);
                #p::add_grad_into::<_, #lane>(&#value, &mut #g2, #g3);
                #p::add_grad_into::<_, #lane>(&#value, &mut #g0, #g2);
                #p::add_grad_into::<_, #lane>(&#value, &mut #shadow, #g0);
            ));
            parts.push((v.clone(), value, partial));
        }
        let iterator = self.fresh("iterations");
        let mut copies = TokenStream::new();
        for k in 0..PARTS {
            let depth = self.par.reductions.len();
            for (v, value, partial) in &parts {
                self.par
                    .reductions
                    .push((v.clone(), value.clone(), Some(partial[k].clone())));
            }
            self.scope.push();
            self.scope.declare(var, VarKind::LoopVar);
            let copy = self.block(body);
            self.scope.pop();
            self.par.reductions.truncate(depth);
            copies.extend(quote!(
                let ::core::option::Option::Some(#var) = #iterator.next() else { break };
                { #copy }
            ));
        }
        quote!({
            #before
            let mut #iterator = #iter;
            loop { #copies }
            #after
        })
    }
}

/// Does no index of `v` read the loop variable or a variable the body writes?
fn invariant_indices(v: &Dataview, var: &syn::Ident, written: &BTreeSet<String>) -> bool {
    fn idents(ts: TokenStream, out: &mut Vec<String>) {
        for t in ts {
            match t {
                TokenTree::Ident(i) => out.push(i.to_string()),
                TokenTree::Group(g) => idents(g.stream(), out),
                _ => {}
            }
        }
    }
    let mut read = Vec::new();
    for a in &v.path {
        if let Access::Index(e) = a {
            idents(e.to_token_stream(), &mut read);
        }
    }
    read.iter()
        .all(|i| *i != var.to_string() && !written.contains(i))
}
