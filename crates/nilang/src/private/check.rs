//! The runtime checks of a statement of a checked program: an ancilla's value at
//! deallocation, `if`/`while` postconditions, a `for` range left unchanged, two places of one
//! statement that must not overlap, and a broadcast statement's slice lengths (checked in
//! unchecked programs too). Each failure is a [`fail`] with its [`CheckKind`] at a [`Site`].
//! The checks of stacks are in `stack.rs`, those of adjoint programs in `adjoint_check.rs`,
//! an unchecked loop's hoisted indices in `hoist.rs`.

use crate::check::{fail, tolerance, Check, CheckKind, Site};
use core::fmt::Debug;

/// The length of the whole slices of a broadcast statement (`y[..] += a * x[..]`, lowered by
/// `nilang_ir::broadcast` to a loop up to this length), checked once before the loop in
/// checked and unchecked programs alike: slices of different lengths fail with
/// [`CheckKind::BroadcastLength`] at `site`, naming each slice (`lens`: its text and length).
#[inline(always)]
pub fn broadcast_len(site: &Site, lens: &[(&'static str, usize)]) -> usize {
    let n = lens.first().map_or(0, |&(_, n)| n);
    if lens.iter().any(|&(_, m)| m != n) {
        broadcast_lengths_differ(site, lens);
    }
    n
}

#[cold]
#[inline(never)]
fn broadcast_lengths_differ(site: &Site, lens: &[(&'static str, usize)]) -> ! {
    let names: Vec<&str> = lens.iter().map(|&(name, _)| name).collect();
    let found: Vec<String> = lens
        .iter()
        .map(|(name, n)| format!("{name}.len() = {n}"))
        .collect();
    fail(
        site,
        CheckKind::BroadcastLength,
        &names.join(", "),
        "one length".to_string(),
        found.join(", "),
    )
}

/// Checks an ancilla's value at deallocation.
#[inline]
pub fn check_dealloc<X: Check>(found: &X, expected: &X, site: &Site, variable: &'static str) {
    if !found.check_eq(expected, tolerance()) {
        fail(
            site,
            CheckKind::Dealloc,
            variable,
            format!("{expected:?}"),
            format!("{found:?}"),
        );
    }
}

/// Checks that an `if` postcondition agrees with its precondition.
#[inline]
pub fn check_if(pre: bool, post: bool, site: &Site, post_text: &'static str) {
    if pre != post {
        fail(
            site,
            CheckKind::IfPostcondition,
            post_text,
            format!("{pre}"),
            format!("{post}"),
        );
    }
}

/// Checks that a `while` postcondition is false on entry.
#[inline]
pub fn check_while_entry(post: bool, site: &Site, post_text: &'static str) {
    if post {
        fail(
            site,
            CheckKind::WhileEntry,
            post_text,
            "false".into(),
            "true".into(),
        );
    }
}

/// Checks that a `while` postcondition is true after an iteration.
#[inline]
pub fn check_while_iteration(post: bool, site: &Site, post_text: &'static str) {
    if !post {
        fail(
            site,
            CheckKind::WhileIteration,
            post_text,
            "true".into(),
            "false".into(),
        );
    }
}

/// Checks that a `for` range is unchanged by the loop body.
#[inline]
pub fn check_for_range<I: PartialEq + Debug>(
    before: (I, I, I),
    after: (I, I, I),
    site: &Site,
    range_text: &'static str,
) {
    if before != after {
        fail(
            site,
            CheckKind::ForRange,
            range_text,
            format!("(start, end, step) = {before:?}"),
            format!("(start, end, step) = {after:?}"),
        );
    }
}

/// Checks that two places of one statement do not overlap (`x[i] += x[j]` with `i == j`, an
/// element and a sub-slice of one variable handed to one call, the target of `b[i] ^= f(b[j])`
/// and a place its value reads): fails with [`CheckKind::Aliasing`] at `site`.
#[inline(always)]
pub fn check_disjoint<A: ?Sized, B: ?Sized>(a: &A, b: &B, site: &Site, names: &'static str) {
    let (a0, b0) = (
        a as *const A as *const u8 as usize,
        b as *const B as *const u8 as usize,
    );
    let (a1, b1) = (
        a0 + core::mem::size_of_val(a).max(1),
        b0 + core::mem::size_of_val(b).max(1),
    );
    if a0 < b1 && b0 < a1 {
        same_place(site, names);
    }
}

#[cold]
#[inline(never)]
fn same_place(site: &Site, names: &'static str) -> ! {
    fail(
        site,
        CheckKind::Aliasing,
        names,
        "different places".into(),
        "the same place".into(),
    );
}
