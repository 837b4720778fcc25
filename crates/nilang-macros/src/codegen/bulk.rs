//! A loop that only moves one slice to or from a stack, `for j in a..b { push!(s, v[j]); }`
//! or its inverse `for j in (a..b).rev() { pop!(s, v[j]); }` (the saves `#[differentiable]`
//! writes before a refill and at the end of a vector's block), runs as one slice operation:
//! a copy instead of a capacity test, a store and a length update per element, which kept
//! such loops at a few cycles an element. The values pushed and popped, their order on the
//! stack, the checks of a checked program (every target zero before a pop; the range
//! unchanged by the loop) and the gradients of an adjoint program (the shadow stack's
//! invariant, `__private::stack_pop_shadow`) are those of the loop.

use super::Gen;
use crate::tokens::{private, read_only};
use nilang_ir::ast::*;
use nilang_ir::print::range_tokens;
use nilang_ir::text::tokens_text;
use proc_macro2::TokenStream;
use quote::quote;

impl Gen {
    /// The code of a loop that pushes `v[var]` for ascending `var` (or pops it for descending
    /// `var`) and does nothing else, as one slice operation; `None` for any other loop.
    pub(crate) fn bulk_stack(
        &mut self,
        var: &syn::Ident,
        range: &RangeSpec,
        body: &[Stmt],
        site: &TokenStream,
    ) -> Option<TokenStream> {
        let [Stmt {
            kind:
                StmtKind::Stack {
                    stack,
                    value,
                    push,
                    copy: false,
                },
            ..
        }] = body
        else {
            return None;
        };
        let plain_range = range.step.is_none() && !range.parallel && range.broadcast.is_none();
        // pushes go up the slice, pops come down it: the stack's order is the slice's
        if !plain_range || *push == range.rev || !self.slice_of(value, var, stack) {
            return None;
        }
        let whole = Dataview {
            root: value.root.clone(),
            path: Vec::new(),
            span: value.span,
        };
        let gradients = match &self.shadow {
            None => false,
            Some(_) if self.inactive(value) => false,
            Some(_) if self.has_shadow(value) && self.writable(value) => true,
            Some(_) => return None,
        };
        let p = private();
        let (ps, pv) = (self.place(stack), self.place(&whole));
        let slice = if range.inclusive {
            quote!(__start..=__end)
        } else {
            quote!(__start..__end)
        };
        let mut ops = if *push {
            quote!(#p::stack_push_slice(&mut #ps, &mut #pv[#slice]);)
        } else {
            let check = self.checked.then(|| {
                let variable = value.text();
                quote!(#p::check_pop_targets(&#pv[#slice], #site, #variable);)
            });
            let stack_text = stack.text();
            quote!(#check #p::stack_pop_slice(&mut #ps, &mut #pv[#slice], #site, #stack_text);)
        };
        if gradients {
            let (ss, sv) = (self.shadow_place(stack), self.shadow_place(&whole));
            let lane = self.shadow.as_ref().map(crate::shadows::Shadows::lane);
            let op = if *push {
                quote!(stack_push_grads)
            } else {
                quote!(stack_pop_grads)
            };
            ops.extend(
                quote!(#p::#op::<_, _, _, #lane>(&mut #ss, &mut #sv[#slice], &#pv[#slice]);),
            );
        }
        Some(self.bulk_loop(range, site, ops))
    }

    /// Is `value` the element `v[var]` of a slice `v` the code may take `v[a..b]` of (not a
    /// parallel chunk's window or reduction), pushed onto or popped from another variable?
    fn slice_of(&self, value: &Dataview, var: &syn::Ident, stack: &Dataview) -> bool {
        let [Access::Index(syn::Expr::Path(i))] = value.path.as_slice() else {
            return false;
        };
        let root = value.root.to_string();
        let par = &self.par;
        let in_chunk = par.cells.contains(&root)
            || par.readonly.contains(&root)
            || par.local_shadows.contains(&root)
            || par.reductions.iter().any(|(r, ..)| r.root == value.root);
        i.path.is_ident(var) && !stack.has_index() && stack.root != value.root && !in_chunk
    }

    /// `ops` on the slice `__start..__end` (`..=` for an inclusive range) of the loop's range,
    /// run when the range is not empty, with a checked program's check that the loop left its
    /// range unchanged.
    fn bulk_loop(&self, range: &RangeSpec, site: &TokenStream, ops: TokenStream) -> TokenStream {
        let p = private();
        let start = read_only(&range.start);
        let end = self.range_end(range, site);
        let nonempty = if range.inclusive {
            quote!(__start <= __end)
        } else {
            quote!(__start < __end)
        };
        let check = self.checked.then(|| {
            let text = tokens_text(&range_tokens(range));
            quote!(#p::check_for_range((__start, __end, 1), (#start, #end, 1), #site, #text);)
        });
        quote!({
            let __start = #start;
            let __end = #end;
            if #nonempty {
                #ops
            }
            #check
        })
    }
}
