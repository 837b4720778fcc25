//! The items generated beside a function's forward and inverse programs: the struct that
//! publishes its effects, the companions reached through its name, and the stubs of a
//! function that did not compile.

use crate::tokens::mentions_ident;
use proc_macro2::{Span, TokenStream};
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
        #[derive(Clone, Copy, Debug)]
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

/// `impl tr<(A₀, A₁, …)> for owner`: the trait of a reversible function as a value
/// (`nilang::Reversible`, `nilang::Adjoint`) implemented by the struct that carries the
/// function's companions, each method calling the generated function it is paired with, at
/// the generic arguments the argument tuple decides. Nothing when the signature cannot be
/// a tuple of its argument types: a receiver, a return type (an error already reported), an
/// `impl Trait` parameter, or a type or const parameter that no parameter's type names (it
/// could not be inferred from the tuple). A parameter type whose path hides a lifetime
/// parameter (`&Pattern` for `Pattern<'a>`, which a signature may elide and an `impl` header
/// may not) is rustc's error at the user's type, with its fix: `&Pattern<'_>`.
pub fn trait_impl(
    owner: &syn::Ident,
    tr: TokenStream,
    sig: &syn::Signature,
    methods: &[(&str, &syn::Ident)],
) -> TokenStream {
    let inputs = sig.inputs.to_token_stream();
    let inferred = |id: &syn::Ident| mentions_ident(inputs.clone(), &id.to_string());
    let typed: Option<Vec<syn::Type>> = sig
        .inputs
        .iter()
        .map(|i| match i {
            syn::FnArg::Typed(pt) => Some((*pt.ty).clone()),
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    let Some(mut types) = typed.filter(|_| sig.output == syn::ReturnType::Default) else {
        return TokenStream::new();
    };
    let generic_args: Option<Vec<&syn::Ident>> = sig
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(inferred(&t.ident).then_some(&t.ident)),
            syn::GenericParam::Const(c) => Some(inferred(&c.ident).then_some(&c.ident)),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    let Some(generic_args) = generic_args.filter(|_| !mentions_ident(inputs.clone(), "impl"))
    else {
        return TokenStream::new();
    };
    let mut named = Vec::new();
    types
        .iter_mut()
        .for_each(|t| nilang_ir::fn_params::fill_lifetimes_as(t, &mut named, "__a"));
    let mut generics = sig.generics.clone();
    for l in named.iter().rev() {
        generics.params.insert(0, syn::parse_quote!(#l));
    }
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let args: Vec<syn::Ident> = (0..types.len())
        .map(|k| format_ident!("__arg{}", k))
        .collect();
    let turbofish = (!generic_args.is_empty()).then(|| quote!(::<#(#generic_args),*>));
    let methods = methods.iter().map(|(method, target)| {
        let method = syn::Ident::new(method, Span::call_site());
        quote! {
            #[inline(always)]
            fn #method(&self, (#(#args,)*): (#(#types,)*)) {
                #target #turbofish (#(#args),*)
            }
        }
    });
    quote! {
        #[allow(clippy::all, non_snake_case)]
        impl #impl_generics #tr<(#(#types,)*)> for #owner #where_clause {
            #(#methods)*
        }
    }
}

/// `owner::CUDA` for a function without a C++ view: a constant whose evaluation fails with a
/// message that names the function and says `how` to give it one. An associated constant is
/// evaluated only where it is used, so only a `#[i(cuda)]` caller (or a user assembling a
/// unit) that asks for it gets the error.
pub fn no_cuda_view(owner: &syn::Ident, how: &str) -> TokenStream {
    let message = format!("`{owner}` has no C++/CUDA view: {how}");
    quote! {
        #[allow(clippy::all)]
        impl #owner {
            /// The C++/CUDA source of the function: it has none (a compile error where used).
            pub const CUDA: &'static str = ::core::panic!(#message);
        }
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
