//! Reversible constructors and destructors (the papers' appendix "Reversible Constructors";
//! NiLang's `x ← new(x, g)`): their two spellings and the tokens they generate.
//!
//! - `let z = new!(Complex { re: a, im: b });` (or a tuple, `let t = new!((a, b));`) builds
//!   the ancilla `z` from the ancillas `a` and `b` and consumes them: they cannot be used
//!   afterwards (`nilang_ir::check`).
//! - `let Complex { re: a, im: b } = fields!(z);` (or `let (a, b) = fields!(t);`) takes `z`
//!   apart into new ancillas and consumes `z`.
//!
//! Each is the other's inverse ([`crate::reverse`]). Both only move values, so they are exact
//! on every number type and need no runtime check. The macros mark the consuming forms: a plain
//! `let z = Complex { re: a, im: b };` stays an ancilla allocation that copies.

use crate::ast::{Fields, Part, Shape};
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::{Expr, Ident, Member, Pat};

/// A parsed constructor or destructor: the statement, as far as it could be read (fields
/// that are malformed are left out, so that later statements are checked without cascading
/// errors), and the errors found.
pub struct Parsed {
    /// The statement, unless its value or pattern could not be read at all.
    pub fields: Option<Fields>,
    /// The errors, combined.
    pub errors: Option<syn::Error>,
}

impl Parsed {
    fn failed(e: syn::Error) -> Parsed {
        Parsed {
            fields: None,
            errors: Some(e),
        }
    }
}

fn add_error(errors: &mut Option<syn::Error>, e: syn::Error) {
    match errors {
        Some(all) => all.combine(e),
        None => *errors = Some(e),
    }
}

/// Parses `let pat = new!(…)` or `let pat = fields!(…)`: `None` when `init` is neither macro.
pub fn parse_fields(pat: &Pat, init: &Expr) -> Option<Parsed> {
    let Expr::Macro(m) = init else {
        return None;
    };
    let name = m.mac.path.get_ident()?.to_string();
    match name.as_str() {
        "new" => Some(constructor(pat, &m.mac)),
        "fields" => Some(destructor(pat, &m.mac)),
        _ => None,
    }
}

const NEW_FORM: &str = "`new!` takes a struct literal or a tuple of ancillas, which it consumes: \
                        `let z = new!(Complex { re: a, im: b });` or `let t = new!((a, b));`";
const FIELDS_FORM: &str = "`fields!` takes a struct or tuple apart into new ancillas: \
                           `let Complex { re: a, im: b } = fields!(z);` or \
                           `let (a, b) = fields!(t);`";

fn constructor(pat: &Pat, mac: &syn::Macro) -> Parsed {
    let whole = match pat {
        Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => pi.ident.clone(),
        other => {
            return Parsed::failed(syn::Error::new_spanned(
                other,
                "a value built by `new!` is one name: `let z = new!(…);` (the struct literal \
                 gives its type)",
            ))
        }
    };
    let body: Expr = match mac.parse_body() {
        Ok(b) => b,
        Err(e) => return Parsed::failed(syn::Error::new(e.span(), NEW_FORM)),
    };
    let mut errors = None;
    let (shape, fields): (Shape, Vec<(Member, &Expr)>) = match &body {
        Expr::Struct(s) if s.qself.is_none() => {
            if let Some(dots) = &s.dot2_token {
                add_error(
                    &mut errors,
                    syn::Error::new_spanned(
                        dots,
                        "`new!` builds a value from its fields alone: `..` would copy the other \
                         fields from a value that stays alive, which is not a constructor",
                    ),
                );
            }
            let fields = s.fields.iter().map(|f| (f.member.clone(), &f.expr));
            (Shape::Struct(s.path.clone()), fields.collect())
        }
        Expr::Tuple(t) => (Shape::Tuple, numbered(t.elems.iter())),
        other => return Parsed::failed(syn::Error::new_spanned(other, NEW_FORM)),
    };
    let mut parts = Vec::new();
    for (member, e) in fields {
        match e {
            Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                parts.push(Part {
                    member,
                    var: p.path.get_ident().unwrap().clone(),
                })
            }
            other => add_error(
                &mut errors,
                syn::Error::new_spanned(
                    other,
                    format!(
                        "each field of `new!` is an ancilla, which it consumes: compute `{}` into \
                         an ancilla first (`let f = …;`) and write its name here",
                        crate::text::expr_text(other)
                    ),
                ),
            ),
        }
    }
    finish(whole, shape, parts, true, errors, &body)
}

fn destructor(pat: &Pat, mac: &syn::Macro) -> Parsed {
    let whole: Ident = match mac.parse_body() {
        Ok(w) => w,
        Err(e) => return Parsed::failed(syn::Error::new(e.span(), FIELDS_FORM)),
    };
    let mut errors = None;
    let (shape, fields): (Shape, Vec<(Member, &Pat)>) = match pat {
        Pat::Struct(s) if s.qself.is_none() => {
            if let Some(rest) = &s.rest {
                add_error(
                    &mut errors,
                    syn::Error::new_spanned(
                        rest,
                        "`fields!` takes every field out: name each one (`..` would drop \
                         fields, which is not reversible)",
                    ),
                );
            }
            let fields = s.fields.iter().map(|f| (f.member.clone(), &*f.pat));
            (Shape::Struct(s.path.clone()), fields.collect())
        }
        Pat::Tuple(t) => (Shape::Tuple, numbered(t.elems.iter())),
        other => return Parsed::failed(syn::Error::new_spanned(other, FIELDS_FORM)),
    };
    let mut parts: Vec<Part> = Vec::new();
    for (member, p) in fields {
        let error = match p {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                let var = pi.ident.clone();
                if !parts.iter().any(|q| q.var == var) {
                    parts.push(Part { member, var });
                    continue;
                }
                syn::Error::new_spanned(
                    &var,
                    format!("`{var}` names two fields: give each field its own ancilla"),
                )
            }
            other => syn::Error::new_spanned(
                other,
                "each field taken out by `fields!` becomes an ancilla: write a name here",
            ),
        };
        add_error(&mut errors, error);
    }
    finish(whole, shape, parts, false, errors, pat)
}

/// A tuple's elements with their fields `.0`, `.1`, ….
fn numbered<'a, X>(elems: impl Iterator<Item = &'a X>) -> Vec<(Member, &'a X)> {
    elems
        .enumerate()
        .map(|(i, e)| (Member::from(i), e))
        .collect()
}

fn finish(
    whole: Ident,
    shape: Shape,
    parts: Vec<Part>,
    construct: bool,
    mut errors: Option<syn::Error>,
    at: &dyn ToTokens,
) -> Parsed {
    if parts.is_empty() && errors.is_none() {
        add_error(
            &mut errors,
            syn::Error::new_spanned(at, "a reversible constructor needs at least one field"),
        );
    }
    Parsed {
        fields: Some(Fields {
            whole,
            shape,
            parts,
            construct,
        }),
        errors,
    }
}

/// The value built from the parts, each part written by `var`: `Complex { re: a, im: b }` or
/// `(a, b)`; the same tokens are the pattern that takes it apart (`var` gives `mut a` there). With `bare_path`, the struct's path loses its generic arguments (the gradient of
/// a `Point::<T>` is a `Point` of the gradient type).
pub fn build_tokens(
    f: &Fields,
    var: &dyn Fn(&Ident) -> TokenStream,
    bare_path: bool,
) -> TokenStream {
    let vars = f.parts.iter().map(|p| var(&p.var));
    match &f.shape {
        Shape::Struct(path) => {
            let path = if bare_path {
                without_generics(path)
            } else {
                path.clone()
            };
            let members = f.parts.iter().map(|p| &p.member);
            quote!(#path { #(#members: #vars),* })
        }
        Shape::Tuple if f.parts.len() == 1 => quote!((#(#vars,)*)),
        Shape::Tuple => quote!((#(#vars),*)),
    }
}

fn without_generics(path: &syn::Path) -> syn::Path {
    let mut path = path.clone();
    for s in &mut path.segments {
        s.arguments = syn::PathArguments::None;
    }
    path
}

/// The statement as source text, for messages: `let z = new!(Complex { re: a, im: b });`.
pub fn fields_text(f: &Fields) -> String {
    let parts: Vec<String> = f
        .parts
        .iter()
        .map(|p| match &f.shape {
            Shape::Struct(_) => format!("{}: {}", member_text(&p.member), p.var),
            Shape::Tuple => p.var.to_string(),
        })
        .collect();
    let value = match &f.shape {
        Shape::Struct(path) => format!(
            "{} {{ {} }}",
            crate::text::tokens_text(&path.to_token_stream()),
            parts.join(", ")
        ),
        Shape::Tuple if parts.len() == 1 => format!("({},)", parts[0]),
        Shape::Tuple => format!("({})", parts.join(", ")),
    };
    let whole = &f.whole;
    if f.construct {
        format!("let {whole} = new!({value});")
    } else {
        format!("let {value} = fields!({whole});")
    }
}

/// A field's name as written: `re`, `0`.
pub fn member_text(m: &Member) -> String {
    match m {
        Member::Named(n) => n.to_string(),
        Member::Unnamed(i) => i.index.to_string(),
    }
}

/// The statement as the language writes it: `let z = new!(…);` or `let … = fields!(z);`.
pub fn fields_text_tokens(f: &Fields) -> TokenStream {
    let whole = &f.whole;
    let plain = |v: &Ident| v.to_token_stream();
    if f.construct {
        let value = build_tokens(f, &plain, false);
        quote!(let #whole = new!(#value);)
    } else {
        let pat = build_tokens(f, &plain, false);
        quote!(let #pat = fields!(#whole);)
    }
}
