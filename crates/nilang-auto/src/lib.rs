#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod emit;
mod expr;
mod names;
pub mod nir;
mod resolve;
mod signature;

pub use emit::Temporaries;
pub use names::Names;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::ext::IdentExt;

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
    let options = Options::parse(attr)?;
    let f: syn::ItemFn = syn::parse2(item)?;
    let mut names = Names::of(quote!(#f));
    let sig = signature::Signature::of(&f.sig, options.wrt.as_deref(), &mut names)?;
    let function = resolve::Resolver::function(&sig, &mut names, &f.block)?;
    let out = names.fresh("out", f.sig.ident.span());
    let body = emit::Emitter::new(&function, &sig, &mut names, options.temporaries).body(&out)?;
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

/// The options of `#[differentiable(…)]`.
#[derive(Default)]
struct Options {
    /// `wrt(a, b)`: the parameters differentiated (default: every parameter over `f64`).
    wrt: Option<Vec<syn::Ident>>,
    /// `store` (the default) or `uncompute`.
    temporaries: Temporaries,
}

impl Options {
    fn parse(attr: TokenStream) -> syn::Result<Options> {
        let mut options = Options::default();
        let mut chosen = None;
        let parser = syn::meta::parser(|meta| {
            let choice = if meta.path.is_ident("wrt") {
                let content;
                syn::parenthesized!(content in meta.input);
                let names = content.parse_terminated(syn::Ident::parse_any, syn::Token![,])?;
                options.wrt = Some(names.into_iter().collect());
                return Ok(());
            } else if meta.path.is_ident("store") {
                Temporaries::Store
            } else if meta.path.is_ident("uncompute") {
                Temporaries::Uncompute
            } else {
                return Err(meta.error(
                    "unknown option of #[differentiable]: the options are `wrt(a, b, …)` (the \
                     parameters to differentiate), `store` (save the temporaries a block \
                     cannot uncompute in place: the fastest gradient, the default) and \
                     `uncompute` (recompute them: the least memory)",
                ));
            };
            if chosen.replace(choice).is_some() {
                return Err(meta.error("choose one of `store` and `uncompute`"));
            }
            options.temporaries = choice;
            Ok(())
        });
        syn::parse::Parser::parse2(parser, attr)?;
        Ok(options)
    }
}
