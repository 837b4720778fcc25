//! The items generated beside a function's forward and inverse programs: the struct that
//! publishes its effects, the companions reached through its name, and the stubs of a
//! function that did not compile.

use crate::tokens::mentions_ident;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};

/// The effects of a free function, published for its callers (`nilang_ir::effects`): a
/// hidden braced struct named as the function (it lives in the type namespace, so a `use` of
/// the function brings it along) with the associated constant `WRITES`. `None` as the mask
/// (a function that did not compile) publishes "writes every parameter".
pub fn effects(vis: &syn::Visibility, name: &syn::Ident, mask: Option<TokenStream>) -> TokenStream {
    let mask = mask.unwrap_or_else(|| quote!(u128::MAX));
    let doc =
        format!("The effects of the reversible function [`{name}`](fn@{name}) on its parameters.");
    quote! {
        #[doc = #doc]
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}
        #[allow(clippy::all)]
        impl #name {
            /// Bit `k` set: the function may write its parameter `k`.
            pub const WRITES: u128 = #mask;
        }
    }
}

/// `impl g { fn inv(…) { g_inv(…) } … }`: the companions of the reversible free function
/// `owner` as associated functions of its struct (`nilang_ir::companions`), each forwarding
/// to the generated function whose signature it is given, so that a caller that imports `g`
/// by name reaches them.
pub fn companions(
    owner: &syn::Ident,
    vis: &syn::Visibility,
    items: &[(&str, &syn::Signature)],
) -> TokenStream {
    let forwarders = items
        .iter()
        .map(|(name, target)| forwarder(vis, name, target));
    quote! {
        #[allow(clippy::all)]
        impl #owner {
            #(#forwarders)*
        }
    }
}

/// An associated function `name` with `target`'s signature that calls `target`.
fn forwarder(vis: &syn::Visibility, name: &str, target: &syn::Signature) -> TokenStream {
    let mut sig = target.clone();
    sig.ident = syn::Ident::new(name, target.ident.span());
    let mut args = Vec::new();
    for (k, input) in sig.inputs.iter_mut().enumerate() {
        if let syn::FnArg::Typed(pt) = input {
            let arg = format_ident!("__arg{}", k);
            pt.attrs.clear();
            pt.pat = Box::new(syn::parse_quote!(#arg));
            args.push(arg);
        }
    }
    let generic_args: Vec<TokenStream> = target
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(t.ident.to_token_stream()),
            syn::GenericParam::Const(c) => Some(c.ident.to_token_stream()),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    // `impl Trait` parameters forbid explicit generic arguments; then inference alone
    let impl_trait = mentions_ident(sig.inputs.to_token_stream(), "impl");
    let turbofish =
        (!generic_args.is_empty() && !impl_trait).then(|| quote!(::<#(#generic_args),*>));
    let callee = &target.ident;
    let doc = format!("`{callee}`, reached through the function's own name.");
    quote! {
        #[doc = #doc]
        #[inline(always)]
        #[allow(non_snake_case, clippy::all)]
        #vis #sig { #callee #turbofish (#(#args),*) }
    }
}

/// Stubs emitted when a function has errors, so that its callers do not get cascades.
pub fn stubs(
    attrs: &[syn::Attribute],
    vis: &syn::Visibility,
    sig: &syn::Signature,
    inverse: &syn::Ident,
) -> TokenStream {
    let mut inv_sig = sig.clone();
    inv_sig.ident = inverse.clone();
    quote! {
        #(#attrs)*
        #[allow(unused_variables)]
        #vis #sig { ::core::unimplemented!("this reversible function did not compile") }
        #[allow(unused_variables)]
        #vis #inv_sig { ::core::unimplemented!("this reversible function did not compile") }
    }
}
