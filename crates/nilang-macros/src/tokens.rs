//! Token helpers every code generator of the crate shares: the runtime's path, reads of the
//! user's expressions, and the loads and stores of operands.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};

/// The path of the runtime the generated code calls, `::nilang::__private`.
pub(crate) fn private() -> TokenStream {
    quote!(::nilang::__private)
}

/// Does a token stream hold the identifier (or keyword) `name`, at any depth?
pub(crate) fn mentions_ident(ts: TokenStream, name: &str) -> bool {
    ts.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == name,
        proc_macro2::TokenTree::Group(g) => mentions_ident(g.stream(), name),
        _ => false,
    })
}

/// An expression of the user's (an index, a condition, a range bound, an ancilla's value; not
/// an argument of a call) as code that can only read: `__private::read(|| e)` takes a closure that must be `Fn`, so an expression that
/// changes or moves a variable (`v.clear()`, `k = 2`) does not compile, with rustc's message
/// at the change. Expressions that cannot change anything (`nilang_ir::names::may_change`)
/// are left as they are. What unchecked loops rely on: no
/// expression resizes a place whose bounds they checked before the loop
/// (`nilang_ir::bounds`).
pub(crate) fn read_only(e: &syn::Expr) -> TokenStream {
    if !nilang_ir::names::may_change(e) {
        // arithmetic, indexing, fields, casts, calls of functions: nothing to guard (and no
        // closure in the way of the optimiser)
        return e.to_token_stream();
    }
    let span = syn::spanned::Spanned::span(e);
    quote_spanned!(span=> ::nilang::__private::read(|| #e))
}

/// `Accepts::load_like(&like, &value)`, spanned at an operand: an operand whose type the
/// target (`like`) does not accept is an error at the operand, naming the two types and the
/// trait (not a helper of `__private`). An empty `like` loads the value as itself.
pub(crate) fn load_call(operand: Span, like: &TokenStream, value: &TokenStream) -> TokenStream {
    let like = if like.is_empty() { value } else { like };
    quote_spanned!(operand=> ::nilang::__private::Accepts::load_like(&(#like), &(#value)))
}

/// `Accepts::store(&mut place, local)`, spanned at the operand (see [`load_call`]).
pub(crate) fn store_call(operand: Span, place: &TokenStream, local: &TokenStream) -> TokenStream {
    quote_spanned!(operand=> ::nilang::__private::Accepts::store(&mut #place, ::core::convert::identity(#local));)
}
