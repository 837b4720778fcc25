//! Gradients are never silently wrong: the singular-point policy of the primitives
//! (`nilang::prims`), NaN and infinities produced inside a checked gradient
//! (`CheckKind::NonFinite`), and gradients an ancilla's allocation would drop
//! (`CheckKind::DroppedGradient`; the static rule is `nilang_ir::dropped`, whose compile error
//! is `tests/ui/ancilla_drops_gradient.rs`).

use nilang::{catch, i, CheckKind, Loss, Real};

#[i]
fn root<T: Real>(y: &mut T, x: &mut T) {
    y += sqrt(x);
}

#[i(nocheck)]
fn root_unchecked<T: Real>(y: &mut T, x: &mut T) {
    y += sqrt(x);
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn sqrt_at_zero_is_a_named_error_in_a_checked_gradient() {
    let err = catch(|| root_grad(Loss::arg(0), &mut 0.0, &mut 0.0)).unwrap_err();
    assert_eq!(err.kind, CheckKind::NonFinite, "{err}");
    assert_eq!(err.function, "root_adjoint");
    assert!(err.statement.contains("sqrt"), "{err}");
    assert_eq!(err.variable, "x");
    assert!(err.to_string().contains("hint:"), "{err}");
    // away from the singular point the checked gradient runs
    let (_, gx) = root_grad(Loss::arg(0), &mut 0.0, &mut 4.0).unwrap();
    assert_eq!(gx.g, 0.25);
}

#[test]
fn unchecked_gradients_give_ieee_results_at_singular_points() {
    let (_, gx) = root_unchecked_grad(Loss::arg(0), &mut 0.0, &mut 0.0).unwrap();
    assert_eq!(gx.g, f64::INFINITY);
}

#[i]
fn quotient<T: Real>(y: &mut T, a: &mut T, b: &mut T) {
    y += a / b;
}

#[i]
fn logarithm<T: Real>(y: &mut T, x: &mut T) {
    y += log(x);
}

#[i]
fn arcsine<T: Real>(y: &mut T, x: &mut T) {
    y += asin(x);
}

#[i]
fn angle<T: Real>(y: &mut T, a: &mut T, b: &mut T) {
    y += atan2(a, b);
}

#[i]
fn power<T: Real>(y: &mut T, a: &mut T, b: &mut T) {
    y += pow(a, b);
}

/// Each singular point of the policy table (`nilang::prims`) is a `NonFinite` error naming
/// the statement; the variable is the operand whose gradient became non-finite, or all the
/// operands where the primitive's value is not finite.
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn every_singular_point_is_a_named_error() {
    let cases: Vec<(&str, Box<dyn Fn()>, &str)> = vec![
        (
            "a / b at b = 0",
            Box::new(|| drop(quotient_grad(Loss::arg(0), &mut 0.0, &mut 1.0, &mut 0.0))),
            "a, b",
        ),
        (
            "log at 0",
            Box::new(|| drop(logarithm_grad(Loss::arg(0), &mut 0.0, &mut 0.0))),
            "x",
        ),
        (
            "log below 0",
            Box::new(|| drop(logarithm_grad(Loss::arg(0), &mut 0.0, &mut -1.0))),
            "x",
        ),
        (
            "asin at 1",
            Box::new(|| drop(arcsine_grad(Loss::arg(0), &mut 0.0, &mut 1.0))),
            "x",
        ),
        (
            "asin beyond 1",
            Box::new(|| drop(arcsine_grad(Loss::arg(0), &mut 0.0, &mut 1.5))),
            "x",
        ),
        (
            "atan2 at the origin",
            Box::new(|| drop(angle_grad(Loss::arg(0), &mut 0.0, &mut 0.0, &mut 0.0))),
            "a",
        ),
        (
            "pow(0, 0.5)",
            Box::new(|| drop(power_grad(Loss::arg(0), &mut 0.0, &mut 0.0, &mut 0.5))),
            "a",
        ),
        (
            "pow(-2, 2) in b",
            Box::new(|| drop(power_grad(Loss::arg(0), &mut 0.0, &mut -2.0, &mut 2.0))),
            "b",
        ),
    ];
    for (what, run, variable) in cases {
        let err = catch(run).expect_err(what);
        assert_eq!(err.kind, CheckKind::NonFinite, "{what}: {err}");
        assert_eq!(err.variable, variable, "{what}: {err}");
    }
}

#[i]
fn absolute<T: Real>(y: &mut T, x: &mut T) {
    y += abs(x);
}

/// A defined value: `abs′(0) = 0` whatever the sign of the zero; ±1 elsewhere.
#[test]
fn abs_has_derivative_zero_at_zero() {
    for (x, d) in [(0.0, 0.0), (-0.0, 0.0), (2.0, 1.0), (-2.0, -1.0)] {
        let (_, gx) = absolute_grad(Loss::arg(0), &mut 0.0, &mut { x }).unwrap();
        assert_eq!(gx.g, d, "abs′({x})");
    }
}

/// `pow(0, 2)`: `∂/∂b aᵇ` is 0 where `aᵇ` is 0, and `∂/∂a = 2a = 0`: finite, no error.
#[test]
fn pow_at_zero_with_an_integer_exponent_is_defined() {
    let (_, ga, gb) = power_grad(Loss::arg(0), &mut 0.0, &mut 0.0, &mut 2.0).unwrap();
    assert_eq!((ga.g, gb.g), (0.0, 0.0));
}

/// A copy made by a Rust function: the static rule (`nilang_ir::dropped`) does not look
/// into calls' results, so the checked adjoint program catches the drop at run time.
fn same<T: Real>(x: T) -> T {
    x
}

#[i]
fn dropped_through_a_call<T: Real>(z: &mut T, y: &mut T) {
    let b = same(*y);
    z += identity(b);
    dealloc!(b = same(*y));
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn a_dropped_gradient_is_a_named_runtime_error() {
    let err = catch(|| dropped_through_a_call_grad(Loss::arg(0), &mut 0.0, &mut 1.5)).unwrap_err();
    assert_eq!(err.kind, CheckKind::DroppedGradient, "{err}");
    assert_eq!(err.function, "dropped_through_a_call_adjoint");
    assert_eq!(err.variable, "b");
    // the adjoint runs the inverse program, where the allocation is a deallocation
    assert!(err.statement.contains("b = same"), "{err}");
    assert!(err.found.contains("1"), "{err}");
}

/// The same program restructured as the hint says: the gradient reaches `y`.
#[i]
fn copied_through_a_call<T: Real>(z: &mut T, y: &mut T) {
    let b = T::zero();
    b += identity(y);
    z += identity(b);
    b -= identity(y);
    dealloc!(b = T::zero());
}

#[test]
fn the_restructured_copy_passes_the_gradient_on() {
    let (_, gy) = copied_through_a_call_grad(Loss::arg(0), &mut 0.0, &mut 1.5).unwrap();
    assert_eq!(gy.g, 1.0);
}

/// The fused gradient (`L P M ~P D`) checks the ancillas of `L` too.
#[i]
fn fused_drop<T: Real>(z: &mut T, y: &mut T) {
    let b = same(*y);
    routine! {
        let t = T::zero();
        t += identity(b);
    }
    z += identity(t);
    uncompute!();
    dealloc!(b = same(*y));
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn a_dropped_gradient_is_caught_in_any_gradient_function() {
    for err in [
        catch(|| fused_drop_grad(Loss::arg(0), &mut 0.0, &mut 1.5)).unwrap_err(),
        catch(|| {
            let (mut z, mut y, mut zg, mut yg) = (0.0, 1.5, 1.0, 0.0);
            fused_drop_vjp(&mut z, &mut zg, &mut y, &mut yg)
        })
        .unwrap_err(),
    ] {
        assert_eq!(err.kind, CheckKind::DroppedGradient, "{err}");
        assert_eq!(err.variable, "b", "{err}");
    }
}
