#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod emit;
mod expr;
mod names;
pub mod nir;
mod resolve;
mod signature;

pub use names::Names;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// What the front end makes of one ordinary function.
pub struct Translation {
    /// The reversible program `f_rev`, in the `#[i]` language (to be compiled by `#[i(expand)]`).
    pub reversible: syn::ItemFn,
    /// `f_gradient`: the value and the gradient at `f64`, through `f_rev_vjp`.
    pub gradient: TokenStream,
}

/// Translates an ordinary function (`item`) into its reversible program and gradient function.
/// The attribute's own tokens (`attr`) must be empty.
pub fn translate(attr: TokenStream, item: TokenStream) -> syn::Result<Translation> {
    if !attr.is_empty() {
        return Err(syn::Error::new_spanned(
            attr,
            "#[differentiable] takes no options",
        ));
    }
    let f: syn::ItemFn = syn::parse2(item)?;
    let mut names = Names::of(quote!(#f));
    let sig = signature::Signature::of(&f.sig, &mut names)?;
    let function = resolve::Resolver::function(&sig, &mut names, &f.block)?;
    let out = names.fresh("out", f.sig.ident.span());
    let body = emit::Emitter::new(&function, &sig, &mut names).body(&out)?;
    let rev = format_ident!("{}_rev", f.sig.ident);
    let header = sig.reversible(&rev, &out);
    let vis = &f.vis;
    let doc = format!(
        "The reversible program of [`{0}`], written by `#[differentiable]`: `{1}(out, …)` adds \
         `{0}(…)` to `out`; `{1}_inv` undoes it, `{1}_vjp` differentiates it.",
        f.sig.ident, rev
    );
    let reversible: syn::ItemFn = syn::parse2(quote! {
        #[doc = #doc]
        #[allow(clippy::too_many_arguments)]
        #vis #header { #body }
    })?;
    let gradient = sig.gradient(vis, &rev, &mut names);
    Ok(Translation {
        reversible,
        gradient,
    })
}
