//! First writes into fresh vectors and zero-initialised scalars.
//!
//! `v[j] = e` overwrites, so the reversible program saves the old `v[j]` on the tape. When `v`
//! was allocated as zeros (`let mut v = vec![0.0; n]`) in the same block, nothing wrote it
//! since, and the assignment sits directly in the body of `for j in a..b` (`(a..b).rev()`,
//! `a..=b`), indexed by `j` itself, with no other write to `v` in that loop, then each
//! iteration writes an element no earlier iteration wrote: the old value is the zero `v` was
//! allocated with, and nothing needs saving. [`mark`] turns such assignments into
//! [`Op::Fill`]; the reversible program swaps the new value in and deallocates the zero.
//! In checked builds that deallocation checks the zero. Likewise a scalar declared
//! `let mut x = 0.0` whose first write is `x = e` (directly, or in a branch of the `if` that
//! first writes it: `let mut p = 0.0; if c { p = a } else { p = b }`) swaps `e` in.
//!
//! A loop that overwrites a vector it does not read — `for j in a..b { v[j] = e }` where only
//! `let`s join the assignment and nothing in the body reads `v` — is a refill: [`mark`] turns
//! the assignment into [`Op::Refill`], and the reversible program saves `v[a..b]` in a loop of
//! its own before the loop runs (leaving those elements zero), then fills them as a first
//! write does. Every save of the loop is the one the assignment would have made (the body never
//! sees the saved values), but the filling loop no longer pushes, so it vectorises, and so
//! does its adjoint.

use crate::nir::{self, Bind, Id, Init, Op, Place, Stmt, StmtKind, Ty};

/// Marks the first writes of every block of `stmts`, at any depth.
pub fn mark(stmts: &mut [Stmt], binds: &[Bind]) {
    for s in stmts.iter_mut() {
        match &mut s.kind {
            StmtKind::For {
                var,
                range,
                body,
                checkpoint: None,
            } if distinct(&range.syn) => {
                mark(body, binds);
                mark_refill(*var, body, binds);
            }
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => mark(body, binds),
            StmtKind::If { then, els, .. } => {
                mark(then, binds);
                mark(els, binds);
            }
            StmtKind::Let { .. } | StmtKind::Assign { .. } | StmtKind::CallInto { .. } => {}
        }
    }
    for k in 0..stmts.len() {
        match &stmts[k].kind {
            StmtKind::Let {
                id,
                init: Init::Zeros { .. },
            } if binds[*id].ty == Ty::RealVec => mark_first_loop(*id, &mut stmts[k + 1..]),
            StmtKind::Let {
                id,
                init: Init::Expr(e),
            } if binds[*id].ty == Ty::Real && is_zero(&e.syn) => {
                mark_first_write(*id, &mut stmts[k + 1..])
            }
            _ => {}
        }
    }
}

/// In the statements after `let mut x = 0.0`, marks `x = e` a first write when it is the
/// first statement that writes `x`, or the first one in a branch of the `if` that is (at any
/// depth of `if`s): `x` still holds the zero there. A loop that writes `x` is not marked (its
/// second iteration finds another value).
fn mark_first_write(x: Id, after: &mut [Stmt]) {
    let Some(first) = first_writer(x, after) else {
        return;
    };
    match &mut first.kind {
        StmtKind::Assign { place, op, .. }
            if place.root == x && place.index.is_none() && *op == Op::Set =>
        {
            *op = Op::Fill
        }
        StmtKind::If { then, els, .. } => {
            mark_first_write(x, then);
            mark_first_write(x, els);
        }
        _ => {}
    }
}

/// The first of `stmts` that writes `v` (at any depth).
fn first_writer(v: Id, stmts: &mut [Stmt]) -> Option<&mut Stmt> {
    stmts
        .iter_mut()
        .find(|s| nir::written(std::slice::from_ref(*s)).contains(&v))
}

/// Is the expression the literal zero (`0.0`, `0.`, `0`, `0.0f64`)?
fn is_zero(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(f),
            ..
        }) => f.base10_parse::<f64>().is_ok_and(|v| v == 0.0),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<u64>().is_ok_and(|v| v == 0),
        _ => false,
    }
}

/// In the statements after `let v = zeros`, marks the filling assignment of the first
/// statement that writes `v`, if that statement is a filling loop.
fn mark_first_loop(v: Id, after: &mut [Stmt]) {
    let Some(first) = first_writer(v, after) else {
        return;
    };
    let StmtKind::For {
        var,
        range,
        body,
        checkpoint: None,
    } = &mut first.kind
    else {
        return;
    };
    if !distinct(&range.syn) {
        return;
    }
    let writers: Vec<usize> = (0..body.len())
        .filter(|&p| nir::written(&body[p..=p]).contains(&v))
        .collect();
    let [p] = writers[..] else { return };
    if let StmtKind::Assign { place, op, .. } = &mut body[p].kind {
        // a refill (marked first, in the loop's own body) of a fresh vector is a first write
        if place.root == v && matches!(op, Op::Set | Op::Refill) && indexed_by(place, *var) {
            *op = Op::Fill;
        }
    }
}

/// Marks the loop body's assignment a refill if the body is `let`s and one `v[var] = e` that
/// (like every `let`) does not read `v`, for a vector `v` from outside the loop.
fn mark_refill(var: Id, body: &mut [Stmt], binds: &[Bind]) {
    let mut writers = (0..body.len()).filter(|&p| !matches!(body[p].kind, StmtKind::Let { .. }));
    let (Some(p), None) = (writers.next(), writers.next()) else {
        return;
    };
    let refill = match &body[p].kind {
        StmtKind::Assign {
            place, op: Op::Set, ..
        } => {
            let v = place.root;
            indexed_by(place, var)
                && binds[v].ty == Ty::RealVec
                && !nir::read(body).contains(&v)
                && !nir::declared(body).contains(&v)
        }
        _ => false,
    };
    if let StmtKind::Assign { op, .. } = &mut body[p].kind {
        if refill {
            *op = Op::Refill;
        }
    }
}

/// Is the place an element indexed by the loop variable `var` itself?
fn indexed_by(place: &Place, var: Id) -> bool {
    place.index.as_ref().is_some_and(|i| {
        matches!(i.syn, syn::Expr::Path(_)) && i.reads.len() == 1 && i.reads.contains(&var)
    })
}

/// Does the loop's iterator give each index at most once: `a..b`, `a..=b`, or either
/// reversed?
fn distinct(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Paren(p) => distinct(&p.expr),
        syn::Expr::Range(r) => r.start.is_some() && r.end.is_some(),
        syn::Expr::MethodCall(m) => m.method == "rev" && m.args.is_empty() && distinct(&m.receiver),
        _ => false,
    }
}
