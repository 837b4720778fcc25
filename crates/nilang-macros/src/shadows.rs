//! What the adjoint programs' shadow mode needs to know about a function beyond its IR: its
//! scalar type, the gradient type of one scalar where the code runs, and which read-only
//! parameters and ancillas carry scalars or gradients ([`Shadows`]). The code generator holds
//! one while it generates an adjoint program (`crate::adjoint`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};

/// What shadow mode needs to know about the function beyond its IR.
#[derive(Clone, Debug, Default)]
pub struct Shadows {
    /// The scalar type parameter (`T`), when there is one.
    pub scalar: Option<syn::Ident>,
    /// The type of one scalar's gradient where the code runs: the adjoint programs' type
    /// parameter `__G`, the scalar type itself in `f_grad`, `()` without a scalar type.
    pub lane: Option<TokenStream>,
    /// Read-only parameters whose type holds the scalar type: their scalars enter
    /// instructions as constants of the pair type (`GVar` with a zero gradient).
    pub scalar_readonly: Vec<String>,
    /// The ancillas that get a shadow (`nilang_ir::Analyzed::with_gradients`).
    pub with_gradients: std::collections::BTreeSet<String>,
}

/// The gradient type parameter of the adjoint programs of a function with a scalar type: the
/// type of one scalar's gradient (`T`, or `Lanes<T, N>` for several losses at once).
pub fn lane_param() -> syn::Ident {
    format_ident!("__G")
}

impl Shadows {
    /// The gradient type of one scalar, as the turbofish argument of the shadow helpers
    /// (`()` when the function has no scalar type: its values carry no gradient).
    pub(crate) fn lane(&self) -> TokenStream {
        self.lane.clone().unwrap_or_else(|| quote!(()))
    }

    /// Does an expression name the scalar type (`T::lit(2.0)`): is its value a scalar?
    pub(crate) fn names_scalar(&self, e: &syn::Expr) -> bool {
        fn walk(ts: TokenStream, id: &syn::Ident) -> bool {
            ts.into_iter().any(|t| match t {
                proc_macro2::TokenTree::Ident(i) => &i == id,
                proc_macro2::TokenTree::Group(g) => walk(g.stream(), id),
                _ => false,
            })
        }
        self.scalar
            .as_ref()
            .is_some_and(|id| walk(e.to_token_stream(), id))
    }
}
