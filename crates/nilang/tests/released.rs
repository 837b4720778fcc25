//! The released-ancilla rule: in an unchecked adjoint program, `t -= f(x)` on an ancilla `t`
//! deallocated as zero right after holds `f(x)` in `t` already, and the pair rule
//! (`Acc1::sub1_released`) takes `f′` from `t`'s value for the primitives whose derivative
//! follows from their value. Gradients are checked against the closed form and against the
//! same program checked (which evaluates `f` as usual).

use nilang::prims::{Exp, Sigmoid, Sin, Sqrt, Tanh, Unary};
use nilang::{i, Acc1, GVar, Real};
use proptest::prelude::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-13 * (1.0 + a.abs().max(b.abs()))
}

/// `sub1_released` on a pair whose target holds `f(x)` does what `sub1` does.
fn same_rule<F: Unary<f64>>(x: f64, g: f64) -> bool {
    let (mut y1, mut x1) = (GVar::with_grad(F::value(x), g), GVar::new(x));
    let (mut y2, mut x2) = (y1, x1);
    <GVar<f64> as Acc1<F>>::sub1(&mut y1, &mut x1);
    <GVar<f64> as Acc1<F>>::sub1_released(&mut y2, &mut x2);
    y2.x == 0.0 && y1.x == 0.0 && close(x1.g, x2.g) && y1.g == y2.g
}

thread_local! {
    static EVALUATIONS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// `exp`, counting its evaluations.
struct CountedExp;

impl<T: nilang::Float> Unary<T> for CountedExp {
    fn value(x: T) -> T {
        EVALUATIONS.with(|c| c.set(c.get() + 1));
        x.exp()
    }
    fn derivative(x: T) -> T {
        Self::value(x)
    }
    fn value_and_derivative(x: T) -> (T, T) {
        let v = Self::value(x);
        (v, v)
    }
    fn derivative_from_value(v: T) -> Option<T> {
        Some(v)
    }
}

/// `out += Σ exp(x[i])` through [`CountedExp`], each exponential moved into `e`; checked, and
/// unchecked as `counted`.
#[i(unchecked = counted)]
fn counted_checked<T: Real + nilang::Float>(out: &mut T, x: &mut [T], e: &mut [T]) {
    for i in 0..x.len() {
        let t = T::zero();
        t += CountedExp(x[i]);
        out += identity(t);
        swap(t, e[i]);
        dealloc!(t = T::zero());
    }
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn an_unchecked_gradient_evaluates_a_released_exponential_once() {
    type Vjp = fn(&mut f64, &mut f64, &mut [f64], &mut [f64], &mut [f64], &mut [f64]) -> f64;
    let x = [0.5, -1.0, 2.0];
    // forward: one evaluation per element; adjoint: none where released; checked, one for
    // the rule and one for the singular-point check (`Acc1::value_is_singular`)
    for (vjp, evaluations) in [(counted_vjp as Vjp, 3), (counted_checked_vjp, 9)] {
        let (mut out, mut xs, mut e) = (0.0, x, [0.0; 3]);
        let (mut og, mut xg, mut eg) = (1.0, [0.0; 3], [0.0; 3]);
        EVALUATIONS.with(|c| c.set(0));
        vjp(&mut out, &mut og, &mut xs, &mut xg, &mut e, &mut eg);
        assert_eq!(EVALUATIONS.with(|c| c.get()), evaluations);
        for (g, v) in xg.iter().zip(&x) {
            assert!(close(*g, v.exp()), "{g} vs {}", v.exp());
        }
    }
}

/// `out += Σ exp(x[i])` with each exponential in an ancilla moved into the output `e`;
/// checked (the deallocation checks `t`, so `exp` is evaluated), and unchecked as `kept`.
#[i(unchecked = kept)]
fn kept_checked<T: Real>(out: &mut T, x: &mut [T], e: &mut [T]) {
    for i in 0..x.len() {
        let t = T::zero();
        t += exp(x[i]);
        out += identity(t);
        swap(t, e[i]);
        dealloc!(t = T::zero());
    }
}

proptest! {
    #[test]
    fn the_released_rule_is_the_rule(x in 0.1f64..2.0, g in -2.0f64..2.0) {
        prop_assert!(same_rule::<Exp>(x, g));
        prop_assert!(same_rule::<Tanh>(x, g));
        prop_assert!(same_rule::<Sigmoid>(x, g));
        prop_assert!(same_rule::<Sqrt>(x, g));
        // no derivative from the value: evaluated as usual
        prop_assert!(same_rule::<Sin>(x, g));
    }

    #[test]
    fn gradients_of_released_exponentials(x in prop::collection::vec(-2.0f64..2.0, 1..8)) {
        type Vjp = fn(&mut f64, &mut f64, &mut [f64], &mut [f64], &mut [f64], &mut [f64]) -> f64;
        let vjps: [Vjp; 2] = [kept_vjp, kept_checked_vjp];
        for vjp in vjps {
            let n = x.len();
            let (mut out, mut xs, mut e) = (0.0, x.clone(), vec![0.0; n]);
            let (mut og, mut xg, mut eg) = (1.0, vec![0.0; n], vec![0.0; n]);
            vjp(&mut out, &mut og, &mut xs, &mut xg, &mut e, &mut eg);
            prop_assert_eq!(&xs, &x);
            prop_assert!(e.iter().chain(&eg).all(|v| *v == 0.0));
            for (g, v) in xg.iter().zip(&x) {
                prop_assert!(close(*g, v.exp()), "{} vs {}", g, v.exp());
            }
        }
    }
}

/// `out += Σ exp(x[i] − a)` through [`CountedExp`] of a nested operand (`expand!` computes
/// `x[i] − a` into an ancilla around the instruction), each exponential saved on a tape and
/// its ancilla started and deallocated as `T::lit(-0.0)`: what the front end of ordinary Rust
/// writes for `let e = (x[i] - a).exp(); out += e;`; unchecked as `taped`.
#[i(unchecked = taped)]
fn taped_checked<T: Real + nilang::Float>(out: &mut T, x: &mut [T], tape: &mut Vec<T>, a: &T) {
    for i in 0..x.len() {
        let t = T::lit(-0.0);
        expand! { t += CountedExp(x[i] - a); }
        out += identity(t);
        push!(tape, t);
        dealloc!(t = T::lit(-0.0));
    }
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn a_released_exponential_of_a_nested_operand_on_a_tape_is_evaluated_once() {
    let x = [0.5, -1.0, 2.0];
    let a = 0.25;
    type Vjp = fn(
        &mut f64,
        &mut f64,
        &mut [f64],
        &mut [f64],
        &mut Vec<f64>,
        &mut Vec<f64>,
        &f64,
        (),
    ) -> f64;
    // unchecked: one evaluation per element forward, none in the adjoint (each exponential
    // comes back from the tape into its ancilla, released); checked: the rule and the
    // singular-point check evaluate it again
    for (vjp, evaluations) in [(taped_vjp as Vjp, 3), (taped_checked_vjp, 9)] {
        let (mut out, mut xs, mut tape, mut tape_grad) = (0.0, x, Vec::new(), Vec::new());
        let (mut og, mut xg) = (1.0, [0.0; 3]);
        EVALUATIONS.with(|c| c.set(0));
        vjp(
            &mut out,
            &mut og,
            &mut xs,
            &mut xg,
            &mut tape,
            &mut tape_grad,
            &a,
            (),
        );
        assert_eq!(EVALUATIONS.with(|c| c.get()), evaluations);
        assert!(tape.is_empty() && xs == x);
        for (g, v) in xg.iter().zip(&x) {
            assert!(close(*g, (v - a).exp()), "{g} vs {}", (v - a).exp());
        }
    }
}

/// `y += exp(x − a) + x·a` with the exponential released after a routine that takes `x·a` in
/// and out of the same ancilla: the released form reads `t`, so the routine's uncomputation
/// must restore it (`nilang_ir::dead_values`); unchecked as `shifted`.
#[i(unchecked = shifted)]
fn shifted_checked<T: Real>(y: &mut T, x: &mut T, a: &mut T) {
    let t = T::lit(-0.0);
    expand! { t += exp(x - a); }
    routine! { t += x * a; }
    y += identity(t);
    uncompute!();
    expand! { t -= exp(x - a); }
    dealloc!(t = T::lit(-0.0));
}

proptest! {
    #[test]
    fn a_released_ancilla_after_a_routine_has_the_checked_gradient(
        x in -2.0f64..2.0, a in -2.0f64..2.0,
    ) {
        type Vjp = fn(&mut f64, &mut f64, &mut f64, &mut f64, &mut f64, &mut f64) -> (f64, f64, f64);
        let mut grads = Vec::new();
        for vjp in [shifted_vjp as Vjp, shifted_checked_vjp] {
            let (mut y, mut xs, mut as_) = (0.0, x, a);
            let (mut yg, mut xg, mut ag) = (1.0, 0.0, 0.0);
            vjp(&mut y, &mut yg, &mut xs, &mut xg, &mut as_, &mut ag);
            prop_assert_eq!((xs, as_), (x, a));
            grads.push((xg, ag));
        }
        let e = (x - a).exp();
        prop_assert!(close(grads[0].0, e + a) && close(grads[0].1, -e + x), "{:?}", grads);
        // to rounding: `t` holds `exp(x − a)` again only up to the rounding of `+ x·a − x·a`
        prop_assert!(close(grads[0].0, grads[1].0) && close(grads[0].1, grads[1].1));
    }
}
