//! Call effects (`g::WRITES`, one bit per parameter `g` may write) and the rules that read
//! them at call sites: a routine whose computation hands parameters to callees that only read
//! them skips its uncomputation when run unchecked on plain values, and runs its computation
//! on values alone in adjoint programs. Two programs compute the same function; in one the
//! callee says it writes the scale `s` (it adds one and takes it back), so neither rule
//! applies. Gradients are checked against the closed form and the `GVar` mode.

use nilang::{i, GVar, Real};
use proptest::prelude::*;
use std::cell::Cell;

thread_local! {
    /// How many times [`scaled`] and [`scaled_through_s`] ran, either way.
    static RUNS: Cell<usize> = const { Cell::new(0) };
}

fn runs() -> usize {
    RUNS.with(|r| r.replace(0))
}

/// `y += x·s` element by element: writes `y` alone.
#[i(nocheck)]
fn axpy<T: Real>(y: &mut [T], x: &mut [T], s: &mut T) {
    for j in 0..y.len() {
        y[j] += x[j] * s;
    }
}

/// `t += x·s` through [`axpy`]: writes `t` alone.
#[i(nocheck)]
fn scaled<T: Real>(t: &mut [T], x: &mut [T], s: &mut T) {
    safe! {
        RUNS.with(|r| r.set(r.get() + 1));
    }
    axpy(t, x, s);
}

/// `t += x·s` too, but it writes `s` on the way (adds one, takes it back).
#[i(nocheck)]
fn scaled_through_s<T: Real>(t: &mut [T], x: &mut [T], s: &mut T) {
    safe! {
        RUNS.with(|r| r.set(r.get() + 1));
    }
    s += 1.0;
    axpy(t, x, s);
    for j in 0..t.len() {
        t[j] -= identity(x[j]);
    }
    s -= 1.0;
}

/// `out += Σⱼ exp(x[j]·s)`, with `x·s` in an ancilla computed through [`scaled`].
#[i(nocheck)]
fn sum_exp<T: Real>(out: &mut T, x: &mut [T], s: &mut T) {
    let t = vec![T::zero(); x.len()];
    routine! {
        scaled(t, x, s);
    }
    for j in 0..x.len() {
        out += exp(t[j]);
    }
    uncompute!();
    dealloc!(t = vec![T::zero(); x.len()]);
}

/// [`sum_exp`] with the ancilla computed through [`scaled_through_s`].
#[i(nocheck)]
fn sum_exp_through_s<T: Real>(out: &mut T, x: &mut [T], s: &mut T) {
    let t = vec![T::zero(); x.len()];
    routine! {
        scaled_through_s(t, x, s);
    }
    for j in 0..x.len() {
        out += exp(t[j]);
    }
    uncompute!();
    dealloc!(t = vec![T::zero(); x.len()]);
}

#[test]
fn functions_publish_the_parameters_they_write() {
    assert_eq!(axpy::WRITES, 0b001);
    assert_eq!(
        scaled::WRITES,
        0b001,
        "x and s only pass through axpy's read-only slots"
    );
    assert_eq!(scaled_through_s::WRITES, 0b101);
    assert_eq!(sum_exp::WRITES, 0b001);
    assert_eq!(sum_exp_through_s::WRITES, 0b101);
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
}

#[test]
fn the_forward_run_skips_an_uncomputation_only_callees_could_observe() {
    let x = [0.3f64, -0.7, 1.1];
    let expect: f64 = x.iter().map(|v| (v * 1.5).exp()).sum();
    let (mut out, mut xs, mut s) = (0.0, x, 1.5);
    runs();
    sum_exp(&mut out, &mut xs, &mut s);
    assert_eq!(runs(), 1, "the computation only");
    assert!(close(out, expect));
    sum_exp_inv(&mut out, &mut xs, &mut s);
    assert_eq!(runs(), 1, "the inverse skips it as well");
    assert!(out.abs() < 1e-12 && close(s, 1.5));
    sum_exp_through_s(&mut out, &mut xs, &mut s);
    assert_eq!(runs(), 2, "s is written: the uncomputation restores it");
    assert!(close(out, expect));
    // values that carry gradients run it too
    let (mut wo, mut wx, mut ws) = (GVar::new(0.0), x.map(GVar::new), GVar::new(1.5));
    sum_exp(&mut wo, &mut wx, &mut ws);
    assert_eq!(runs(), 2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// `∂x[j] = s·e^(x[j] s)`, `∂s = Σ x[j] e^(x[j] s)`, from `f_vjp` (computation on values
    /// alone for `sum_exp`, on values and gradients for the other) and from the inverse on
    /// `GVar`s; every run restores its inputs.
    #[test]
    fn gradients_through_a_callee_that_only_reads(
        x in prop::collection::vec(-1.0f64..1.0, 1..6),
        s0 in -1.5f64..1.5,
    ) {
        let gx: Vec<f64> = x.iter().map(|v| s0 * (v * s0).exp()).collect();
        let gs: f64 = x.iter().map(|v| v * (v * s0).exp()).sum();
        type Vjp = fn(&mut f64, &mut f64, &mut [f64], &mut [f64], &mut f64, &mut f64) -> (f64, f64);
        let vjps: [Vjp; 2] = [sum_exp_vjp, sum_exp_through_s_vjp];
        for vjp in vjps {
            let (mut out, mut xs, mut s) = (0.0, x.clone(), s0);
            let (mut og, mut xg, mut sg) = (1.0, vec![0.0; x.len()], 0.0);
            vjp(&mut out, &mut og, &mut xs, &mut xg, &mut s, &mut sg);
            prop_assert!(xs == x && close(s, s0));
            prop_assert!(close(sg, gs), "{} vs {}", sg, gs);
            for (g, e) in xg.iter().zip(&gx) {
                prop_assert!(close(*g, *e), "{} vs {}", g, e);
            }
        }
        let (mut out, mut xs, mut s) = (0.0, x.clone(), s0);
        sum_exp(&mut out, &mut xs, &mut s);
        let mut wo = GVar::with_grad(out, 1.0);
        let mut wx: Vec<GVar<f64>> = xs.iter().map(|&v| GVar::new(v)).collect();
        let mut ws = GVar::new(s);
        sum_exp_inv(&mut wo, &mut wx, &mut ws);
        prop_assert!(close(ws.g, gs));
        for ((w, e), v) in wx.iter().zip(&gx).zip(&x) {
            prop_assert!(close(w.g, *e) && close(w.x, *v));
        }
        runs();
    }
}

/// `f_vjp` returns the value of each scalar `&mut` argument after `f` — computed on the way,
/// whichever program runs: fused with `P` writing ancillas alone (`sum_exp`), `P` writing the
/// scalar argument `s` (`sum_exp_through_s`: the plain order, since the fused forward half
/// leaves `s` as `P` left it).
#[test]
fn vjp_returns_the_values_after_the_forward_program() {
    let x = vec![0.3, -0.7, 1.1];
    let type_check: [fn(
        &mut f64,
        &mut f64,
        &mut [f64],
        &mut [f64],
        &mut f64,
        &mut f64,
    ) -> (f64, f64); 2] = [sum_exp_vjp, sum_exp_through_s_vjp];
    for (vjp, f) in type_check.into_iter().zip([
        sum_exp as fn(&mut f64, &mut [f64], &mut f64),
        sum_exp_through_s,
    ]) {
        let (mut out, mut xs, mut s) = (0.25, x.clone(), 1.5);
        f(&mut out, &mut xs, &mut s);
        let after = (out, s);
        let (mut out, mut xs, mut s) = (0.25, x.clone(), 1.5);
        let (mut og, mut xg, mut sg) = (1.0, vec![0.0; 3], 0.0);
        let value = vjp(&mut out, &mut og, &mut xs, &mut xg, &mut s, &mut sg);
        assert!(
            close(value.0, after.0) && close(value.1, after.1),
            "{value:?} vs {after:?}"
        );
        assert!(
            close(out, 0.25) && xs == x,
            "the inputs are restored all the same"
        );
    }
}
