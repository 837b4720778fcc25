#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod activity;
pub mod adjoint;
pub mod adjoint_view;
pub mod analyzed;
pub mod ast;
pub mod bounds;
pub mod broadcast;
pub mod check;
pub mod companions;
pub mod constructors;
pub mod dead_values;
mod deep;
pub mod diag;
pub mod dropped;
pub mod effects;
pub mod fn_params;
pub mod local_vectors;
pub mod lower;
pub mod mapfoldl;
pub mod names;
pub mod options;
pub mod parallel;
pub mod parse;
pub mod partials;
pub mod print;
pub mod reverse;
pub mod scope;
pub mod split;
pub mod text;
pub mod zeros;

pub use analyzed::Analyzed;
pub use ast::Function;
pub use deep::{on_deep_stack, DEEP_STACK};
pub use lower::{lower, lower_method};
pub use options::Options;

/// Is this attribute the `#[i]` attribute (`#[i]`, `#[i(...)]`, `#[nilang::i]`)?
pub fn is_reversible_attr(attr: &syn::Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .map(|s| s.ident == "i")
        .unwrap_or(false)
}

fn options_of(attr: &syn::Attribute) -> syn::Result<Options> {
    match &attr.meta {
        syn::Meta::Path(_) => Ok(Options::default()),
        syn::Meta::List(l) => Options::parse(l.tokens.clone()),
        syn::Meta::NameValue(nv) => Err(syn::Error::new_spanned(
            nv,
            "write `#[i]` or `#[i(options)]`",
        )),
    }
}

/// Parses, checks and analyses every reversible function of a Rust source file (free
/// functions and methods in `impl` blocks marked `#[i]`).
pub fn parse_file(src: &str) -> syn::Result<Vec<Analyzed>> {
    let file: syn::File = syn::parse_file(src)?;
    let mut out = Vec::new();
    let mut errors = diag::Errors::default();
    collect(&file.items, &mut out, &mut errors);
    errors.finish(out)
}

fn collect(items: &[syn::Item], out: &mut Vec<Analyzed>, errors: &mut diag::Errors) {
    for item in items {
        match item {
            syn::Item::Fn(f) => {
                if let Some(pos) = f.attrs.iter().position(is_reversible_attr) {
                    let mut f = f.clone();
                    let attr = f.attrs.remove(pos);
                    match options_of(&attr).and_then(|o| lower(&o, f)) {
                        Ok(func) => out.push(func),
                        Err(e) => errors.add(e),
                    }
                }
            }
            syn::Item::Impl(imp) => {
                let whole = imp.attrs.iter().find(|a| is_reversible_attr(a));
                for it in &imp.items {
                    if let syn::ImplItem::Fn(m) = it {
                        let own = m.attrs.iter().position(is_reversible_attr);
                        let attr = match (own, whole) {
                            (Some(p), _) => Some(m.attrs[p].clone()),
                            (None, Some(a)) => Some(a.clone()),
                            (None, None) => None,
                        };
                        if let Some(attr) = attr {
                            let mut m = m.clone();
                            m.attrs.retain(|a| !is_reversible_attr(a));
                            match options_of(&attr).and_then(|o| lower_method(&o, m)) {
                                Ok(func) => out.push(func),
                                Err(e) => errors.add(e),
                            }
                        }
                    }
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    collect(items, out, errors);
                }
            }
            _ => {}
        }
    }
}

/// The papers' `macroexpand`: for every reversible function in `src`, its forward program,
/// its inverse program and its adjoint program, in the language's own syntax.
///
/// It runs on a stack of its own ([`on_deep_stack`]), so that deeply nested sources (hundreds
/// of nested `if`s, products of thousands of factors) do not overflow the caller's.
pub fn expand_source(src: &str) -> Result<String, String> {
    on_deep_stack(|| expand_source_here(src))
}

/// [`expand_source`] on the caller's stack.
fn expand_source_here(src: &str) -> Result<String, String> {
    let functions = parse_file(src).map_err(|e| {
        let start = e.span().start();
        format!(
            "error at line {}, column {}: {e}",
            start.line,
            start.column + 1
        )
    })?;
    if functions.is_empty() {
        return Err("no reversible function (marked `#[i]`) in this file".to_string());
    }
    Ok(functions
        .iter()
        .map(|f| {
            format!(
                "{}\n{}",
                reverse::function_text(f),
                adjoint_view::adjoint_text(f)
            )
        })
        .collect::<Vec<_>>()
        .join("\n"))
}
