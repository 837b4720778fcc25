//! Dead values in the uncomputation of an unchecked adjoint program.
//!
//! In an adjoint program a routine `P X ~P` runs `P` on values, the adjoint of `X`, then `~P`
//! with gradients: `~P` is where the gradients of the ancillas `P` computed flow back to its
//! inputs. `~P` also undoes `P`'s values, and for an ancilla that nothing reads after `X`
//! (before its deallocation, which checks nothing in an unchecked program) that work is dead:
//! in `routine! { … qx[b] += l[k] * xc[a] … } main -= square(qx[j]); uncompute!();` the
//! uncomputation's `qx[b] -= l[k] * xc[a]` must move `qx[b]`'s gradient to `l[k]` and `xc[a]`,
//! but no one reads `qx[b]` again. The gradient rule of `+=`/`-=` reads only the operands,
//! never the target, so [`dead_in_uncomputation`] names such ancillas, and the adjoint program
//! keeps the gradients of their `+=`/`-=` and drops the values (a load, the arithmetic and a
//! store per term). Gradients are unchanged to the bit. (Scalar locals the compiler finds dead
//! by itself; the elements of an ancilla vector it does not.)
//!
//! A statement *reads* an ancilla `t` when any of its parts mentions `t`, except: the target
//! of a `+=`/`-=` instruction on `t` or one of its elements (the write whose value is
//! dropped) — unless it is the released form that reads `t` back
//! ([`crate::adjoint::released_before_dealloc`], also as a routine's whole body:
//! [`crate::adjoint::released_after_routine`]) —, deallocations (nothing runs for them
//! unchecked), and the receivers of `.len()`, `.additive_zero()` and the like, which take a
//! shape or a type, not a value ([`crate::dropped::all_reads`]). A nested allocation of the
//! same name counts as a read, so a shadowing binding is never mistaken for the outer one.

use crate::ast::*;
use crate::dropped::all_reads;
use quote::ToTokens;
use syn::Ident;

/// For statement `i` of `block`, a routine `P X ~P`: the ancillas allocated earlier at the top
/// level of `block` and deallocated after the routine whose values `~P` may drop — `~P` writes
/// them only by `+=`/`-=`, and neither `~P` nor any statement after the routine reads them
/// before their deallocation. Meant for unchecked programs only: it assumes deallocations
/// check nothing.
pub fn dead_in_uncomputation(block: &[Stmt], i: usize) -> Vec<Ident> {
    let StmtKind::Routine { compute, .. } = &block[i].kind else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for s in &block[..i] {
        let StmtKind::Alloc(bindings) = &s.kind else {
            continue;
        };
        for t in bindings.iter().map(|b| &b.name) {
            let Some(end) = block[i + 1..].iter().position(|s| deallocates(s, t)) else {
                continue;
            };
            // `~P` is `P` backwards: the same instructions, `+=` and `-=` swapped
            let undo_reads = (0..compute.len()).any(|k| reads(compute, k, t));
            let later_reads = (i + 1..i + 1 + end).any(|k| reads(block, k, t));
            if !undo_reads && !later_reads {
                out.push(t.clone());
            }
        }
    }
    out
}

fn deallocates(s: &Stmt, t: &Ident) -> bool {
    matches!(&s.kind, StmtKind::Dealloc(bs) if bs.iter().any(|b| b.name == *t))
}

/// Whether statement `k` of `block` reads the value of `t` (see the module documentation).
fn reads(block: &[Stmt], k: usize, t: &Ident) -> bool {
    let s = &block[k];
    let in_blocks = || {
        s.blocks()
            .into_iter()
            .any(|b| (0..b.len()).any(|j| reads(b, j, t)))
    };
    if crate::adjoint::released_after_routine(block, k).is_some_and(|(_, i)| i.target.root == *t) {
        // the released form inside a routine (`t -= f(a * b)`) reads `t` back
        return true;
    }
    match &s.kind {
        StmtKind::Instr(i) if drops_value_of(block, k, i, t) => {
            i.args.iter().any(|o| operand(o, t)) || index_reads(&i.target, t)
        }
        StmtKind::Instr(i) => view(&i.target, t) || i.args.iter().any(|o| operand(o, t)),
        StmtKind::XorExpr { target, expr } => view(target, t) || expr_reads(expr, t),
        StmtKind::Builtin {
            args, operand: o, ..
        } => args.iter().any(|v| view(v, t)) || o.as_ref().is_some_and(|o| operand(o, t)),
        StmtKind::Alloc(bs) => bs.iter().any(|b| b.name == *t || expr_reads(&b.value, t)),
        StmtKind::Dealloc(_) => false,
        StmtKind::If { pre, post, .. } | StmtKind::While { pre, post, .. } => {
            expr_reads(pre, t) || expr_reads(post, t) || in_blocks()
        }
        StmtKind::For { var, range, .. } => {
            var == t || expr_reads(&range.start, t) || expr_reads(&range.end, t) || in_blocks()
        }
        StmtKind::Call { call, .. } => call_reads(call, t),
        StmtKind::Stack { stack, value, .. } => view(stack, t) || view(value, t),
        StmtKind::Fields(f) => f.names().into_iter().any(|n| n == t),
        StmtKind::Safe(ts) => tokens_read(ts, t),
        StmtKind::NoCheck(_) | StmtKind::Routine { .. } => in_blocks(),
    }
}

/// Whether instruction `k` of `block` is a `+=`/`-=` on `t` or an element of it that an
/// adjoint program may run without its value: not the released form, which reads `t` back.
fn drops_value_of(block: &[Stmt], k: usize, i: &Instr, t: &Ident) -> bool {
    i.target.root == *t
        && matches!(i.op, AccOp::Add | AccOp::Sub)
        && !crate::adjoint::released_before_dealloc(block, k)
}

fn call_reads(call: &Call, t: &Ident) -> bool {
    let callee = match &call.callee {
        Callee::Path(p) => tokens_read(&p.to_token_stream(), t),
        Callee::Method { receiver, .. } => expr_reads(receiver, t),
        Callee::Param(_) => false,
    };
    callee
        || call.args.iter().any(|a| match a {
            CallArg::View(v) => view(v, t),
            CallArg::Shared(e) | CallArg::Value(e) => expr_reads(e, t),
        })
}

fn view(v: &Dataview, t: &Ident) -> bool {
    v.root == *t || index_reads(v, t)
}

/// Whether an index of the dataview reads `t` (`x[t[0]]`).
fn index_reads(v: &Dataview, t: &Ident) -> bool {
    v.path
        .iter()
        .any(|a| matches!(a, Access::Index(e) if expr_reads(e, t)))
}

fn operand(o: &Operand, t: &Ident) -> bool {
    match o {
        Operand::View(v) => view(v, t),
        Operand::Const(e) => expr_reads(e, t),
    }
}

fn expr_reads(e: &syn::Expr, t: &Ident) -> bool {
    tokens_read(&e.to_token_stream(), t)
}

fn tokens_read(ts: &proc_macro2::TokenStream, t: &Ident) -> bool {
    all_reads(ts).contains(&t.to_string())
}
