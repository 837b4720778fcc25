//! The stack statements: push, pop (an empty stack is a reversibility error), the checks of a
//! pop's target and of a copy-pop, a copy's gradient flowing back, and the gradient stack of an
//! adjoint program (the invariant at [`stack_pop_shadow`]). A loop that only pushes (or pops)
//! the elements of one slice in order runs as one slice operation ([`stack_push_slice`],
//! [`stack_pop_slice`], and their gradients, [`stack_push_grads`], [`stack_pop_grads`]).

use super::Shadow;
use crate::check::{fail, tolerance, Check, CheckKind, Site};
use crate::instr::Zeroable;
use crate::stack::Stack;

/// Pushes onto a stack.
#[inline]
pub fn stack_push<S: Stack<T>, T>(stack: &mut S, v: T) {
    stack.push_value(v)
}

/// Pops from a stack; an empty stack is a reversibility error. Always inlined, its error out
/// of line: a reverse sweep pops in its innermost loops, and a call per pop (which rustc's
/// heuristics chose for the larger adjoint programs) cost 6 % of a small gradient.
#[inline(always)]
pub fn stack_pop<S: Stack<T>, T>(stack: &mut S, site: &Site, stack_text: &'static str) -> T {
    match stack.pop_value() {
        Some(v) => v,
        None => empty_stack(site, stack_text),
    }
}

#[cold]
#[inline(never)]
fn empty_stack(site: &Site, stack_text: &'static str) -> ! {
    fail(
        site,
        CheckKind::EmptyStack,
        stack_text,
        "a value".into(),
        "an empty stack".into(),
    )
}

/// Pops the gradient of the value just popped from a stack, or gives `zero` when that value
/// has no gradient entry.
///
/// Invariant of an adjoint program's stacks: the shadow stack holds the gradients of the
/// *top* `shadow.depth()` values of the value stack; the values below (pushed by the plain
/// forward program, which does not touch gradients, or before the caller's shadow stack was
/// made) have zero gradients. So a caller may hand an adjoint an empty shadow stack, or the
/// gradients of the top values only, and the value popped (the top) takes the shadow's top.
#[inline]
pub fn stack_pop_shadow<S: Stack<G>, G>(shadow: &mut S, zero: G) -> G {
    shadow.pop_value().unwrap_or(zero)
}

/// `for j in a..b { push!(stack, v[j]); }` with `values` = `v[a..b]`: the values pushed in
/// order by one copy, then each set to zero.
#[inline]
pub fn stack_push_slice<S: Stack<T>, T: Clone + Zeroable>(stack: &mut S, values: &mut [T]) {
    stack.push_values(values);
    for x in values.iter_mut() {
        *x = x.zero_like();
    }
}

/// `for j in (a..b).rev() { pop!(stack, v[j]); }` with `values` = `v[a..b]`: the top values
/// popped into the slice by one copy (the top one into its last element). A stack holding
/// fewer is the empty-stack error. (A checked program checks the targets first,
/// [`check_pop_targets`].)
#[inline]
pub fn stack_pop_slice<S: Stack<T>, T>(
    stack: &mut S,
    values: &mut [T],
    site: &Site,
    stack_text: &'static str,
) {
    if !stack.pop_values(values) {
        empty_stack(site, stack_text)
    }
}

/// [`check_pop_target`] for every element of a slice that [`stack_pop_slice`] pops into.
#[inline]
pub fn check_pop_targets<X: Zeroable + Check>(xs: &[X], site: &Site, variable: &'static str) {
    for x in xs {
        check_pop_target(x, site, variable);
    }
}

/// The gradients' half of [`stack_push_slice`] in an adjoint program: `grads` (the shadow of
/// the slice `values`, already zeroed) pushed onto the shadow stack, then each set to the zero
/// gradient.
#[inline]
pub fn stack_push_grads<S: Stack<G>, G: Clone, X: Shadow<L, Grad = G>, L>(
    shadow: &mut S,
    grads: &mut [G],
    values: &[X],
) {
    shadow.push_values(grads);
    for (g, x) in grads.iter_mut().zip(values) {
        *g = x.zero_grad();
    }
}

/// The gradients' half of [`stack_pop_slice`]: as [`stack_pop_shadow`] element by element
/// from the last down — the shadow stack's top values into the top elements, the zero
/// gradient of its value into each element below where the shadow stack runs out.
#[inline]
pub fn stack_pop_grads<S: Stack<G>, G, X: Shadow<L, Grad = G>, L>(
    shadow: &mut S,
    grads: &mut [G],
    values: &[X],
) {
    let n = grads.len();
    let held = shadow.depth().min(n);
    let (below, top) = grads.split_at_mut(n - held);
    // a shadow stack holds gradients only (a `Vec` or a `Tape`), whose depth is what it pops
    let popped = shadow.pop_values(top);
    debug_assert!(popped, "a shadow stack popped fewer values than its depth");
    for (g, x) in below.iter_mut().zip(values) {
        *g = x.zero_grad();
    }
}

/// Checks that a pop lands in a zero variable (floats: zero within the tolerance).
#[inline]
pub fn check_pop_target<X: Zeroable + Check>(x: &X, site: &Site, variable: &'static str) {
    if !x.is_zero() && !x.check_eq(&x.zero_like(), tolerance()) {
        fail(
            site,
            CheckKind::PopIntoNonZero,
            variable,
            "zero".into(),
            format!("{x:?}"),
        );
    }
}

/// Checks the value popped by a copy-pop against the variable.
#[inline]
pub fn check_pop_copy<X: Check>(popped: &X, x: &X, site: &Site, variable: &'static str) {
    if !popped.check_eq(x, tolerance()) {
        fail(
            site,
            CheckKind::PopCopyMismatch,
            variable,
            format!("{x:?}"),
            format!("{popped:?}"),
        );
    }
}

/// `pop_copy!` on values: the popped copy's gradient, if the values carry one, flows back into
/// `x` ([`Check::absorb_copy_gradient`]).
#[inline(always)]
pub fn absorb_copy<X: Check>(x: &mut X, copy: &X) {
    x.absorb_copy_gradient(copy);
}
