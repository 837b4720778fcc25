#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod cost;
mod emit;
mod expr;
mod fill;
mod jacobian;
mod loops;
mod names;
pub mod nir;
mod reduction;
mod resolve;
mod signature;

pub use emit::Temporaries;
pub use names::Names;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::ext::IdentExt;

/// What the front end makes of one ordinary function.
pub struct Translation {
    /// The function itself, as the user wrote it but for the loop attributes the front end
    /// reads (`#[checkpoint]`), which Rust does not know, and marked `#[allow(dead_code)]`: a
    /// program that calls only `f_gradient`, or only a caller of `f`, uses `f` through what
    /// was written from it, which rustc cannot see.
    pub plain: syn::ItemFn,
    /// The reversible programs, in the `#[i]` language (to be compiled by `#[i(expand)]`):
    /// `f_rev`, and for a function with a value first `f_rev_taped`, which leaves what it
    /// saved on its caller's tapes (the program other functions' programs call).
    pub reversible: Vec<syn::ItemFn>,
    /// `f_gradient`: the value and the gradient at `f64` (the taped program and its adjoint on
    /// a tape the entry point keeps, or `f_rev_vjp` for a program that saves nothing); for a
    /// function that writes outputs also `f_jacobian`, their Jacobian.
    pub gradient: TokenStream,
}

/// Translates an ordinary function (`item`) into its reversible program and gradient function.
/// The attribute's own tokens (`attr`) must be empty.
pub fn translate(attr: TokenStream, item: TokenStream) -> syn::Result<Translation> {
    let options = Options::parse(attr)?;
    let f: syn::ItemFn = syn::parse2(item)?;
    let mut plain = without_loop_attributes(f.clone());
    plain.attrs.push(syn::parse_quote!(#[allow(dead_code)]));
    let mut names = Names::of(quote!(#f));
    let sig = signature::Signature::of(&f.sig, options.wrt.as_deref(), &mut names)?;
    let mut function = resolve::Resolver::function(&sig, &mut names, &f.block)?;
    fill::mark(&mut function.body, &function.binds);
    let out = names.fresh("out", f.sig.ident.span());
    let rev = format_ident!("{}_rev", f.sig.ident);
    let taped = emit::taped_name(&rev);
    let vis = &f.vis;
    let mut reversible = Vec::new();
    let temporaries = options.temporaries;
    macro_rules! emitter {
        () => {
            emit::Emitter::new(&function, &sig, &mut names, temporaries)
        };
    }
    let (values, decisions) = (
        names.fresh("tape", Span::call_site()),
        names.fresh("decisions", Span::call_site()),
    );
    let tapes = || emit::CallerTapes {
        values: &values,
        decisions: &decisions,
    };
    let params = sig.params.iter().map(|p| &p.ident);
    // whether the taped program of a function with a value saves on its tape (see
    // `Emitter::uses_value_tape`): its gradient then runs the sweeps on a tape kept at home
    let mut saves = false;
    let (taped_doc, taped_body, rev_body) = if sig.has_outputs() {
        let doc = format!(
            "The taped program of [`{0}`], written by `#[differentiable]`: `{1}(tape, \
             decisions, …)` writes the outputs as `{0}(…)` does and leaves what they held and \
             what it saved on the tapes, for `{1}_inv` to pop: the program a call from \
             another differentiable function runs.",
            f.sig.ident, taped
        );
        let taped_body = emitter!().taped_body(&out, tapes())?;
        (doc, taped_body, emitter!().body(&out)?)
    } else {
        let doc = format!(
            "The taped program of [`{0}`], written by `#[differentiable]`: `{1}(out, tape, \
             decisions, …)` adds `{0}(…)` to `out` and leaves what it saved on the tapes, for \
             `{1}_inv` to pop; [`{2}`] runs it on tapes of its own.",
            f.sig.ident, taped, rev
        );
        match options.temporaries {
            Temporaries::Store => {
                let mut taped_emitter = emitter!();
                let taped_body = taped_emitter.taped_body(&out, tapes())?;
                saves = taped_emitter.uses_value_tape();
                (doc, taped_body, emitter!().over_taped(&out, &taped, saves))
            }
            // `f_rev` cleans up after itself; so does a call through `f_rev_taped`
            Temporaries::Uncompute => (
                doc,
                quote!(#rev(#out, #(#params),*);),
                emitter!().body(&out)?,
            ),
        }
    };
    reversible.push(program(
        &taped_doc,
        vis,
        sig.taped(&taped, &out, tapes()),
        taped_body,
    )?);
    let doc = format!(
        "The reversible program of [`{0}`], written by `#[differentiable]`: `{1}(out, …)` adds \
         `{0}(…)` to `out`; `{1}_inv` undoes it, `{1}_vjp` differentiates it.",
        f.sig.ident, rev
    );
    reversible.push(program(&doc, vis, sig.reversible(&rev, &out), rev_body)?);
    let mut gradient = sig.gradient(vis, &rev, saves, &mut names);
    gradient.extend(sig.jacobian(vis, &rev, &mut names));
    let gradient = one_hygiene(gradient);
    Ok(Translation {
        plain,
        reversible,
        gradient,
    })
}

/// One reversible program: its documentation, visibility, signature and body.
fn program(
    doc: &str,
    vis: &syn::Visibility,
    header: TokenStream,
    body: TokenStream,
) -> syn::Result<syn::ItemFn> {
    syn::parse2(one_hygiene(quote! {
        #[doc = #doc]
        #[allow(clippy::too_many_arguments, unused_variables)]
        #vis #header { #body }
    }))
}

/// The tokens with every identifier resolved at the attribute's call site (at its own
/// location). The produced programs mix the user's identifiers with the front end's, which
/// carry other hygiene when the function is written inside a `macro_rules!` (the body's
/// identifiers resolve in the macro's context, the name given to it in the caller's): one
/// context for all of them keeps each name meaning the one binding the front end gave it.
fn one_hygiene(tokens: TokenStream) -> TokenStream {
    use proc_macro2::{Group, Span, TokenTree};
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Ident(mut i) => {
                i.set_span(Span::call_site().located_at(i.span()));
                TokenTree::Ident(i)
            }
            TokenTree::Group(g) => {
                let mut regrouped = Group::new(g.delimiter(), one_hygiene(g.stream()));
                regrouped.set_span(g.span());
                TokenTree::Group(regrouped)
            }
            other => other,
        })
        .collect()
}

/// The function with the attributes the front end reads on its loops (`#[checkpoint]`)
/// removed: what remains is plain Rust. An item that is not a function is returned as is.
pub fn plain(item: TokenStream) -> TokenStream {
    match syn::parse2::<syn::ItemFn>(item.clone()) {
        Ok(f) => without_loop_attributes(f).to_token_stream(),
        Err(_) => item,
    }
}

fn without_loop_attributes(mut f: syn::ItemFn) -> syn::ItemFn {
    struct Strip;
    impl syn::visit_mut::VisitMut for Strip {
        fn visit_expr_for_loop_mut(&mut self, l: &mut syn::ExprForLoop) {
            l.attrs.retain(|a| !a.path().is_ident("checkpoint"));
            syn::visit_mut::visit_expr_for_loop_mut(self, l);
        }
    }
    syn::visit_mut::VisitMut::visit_item_fn_mut(&mut Strip, &mut f);
    f
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
