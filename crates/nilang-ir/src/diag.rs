//! Diagnostics: every error of a function collected, each at the user's tokens.

use proc_macro2::Span;
use quote::ToTokens;

/// An error accumulator: collects every error instead of stopping at the first.
#[derive(Default)]
pub struct Errors(Option<syn::Error>);

impl Errors {
    /// Records an error at `span`.
    pub fn push(&mut self, span: Span, message: impl std::fmt::Display) {
        self.add(syn::Error::new(span, message));
    }

    /// Records an error covering `tokens`, from their first to their last token (a single
    /// `Span` covers only the first token on stable Rust).
    pub fn spanned(&mut self, tokens: impl ToTokens, message: impl std::fmt::Display) {
        self.add(syn::Error::new_spanned(tokens, message));
    }

    /// Records an error.
    pub fn add(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    /// `Err` with every recorded error, or `Ok(value)`.
    pub fn finish<T>(self, value: T) -> syn::Result<T> {
        match self.0 {
            Some(e) => Err(e),
            None => Ok(value),
        }
    }
}
