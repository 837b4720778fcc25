//! `#[differentiable]` on loops and functions that end early: `break` (a series summed until it
//! converges, Newton's method in a `loop`, an inner loop left while the outer goes on),
//! `continue`, and `return` (a guard at the top, a `return` from inside nested loops, `return;`
//! from a function that writes outputs). For each program, on random inputs (proptest): the
//! reversible program's value equals the plain function's bit for bit (so it ran the same
//! iterations), `f_rev_inv` undoes `f_rev`, and the gradient of `f_gradient` agrees with central
//! differences of the plain function and with forward mode (the reversible program run on
//! `Dual` numbers).

use nilang::{differentiable, Dual};
use proptest::prelude::*;

#[path = "support/agreement.rs"]
#[macro_use]
mod agreement;
use agreement::{duals, inputs};

/// The series of the lower incomplete gamma function, `Σₙ xⁿ / (a (a+1) ⋯ (a+n))`, summed until
/// a term no longer changes the sum: `break` in a `for` over a range.
#[differentiable]
fn gamma_series(p: &[f64]) -> f64 {
    let (a, x) = (p[0], p[1]);
    let mut term = 1.0 / a;
    let mut sum = term;
    for n in 1..1000 {
        term *= x / (a + n as f64);
        sum += term;
        if term.abs() < sum.abs() * 1e-16 {
            break;
        }
    }
    sum * (-x + a * x.ln()).exp()
}

/// The cube root of `p[0]` by Newton's method: a `loop` left by `break` once a step is small.
#[differentiable]
fn cube_root(p: &[f64]) -> f64 {
    let a = p[0];
    let mut y = a;
    let mut k = 0;
    loop {
        let next = y - (y * y * y - a) / (3.0 * y * y);
        let step = (next - y).abs();
        y = next;
        k += 1;
        if step <= 1e-15 * y.abs() || k == 60 {
            break;
        }
    }
    y
}

/// `continue` in a loop over elements, and in a `while` beside a `break`; a `break` of an inner
/// loop (the outer one goes on); a `break` in a loop over a reversed range.
#[differentiable]
fn skips(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in x.iter() {
        if v < 0.0 {
            continue;
        }
        s += v.sin();
    }
    let mut i = 0;
    while i < x.len() {
        i += 1;
        if x[i - 1] > 0.5 {
            continue;
        } else if x[i - 1] < -0.75 {
            break;
        }
        s += x[i - 1] * s;
    }
    for j in 0..x.len() {
        for k in j..x.len() {
            if x[k] < x[j] {
                break;
            }
            s += 0.25 * x[k] * x[j];
        }
    }
    for j in (0..x.len()).rev() {
        s = s * 0.5 + x[j];
        if x[j] > 0.9 {
            break;
        }
    }
    s
}

const LIMIT: f64 = 1.5;

/// A guard that returns first, and a `return` from inside two loops.
#[differentiable]
fn first_over(x: &[f64]) -> f64 {
    if x[0] > 0.9 {
        return x[0].exp();
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..i {
            s += x[i] * x[j];
            if s > LIMIT {
                return s * (i + j + 1) as f64;
            }
        }
    }
    -s
}

/// A function that writes an output and leaves by `return;` from inside a loop.
#[differentiable]
fn prefix(x: &[f64], out: &mut [f64]) {
    out[0] = 1.0;
    for i in 0..x.len() {
        if x[i] < -0.5 {
            return;
        }
        out[0] *= 1.0 + x[i];
    }
    out[0] += x[0];
}

/// `prefix`'s output as a number, for central differences.
fn prefix_value(x: &[f64]) -> f64 {
    let mut out = [0.0];
    prefix(x, &mut out);
    out[0]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn a_series_stops_where_rust_stops((v, dir) in inputs(2, 0.5, 4.0)) {
        agree!(&v, &dir, gamma_series, gamma_series_rev, gamma_series_rev_inv, gamma_series_gradient);
    }

    #[test]
    fn newton_in_a_loop((v, dir) in inputs(1, 0.5, 20.0)) {
        agree!(&v, &dir, cube_root, cube_root_rev, cube_root_rev_inv, cube_root_gradient);
    }

    #[test]
    fn continue_and_inner_breaks((v, dir) in inputs(6, -1.0, 1.0)) {
        agree!(&v, &dir, skips, skips_rev, skips_rev_inv, skips_gradient);
    }

    #[test]
    fn returns_from_a_guard_and_from_nested_loops((v, dir) in inputs(5, -1.0, 1.0)) {
        agree!(&v, &dir, first_over, first_over_rev, first_over_rev_inv, first_over_gradient);
    }

    #[test]
    fn return_from_a_function_with_outputs((v, dir) in inputs(5, -1.0, 1.0)) {
        let (mut out, mut x) = ([0.0], v.clone());
        prefix(&v, &mut out);
        let mut rev = [0.0];
        prefix_rev(&mut x, &mut rev);
        prop_assert_eq!(rev[0].to_bits(), out[0].to_bits());
        prefix_rev_inv(&mut x, &mut rev);
        prop_assert_eq!((&x[..], rev[0]), (&v[..], 0.0));
        let (mut value, mut jacobian) = ([0.0], vec![0.0; v.len()]);
        prefix_jacobian(&v, &mut value, &mut jacobian);
        prop_assert_eq!(value[0].to_bits(), out[0].to_bits());
        nilang::ad::check_gradient(prefix_value, &v, &jacobian, 1e-6, 1e-5).unwrap();
        let mut sink = [0.0];
        prop_assert_eq!(prefix_gradient(&v, &mut sink, &[1.0]), jacobian.clone());
        let mut x = duals(&v, &dir);
        let mut rev = [Dual { re: 0.0, eps: 0.0 }];
        prefix_rev(&mut x, &mut rev);
        let along: f64 = jacobian.iter().zip(&dir).map(|(g, d)| g * d).sum();
        prop_assert!((along - rev[0].eps).abs() <= 1e-9 * (1.0 + along.abs()));
    }
}

#[test]
fn each_way_out_is_taken() {
    // the guard, a return from the nested loops, and the end of the body
    assert_eq!(first_over(&[0.95, 0.0]), 0.95f64.exp());
    assert_eq!(first_over(&[0.5, 1.0, 2.0]), (0.5 + 1.0 + 2.0) * 4.0);
    assert_eq!(first_over(&[0.5, 0.1]), -0.05);
    assert_eq!(first_over_gradient(&[0.5, 0.1]).1, vec![-0.1, -0.5]);
    // Newton's method converged: ∛27 = 3 and d∛a/da = 1 / (3 ∛a²)
    let (value, d) = cube_root_gradient(&[27.0]);
    assert!((value - 3.0).abs() < 1e-15);
    assert!((d[0] - 1.0 / 27.0).abs() < 1e-15);
}

/// A guard whose test reads `state` and `acc` at a tie (`0 > 0` where `x[1] = 0`), before a
/// loop that accumulates into `state` (`state += …`) and returns from inside. Undone in
/// place, the accumulations gave `state` back to within rounding (about 1e-17, not 0), so
/// the guard's test, computed again backwards, took the other branch and the inverse popped
/// an empty tape (found by the ordinary-program corpus). A number a test reads is now
/// changed by saving and swapping.
#[differentiable]
fn tie_before_accumulation(x: &[f64], t: f64) -> f64 {
    let mut acc = x[1].sin();
    let mut state = acc.min(t).tanh();
    if (state - acc) > acc {
        return state;
    }
    for i in 0..x.len() {
        state += 0.5 * (t + 0.73).sin().tanh();
        if state.min(acc) > x[i] {
            return acc + 0.5 * x[i].max(x[3]).tanh();
        }
        acc *= 0.5 + 0.25 * x[3].tanh().exp().tanh();
    }
    acc + state
}

#[test]
fn a_test_at_a_tie_is_undone_exactly() {
    let v = [0.1, 0.0, 0.3, -0.2];
    let (mut x, mut t, mut out) = (v.to_vec(), 0.05, 0.0f64);
    tie_before_accumulation_rev(&mut out, &mut x, &mut t);
    assert_eq!(out.to_bits(), tie_before_accumulation(&v, 0.05).to_bits());
    tie_before_accumulation_rev_inv(&mut out, &mut x, &mut t);
    assert_eq!((&x[..], t, out), (&v[..], 0.05, 0.0));
    let (value, (dx, dt)) = tie_before_accumulation_gradient(&v, 0.05);
    assert_eq!(value, tie_before_accumulation(&v, 0.05));
    // the loop returns at i = 3 (min(state, 0) = 0 > -0.2): the value is acc + ½ tanh(x₃),
    // acc = sin(x₁)·c³ with c = ½ + ¼ tanh(e^{tanh x₃}), so ∂/∂x₁ = c³ and ∂/∂t = 0
    let c = 0.5 + 0.25 * (-0.2f64).tanh().exp().tanh();
    assert!((dx[1] - c * c * c).abs() < 1e-15, "{dx:?}");
    assert_eq!((dx[0], dx[2], dt), (0.0, 0.0, 0.0));
}
