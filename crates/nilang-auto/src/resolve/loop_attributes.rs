//! The attributes a loop of a differentiable function may carry: `#[checkpoint]` (its memory
//! budget) and Rust's lint attributes.

use super::{err, Result};
use crate::nir;

/// The memory budget a loop's attributes ask for: `#[checkpoint]` (one level) or
/// `#[checkpoint(levels = L)]`; lint attributes (`#[allow(…)]`, …) are Rust's and left to
/// it; any other attribute is an error.
pub(super) fn checkpoint(attrs: &[syn::Attribute]) -> Result<Option<nir::Checkpoint>> {
    let lint = |a: &syn::Attribute| {
        ["allow", "warn", "deny", "expect", "forbid"]
            .iter()
            .any(|l| a.path().is_ident(l))
            || a.path()
                .segments
                .first()
                .is_some_and(|s| s.ident == "rustfmt")
    };
    let mut found = None;
    for a in attrs.iter().filter(|a| !lint(a)) {
        if !a.path().is_ident("checkpoint") {
            return err(
                a,
                "a loop in a differentiable function takes `#[checkpoint]` (or \
                 `#[checkpoint(levels = L)]`: keep the loop's state at chunk starts instead of \
                 every iteration) and Rust's lint attributes (`#[allow(…)]`), nothing else",
            );
        }
        if found.is_some() {
            return err(a, "`#[checkpoint]` is given twice");
        }
        let mut levels = 1;
        if !matches!(a.meta, syn::Meta::Path(_)) {
            a.parse_nested_meta(|meta| {
                if !meta.path.is_ident("levels") {
                    return Err(meta.error(
                        "the option of `#[checkpoint]` is `levels = L`: L levels of chunks \
                         (memory about L·n^(1/(L+1)) states for 2^L times the forward work)",
                    ));
                }
                let lit: syn::LitInt = meta.value()?.parse()?;
                levels = lit.base10_parse::<usize>()?;
                if !(1..=8).contains(&levels) {
                    return Err(syn::Error::new(
                        lit.span(),
                        "`levels` is between 1 and 8 (each level doubles the forward work)",
                    ));
                }
                Ok(())
            })?;
        }
        found = Some(nir::Checkpoint { levels });
    }
    Ok(found)
}

/// Is a loop's iterator an ascending range `a..b` or `a..=b` with both bounds?
pub(super) fn is_plain_range(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Paren(p) => is_plain_range(&p.expr),
        syn::Expr::Range(r) => r.start.is_some() && r.end.is_some(),
        _ => false,
    }
}
