//! `ode`: `s` steps of classical fourth-order Runge–Kutta on `[0, 2]` for
//! `y₀' = x₀`, `yᵢ' = xᵢ·yᵢ₋₁` (`y(0) = 0`), and the gradient of the last component of
//! `y(2)` with respect to `x`.
//!
//! The right-hand side is the one of GradBench's reference implementation (`ode.hpp`:
//! `z[i] = x[i]·y[i−1]`; the README's formula writes a sum). The reversible program keeps the
//! solution at every step (`ys`, `(s + 1)·n` values, `ys[0..n] = 0`): step `k` computes the four
//! stages and the intermediate points into ancillas, accumulates
//! `y_{k+1} += y_k + h/6·(k₁ + 2k₂ + 2k₃ + k₄)` into the zero slot of step `k + 1`, and
//! uncomputes the stages. The gradient is the generated `ode_solve_grad` with the loss on the
//! last entry of `ys`.

use super::{decode, timed, unknown_function};
use crate::runs::Timing;
use nilang::{i, Loss, Real};
use serde::Deserialize;
use serde_json::{json, Value};

/// `z += f(x, y)`: `z₀ += x₀`, `zᵢ += xᵢ·y[off + i − 1]` (`y` read at offset `off`).
#[i(nocheck)]
pub fn ode_rhs<T: Real>(z: &mut [T], x: &mut [T], y: &mut [T], off: usize) {
    z[0] += identity(x[0]);
    for i in 1..z.len() {
        z[i] += x[i] * y[off + i - 1];
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

/// `ys[(k + 1)·n ..] += one Runge–Kutta step from ys[k·n ..]` for every step `k < s`.
#[i(nocheck)]
pub fn ode_solve<T: Real>(ys: &mut [T], x: &mut [T], rk: Rk) {
    let (k1, k2, k3, k4) = (
        vec![T::zero(); rk.n],
        vec![T::zero(); rk.n],
        vec![T::zero(); rk.n],
        vec![T::zero(); rk.n],
    );
    let (y1, y2, y3) = (
        vec![T::zero(); rk.n],
        vec![T::zero(); rk.n],
        vec![T::zero(); rk.n],
    );
    for k in 0..rk.s {
        routine! {
            ode_rhs(k1, x, ys, k * rk.n);
            for i in 0..rk.n {
                y1[i] += identity(ys[k * rk.n + i]);
                y1[i] += k1[i] * rk.h(0.5);
            }
            ode_rhs(k2, x, y1, 0);
            for i in 0..rk.n {
                y2[i] += identity(ys[k * rk.n + i]);
                y2[i] += k2[i] * rk.h(0.5);
            }
            ode_rhs(k3, x, y2, 0);
            for i in 0..rk.n {
                y3[i] += identity(ys[k * rk.n + i]);
                y3[i] += k3[i] * rk.h(1.0);
            }
            ode_rhs(k4, x, y3, 0);
        }
        for i in 0..rk.n {
            ys[(k + 1) * rk.n + i] += identity(ys[k * rk.n + i]);
            ys[(k + 1) * rk.n + i] += k1[i] * rk.h(1.0 / 6.0);
            ys[(k + 1) * rk.n + i] += k2[i] * rk.h(1.0 / 3.0);
            ys[(k + 1) * rk.n + i] += k3[i] * rk.h(1.0 / 3.0);
            ys[(k + 1) * rk.n + i] += k4[i] * rk.h(1.0 / 6.0);
        }
        uncompute!();
    }
    dealloc!(k1 = vec![T::zero(); rk.n], k2 = vec![T::zero(); rk.n]);
    dealloc!(k3 = vec![T::zero(); rk.n], k4 = vec![T::zero(); rk.n]);
    dealloc!(
        y1 = vec![T::zero(); rk.n],
        y2 = vec![T::zero(); rk.n],
        y3 = vec![T::zero(); rk.n]
    );
}

/// The `ode` input.
#[derive(Clone, Debug, Deserialize)]
pub struct Input {
    /// The coefficients.
    pub x: Vec<f64>,
    /// Number of Runge–Kutta steps.
    pub s: usize,
}

/// `y(2)` by running [`ode_solve`] forward.
pub fn primal(x: &[f64], s: usize) -> Vec<f64> {
    let n = x.len();
    let (mut ys, mut x) = (vec![0.0; (s + 1) * n], x.to_vec());
    ode_solve(&mut ys, &mut x, Rk { n, s });
    ys[s * n..].to_vec()
}

/// `∇ₓ y(2)ₙ₋₁` by running [`ode_solve_inv`] on gradient values.
pub fn gradient(x: &[f64], s: usize) -> Result<Vec<f64>, String> {
    let n = x.len();
    let (mut ys, mut x) = (vec![0.0; (s + 1) * n], x.to_vec());
    let (_gy, gx) = ode_solve_grad(Loss::elem(0, (s + 1) * n - 1), &mut ys, &mut x, Rk { n, s })
        .map_err(|e| e.to_string())?;
    Ok(gx.iter().map(|v| v.g).collect())
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
        "primal" => timed(input, || Ok(primal(&inp.x, inp.s)), |y| json!(y)),
        "gradient" => timed(input, || gradient(&inp.x, inp.s), |g| json!(g)),
        _ => Err(unknown_function("ode", function, &["primal", "gradient"])),
    }
}
