//! The index forms of a parallel loop's places: an owned slot `s*i + o` of the loop variable
//! `i` ([`Slot`]), a sub-slice's end, and the small expression helpers they need.

use super::*;

/// An index that is an owned slot: `stride * i + offset`.
pub(super) struct Slot {
    pub(super) stride: Option<Expr>,
    pub(super) offset: Option<Expr>,
}

pub(super) fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

pub(super) fn is_var(e: &Expr, var: &Ident) -> bool {
    matches!(strip(e), Expr::Path(p) if p.path.is_ident(var))
}

/// The identifiers of a token stream, at any depth.
pub(super) fn idents(ts: TokenStream, out: &mut Vec<Ident>) {
    for t in ts {
        match t {
            proc_macro2::TokenTree::Ident(i) => out.push(i),
            proc_macro2::TokenTree::Group(g) => idents(g.stream(), out),
            _ => {}
        }
    }
}

pub(super) fn mentions(e: &Expr, name: &Ident) -> bool {
    let mut ids = Vec::new();
    idents(e.to_token_stream(), &mut ids);
    ids.iter().any(|i| i == name)
}

/// `s*i + o`, `i*s + o`, `o + s*i`, `i + o`, `i`; `s` and `o` do not mention `i`.
pub(super) fn slot(e: &Expr, var: &Ident) -> Option<Slot> {
    let e = strip(e);
    if is_var(e, var) {
        return Some(Slot {
            stride: None,
            offset: None,
        });
    }
    let Expr::Binary(b) = e else { return None };
    match b.op {
        syn::BinOp::Mul(_) => {
            let (l, r) = (&*b.left, &*b.right);
            let stride = if is_var(l, var) && !mentions(r, var) {
                r
            } else if is_var(r, var) && !mentions(l, var) {
                l
            } else {
                return None;
            };
            Some(Slot {
                stride: Some(stride.clone()),
                offset: None,
            })
        }
        syn::BinOp::Add(_) => {
            let (with, offset) = if mentions(&b.left, var) && !mentions(&b.right, var) {
                (&*b.left, &*b.right)
            } else if mentions(&b.right, var) && !mentions(&b.left, var) {
                (&*b.right, &*b.left)
            } else {
                return None;
            };
            let inner = slot(with, var)?;
            if inner.offset.is_some() {
                return None;
            }
            Some(Slot {
                stride: inner.stride,
                offset: Some(offset.clone()),
            })
        }
        _ => None,
    }
}

/// `s*(i+1)` or `(i+1)*s`: the end of the slot `s*i`.
pub(super) fn slot_end(e: &Expr, var: &Ident) -> Option<Expr> {
    let Expr::Binary(b) = strip(e) else {
        return None;
    };
    if !matches!(b.op, syn::BinOp::Mul(_)) {
        return None;
    }
    let next = |x: &Expr| match strip(x) {
        Expr::Binary(p) if matches!(p.op, syn::BinOp::Add(_)) => {
            is_var(&p.left, var) && expr_text(&p.right) == "1"
        }
        _ => false,
    };
    if next(&b.left) && !mentions(&b.right, var) {
        Some((*b.right).clone())
    } else if next(&b.right) && !mentions(&b.left, var) {
        Some((*b.left).clone())
    } else {
        None
    }
}

pub(super) fn one() -> Expr {
    syn::parse_quote!(1)
}

pub(super) fn zero() -> Expr {
    syn::parse_quote!(0)
}
