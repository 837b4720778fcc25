//! Every runtime reversibility check, triggered on purpose: the error names the function
//! (`f`, or `f_inv` when the inverse fails), the statement, the variable, the expected and the
//! found value. Also: the checks follow `debug_assertions` unless `#[i(check)]` keeps them in
//! every build (these tests run in the test profile, where they are on); `#[i(nocheck)]` and
//! `nocheck! { … }` turn them off, and float checks use a settable tolerance.

use nilang::{catch, i, set_tolerance, tolerance, with_tolerance, CheckKind, ReversibilityError};

/// Source text without spaces: the printed statement spaces tokens its own way
/// (`dealloc !(a = 0.0);`, `* k > 0`), and these tests pin its content, not its layout.
fn squash(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Asserts the parts of an error that every check must fill in.
fn assert_error(
    err: &ReversibilityError,
    kind: CheckKind,
    function: &str,
    statement: &str,
    variable: &str,
    expected: &str,
    found: &str,
) {
    assert_eq!(err.kind, kind, "{err}");
    assert_eq!(err.function, function, "{err}");
    assert!(
        squash(err.statement).contains(&squash(statement)),
        "statement lacks {statement:?}: {err}"
    );
    assert_eq!(squash(&err.variable), squash(variable), "{err}");
    assert!(
        err.expected.contains(expected),
        "expected lacks {expected:?}: {err}"
    );
    assert!(err.found.contains(found), "found lacks {found:?}: {err}");
}

// ---------------------------------------------------------------------------------------
// ancilla value at deallocation

#[i]
fn leaky_ancilla(y: &mut f64, x: &mut f64) {
    let a = 0.0;
    a += identity(x);
    y += identity(a);
    dealloc!(a = 0.0);
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn dealloc_value() {
    let (mut y, mut x) = (0.0, 1.5);
    let err = catch(|| leaky_ancilla(&mut y, &mut x)).unwrap_err();
    assert_error(
        &err,
        CheckKind::Dealloc,
        "leaky_ancilla",
        "dealloc!(a = 0.0)",
        "a",
        "0.0",
        "1.5",
    );
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn dealloc_value_in_inverse() {
    // The inverse allocates `a = 0.0`, subtracts x and checks `a == 0.0` where the forward
    // program allocated it.
    let (mut y, mut x) = (0.0, 2.5);
    let err = catch(|| leaky_ancilla_inv(&mut y, &mut x)).unwrap_err();
    assert_error(
        &err,
        CheckKind::Dealloc,
        "leaky_ancilla_inv",
        "dealloc!(a = 0.0)",
        "a",
        "0.0",
        "-2.5",
    );
}

// ---------------------------------------------------------------------------------------
// if postcondition

#[i]
fn branch(y: &mut f64, x: &mut f64) {
    if (*x > 0.0, *y > 0.0) {
        y += identity(1.0);
    }
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn if_postcondition() {
    let (mut y, mut x) = (-5.0, 1.0);
    let err = catch(|| branch(&mut y, &mut x)).unwrap_err();
    assert_error(
        &err,
        CheckKind::IfPostcondition,
        "branch",
        "if (*x > 0.0, *y > 0.0)",
        "*y > 0.0",
        "true",
        "false",
    );
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn if_postcondition_in_inverse() {
    // The inverse runs `if (*y > 0.0, *x > 0.0) { y -= 1.0 }`.
    let (mut y, mut x) = (0.5, -1.0);
    let err = catch(|| branch_inv(&mut y, &mut x)).unwrap_err();
    assert_error(
        &err,
        CheckKind::IfPostcondition,
        "branch_inv",
        "if (*y > 0.0, *x > 0.0)",
        "*x > 0.0",
        "true",
        "false",
    );
}

// ---------------------------------------------------------------------------------------
// while entry and iteration

#[i]
fn count_up(k: &mut i64, n: i64) {
    while (*k < n, *k > 0) {
        inc(k);
    }
}

#[i]
fn count_wrong_post(k: &mut i64, n: i64) {
    while (*k < n, *k > 1) {
        inc(k);
    }
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn while_entry() {
    let mut k = 1;
    let err = catch(|| count_up(&mut k, 5)).unwrap_err();
    assert_error(
        &err,
        CheckKind::WhileEntry,
        "count_up",
        "while (*k < n, *k > 0)",
        "*k > 0",
        "false",
        "true",
    );
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn while_entry_in_inverse() {
    // The inverse runs `while (*k > 0, *k < n) { dec(k) }`: `*k < n` must be false on entry.
    let mut k = 3;
    let err = catch(|| count_up_inv(&mut k, 5)).unwrap_err();
    assert_error(
        &err,
        CheckKind::WhileEntry,
        "count_up_inv",
        "while (*k > 0, *k < n)",
        "*k < n",
        "false",
        "true",
    );
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn while_iteration() {
    let mut k = 0;
    let err = catch(|| count_wrong_post(&mut k, 5)).unwrap_err();
    assert_error(
        &err,
        CheckKind::WhileIteration,
        "count_wrong_post",
        "while (*k < n, *k > 1)",
        "*k > 1",
        "true",
        "false",
    );
}

// ---------------------------------------------------------------------------------------
// for range changed by the body

#[i]
fn bump(n: &mut usize) {
    inc(n);
}

#[i]
fn range_through_call(y: &mut f64, n: &mut usize) {
    for i in 0..*n {
        y += identity(i);
        bump(n);
    }
}

#[i]
fn range_through_stack(n: &mut usize, s: &mut Vec<usize>) {
    for _i in 0..*n {
        push!(s, n);
    }
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn for_range_changed_through_mut_param() {
    let (mut y, mut n) = (0.0, 3);
    let err = catch(|| range_through_call(&mut y, &mut n)).unwrap_err();
    assert_error(
        &err,
        CheckKind::ForRange,
        "range_through_call",
        "for i in 0..*n",
        "0..*n",
        "(0, 3, 1)",
        "(0, 6, 1)",
    );
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn for_range_changed_through_stack() {
    let (mut n, mut s) = (2, Vec::new());
    let err = catch(|| range_through_stack(&mut n, &mut s)).unwrap_err();
    assert_error(
        &err,
        CheckKind::ForRange,
        "range_through_stack",
        "for _i in 0..*n",
        "0..*n",
        "(0, 2, 1)",
        "(0, 0, 1)",
    );
}

// ---------------------------------------------------------------------------------------
// stacks

#[i]
fn pop_into(x: &mut f64, s: &mut Vec<f64>) {
    pop!(s, x);
}

#[i]
fn pop_copy_into(x: &mut f64, s: &mut Vec<f64>) {
    pop_copy!(s, x);
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn pop_into_non_zero() {
    let (mut x, mut s) = (2.0, vec![7.0]);
    let err = catch(|| pop_into(&mut x, &mut s)).unwrap_err();
    assert_error(
        &err,
        CheckKind::PopIntoNonZero,
        "pop_into",
        "pop!(s, x)",
        "x",
        "zero",
        "2.0",
    );
}

#[test]
fn pop_from_empty_stack() {
    let (mut x, mut s) = (0.0, vec![]);
    let err = catch(|| pop_into(&mut x, &mut s)).unwrap_err();
    assert_error(
        &err,
        CheckKind::EmptyStack,
        "pop_into",
        "pop!(s, x)",
        "s",
        "a value",
        "empty",
    );
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn pop_copy_mismatch() {
    let (mut x, mut s) = (2.0, vec![3.0]);
    let err = catch(|| pop_copy_into(&mut x, &mut s)).unwrap_err();
    assert_error(
        &err,
        CheckKind::PopCopyMismatch,
        "pop_copy_into",
        "pop_copy!(s, x)",
        "x",
        "2.0",
        "3.0",
    );
    // A matching copy-pop passes and consumes the copy.
    let mut s = vec![2.0];
    catch(|| pop_copy_into(&mut x, &mut s)).unwrap();
    assert!(s.is_empty());
}

#[test]
fn pop_in_inverse_of_push() {
    // The inverse of `pop!` is `push!`, and the inverse of `pop_copy!` is `push_copy!`:
    // the inverses run on an empty stack without error and restore it.
    let (mut x, mut s) = (2.0, vec![]);
    pop_into_inv(&mut x, &mut s);
    assert_eq!((x, s.clone()), (0.0, vec![2.0]));
    pop_into(&mut x, &mut s);
    assert_eq!((x, s), (2.0, vec![]));
}

// ---------------------------------------------------------------------------------------
// aliasing of dynamic indices

#[i]
fn product_of_elements(y: &mut [f64], x: &mut [f64], i: usize, j: usize, k: usize) {
    y[i] += x[j] * x[k];
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn aliasing_of_dynamic_indices() {
    let (mut y, mut x) = (vec![0.0; 2], vec![2.0, 3.0, 5.0]);
    product_of_elements(&mut y, &mut x, 0, 1, 2);
    assert_eq!(y[0], 15.0);
    let err = catch(|| product_of_elements(&mut y, &mut x, 1, 2, 2)).unwrap_err();
    assert_error(
        &err,
        CheckKind::Aliasing,
        "product_of_elements",
        "y[i] += x[j] * x[k]",
        "x[j] and x[k]",
        "different",
        "same",
    );
    assert_eq!(y[1], 0.0, "the check runs before the instruction");
}

// ---------------------------------------------------------------------------------------
// non-positive step

#[i]
fn stepped(y: &mut [f64], n: usize, step: usize) {
    for i in (0..n).step_by(step) {
        y[i] += identity(1.0);
    }
}

#[test]
fn non_positive_step() {
    let mut y = vec![0.0; 4];
    stepped(&mut y, 4, 2);
    assert_eq!(y, [1.0, 0.0, 1.0, 0.0]);
    let err = catch(|| stepped(&mut y, 4, 0)).unwrap_err();
    assert_error(
        &err,
        CheckKind::BadStep,
        "stepped",
        "for i in (0..n).step_by(step)",
        "step",
        "positive",
        "0",
    );
    let err = catch(|| stepped_inv(&mut y, 4, 0)).unwrap_err();
    assert_eq!(
        (err.kind, err.function),
        (CheckKind::BadStep, "stepped_inv")
    );
}

// ---------------------------------------------------------------------------------------
// turning the checks off

#[i(nocheck)]
fn unchecked(y: &mut f64, x: &mut f64, s: &mut Vec<f64>) {
    let a = 0.0;
    a += identity(x);
    y += identity(a);
    dealloc!(a = 0.0);
    if (*x > 0.0, *y > 100.0) {
        y += identity(1.0);
    }
    pop!(s, x);
}

#[i]
fn partly_unchecked(y: &mut f64, x: &mut f64) {
    nocheck! {
        let a = 0.0;
        a += identity(x);
        y += identity(a);
        dealloc!(a = 0.0);
    }
    let b = 0.0;
    b += identity(x);
    dealloc!(b = 0.0);
}

#[test]
fn nocheck_attribute_skips_checks() {
    let (mut y, mut x, mut s) = (0.0, 1.0, vec![4.0]);
    catch(|| unchecked(&mut y, &mut x, &mut s)).expect("no check runs under #[i(nocheck)]");
    assert_eq!((y, x, s.len()), (2.0, 4.0, 0));
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn nocheck_block_skips_only_its_checks() {
    let (mut y, mut x) = (0.0, 1.0);
    let err = catch(|| partly_unchecked(&mut y, &mut x)).unwrap_err();
    // The ancilla `a` inside `nocheck! { … }` is not checked; `b` outside it is.
    assert_error(
        &err,
        CheckKind::Dealloc,
        "partly_unchecked",
        "dealloc!(b = 0.0)",
        "b",
        "0.0",
        "1.0",
    );
    assert_eq!(y, 1.0);
}

// ---------------------------------------------------------------------------------------
// tolerance of float checks

#[i(nograd)]
fn nearly_clean(y: &mut f64, x: &mut f64, eps: f64) {
    let a = *x;
    a += identity(eps);
    y += identity(a);
    dealloc!(a = *x);
}

/// The only test that touches the global tolerance (tests run concurrently): the default,
/// then `set_tolerance`, seen from another thread, then restored.
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn global_tolerance_default_and_set_tolerance() {
    assert_eq!(tolerance(), 1e-8);
    let (mut y, mut x) = (0.0, 1.0);
    catch(|| nearly_clean(&mut y, &mut x, 1e-12)).expect("1e-12 is within the default 1e-8");
    let err = catch(|| nearly_clean(&mut y, &mut x, 1e-6)).unwrap_err();
    assert_eq!((err.kind, err.variable.as_str()), (CheckKind::Dealloc, "a"));
    assert_eq!(
        (err.expected.as_str(), err.found.as_str()),
        ("1.0", "1.000001")
    );

    set_tolerance(1e-5);
    let elsewhere = std::thread::spawn(move || {
        (
            tolerance(),
            catch(|| nearly_clean(&mut y, &mut x, 1e-6)).is_ok(),
        )
    })
    .join()
    .unwrap();
    let here = catch(|| nearly_clean(&mut y, &mut x, 1e-6)).is_ok();
    set_tolerance(1e-8);
    assert_eq!(
        elsewhere,
        (1e-5, true),
        "set_tolerance applies to every thread"
    );
    assert!(here, "a tolerance of 1e-5 accepts an error of 1e-6");
    assert!(catch(|| nearly_clean(&mut y, &mut x, 1e-6)).is_err());
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn with_tolerance_is_local_to_the_closure_and_thread() {
    let (mut y, mut x) = (0.0, 1.0);
    // The outer `with_tolerance` shields this test from the global one.
    with_tolerance(1e-8, || {
        with_tolerance(1e-4, || {
            assert_eq!(tolerance(), 1e-4);
            catch(|| nearly_clean(&mut y, &mut x, 1e-6)).expect("1e-6 is within 1e-4");
            assert!(catch(|| nearly_clean(&mut y, &mut x, 1e-3)).is_err());
            let other_thread = std::thread::spawn(tolerance).join().unwrap();
            assert_ne!(other_thread, 1e-4, "with_tolerance is for this thread only");
        });
        assert_eq!(tolerance(), 1e-8, "the previous tolerance is restored");
        assert!(catch(|| nearly_clean(&mut y, &mut x, 1e-6)).is_err());
    });
}

// ---------------------------------------------------------------------------------------
// the message

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn display_message_is_readable() {
    let (mut y, mut x) = (0.0, 1.5);
    let err = catch(|| leaky_ancilla(&mut y, &mut x)).unwrap_err();
    let text = err.to_string();
    println!("{text}");
    assert!(text.starts_with("reversibility check failed in `leaky_ancilla`: ancilla does not hold its declared value at deallocation"), "{text}");
    assert!(
        squash(&text).contains("statement:dealloc!(a=0.0);variable:"),
        "{text}"
    );
    assert!(text.contains("variable:  a\n"), "{text}");
    assert!(text.contains("expected:  0.0\n"), "{text}");
    assert!(text.contains("found:     1.5"), "{text}");
    // Without `catch`, the check panics with the same message.
    let panic = std::panic::catch_unwind(move || leaky_ancilla(&mut y, &mut x)).unwrap_err();
    let message = panic
        .downcast_ref::<String>()
        .expect("a formatted panic message");
    assert_eq!(*message, text);
}

/// An unchecked loop checks the indices it does without bounds checks once, before it starts
/// (`nilang_ir::bounds`): out of range is a clear panic naming the function and the index,
/// never an access past the end — in the forward, the inverse and the adjoint program (whose
/// gradient buffers are checked too).
#[i(nocheck)]
fn shifted_add<T: nilang::Real>(y: &mut [T], x: &mut [T]) {
    for i in 0..y.len() {
        y[i] += x[i + 1];
    }
}

/// Rows of `x` picked by a table of row numbers (an element of a read-only slice times the row
/// length, plus the loop variable): the index is hoisted out of the inner loop, checked once
/// per row.
#[i(nocheck)]
fn picked_rows<T: nilang::Real>(y: &mut [T], x: &mut [T], rows: &[usize], k: usize) {
    for r in 0..rows.len() {
        for c in 0..k {
            y[r * k + c] += x[rows[r] * k + c];
        }
    }
}

#[test]
fn hoisted_indices_through_a_row_table_are_checked_once_per_row() {
    let (mut y, mut x) = (vec![0.0; 4], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    picked_rows(&mut y, &mut x, &[2, 0], 2);
    assert_eq!(y, vec![5.0, 6.0, 1.0, 2.0]);
    picked_rows_inv(&mut y, &mut x, &[2, 0], 2);
    assert_eq!(y, vec![0.0; 4]);
    let e = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        picked_rows(&mut y, &mut x, &[1, 3], 2)
    }))
    .unwrap_err();
    let m = e.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(m.contains("index out of range in `picked_rows`"), "{m}");
    assert!(
        m.contains("x[rows[r] * k + c]") && m.contains("Some(6) to Some(7)"),
        "{m}"
    );
    assert_eq!(
        y,
        vec![3.0, 4.0, 0.0, 0.0],
        "the first row ran, the second stopped before"
    );
}

#[test]
fn hoisted_bounds_checks_fail_before_the_loop() {
    let message = |f: &mut dyn FnMut()| {
        let e = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_err();
        e.downcast_ref::<String>().cloned().unwrap_or_default()
    };
    let (mut y, mut x) = (vec![0.0; 3], vec![1.0, 2.0, 3.0]);
    let m = message(&mut || shifted_add(&mut y, &mut x));
    assert!(m.contains("index out of range in `shifted_add`"), "{m}");
    assert!(m.contains("x[i + 1]") && m.contains("Some(3)"), "{m}");
    assert_eq!(y, vec![0.0; 3], "nothing ran");
    let m = message(&mut || shifted_add_inv(&mut y, &mut x));
    assert!(m.contains("shifted_add_inv"), "{m}");
    // in range it runs; a gradient buffer shorter than its value is caught as well, on
    // entry (tests/gradient_buffers.rs), before the hoisted checks
    let (mut y, mut x) = (vec![0.0; 3], vec![1.0, 2.0, 3.0, 4.0]);
    shifted_add(&mut y, &mut x);
    assert_eq!(y, vec![2.0, 3.0, 4.0]);
    let (mut y_grad, mut x_grad) = (vec![1.0; 3], vec![0.0; 3]);
    let m = message(&mut || shifted_add_adjoint(&mut y, &mut y_grad, &mut x, &mut x_grad));
    assert!(
        m.contains("`shifted_add_adjoint`: the gradient buffer `x_grad` has length 3, but `x` has length 4"),
        "{m}"
    );
    let mut x_grad = vec![0.0; 4];
    shifted_add_adjoint(&mut y, &mut y_grad, &mut x, &mut x_grad);
    assert_eq!((y, x_grad), (vec![0.0; 3], vec![0.0, 1.0, 1.0, 1.0]));
}

// ---------------------------------------------------------------------------------------
// when the checks run: the same leaky program under each policy

/// The same leaky program (its ancilla is not uncomputed) under the attribute `$attr`.
macro_rules! leaky {
    ($name:ident, #[$attr:meta]) => {
        #[$attr]
        fn $name(y: &mut f64, x: &mut f64) {
            let a = 0.0;
            a += identity(x);
            y += identity(a);
            dealloc!(a = 0.0);
        }
    };
}
leaky!(leaky_by_default, #[i]);
leaky!(leaky_always_checked, #[i(check)]);
leaky!(leaky_never_checked, #[i(nocheck)]);

#[test]
fn checks_follow_debug_assertions_unless_check_or_nocheck_says_otherwise() {
    // a program fails when its forward or its inverse (run after it) stops at a check
    type Program = fn(&mut f64, &mut f64);
    let fails = |(f, inv): (Program, Program)| {
        catch(|| {
            let (mut y, mut x) = (0.0, 1.5);
            f(&mut y, &mut x);
            inv(&mut y, &mut x);
        })
        .is_err()
    };
    assert_eq!(
        fails((leaky_by_default, leaky_by_default::inv)),
        cfg!(debug_assertions),
        "by default the checks run exactly where debug assertions do"
    );
    assert!(
        fails((leaky_always_checked, leaky_always_checked::inv)),
        "#[i(check)] checks in every build"
    );
    assert!(
        !fails((leaky_never_checked, leaky_never_checked::inv)),
        "#[i(nocheck)] checks in no build"
    );
    // whichever program runs, the values are the same
    let (mut y, mut x) = (0.0, 1.5);
    leaky_never_checked(&mut y, &mut x);
    assert_eq!((y, x), (1.5, 1.5));
}
