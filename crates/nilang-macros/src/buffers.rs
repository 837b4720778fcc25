//! The length checks at the start of each generated function that takes gradient buffers from
//! its caller (`f_adjoint`, `f_adjoint_inv`, `f_vjp`): for every `&mut x` with its `x_grad`,
//! `x_grad.len() == x.len()` when the type has a length (a slice, a `Vec`), nothing for other
//! types. The runtime half is `nilang::__private::grad_buffers`, which picks the check by the
//! parameter's type.
//!
//! Two exceptions, both for a `Vec` (slices are always checked): one the body never mentions,
//! whose gradient it never reads; and a parameter that may be a stack (`push!(s, x)`, or handed whole to a call or
//! a method, which may push to it) keeps its unchecked length, since an adjoint program may be
//! handed a gradient stack shorter than the value stack (the values below it have zero
//! gradients: `nilang::__private::stack_pop_shadow`). Slices are no stacks: they are always
//! checked.

use nilang_ir::ast::{CallArg, Callee, Stmt, StmtKind};
use nilang_ir::Function;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

/// The checks, as statements to put first in the body of the generated function `function`.
pub(crate) fn length_checks(f: &Function, function: &syn::Ident) -> TokenStream {
    let m = quote!(::nilang::__private::grad_buffers);
    let function = function.to_string();
    let checks: Vec<TokenStream> = f
        .sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(pt) => match (&*pt.pat, &*pt.ty) {
                (syn::Pat::Ident(pi), syn::Type::Reference(r)) if r.mutability.is_some() => {
                    Some((&pi.ident, &*r.elem))
                }
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .filter(|(name, ty)| {
            let name = name.to_string();
            is_slice(ty) || (mentioned(&f.body, &name) && !may_be_stack(&f.body, &name))
        })
        .map(|(name, _)| {
            let grad = nilang_ir::adjoint::shadow_name(name);
            let (value_text, grad_text) = (name.to_string(), grad.to_string());
            quote! {
                (&#m::GradBuffer { value: &*#name, grad: &*#grad })
                    .check_length(#function, #value_text, #grad_text);
            }
        })
        .collect();
    if checks.is_empty() {
        return TokenStream::new();
    }
    quote! {
        {
            #[allow(unused_imports)]
            use #m::{HasLength as _, NoLength as _};
            #(#checks)*
        }
    }
}

/// Whether `ty` is written as a slice, `[E]`.
fn is_slice(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Slice(_) => true,
        syn::Type::Paren(p) => is_slice(&p.elem),
        _ => false,
    }
}

/// Whether the statements mention the variable `name` at all: the gradient of a `Vec` they
/// never mention is never read, so its length is not checked (a taped program that saves
/// nothing is handed its caller's tape, whose gradient stack may be shorter than it).
fn mentioned(stmts: &[Stmt], name: &str) -> bool {
    crate::tokens::mentions_ident(nilang_ir::print::block_tokens(stmts), name)
}

/// Whether the statements may use the variable `name` as a stack: push to or pop from it,
/// hand it whole to a call or a method, or mention it in `safe!`.
fn may_be_stack(stmts: &[Stmt], name: &str) -> bool {
    let whole = |v: &nilang_ir::ast::Dataview| v.root == name && v.path.is_empty();
    let mentions = |ts: TokenStream| crate::tokens::mentions_ident(ts, name);
    stmts.iter().any(|s| {
        let here = match &s.kind {
            StmtKind::Stack { stack, .. } => whole(stack),
            StmtKind::Call { call, .. } => {
                call.args
                    .iter()
                    .any(|a| matches!(a, CallArg::View(v) if whole(v)))
                    || matches!(&call.callee, Callee::Method { receiver, .. }
                        if mentions(receiver.to_token_stream()))
            }
            StmtKind::Safe(ts) => mentions(ts.clone()),
            _ => false,
        };
        here || s.blocks().into_iter().any(|b| may_be_stack(b, name))
    })
}

#[cfg(test)]
mod tests {
    use super::length_checks;

    fn checked(src: &str) -> Vec<String> {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        let f = nilang_ir::lower(&Default::default(), item).unwrap();
        let text = length_checks(&f, &quote::format_ident!("f_vjp")).to_string();
        text.split(". check_length (\"f_vjp\" , \"")
            .skip(1)
            .map(|s| s.split('"').next().unwrap().to_string())
            .collect()
    }

    #[test]
    fn every_mut_parameter_but_possible_stacks() {
        assert_eq!(
            checked(
                "fn f<T: Real>(y: &mut T, x: &mut [T], v: &mut Vec<T>, s: &mut Vec<T>, \
                 u: &mut Vec<T>, w: &[T], n: usize, unused: &mut Vec<T>, z: &mut [T]) {
                    y += x[0] * v[0];
                    if n > 0 { push!(s, y); pop!(s, y); }
                    g(u, x);
                }"
            ),
            ["y", "x", "v", "z"],
            "`s` is a stack, `u` handed whole to a call, `unused` never read; `x` and `z` are \
             slices, checked anyway"
        );
    }

    #[test]
    fn nothing_without_mut_parameters() {
        assert!(checked("fn f<T: Real>(x: &[T], n: usize) { }").is_empty());
    }
}
