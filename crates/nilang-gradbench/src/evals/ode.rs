//! `ode`: `s` steps of classical fourth-order Runge–Kutta on `[0, 2]` for
//! `y₀' = x₀`, `yᵢ' = xᵢ·yᵢ₋₁` (`y(0) = 0`), and the gradient of the last component of
//! `y(2)` with respect to `x`.
//!
//! The right-hand side is the one of GradBench's reference implementation (`ode.hpp`:
//! `z[i] = x[i]·y[i−1]`; the README's formula writes a sum). The reversible program keeps the
//! solution at every step (`ys`, `(s + 1)·n` values, `ys[0..n] = 0`). Step `k` takes two
//! passes over the components ([`rk4_stages`], [`rk4_unstage`]) instead of one per stage:
//! the first computes the intermediate points into ancilla vectors and accumulates
//! `y_{k+1} += y_k + h/6·(k₁ + 2k₂ + 2k₃ + k₄)` into the zero slot of step `k + 1`, with each
//! component's stages as scalar ancillas; the second uncomputes the points from the last
//! component. The gradient is the generated `ode_solve_vjp`, seeded on the last entry of `ys`.

use super::{decode, timed_into_with, unknown_function};
use crate::runs::Timing;
use nilang::{i, Real};
use serde::Deserialize;
use serde_json::{json, Value};

/// `z += f(x, y)ᵢ`, one component of the right-hand side: `x₀` for `i = 0`, else
/// `xᵢ·y[off + i − 1]` (`y` read at offset `off`). Writes `z` alone.
#[i(nocheck)]
#[inline(always)]
pub fn ode_rhs<T: Real>(z: &mut T, x: &mut [T], y: &mut [T], off: usize, i: usize) {
    if i == 0 {
        z += identity(x[0]);
    } else {
        z += x[i] * y[off + i - 1];
    }
}

/// Sizes and step of the integration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rk {
    /// Components.
    pub n: usize,
    /// Steps.
    pub s: usize,
}

impl Rk {
    /// The step `h = 2 / s` times `c`.
    #[inline(always)]
    pub fn h(&self, c: f64) -> f64 {
        c * 2.0 / self.s as f64
    }
}

/// `ys[(k + 1)·n ..] += one Runge–Kutta step from ys[k·n ..]` for every step `k < s`
/// ([`rk4_stages`], then [`rk4_unstage`]).
#[i(nocheck)]
pub fn ode_solve<T: Real>(ys: &mut [T], x: &mut [T], rk: Rk) {
    let (y1, y2, y3) = (
        vec![T::zero(); rk.n],
        vec![T::zero(); rk.n],
        vec![T::zero(); rk.n],
    );
    for k in 0..rk.s {
        rk4_stages(ys, x, y1, y2, y3, k, rk);
        rk4_unstage(ys, x, y1, y2, y3, k, rk);
    }
    dealloc!(
        y1 = vec![T::zero(); rk.n],
        y2 = vec![T::zero(); rk.n],
        y3 = vec![T::zero(); rk.n]
    );
}

/// Step `k`, in one pass over the components: the intermediate points `y1 = y + h/2·k₁`,
/// `y2 = y + h/2·k₂`, `y3 = y + h·k₃` into the zero `y1`, `y2`, `y3` (component `i` of a stage
/// reads component `i − 1` of the point before, already computed), and
/// `ys[(k + 1)·n + i] += y + h/6·(k₁ + 2k₂ + 2k₃ + k₄)`. The stages `kⱼ` of a component are
/// ancillas computed, used and uncomputed in nested routines (their uncomputations are dead
/// in the forward run); the points stay for the next component and [`rk4_unstage`].
#[i(nocheck)]
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn rk4_stages<T: Real>(
    ys: &mut [T],
    x: &mut [T],
    y1: &mut [T],
    y2: &mut [T],
    y3: &mut [T],
    k: usize,
    rk: Rk,
) {
    for i in 0..rk.n {
        let a1 = T::zero();
        routine! {
            ode_rhs(a1, x, ys, k * rk.n, i);
        }
        y1[i] += identity(ys[k * rk.n + i]);
        y1[i] += a1 * rk.h(0.5);
        let a2 = T::zero();
        routine! {
            ode_rhs(a2, x, y1, 0, i);
        }
        y2[i] += identity(ys[k * rk.n + i]);
        y2[i] += a2 * rk.h(0.5);
        let a3 = T::zero();
        routine! {
            ode_rhs(a3, x, y2, 0, i);
        }
        y3[i] += identity(ys[k * rk.n + i]);
        y3[i] += a3 * rk.h(1.0);
        let a4 = T::zero();
        routine! {
            ode_rhs(a4, x, y3, 0, i);
        }
        ys[(k + 1) * rk.n + i] += identity(ys[k * rk.n + i]);
        ys[(k + 1) * rk.n + i] += a1 * rk.h(1.0 / 6.0);
        ys[(k + 1) * rk.n + i] += a2 * rk.h(1.0 / 3.0);
        ys[(k + 1) * rk.n + i] += a3 * rk.h(1.0 / 3.0);
        ys[(k + 1) * rk.n + i] += a4 * rk.h(1.0 / 6.0);
        uncompute!();
        dealloc!(a4 = T::zero());
        uncompute!();
        dealloc!(a3 = T::zero());
        uncompute!();
        dealloc!(a2 = T::zero());
        uncompute!();
        dealloc!(a1 = T::zero());
    }
}

/// The intermediate points of step `k` uncomputed, in one pass over the components from the
/// last (component `i` of a point is recomputed from component `i − 1` of the point before,
/// still there): `y1`, `y2`, `y3` are zero again. Written out rather than as the uncall of a
/// function computing the points alone, because [`rk4_stages`] reuses each component's
/// stages for `ys` in the same pass: a points-only function uncalled here made the gradient
/// 1.23–1.28× slower (its combination step recomputes the stages; measured against this one,
/// `ab_time.py`, 3 rounds).
#[i(nocheck)]
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn rk4_unstage<T: Real>(
    ys: &mut [T],
    x: &mut [T],
    y1: &mut [T],
    y2: &mut [T],
    y3: &mut [T],
    k: usize,
    rk: Rk,
) {
    for i in (0..rk.n).rev() {
        let a3 = T::zero();
        routine! {
            ode_rhs(a3, x, y2, 0, i);
        }
        y3[i] -= a3 * rk.h(1.0);
        y3[i] -= identity(ys[k * rk.n + i]);
        uncompute!();
        dealloc!(a3 = T::zero());
        let a2 = T::zero();
        routine! {
            ode_rhs(a2, x, y1, 0, i);
        }
        y2[i] -= a2 * rk.h(0.5);
        y2[i] -= identity(ys[k * rk.n + i]);
        uncompute!();
        dealloc!(a2 = T::zero());
        let a1 = T::zero();
        routine! {
            ode_rhs(a1, x, ys, k * rk.n, i);
        }
        y1[i] -= a1 * rk.h(0.5);
        y1[i] -= identity(ys[k * rk.n + i]);
        uncompute!();
        dealloc!(a1 = T::zero());
    }
}

/// The `ode` input.
#[derive(Clone, Debug, Deserialize)]
pub struct Input {
    /// The coefficients.
    pub x: Vec<f64>,
    /// Number of Runge–Kutta steps.
    pub s: usize,
}

/// The working memory of the program's runs on one input, kept across the runs of a message
/// (as GradBench's C++ tools keep theirs): the solution at every step, `x`'s copy, and their
/// gradients. For `n = 100 000` and `s = 100` the history is 80 MB, whose pages a fresh
/// allocation would fault in during every run.
#[derive(Clone, Debug)]
pub struct Buffers {
    /// The solution at every step, `(s + 1)·n` (zero at the start of a run).
    pub ys: Vec<f64>,
    /// Its gradient (the gradient's seed).
    pub ys_grad: Vec<f64>,
    /// The coefficients the program runs on.
    pub x: Vec<f64>,
    /// Their gradient.
    pub x_grad: Vec<f64>,
}

impl Buffers {
    /// Buffers for `n` components and `s` steps.
    pub fn new(n: usize, s: usize) -> Buffers {
        Buffers {
            ys: vec![0.0; (s + 1) * n],
            ys_grad: vec![0.0; (s + 1) * n],
            x: vec![0.0; n],
            x_grad: vec![0.0; n],
        }
    }
}

/// `y(2)` by running [`ode_solve`] forward.
pub fn primal(x: &[f64], s: usize) -> Vec<f64> {
    primal_in(x, s, &mut Buffers::new(x.len(), s)).to_vec()
}

/// `y(2)` by running [`ode_solve`] forward in `b`.
pub fn primal_in<'b>(x: &[f64], s: usize, b: &'b mut Buffers) -> &'b [f64] {
    let n = x.len();
    b.ys.fill(0.0);
    b.x.copy_from_slice(x);
    ode_solve(&mut b.ys, &mut b.x, Rk { n, s });
    &b.ys[s * n..]
}

/// `∇ₓ y(2)ₙ₋₁` ([`gradient_in`]).
pub fn gradient(x: &[f64], s: usize) -> Result<Vec<f64>, String> {
    Ok(gradient_in(x, s, &mut Buffers::new(x.len(), s)).to_vec())
}

/// `∇ₓ y(2)ₙ₋₁` by [`ode_solve_vjp`] in `b`: the forward program, then its adjoint with the
/// gradients in buffers of their own, seeded with 1 on the last component of `y(2)`.
pub fn gradient_in<'b>(x: &[f64], s: usize, b: &'b mut Buffers) -> &'b [f64] {
    let n = x.len();
    b.ys.fill(0.0);
    b.ys_grad.fill(0.0);
    b.x_grad.fill(0.0);
    b.x.copy_from_slice(x);
    b.ys_grad[(s + 1) * n - 1] = 1.0;
    let rk = Rk { n, s };
    ode_solve_vjp(&mut b.ys, &mut b.ys_grad, &mut b.x, &mut b.x_grad, rk, ());
    &b.x_grad
}

/// Plain Rust solution, as GradBench's reference computes it (the reference for tests).
pub fn reference(x: &[f64], s: usize) -> Vec<f64> {
    let n = x.len();
    let f = |y: &[f64]| -> Vec<f64> {
        (0..n)
            .map(|i| if i == 0 { x[0] } else { x[i] * y[i - 1] })
            .collect()
    };
    let h = 2.0 / s as f64;
    let mut y = vec![0.0; n];
    for _ in 0..s {
        let k1 = f(&y);
        let t: Vec<f64> = (0..n).map(|i| y[i] + h * k1[i] / 2.0).collect();
        let k2 = f(&t);
        let t: Vec<f64> = (0..n).map(|i| y[i] + h * k2[i] / 2.0).collect();
        let k3 = f(&t);
        let t: Vec<f64> = (0..n).map(|i| y[i] + h * k3[i]).collect();
        let k4 = f(&t);
        for i in 0..n {
            y[i] += h * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) / 6.0;
        }
    }
    y
}

/// The `ode` functions: `primal` and `gradient`.
pub fn evaluate(function: &str, input: &Value) -> Result<(Value, Vec<Timing>), String> {
    let inp: Input = decode("ode", input)?;
    if inp.x.is_empty() || inp.s == 0 {
        return Err(format!(
            "bad `ode` input: need a non-empty `x` and s ≥ 1, got {} entries and s = {}",
            inp.x.len(),
            inp.s
        ));
    }
    match function {
        "primal" => {
            let mut b = Buffers::new(inp.x.len(), inp.s);
            let mut run = |b: &mut Buffers| {
                primal_in(&inp.x, inp.s, b);
                Ok(())
            };
            let (n, s) = (inp.x.len(), inp.s);
            timed_into_with(input, &mut b, &mut run, |b| json!(b.ys[s * n..]))
        }
        "gradient" => {
            let mut b = Buffers::new(inp.x.len(), inp.s);
            let mut run = |b: &mut Buffers| {
                gradient_in(&inp.x, inp.s, b);
                Ok(())
            };
            timed_into_with(input, &mut b, &mut run, |b| json!(b.x_grad))
        }
        _ => Err(unknown_function("ode", function, &["primal", "gradient"])),
    }
}
