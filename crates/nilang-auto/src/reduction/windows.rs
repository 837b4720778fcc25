//! Bounds checks out of the search's loops: `for e in 0..n { … c[j * d + e] … }`, which reads
//! `c` at an offset the loop does not change plus the loop variable (`x[e]`: offset 0), reads
//! through a window `&c[j * d..j * d + n]` taken once before the loop instead, which the
//! compiler indexes by `e < n` without a check per element (natural kmeans: five checked loads
//! an iteration of the jammed distance loop).
//!
//! The search is plain Rust that the front end writes, in which every binding has a spelling
//! of its own (`nir`), so a name read in the loop names one binding throughout it. An offset
//! qualifies when it mentions neither the loop variable nor any name the loop body assigns or
//! declares, and the slice when the body does not assign it. Only reads every iteration makes
//! are windowed (none under a branch, in a nested loop or right of `&&`/`||`), and the window
//! is taken only when the loop runs (`n > 0`): the window fails exactly where the loop's first
//! read past the slice would.

use crate::Names;
use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use std::collections::BTreeSet;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

/// `block` with every `for v in 0..n` loop's invariant-offset reads going through windows,
/// named by `names`.
pub(super) fn windowed(mut block: syn::Expr, names: &mut Names) -> syn::Expr {
    Windows(names).visit_expr_mut(&mut block);
    block
}

struct Windows<'n>(&'n mut Names);

impl VisitMut for Windows<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        // inner loops first: their windows are then names the outer body declares
        syn::visit_mut::visit_expr_mut(self, e);
        if let syn::Expr::ForLoop(f) = e {
            if let Some(windowed) = windowed_loop(f, self.0) {
                *e = windowed;
            }
        }
    }
}

/// The loop with its windows, if it is `for v in 0..n` and reads through any.
fn windowed_loop(f: &syn::ExprForLoop, names: &mut Names) -> Option<syn::Expr> {
    let syn::Pat::Ident(v) = &*f.pat else {
        return None;
    };
    let v = &v.ident;
    let syn::Expr::Range(syn::ExprRange {
        start: Some(start),
        limits: syn::RangeLimits::HalfOpen(_),
        end: Some(n),
        ..
    }) = &*f.expr
    else {
        return None;
    };
    if !is_zero(start) {
        return None;
    }
    let changed = changed_in(&f.body, v);
    if mentions_any(n, &changed) {
        return None;
    }
    let mut reads = Reads {
        v,
        changed: &changed,
        windows: Vec::new(),
        names,
    };
    let mut body = f.body.clone();
    reads.visit_block_mut(&mut body);
    if reads.windows.is_empty() {
        return None;
    }
    let len = reads.names.fresh("window_len", Span::call_site());
    let lets = reads.windows.iter().map(|(root, offset, name)| {
        quote!(let #name = &#root[if #len == 0 { 0..0 } else { (#offset)..(#offset) + #len }];)
    });
    let (attrs, label) = (&f.attrs, &f.label);
    Some(syn::parse_quote!({
        let #len = #n;
        #(#lets)*
        #(#attrs)* #label for #v in 0..#len #body
    }))
}

/// The loop's reads `root[offset + v]` (or `root[v + offset]`), each replaced by
/// `window[v]`; `windows` holds each distinct (root, offset) and its window's name.
struct Reads<'a> {
    v: &'a syn::Ident,
    changed: &'a BTreeSet<String>,
    windows: Vec<(syn::Ident, TokenStream, syn::Ident)>,
    names: &'a mut Names,
}

impl VisitMut for Reads<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if conditional(e) {
            // a read the loop may skip (a branch, a nested loop that may not run, the right of
            // `&&`): a window taken up front could fail where the loop does not
            return;
        }
        syn::visit_mut::visit_expr_mut(self, e);
        let syn::Expr::Index(ix) = e else {
            return;
        };
        let Some(root) = single_ident(&ix.expr) else {
            return;
        };
        if *root == *self.v || self.changed.contains(&root.to_string()) {
            return;
        }
        let Some(offset) = offset_of(&ix.index, self.v) else {
            return;
        };
        if mentions_any(&offset, self.changed) || mentions(&offset, self.v) {
            return;
        }
        let (root, offset) = (root.clone(), offset.to_token_stream());
        let text = (root.to_string(), offset.to_string());
        let name = match self
            .windows
            .iter()
            .find(|(r, o, _)| (r.to_string(), o.to_string()) == text)
        {
            Some((.., name)) => name.clone(),
            None => {
                let name = self.names.fresh("window", Span::call_site());
                self.windows.push((root, offset, name.clone()));
                name
            }
        };
        let v = self.v;
        *e = syn::parse_quote!(#name[#v]);
    }
}

/// Whether `e` runs its parts only under a condition.
fn conditional(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::If(_)
        | syn::Expr::While(_)
        | syn::Expr::ForLoop(_)
        | syn::Expr::Loop(_)
        | syn::Expr::Match(_)
        | syn::Expr::Closure(_) => true,
        syn::Expr::Binary(b) => matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)),
        _ => false,
    }
}

/// `offset` of an index `offset + v` or `v + offset`, `0` for `v` itself (parentheses around
/// the whole allowed).
fn offset_of(index: &syn::Expr, v: &syn::Ident) -> Option<syn::Expr> {
    match index {
        _ if single_ident(index) == Some(v) => Some(syn::parse_quote!(0)),
        syn::Expr::Paren(p) => offset_of(&p.expr, v),
        syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::Add(_)) => {
            if single_ident(&b.right) == Some(v) {
                Some((*b.left).clone())
            } else if single_ident(&b.left) == Some(v) {
                Some((*b.right).clone())
            } else {
                None
            }
        }
        _ => None,
    }
}

fn single_ident(e: &syn::Expr) -> Option<&syn::Ident> {
    match e {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        _ => None,
    }
}

fn is_zero(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. })
        if i.base10_digits() == "0")
}

/// The names the body assigns (`x = …`, `x += …`, `x[i] = …`) or declares (`let`, loops),
/// and the loop variable.
fn changed_in(body: &syn::Block, v: &syn::Ident) -> BTreeSet<String> {
    struct Changed(BTreeSet<String>);
    impl<'ast> Visit<'ast> for Changed {
        fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
            self.0.extend(root_name(&a.left));
            syn::visit::visit_expr_assign(self, a);
        }
        fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
            use syn::BinOp::*;
            if matches!(
                b.op,
                AddAssign(_)
                    | SubAssign(_)
                    | MulAssign(_)
                    | DivAssign(_)
                    | RemAssign(_)
                    | BitXorAssign(_)
                    | BitAndAssign(_)
                    | BitOrAssign(_)
                    | ShlAssign(_)
                    | ShrAssign(_)
            ) {
                self.0.extend(root_name(&b.left));
            }
            syn::visit::visit_expr_binary(self, b);
        }
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.insert(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut c = Changed(BTreeSet::from([v.to_string()]));
    c.visit_block(body);
    c.0
}

/// The variable at the root of a place (`x`, `x[i]`, `x.f`, `(x)`).
fn root_name(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Index(i) => root_name(&i.expr),
        syn::Expr::Field(f) => root_name(&f.base),
        syn::Expr::Paren(p) => root_name(&p.expr),
        syn::Expr::Unary(u) => root_name(&u.expr),
        _ => single_ident(e).map(|i| i.to_string()),
    }
}

fn mentions(e: &syn::Expr, name: &syn::Ident) -> bool {
    mentions_any(e, &BTreeSet::from([name.to_string()]))
}

/// Whether `e` mentions any of `names` (or any macro, whose tokens this cannot see into).
fn mentions_any(e: &syn::Expr, names: &BTreeSet<String>) -> bool {
    struct Finds<'n>(&'n BTreeSet<String>, bool);
    impl<'ast> Visit<'ast> for Finds<'_> {
        fn visit_ident(&mut self, i: &'ast syn::Ident) {
            self.1 |= self.0.contains(&i.to_string());
        }
        fn visit_macro(&mut self, _: &'ast syn::Macro) {
            self.1 = true;
        }
    }
    let mut f = Finds(names, false);
    f.visit_expr(e);
    f.1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(e: &syn::Expr) -> String {
        e.to_token_stream().to_string().replace(' ', "")
    }

    #[test]
    fn invariant_offsets_read_through_windows() {
        let e: syn::Expr = syn::parse_quote!({
            for e in 0..d {
                let diff: f64 = c[j * d + e] - p[e + i * d];
                dist += diff * diff;
            }
        });
        let out = text(&windowed(e, &mut Names::of(TokenStream::new())));
        assert!(out.contains("letwindow_len_1=d;"), "{out}");
        let window = "letwindow_1=&c[ifwindow_len_1==0{0..0}else{(j*d)..(j*d)+window_len_1}];";
        assert!(out.contains(window), "{out}");
        assert!(out.contains("forein0..window_len_1"), "{out}");
        assert!(out.contains("window_1[e]-window_2[e]"), "{out}");
        // an index that is the loop variable itself: offset 0
        let e: syn::Expr = syn::parse_quote!({
            for e in 0..d {
                s += x[e];
            }
        });
        let out = text(&windowed(e, &mut Names::of(TokenStream::new())));
        assert!(out.contains("else{(0)..(0)+window_len_1}"), "{out}");
        assert!(out.contains("s+=window_1[e];"), "{out}");
    }

    #[test]
    fn offsets_or_slices_the_loop_changes_are_left_alone() {
        for e in [
            // the offset reads a name the body assigns
            syn::parse_quote!({
                for e in 0..d {
                    s += c[j + e];
                    j += 1;
                }
            }),
            // the slice is written
            syn::parse_quote!({
                for e in 0..d {
                    c[k + e] = 1.0;
                }
            }),
            // a range that does not start at 0, and an offset read of the variable itself
            syn::parse_quote!({
                for e in 1..d {
                    s += c[k + e];
                }
            }),
            syn::parse_quote!({
                for e in 0..d {
                    s += c[e * 2 + e];
                }
            }),
        ] {
            let before = text(&e);
            assert_eq!(
                text(&windowed(e, &mut Names::of(TokenStream::new()))),
                before
            );
        }
    }
}
