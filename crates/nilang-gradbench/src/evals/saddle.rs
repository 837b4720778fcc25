//! `saddle`: `min_x max_y f(x, y)` with `f(x, y) = x₁² + x₂² − y₁² − y₂²` (GradBench's
//! `saddle.hpp` argument order), both by gradient descent ([`super::gd`]) from `start`, then
//! `argmax_y f(x*, y)`; output `[x*, y*]`.
//!
//! `f` is the reversible program [`saddle_f`] (`y` the state, `x` a read-only constant). The
//! outer objective `r(x) = max_y f(x, y)` contains the inner solver, so its gradient is a
//! derivative through a loop that itself calls a derivative. The function name gives the two
//! modes ([`Nesting`], outer first):
//!
//! * inner `∇_y f`, `?r`: the generated adjoint program `saddle_f_vjp` (reversal of `saddle_f`,
//!   on values and gradients of the number type); `?f`:
//!   `saddle_f` run forward on dual numbers, one pass per component of `y`.
//! * outer `∇_x r`, `f?`: forward mode through the whole inner solver, which runs on [`Dual`]
//!   numbers (`x` seeded with `e_k`, one pass per component); the inner derivative then runs
//!   on `Dual<Dual<f64>>` (`ff`) or is the reversal `saddle_f_vjp::<Dual<f64>>` (`fr`).
//!   `r?`: reverse mode through the whole inner solver, which runs on [`DualRev`] numbers
//!   recorded by the dual-numbers reverse engine and swept back once; the inner derivative
//!   then runs on `Dual<DualRev>` (`rf`) or is the reversal `saddle_f_vjp::<DualRev>`, the
//!   adjoint program on `DualRev` values and gradients (`rr`: reverse over reverse).
//!
//! Points are arrays and every derivative writes into one: the solver runs inside every
//! outer derivative, and with vectors its allocations took seven eighths of the time
//! ([`gd::argmin`]).
//!
//! Step 2 (`argmax_y f(x*, y)`) takes `∇_y f` in the outer mode, as the eval asks. The outer
//! reverse mode is the tape engine because the solver is ordinary Rust (a data-dependent
//! number of accepted and rejected steps), not a reversible program; every derivative of a
//! reversible program in it is still taken by reversal or duals, none is written by hand.

use super::gd::{self, Mode, Nesting};
use super::{decode, timed, unknown_function};
use crate::runs::Timing;
use nilang::{i, Dual, Float, Real};
use nilang_dualrev::DualRev;
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
pub fn f<S: Float + Real>(x: &[S; 2], y: &[S; 2]) -> S {
    let (mut out, mut y) = (<S as Float>::f_zero(), *y);
    saddle_f(&mut out, &mut y, x);
    out
}

/// `∇_y f(x, y)` by reversal: the adjoint program [`saddle_f_vjp`] on values and gradients of
/// `S` (`x` a constant).
pub fn grad_y_reverse<S: Float + Real>(x: &[S; 2], y: &[S; 2]) -> [S; 2] {
    let zero = <S as Float>::f_zero();
    let (mut out, mut seed, mut y, mut gy) = (zero, S::from_f64(1.0), *y, [zero; 2]);
    saddle_f_vjp(&mut out, &mut seed, &mut y, &mut gy, x, ());
    gy
}

/// `∇_y f(x, y)` by forward mode: [`saddle_f`] on dual numbers, one pass per component.
pub fn grad_y_forward<S: Float + Real>(x: &[S; 2], y: &[S; 2]) -> [S; 2]
where
    Dual<S>: Real,
{
    let xd = x.map(Dual::constant);
    std::array::from_fn(|k| {
        let mut yd: [Dual<S>; 2] = std::array::from_fn(|j| {
            let t = if j == k { 1.0 } else { 0.0 };
            Dual::new(y[j], S::from_f64(t))
        });
        let mut out = Dual::constant(<S as Float>::f_zero());
        saddle_f(&mut out, &mut yd, &xd);
        out.eps
    })
}

fn grad_y<S: Float + Real>(mode: Mode, x: &[S; 2], y: &[S; 2]) -> [S; 2]
where
    Dual<S>: Real,
{
    match mode {
        Mode::Forward => grad_y_forward(x, y),
        Mode::Reverse => grad_y_reverse(x, y),
    }
}

/// The outer objective `r(x) = max_y f(x, y)` (inner descent from `start`, inner gradient by
/// `inner`) on dual numbers: its tangent is the outer derivative along `x`'s tangent. An error
/// where the inner descent fails ([`gd::argmin`]).
pub fn outer<S: Float + Real>(start: [f64; 2], inner: Mode, x: &[S; 2]) -> Result<S, String>
where
    Dual<S>: Real,
{
    let s = start.map(S::from_f64);
    gd::max(|y| Ok(f(x, y)), |y| Ok(grad_y(inner, x, y)), &s)
}

/// `∇r(x)`, the outer derivative in `nesting.outer` mode through the inner solver (whose own
/// derivative is in `nesting.inner` mode).
pub fn outer_gradient(start: [f64; 2], nesting: Nesting, x: &[f64; 2]) -> Result<[f64; 2], String> {
    Ok(outer_and_gradient(start, nesting, x)?.1)
}

/// `r(x)` and `∇r(x)` ([`outer_gradient`]) from one run of the derivative, which computes the
/// value on its way (the same number [`outer`] on `f64` gives).
pub fn outer_and_gradient(
    start: [f64; 2],
    nesting: Nesting,
    x: &[f64; 2],
) -> Result<(f64, [f64; 2]), String> {
    match nesting.outer {
        Mode::Forward => {
            gd::forward_value_gradient(|x: &[Dual<f64>; 2]| outer(start, nesting.inner, x), x)
        }
        Mode::Reverse => {
            gd::reverse_value_gradient(|x: &[DualRev; 2]| outer(start, nesting.inner, x), x)
        }
    }
}

/// The saddle point `[x*, y*]` from `start`, derivatives as `nesting` says; an error where a
/// descent fails ([`gd::argmin`]: not converging within its cap, a value not finite). Each
/// step of the outer descent runs the outer derivative once, which gives `r(x)` too
/// ([`gd::argmin_joint`]).
pub fn saddle(start: [f64; 2], nesting: Nesting) -> Result<Vec<f64>, String> {
    let xs = gd::argmin_joint(|x: &[f64; 2]| outer_and_gradient(start, nesting, x), &start)?;
    // step 2: argmax_y f(x*, y), gradient in the outer mode
    let ys = gd::argmax(
        |y| Ok(f(&xs, y)),
        |y| Ok(grad_y(nesting.outer, &xs, y)),
        &start,
    )?;
    Ok(vec![xs[0], xs[1], ys[0], ys[1]])
}

/// Plain Rust saddle point with analytic gradients (the reference for tests).
pub fn reference(start: [f64; 2]) -> Result<Vec<f64>, String> {
    let f = |x: &[f64; 2], y: &[f64; 2]| x[0] * x[0] + x[1] * x[1] - y[0] * y[0] - y[1] * y[1];
    let gy = |y: &[f64; 2]| Ok([-2.0 * y[0], -2.0 * y[1]]);
    // the inner maximiser does not depend on x (∂²f/∂x∂y = 0): ∇r(x) = ∇ₓf(x, y*) = 2x
    let r = |x: &[f64; 2]| reference_outer(start, x);
    let xs = gd::argmin(r, |x: &[f64; 2]| Ok([2.0 * x[0], 2.0 * x[1]]), &start)?;
    let ys = gd::argmax(|y| Ok(f(&xs, y)), gy, &start)?;
    Ok(vec![xs[0], xs[1], ys[0], ys[1]])
}

/// Plain Rust `r(x) = max_y f(x, y)` (the inner descent with the analytic gradient).
pub fn reference_outer(start: [f64; 2], x: &[f64; 2]) -> Result<f64, String> {
    let f = |y: &[f64; 2]| Ok(x[0] * x[0] + x[1] * x[1] - y[0] * y[0] - y[1] * y[1]);
    gd::max(f, |y| Ok([-2.0 * y[0], -2.0 * y[1]]), &start)
}

/// The `saddle` input.
#[derive(Clone, Debug, Deserialize)]
pub struct Input {
    /// The starting point of every descent.
    pub start: [f64; 2],
}

/// The `saddle` functions: `ff`, `fr`, `rf`, `rr` ([`Nesting`]).
pub fn evaluate(function: &str, input: &Value) -> Result<(Value, Vec<Timing>), String> {
    let inp: Input = decode("saddle", input)?;
    if !inp.start.iter().all(|v| v.is_finite()) {
        return Err("bad `saddle` input: `start` must be finite".into());
    }
    match Nesting::parse(function) {
        Some(nesting) => timed(input, || saddle(inp.start, nesting), |v| json!(v)),
        None => Err(unknown_function("saddle", function, &Nesting::FUNCTIONS)),
    }
}
