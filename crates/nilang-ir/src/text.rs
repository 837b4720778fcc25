//! Source text of tokens and expressions, with Rust-like spacing or formatted by
//! `prettyplease`: what error messages, the printed programs and the analyses that compare
//! places by their text show.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::{quote, ToTokens};

/// Source text of a token stream with Rust-like spacing (`x[i].re += sin(y)`).
pub fn tokens_text(ts: &TokenStream) -> String {
    let mut out = String::new();
    write_tokens(ts.clone(), &mut out);
    out.trim().to_string()
}

fn write_tokens(ts: TokenStream, out: &mut String) {
    let mut prev_joint = false;
    let mut prev: Option<String> = None;
    for tt in ts {
        let text = match &tt {
            TokenTree::Group(_) => String::new(),
            other => other.to_string(),
        };
        let tight_before = matches!(
            &tt,
            TokenTree::Punct(p) if matches!(p.as_char(), '.' | ',' | ';' | ':' | '?')
        ) || matches!(&tt, TokenTree::Group(g) if matches!(g.delimiter(), Delimiter::Parenthesis | Delimiter::Bracket)
                && prev.as_deref().map(|p| p.chars().last().map(|c| c.is_alphanumeric() || c == '_' || c == ')' || c == ']' || c == '>' || c == '!').unwrap_or(false)).unwrap_or(false));
        let after_tight = matches!(
            prev.as_deref(),
            Some(".") | Some("&") | Some("!") | Some("::")
        ) || prev_joint
            || matches!(prev.as_deref(), Some("-") if out.ends_with("(-") || out.ends_with(", -") || out.ends_with("= -"));
        let is_colon_colon = matches!(&tt, TokenTree::Punct(p) if p.as_char() == ':' )
            && prev.as_deref() == Some(":");
        if !out.is_empty()
            && !tight_before
            && !after_tight
            && !is_colon_colon
            && !out.ends_with(['(', '[', ' '])
        {
            out.push(' ');
        }
        if is_colon_colon && out.ends_with(' ') {
            out.pop();
        }
        match &tt {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{ ", " }"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                write_tokens(g.stream(), out);
                if out.ends_with(' ') && close.starts_with(' ') {
                    out.pop();
                }
                out.push_str(close);
                prev = Some(close.trim().to_string());
                prev_joint = false;
            }
            TokenTree::Punct(p) => {
                out.push(p.as_char());
                prev_joint = p.spacing() == proc_macro2::Spacing::Joint;
                let mut s = p.as_char().to_string();
                if s == ":" && out.ends_with("::") {
                    s = "::".into();
                }
                prev = Some(s);
            }
            _ => {
                out.push_str(&text);
                prev = Some(text);
                prev_joint = false;
            }
        }
    }
}

/// Source text of an expression.
pub fn expr_text(e: &syn::Expr) -> String {
    pretty_stmt_text(&quote!(#e;))
        .map(|t| t.trim_end_matches(';').to_string())
        .unwrap_or_else(|| tokens_text(&e.to_token_stream()))
}

/// One statement's tokens formatted by `prettyplease`, on one line; `None` if they do not parse.
pub fn pretty_stmt_text(ts: &TokenStream) -> Option<String> {
    let file: syn::File = syn::parse2(quote!(fn __f() { #ts })).ok()?;
    let text = prettyplease::unparse(&file);
    let body: Vec<&str> = text.lines().collect();
    // drop `fn __f() {` and the closing `}`
    let inner = &body[1..body.len().saturating_sub(1)];
    Some(inner.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" "))
}

/// One-line text of a statement's tokens, formatted by `prettyplease` where they parse.
pub fn stmt_text(ts: &TokenStream) -> String {
    pretty_stmt_text(ts).unwrap_or_else(|| tokens_text(ts))
}
