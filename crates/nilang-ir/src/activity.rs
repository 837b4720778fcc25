//! Activity: which variables can hold a value that depends on a differentiable parameter.
//!
//! A variable is *active* when a value computed from a `&mut` parameter can reach it: the
//! `&mut` parameters themselves; an ancilla whose declared value reads an active variable
//! (`let b = f(y)`); the target of an instruction with an active operand; every place of a
//! builtin (`swap`, a rotation) that mixes an active one; a stack an active value
//! is pushed on; and, conservatively, every variable handed to a call or to a constructor,
//! every variable a parallel loop touches, and every value moved through a stack that the body
//! itself pops from (a pop may return what another variable pushed).
//!
//! Any other ancilla holds values computed from constants and read-only data alone — a grid
//! point, a power of it, a count — so no gradient it could carry ever reaches a parameter. The
//! adjoint programs give it no shadow and run its instructions on values
//! ([`crate::adjoint::ancillas_with_gradients`]). Its own pushes and the inverse's pops are
//! mirror images of each other (the body does not pop that stack), so each stack slot holds a
//! value of the same activity on the way in and on the way out.
//!
//! Variables are told apart by name (an ancilla shadowing another is merged with it): a merge
//! can only make a variable active, which costs a gradient, never a wrong one.

use crate::ast::*;
use std::collections::BTreeSet;

/// The names of the active variables of a function (see the module documentation).
pub fn active(f: &Function) -> BTreeSet<String> {
    let mut active: BTreeSet<String> = f
        .params
        .iter()
        .filter(|p| p.kind == ParamKind::MutRef)
        .map(|p| p.name.to_string())
        .collect();
    let mut popped = BTreeSet::new();
    f.body.iter().for_each(|s| popped_stacks(s, &mut popped));
    f.body
        .iter()
        .for_each(|s| seed(s, &popped, false, &mut active));
    // a read-only parameter handed to a call stays a constant
    for p in f.params.iter().filter(|p| p.kind != ParamKind::MutRef) {
        active.remove(&p.name.to_string());
    }
    loop {
        let before = active.len();
        f.body.iter().for_each(|s| propagate(s, &mut active));
        if active.len() == before {
            return active;
        }
    }
}

/// The stacks the body pops from (`pop!`, `pop_copy!`).
fn popped_stacks(s: &Stmt, out: &mut BTreeSet<String>) {
    match &s.kind {
        StmtKind::Stack {
            stack, push: false, ..
        } => {
            out.insert(stack.root.to_string());
        }
        _ => s
            .blocks()
            .into_iter()
            .flatten()
            .for_each(|s| popped_stacks(s, out)),
    }
}

/// The variables active whatever flows into them: handed to calls and constructors, moved
/// through a stack the body pops, touched in a parallel loop (`in_parallel`).
fn seed(s: &Stmt, popped: &BTreeSet<String>, in_parallel: bool, active: &mut BTreeSet<String>) {
    let mut add = |v: &Dataview| {
        active.insert(v.root.to_string());
    };
    match &s.kind {
        StmtKind::Call { call, .. } => call.args.iter().for_each(|a| {
            if let CallArg::View(v) = a {
                add(v)
            }
        }),
        StmtKind::Fields(fields) => fields.names().into_iter().for_each(|n| {
            active.insert(n.to_string());
        }),
        StmtKind::Stack { stack, value, .. }
            if in_parallel || popped.contains(&stack.root.to_string()) =>
        {
            add(stack);
            add(value);
        }
        StmtKind::Instr(i) if in_parallel => {
            add(&i.target);
            i.args.iter().for_each(|a| {
                if let Operand::View(v) = a {
                    add(v)
                }
            });
        }
        StmtKind::Builtin { args, operand, .. } if in_parallel => {
            args.iter().for_each(&mut add);
            if let Some(Operand::View(v)) = operand {
                add(v)
            }
        }
        StmtKind::For { range, body, .. } => body
            .iter()
            .for_each(|s| seed(s, popped, in_parallel || range.parallel, active)),
        _ => s
            .blocks()
            .into_iter()
            .flatten()
            .for_each(|s| seed(s, popped, in_parallel, active)),
    }
}

/// One pass of the flow: an active operand makes its target active, an active place of a
/// builtin makes all its places active, an active value makes its stack active.
fn propagate(s: &Stmt, active: &mut BTreeSet<String>) {
    let is_active = |active: &BTreeSet<String>, v: &Dataview| active.contains(&v.root.to_string());
    match &s.kind {
        StmtKind::Instr(i) => {
            let reached = i
                .args
                .iter()
                .any(|a| matches!(a, Operand::View(v) if is_active(active, v)));
            if reached {
                active.insert(i.target.root.to_string());
            }
        }
        StmtKind::Builtin { args, operand, .. } => {
            let reached = args.iter().any(|v| is_active(active, v))
                || matches!(operand, Some(Operand::View(v)) if is_active(active, v));
            if reached {
                args.iter().for_each(|v| {
                    active.insert(v.root.to_string());
                });
            }
        }
        StmtKind::Stack { stack, value, .. } => {
            if is_active(active, value) {
                active.insert(stack.root.to_string());
            }
        }
        // `let b = f(y)`: an ancilla whose declared value reads an active variable (the
        // deallocation's value is the inverse's allocation)
        StmtKind::Alloc(bindings) | StmtKind::Dealloc(bindings) => {
            for b in bindings {
                let reads = crate::dropped::all_reads(&b.value);
                if reads.iter().any(|r| active.contains(r)) {
                    active.insert(b.name.to_string());
                }
            }
        }
        _ => s
            .blocks()
            .into_iter()
            .flatten()
            .for_each(|s| propagate(s, active)),
    }
}
