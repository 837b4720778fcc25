//! `particle`: the charged-particle control problem of Pearlmutter and Siskind. A particle
//! starts at `(0, 8)` with velocity `(0.75, 0)` in the potential
//! `p(x; w) = 1/‖x − (10, 10 − w)‖ + 1/‖x − (10, 0)‖`; naive Euler steps (`Δt = 0.1`,
//! acceleration `−∇ₓp`) run while the next position is above the `x` axis, then a linear
//! step to the axis gives `x(t_f)`; the control `w` minimising `x₀(t_f)²` is found by
//! gradient descent ([`super::gd`]) from the input `w`. Output: the final `w`.
//!
//! The potential is the reversible program [`particle_potential`] (`x` the state, `w` a
//! read-only constant). The Euler integrator and the solver are plain drivers around it:
//!
//! The function name gives the two modes ([`Nesting`], outer first):
//!
//! * inner field `∇ₓp`, `?r`: the generated adjoint program `particle_potential_vjp`
//!   (reversal); `?f`: `particle_potential` run forward on dual numbers, one pass per
//!   coordinate.
//! * outer derivative `d x₀(t_f)² / dw`, `f?`: forward mode through the whole integration,
//!   which runs on [`Dual`] numbers with `w` seeded with tangent 1 (the inner field then on
//!   `Dual<Dual<f64>>`, or the adjoint program on `Dual<f64>` values and gradients); `r?`:
//!   reverse mode through the whole integration, which runs on [`DualRev`] numbers recorded by
//!   the dual-numbers reverse engine and swept back once (the inner field on `Dual<DualRev>`,
//!   or the adjoint program on `DualRev` values and gradients: reverse over reverse). Why the
//!   outer reverse mode is the tape engine is said in [`super::saddle`]. States and fields are
//!   arrays: the integration allocates nothing per step.

use super::gd::{self, Mode, Nesting};
use super::{decode, timed, unknown_function};
use crate::limits;
use crate::runs::Timing;
use nilang::{i, Dual, Float, Real};
use nilang_dualrev::DualRev;
use serde::Deserialize;
use serde_json::{json, Value};

/// `out += 1/‖x − (10, 10 − w)‖ + 1/‖x − (10, 0)‖`.
#[i(nocheck)]
pub fn particle_potential<T: Real>(out: &mut T, x: &mut [T], w: T) {
    let (d0, d1, r, e0, e1, q) = (
        T::zero(),
        T::zero(),
        T::zero(),
        T::zero(),
        T::zero(),
        T::zero(),
    );
    routine! {
        d0 += identity(x[0]);
        d0 -= identity(10.0);
        d1 += identity(x[1]);
        d1 -= identity(10.0);
        d1 += identity(w);
        r += hypot(d0, d1);
        e0 += identity(x[0]);
        e0 -= identity(10.0);
        e1 += identity(x[1]);
        q += hypot(e0, e1);
    }
    out += 1.0 / r;
    out += 1.0 / q;
    uncompute!();
    dealloc!(d0 = T::zero(), d1 = T::zero(), r = T::zero());
    dealloc!(e0 = T::zero(), e1 = T::zero(), q = T::zero());
}

/// `p(x; w)` by running [`particle_potential`] forward.
pub fn potential<S: Float + Real>(x: &[S; 2], w: S) -> S {
    let (mut out, mut x) = (<S as Float>::f_zero(), *x);
    particle_potential(&mut out, &mut x, w);
    out
}

/// `∇ₓp(x; w)` by reversal: the adjoint program [`particle_potential_vjp`] on values and
/// gradients of `S` (`w` a constant).
pub fn grad_x_reverse<S: Float + Real>(x: &[S; 2], w: S) -> [S; 2] {
    let zero = <S as Float>::f_zero();
    let (mut out, mut seed, mut x, mut gx) = (zero, S::from_f64(1.0), *x, [zero; 2]);
    particle_potential_vjp(&mut out, &mut seed, &mut x, &mut gx, w, ());
    gx
}

/// `∇ₓp(x; w)` by forward mode: [`particle_potential`] on dual numbers, one pass per
/// coordinate.
pub fn grad_x_forward<S: Float + Real>(x: &[S; 2], w: S) -> [S; 2]
where
    Dual<S>: Real,
{
    std::array::from_fn(|k| {
        let mut xd: [Dual<S>; 2] =
            std::array::from_fn(|j| Dual::new(x[j], S::from_f64(if j == k { 1.0 } else { 0.0 })));
        let mut out = Dual::constant(<S as Float>::f_zero());
        particle_potential(&mut out, &mut xd, Dual::constant(w));
        out.eps
    })
}

/// `x₀(t_f)²` for control `w`: naive Euler with acceleration `−grad(x, w)`, then the linear
/// step to the axis. An error after [`Limits::steps`] steps above the axis (the process's
/// cap, [`limits::current`]): for some `w` the particle never comes down (`w = 10` puts both
/// charges at `(10, 0)`, and their push sends it off for ever), where GradBench's `particle.hpp`
/// loops for ever. `w = 0` takes about 350 steps, `w = −5` about 1900.
///
/// [`Limits::steps`]: crate::limits::Limits::steps
pub fn naive_euler<S: Float>(w: S, grad: impl Fn(&[S; 2], S) -> [S; 2]) -> Result<S, String> {
    let limits = limits::current();
    let c = S::from_f64;
    let dt = c(0.1);
    let (mut x, mut v) = ([c(0.0), c(8.0)], [c(0.75), c(0.0)]);
    let mut steps = 0;
    loop {
        let what = || {
            format!(
                "the particle did not reach the x axis (w = {:?})",
                w.to_f64()
            )
        };
        limits.step(&mut steps, what)?;
        let g = grad(&x, w);
        let x_new = [x[0] + dt * v[0], x[1] + dt * v[1]];
        if x_new[1].to_f64() > 0.0 {
            x = x_new;
            v = [v[0] - dt * g[0], v[1] - dt * g[1]];
        } else {
            break;
        }
    }
    let dt_f = -x[1] / v[1];
    let x0 = x[0] + dt_f * v[0];
    Ok(x0 * x0)
}

fn cost<S: Float + Real>(mode: Mode, w: S) -> Result<S, String>
where
    Dual<S>: Real,
{
    match mode {
        Mode::Forward => naive_euler(w, grad_x_forward),
        Mode::Reverse => naive_euler(w, grad_x_reverse),
    }
}

/// `d x₀(t_f)² / dw` in `nesting.outer` mode through the integration (inner field in
/// `nesting.inner` mode).
pub fn cost_derivative(nesting: Nesting, w: f64) -> Result<f64, String> {
    Ok(cost_and_derivative(nesting, w)?.1)
}

/// `x₀(t_f)²` and its derivative [`cost_derivative`], from one run of the derivative (the cost
/// is the value it computes on its way, the same number the cost on `f64` gives).
pub fn cost_and_derivative(nesting: Nesting, w: f64) -> Result<(f64, f64), String> {
    let inner = nesting.inner;
    let (value, d) = match nesting.outer {
        Mode::Forward => gd::forward_value_gradient(|w: &[Dual<f64>; 1]| cost(inner, w[0]), &[w])?,
        Mode::Reverse => gd::reverse_value_gradient(|w: &[DualRev; 1]| cost(inner, w[0]), &[w])?,
    };
    Ok((value, d[0]))
}

/// The optimal control from `w0`, derivatives as `nesting` says; an error where the
/// integration or the descent does not end within its cap ([`naive_euler`], [`gd::argmin`]).
/// Each step of the descent runs the derivative once, which gives the cost too
/// ([`gd::argmin_joint`]).
pub fn particle(w0: f64, nesting: Nesting) -> Result<f64, String> {
    let w = gd::argmin_joint(
        |w: &[f64; 1]| cost_and_derivative(nesting, w[0]).map(|(c, d)| (c, [d])),
        &[w0],
    )?;
    Ok(w[0])
}

/// Plain Rust `x₀(t_f)²` with the analytic field (the reference for tests).
pub fn reference_cost(w: f64) -> Result<f64, String> {
    naive_euler(w, |x: &[f64; 2], w| {
        let mut g = [0.0; 2];
        for c in [[10.0, 10.0 - w], [10.0, 0.0]] {
            let (dx, dy) = (x[0] - c[0], x[1] - c[1]);
            let r3 = (dx * dx + dy * dy).powf(1.5);
            g[0] -= dx / r3;
            g[1] -= dy / r3;
        }
        g
    })
}

/// The `particle` input.
#[derive(Clone, Debug, Deserialize)]
pub struct Input {
    /// The starting control.
    pub w: f64,
}

/// The `particle` functions: `ff`, `fr`, `rf`, `rr` ([`Nesting`]).
pub fn evaluate(function: &str, input: &Value) -> Result<(Value, Vec<Timing>), String> {
    let inp: Input = decode("particle", input)?;
    if !inp.w.is_finite() {
        return Err("bad `particle` input: `w` must be finite".into());
    }
    match Nesting::parse(function) {
        Some(nesting) => timed(input, || particle(inp.w, nesting), |v| json!(v)),
        None => Err(unknown_function("particle", function, &Nesting::FUNCTIONS)),
    }
}
