//! Reductions by `min` or `max` over a loop: searched on values, differentiated once.
//!
//! A loop whose only effect outside its body is folding a value into one variable by `min`
//! (or `max`),
//!
//! ```text
//! for j in R { S; best = best.min(x); }
//! ```
//!
//! sends its whole gradient to one iteration, the one whose `x` was chosen. Reversed as
//! written, every iteration's `S` runs on values and gradients and `best` is saved at each
//! one. Instead the front end finds the iteration on values alone — `S` and `x` as plain Rust
//! over `f64`, the position of the first smallest `x` ([`Reduction::search`]) — and runs the
//! body for that iteration only:
//!
//! ```text
//! let pos = { search };  // iterations before the chosen one (usize::MAX: none)
//! if pos != usize::MAX { for j in lo + pos..lo + pos + 1 { S; best = best.min(x); } }
//! ```
//!
//! over `R = lo..hi`, without passing over the other iterations; over the elements of a vector
//! (`for v in x.iter()`) the hidden index is the position itself (`lo = 0`). Any other range
//! (`(a..b).rev()`, `.step_by(k)`) keeps a count: `for j in R { if count == pos { … } count +=
//! 1; }`.
//!
//! `min` returns one of its operands, so folding the chosen `x` alone gives `best` the same
//! value as folding every `x`; an `x` that is NaN is never chosen, as `f64::min` ignores it.
//! The expert kmeans program searches the nearest centroid the same way, by hand.

use crate::expr::Typing;
use crate::nir::{self, Expr, Function, Id, Init, Op, Stmt, StmtKind, Ty};
use crate::signature::Signature;
use crate::Names;
use std::collections::BTreeSet;
mod columns;
mod jam;
mod windows;

use proc_macro2::{Span, TokenStream};
use quote::quote;

/// A loop recognised as a reduction: the statements before the fold and the folded value.
pub struct Reduction<'a> {
    /// `S`: the statements that compute the value.
    pub prefix: &'a [Stmt],
    /// `x`, as the reversible language spells it.
    pub value: syn::Expr,
    /// `max` (else `min`).
    pub larger: bool,
}

impl<'a> Reduction<'a> {
    /// The reduction a loop's body makes, if it is one: it ends with `best = min(best, x)` (or
    /// `max`, either operand order) of a real variable from outside, and before that only
    /// computes its own temporaries, reading neither `best` nor calling other functions.
    pub fn of(f: &Function, sig: &Signature, body: &'a [Stmt]) -> Option<Reduction<'a>> {
        let (last, prefix) = body.split_last()?;
        let (place, larger, x) = match &last.kind {
            // `if x < best { best = x; }` (or `best > x`; `>` for a maximum)
            StmtKind::If { cond, then, els } if els.is_empty() => {
                let [Stmt {
                    kind:
                        StmtKind::Assign {
                            place,
                            op: Op::Set,
                            value,
                        },
                    ..
                }] = then.as_slice()
                else {
                    return None;
                };
                (
                    place,
                    improves(f, sig, place.root, cond, value)?,
                    value.syn.clone(),
                )
            }
            // `best = best.min(x)`
            StmtKind::Assign {
                place,
                op: Op::Set,
                value,
            } => {
                let (larger, x) = folded(f, place.root, value)?;
                (place, larger, x)
            }
            _ => return None,
        };
        let best = place.root;
        if place.index.is_some()
            || f.binds[best].ty != Ty::Real
            || mentions(&x, &f.binds[best].name)
        {
            return None;
        }
        let written = nir::written(prefix);
        let own = nir::declared(prefix);
        let self_contained = written.is_subset(&own)
            && !nir::read(prefix).contains(&best)
            && !written.contains(&best)
            && prefix.iter().all(plain_renderable);
        self_contained.then_some(Reduction {
            prefix,
            value: x,
            larger,
        })
    }

    /// The search, a plain Rust block: the position (iterations before it) of the first
    /// iteration whose value is the smallest (largest), `usize::MAX` when none is (an empty
    /// range, or every value NaN). Four iterations at a time where that applies
    /// ([`jam`](self::jam)), up to sixteen on a transposed table where that does
    /// ([`columns`](self::columns)) when `fixed`, the bindings that hold one value for the
    /// whole call, is given. Also the table the function must declare for it, if any.
    pub fn search(
        &self,
        t: Typing,
        names: &mut Names,
        (var, range): (Id, &nir::Range),
        fixed: Option<&BTreeSet<Id>>,
    ) -> (syn::Expr, Option<syn::Ident>) {
        let span = Span::call_site();
        let (pos, chosen, k, x) = (
            names.fresh("pos", span),
            names.fresh("chosen", span),
            names.fresh("k", span),
            names.fresh("x", span),
        );
        let larger = self.larger;
        let better = |x: &syn::Ident| {
            if larger {
                quote!(#x > #chosen)
            } else {
                quote!(#x < #chosen)
            }
        };
        let compare = |x: &syn::Ident| {
            let better = better(x);
            quote!(
                if #better || (#pos == usize::MAX && !#x.is_nan()) {
                    #pos = #k;
                    #chosen = #x;
                }
            )
        };
        let improve = |x: &syn::Ident| {
            let better = better(x);
            quote!(if #better { #pos = #k; #chosen = #x; })
        };
        let prefix = plain_stmts(t, self.prefix);
        let value = crate::expr::plain(t, self.value.clone());
        let compare_x = compare(&x);
        let plain_iteration = quote!(
            #prefix
            let #x: f64 = #value;
            #compare_x
            #k += 1;
        );
        let pieces = jam::Search {
            pos: &pos,
            chosen: &chosen,
            k: &k,
            improve: &improve,
            worst: if larger {
                quote!(f64::NEG_INFINITY)
            } else {
                quote!(f64::INFINITY)
            },
            plain_iteration,
        };
        if let Some(jammed) = self.jammed_search(t, names, (var, range), &pieces, fixed) {
            return (windows::windowed(jammed.block, names), jammed.table);
        }
        let (var, plain, range) = (&t.binds[var].name, &pieces.plain_iteration, &range.syn);
        let block = syn::parse_quote!({
            let mut #pos = usize::MAX;
            let mut #chosen = 0.0f64;
            let mut #k = 0usize;
            for #var in #range {
                #plain
            }
            #pos
        });
        (windows::windowed(block, names), None)
    }
}

/// `min(best, x)` or `max(x, best)`…: whether it is `max`, and `x`, which must not read `best`.
fn folded(f: &Function, best: Id, value: &Expr) -> Option<(bool, syn::Expr)> {
    let syn::Expr::Call(c) = &value.syn else {
        return None;
    };
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    let larger = match p.path.get_ident()?.to_string().as_str() {
        "max" => true,
        "min" => false,
        _ => return None,
    };
    let [a, b] = [c.args.first()?, c.args.last()?];
    if c.args.len() != 2 {
        return None;
    }
    let name = &f.binds[best].name;
    let is_best = |e: &syn::Expr| matches!(e, syn::Expr::Path(p) if p.path.is_ident(name));
    let x = match (is_best(a), is_best(b)) {
        (true, false) => b,
        (false, true) => a,
        _ => return None,
    };
    (!mentions(x, name)).then(|| (larger, x.clone()))
}

/// `x < best` or `best > x` (`Some(false)`: a minimum), `x > best` or `best < x`
/// (`Some(true)`), where `x` is the value then assigned to `best`. Only strict comparisons:
/// the first of equal values is kept, as the search keeps it.
fn improves(f: &Function, sig: &Signature, best: Id, cond: &Expr, value: &Expr) -> Option<bool> {
    let syn::Expr::Binary(b) = &cond.syn else {
        return None;
    };
    let less = match b.op {
        syn::BinOp::Lt(_) => true,
        syn::BinOp::Gt(_) => false,
        _ => return None,
    };
    let t = Typing {
        binds: &f.binds,
        sig,
    };
    let name = &f.binds[best].name;
    let best_value = crate::expr::plain(t, syn::parse_quote!(#name));
    let x_value = crate::expr::plain(t, value.syn.clone());
    match (
        *b.left == x_value,
        *b.right == best_value,
        *b.left == best_value,
        *b.right == x_value,
    ) {
        (true, true, _, _) => Some(!less),
        (_, _, true, true) => Some(less),
        _ => None,
    }
}

/// Does the expression name `ident` anywhere?
fn mentions(e: &syn::Expr, ident: &syn::Ident) -> bool {
    struct Finder<'a>(&'a syn::Ident, bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder<'_> {
        fn visit_ident(&mut self, i: &'ast syn::Ident) {
            self.1 |= i == self.0;
        }
    }
    let mut finder = Finder(ident, false);
    syn::visit::Visit::visit_expr(&mut finder, e);
    finder.1
}

/// Can the statement (and everything in it) run as plain Rust over values: no call of another
/// differentiable function, no checkpointed loop, no vector computed other than from zeros?
fn plain_renderable(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Let { init, .. } => !matches!(init, Init::Call { .. }),
        StmtKind::Assign { .. } => true,
        StmtKind::CallInto { .. } => false,
        StmtKind::For {
            body, checkpoint, ..
        } => checkpoint.is_none() && body.iter().all(plain_renderable),
        StmtKind::While { body, .. } => body.iter().all(plain_renderable),
        StmtKind::If { then, els, .. } => then.iter().chain(els).all(plain_renderable),
    }
}

/// Statements as plain Rust over `f64` values (see [`crate::expr::plain`]).
fn plain_stmts(t: Typing, stmts: &[Stmt]) -> TokenStream {
    let written = nir::written(stmts);
    stmts.iter().map(|s| plain_stmt(t, s, &written)).collect()
}

fn plain_stmt(t: Typing, s: &Stmt, written: &std::collections::BTreeSet<Id>) -> TokenStream {
    let plain = |e: &Expr| crate::expr::plain(t, e.syn.clone());
    match &s.kind {
        StmtKind::Let { id, init } => {
            let name = &t.binds[*id].name;
            let mutable = written.contains(id).then(|| quote!(mut));
            let ty = (t.binds[*id].ty == Ty::Real).then(|| quote!(: f64));
            let value = match init {
                Init::Expr(e) => {
                    let e = plain(e);
                    quote!(#e)
                }
                Init::Select { cond, then, els } => {
                    let (c, a, b) = (plain(cond), plain(then), plain(els));
                    quote!(if #c { #a } else { #b })
                }
                Init::Zeros { len } => {
                    let len = &len.syn;
                    quote!(::std::vec![0.0f64; #len])
                }
                Init::Call { .. } => unreachable!("a reduction's body calls no function"),
            };
            quote!(let #mutable #name #ty = #value;)
        }
        StmtKind::Assign { place, op, value } => {
            let root = &t.binds[place.root].name;
            let target = match &place.index {
                Some(i) => {
                    let i = &i.syn;
                    quote!(#root[#i])
                }
                None => quote!(#root),
            };
            let op = match op {
                Op::Set | Op::Fill | Op::Refill => quote!(=),
                Op::Add => quote!(+=),
                Op::Sub => quote!(-=),
                Op::Mul => quote!(*=),
                Op::Div => quote!(/=),
            };
            let value = plain(value);
            quote!(#target #op #value;)
        }
        StmtKind::For {
            var, range, body, ..
        } => {
            let var = &t.binds[*var].name;
            let range = &range.syn;
            let body = plain_stmts(t, body);
            quote!(for #var in #range { #body })
        }
        StmtKind::While { cond, body } => {
            let (cond, body) = (plain(cond), plain_stmts(t, body));
            quote!(while #cond { #body })
        }
        StmtKind::If { cond, then, els } => {
            let (cond, then, els) = (plain(cond), plain_stmts(t, then), plain_stmts(t, els));
            quote!(if #cond { #then } else { #els })
        }
        StmtKind::CallInto { .. } => unreachable!("a reduction's body calls no function"),
    }
}
