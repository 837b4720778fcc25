//! `mapfoldl!(map, fold, out, x)`: NiLang's `i_mapfoldl(map, fold, out!, iter)` with a
//! reversible map and a reversible fold, both functions written in the language.
//!
//! The statement is written out as the loop it means, and parsed like any other statements:
//!
//! ```text
//! for __mapfoldl_i in 0..x.len() {
//!     let __mapfoldl_anc = (out).additive_zero();
//!     routine! { map(__mapfoldl_anc, x[__mapfoldl_i]); }
//!     fold(out, __mapfoldl_anc);
//!     uncompute!();
//!     dealloc!(__mapfoldl_anc = (out).additive_zero());
//! }
//! ```
//!
//! `map(anc, xᵢ)` puts the mapped element into a fresh zero ancilla of `out`'s type
//! (`anc += f(xᵢ)` in NiLang's form, or anything reversible that its uncall undoes), and
//! `fold(out, anc)` folds it into `out` (`out += anc`, `out *= anc` on `ULog`, …). So its
//! inverse (the reversed loop with `fold` uncalled), adjoint, checks and C++ view are those
//! of the loop; nothing here has a rule of its own. The map is a routine over a fresh
//! ancilla, so unchecked forwards and adjoints skip its uncomputation where `map` writes only
//! its first argument (`nilang_ir::adjoint`). Cost per element: `map` twice (once on values
//! only in an adjoint) and `fold` once, in every program.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Token};

/// The form, for messages.
pub const FORM: &str = "`mapfoldl!(map, fold, out, x)` folds `x` into `out` with two reversible \
                        functions, `map(anc, x[i])` and `fold(out, anc)`: e.g. \
                        `mapfoldl!(square_into, add_into, out, x);`";

/// The statements `mapfoldl!(map, fold, out, x)` stands for (see the module doc), or an
/// error at the user's tokens saying what is wrong.
pub fn expansion(mac: &syn::Macro) -> syn::Result<Vec<syn::Stmt>> {
    let args = mac
        .parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
        .map_err(|e| syn::Error::new(e.span(), FORM))?;
    let args: Vec<&Expr> = args.iter().collect();
    let [map, fold, out, x] = args[..] else {
        return Err(syn::Error::new_spanned(&mac.tokens, FORM));
    };
    for (f, what) in [(map, "map"), (fold, "fold")] {
        if !matches!(f, Expr::Path(p) if p.qself.is_none()) {
            return Err(syn::Error::new_spanned(
                f,
                format!(
                    "the {what} of `mapfoldl!` is a reversible function, by its name (a path \
                     such as `scale` or `scale::<T>`); {FORM}"
                ),
            ));
        }
    }
    let span = mac.span();
    // at the call site, as `expand!`'s zeros: a `use` with the user's span would be linted
    let zero = quote!({ use ::nilang::__private::Zeroable as _; (#out).additive_zero() });
    let tokens: TokenStream = quote_spanned! {span=>
        for __mapfoldl_i in 0..#x.len() {
            let __mapfoldl_anc = #zero;
            routine! { #map(__mapfoldl_anc, #x[__mapfoldl_i]); }
            #fold(#out, __mapfoldl_anc);
            uncompute!();
            dealloc!(__mapfoldl_anc = #zero);
        }
    };
    syn::parse::Parser::parse2(syn::Block::parse_within, tokens)
}
