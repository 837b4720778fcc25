//! `saddle`: `min_x max_y f(x, y)` with `f(x, y) = x₁² + x₂² − y₁² − y₂²` (GradBench's
//! `saddle.hpp` argument order), both by gradient descent ([`super::gd`]) from `start`, then
//! `argmax_y f(x*, y)`; output `[x*, y*]`.
//!
//! `f` is the reversible program [`saddle_f`] (`y` the state, `x` a read-only constant). The
//! outer objective `r(x) = max_y f(x, y)` contains the inner solver, so its gradient is a
//! derivative through a loop that itself calls a derivative. What each function does:
//!
//! * `fr`: the inner gradient `∇_y f` is the generated `saddle_f_grad` (reversal of
//!   `saddle_f`); the outer gradient `∇_x r` is forward mode through the whole inner solver:
//!   the solver runs on [`Dual`] numbers, `x` seeded with tangent `e_k` (one pass per
//!   component), and the inner gradient is `saddle_f_grad::<Dual<f64>>` (reversal on dual
//!   numbers, with `x` a dual constant). Step 2 takes `∇_y f` by forward mode (the outer mode).
//! * `ff`: as `fr`, with the inner gradient by forward mode too: `saddle_f` run forward on
//!   `Dual<Dual<f64>>`, one pass per component of `y`.
//! * `rf`, `rr` (outer reverse mode) are not implemented: reversing the outer objective needs
//!   the inner solver — a `while` loop that calls a derivative — as a reversible program, and a
//!   reversible program cannot call a generated gradient (nor run on `GVar<GVar<_>>`). They
//!   answer `success: false`.

use super::gd;
use super::{decode, timed, unknown_function};
use crate::runs::Timing;
use nilang::{i, Dual, Float, Loss, Real};
use serde::Deserialize;
use serde_json::{json, Value};

/// `out += x₁² + x₂² − y₁² − y₂²`.
#[i(nocheck)]
pub fn saddle_f<T: Real>(out: &mut T, y: &mut [T], x: &[T]) {
    out += square(x[0]);
    out += square(x[1]);
    out -= square(y[0]);
    out -= square(y[1]);
}

/// `f(x, y)` by running [`saddle_f`] forward.
pub fn f<S: Float + Real>(x: &[S], y: &[S]) -> S {
    let (mut out, mut y) = (<S as Float>::f_zero(), y.to_vec());
    saddle_f(&mut out, &mut y, x);
    out
}

/// `∇_y f(x, y)` by reversal: [`saddle_f_grad`] (`x` a constant).
pub fn grad_y_reverse<S: Float + Real>(x: &[S], y: &[S]) -> Vec<S> {
    let (mut out, mut y) = (<S as Float>::f_zero(), y.to_vec());
    let (_go, gy) = saddle_f_grad(Loss::arg(0), &mut out, &mut y, x).expect("saddle_f_grad");
    gy.iter().map(|v| v.g).collect()
}

/// `∇_y f(x, y)` by forward mode: [`saddle_f`] on dual numbers, one pass per component.
pub fn grad_y_forward<S: Float + Real>(x: &[S], y: &[S]) -> Vec<S>
where
    Dual<S>: Real,
{
    let xd: Vec<Dual<S>> = x.iter().map(|&v| Dual::constant(v)).collect();
    (0..y.len())
        .map(|k| {
            let mut yd: Vec<Dual<S>> = y
                .iter()
                .enumerate()
                .map(|(j, &v)| {
                    let t = if j == k { 1.0 } else { 0.0 };
                    Dual::new(v, S::from_f64(t))
                })
                .collect();
            let mut out = Dual::constant(<S as Float>::f_zero());
            saddle_f(&mut out, &mut yd, &xd);
            out.eps
        })
        .collect()
}

/// How a gradient is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Forward mode (dual numbers).
    Forward,
    /// Reverse mode (the inverse program).
    Reverse,
}

fn grad_y<S: Float + Real>(mode: Mode, x: &[S], y: &[S]) -> Vec<S>
where
    Dual<S>: Real,
{
    match mode {
        Mode::Forward => grad_y_forward(x, y),
        Mode::Reverse => grad_y_reverse(x, y),
    }
}

/// The outer objective `r(x) = max_y f(x, y)` (inner descent from `start`, inner gradient by
/// `inner`) on dual numbers: its tangent is the outer derivative along `x`'s tangent.
pub fn outer<S: Float + Real>(start: [f64; 2], inner: Mode, x: &[S]) -> S
where
    Dual<S>: Real,
{
    let s: Vec<S> = start.iter().map(|&v| S::from_f64(v)).collect();
    gd::max(|y| f(x, y), |y| grad_y(inner, x, y), &s)
}

/// `∇r(x)` by forward mode through the inner solver: one pass on [`Dual`] numbers per
/// component of `x`.
pub fn outer_gradient(start: [f64; 2], inner: Mode, x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|k| {
            let xd: Vec<Dual<f64>> = (0..x.len())
                .map(|j| Dual::new(x[j], if j == k { 1.0 } else { 0.0 }))
                .collect();
            outer(start, inner, &xd).eps
        })
        .collect()
}

/// The saddle point `[x*, y*]` from `start`, the outer derivative by forward mode through the
/// inner solver, the inner one by `inner`.
pub fn saddle(start: [f64; 2], inner: Mode) -> Vec<f64> {
    let xs = gd::argmin(
        |x: &[f64]| outer(start, inner, x),
        |x: &[f64]| outer_gradient(start, inner, x),
        &start,
    );
    // step 2: argmax_y f(x*, y), gradient in the outer (forward) mode
    let ys = gd::argmax(|y| f(&xs, y), |y| grad_y(Mode::Forward, &xs, y), &start);
    vec![xs[0], xs[1], ys[0], ys[1]]
}

/// Plain Rust saddle point with analytic gradients (the reference for tests).
pub fn reference(start: [f64; 2]) -> Vec<f64> {
    let f = |x: &[f64], y: &[f64]| x[0] * x[0] + x[1] * x[1] - y[0] * y[0] - y[1] * y[1];
    let gy = |y: &[f64]| vec![-2.0 * y[0], -2.0 * y[1]];
    // the inner maximiser does not depend on x (∂²f/∂x∂y = 0): ∇r(x) = ∇ₓf(x, y*) = 2x
    let r = |x: &[f64]| reference_outer(start, x);
    let xs = gd::argmin(r, |x: &[f64]| vec![2.0 * x[0], 2.0 * x[1]], &start);
    let ys = gd::argmax(|y| f(&xs, y), gy, &start);
    vec![xs[0], xs[1], ys[0], ys[1]]
}

/// Plain Rust `r(x) = max_y f(x, y)` (the inner descent with the analytic gradient).
pub fn reference_outer(start: [f64; 2], x: &[f64]) -> f64 {
    let f = |y: &[f64]| x[0] * x[0] + x[1] * x[1] - y[0] * y[0] - y[1] * y[1];
    gd::max(f, |y| vec![-2.0 * y[0], -2.0 * y[1]], &start)
}

/// The `saddle` input.
#[derive(Clone, Debug, Deserialize)]
pub struct Input {
    /// The starting point of every descent.
    pub start: [f64; 2],
}

/// The `saddle` functions: `ff`, `fr` (and `rf`, `rr` answered with an error).
pub fn evaluate(function: &str, input: &Value) -> Result<(Value, Vec<Timing>), String> {
    let inp: Input = decode("saddle", input)?;
    match function {
        "ff" => timed(input, || Ok(saddle(inp.start, Mode::Forward)), |v| json!(v)),
        "fr" => timed(input, || Ok(saddle(inp.start, Mode::Reverse)), |v| json!(v)),
        "rf" | "rr" => Err(format!(
            "saddle::{function} is not implemented by nilang: the outer derivative in reverse mode \
             would reverse a solver loop that calls a derivative, which a reversible program \
             cannot express; use `ff` or `fr`"
        )),
        _ => Err(unknown_function(
            "saddle",
            function,
            &["ff", "fr", "rf", "rr"],
        )),
    }
}
