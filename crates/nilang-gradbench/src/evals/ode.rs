//! `ode`: `s` steps of classical fourth-order Runge–Kutta on `[0, 2]` for
//! `y₀' = x₀`, `yᵢ' = xᵢ·yᵢ₋₁` (`y(0) = 0`), and the gradient of the last component of
//! `y(2)` with respect to `x`.
//!
//! The right-hand side is the one of GradBench's reference implementation (`ode.hpp`:
//! `z[i] = x[i]·y[i−1]`; the README's formula writes a sum). It is linear in `y` with
//! constant coefficients, `y' = A·y` once a component `y₋₁ = 1` carries `f₀ = x₀`, so one
//! Runge–Kutta step is one matrix, `M = I + hA + (hA)²/2 + (hA)³/6 + (hA)⁴/24` — what the four
//! stages compute for a linear right-hand side, up to rounding — and `A` shifts by one component, so
//! `M` is a lower band of width five. The program computes its diagonals once
//! ([`rk4_coefficients`]), then applies `M` in every step ([`rk4_step`]: two passes whose
//! iterations are independent, compiled to packed SSE2 arithmetic (seen in the assembly); the
//! gradient's passes stay scalar, updating `y`'s gradient at positions two apart); the
//! intermediate points of a step are never stored. The solution at every step is kept (`ys`, `s + 1` slots of `PAD + n`, the [`PAD`]
//! leading entries of every slot `1`: `y₋₁`, and the positions the band reaches before the
//! first component). The gradient is the generated [`ode_solve_vjp`], seeded on the last
//! entry of `ys`: the forward program, then its adjoint on buffers of its own, fused (the
//! coefficients are computed once and their gradient accumulated over the steps).

use super::{decode, timed_into_with, unknown_function};
use crate::limits::{Need, ANSWER_NUMBER_BYTES};
use crate::runs::Timing;
use nilang::{i, Real};
use serde::Deserialize;
use serde_json::{json, Value};

/// Leading entries of every slot of `ys` and every block of `c` (the band of the step's
/// matrix reaches back four components).
pub const PAD: usize = 4;

/// Sizes and step of the integration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rk {
    /// Components.
    pub n: usize,
    /// Steps.
    pub s: usize,
    /// Length of a slot of `ys` and of a block of `c`: `PAD + n`.
    pub m: usize,
}

impl Rk {
    /// `n` components, `s` steps.
    pub fn new(n: usize, s: usize) -> Rk {
        Rk { n, s, m: PAD + n }
    }

    /// The step `h = 2 / s` times `c`.
    #[inline(always)]
    pub fn h(&self, c: f64) -> f64 {
        c * 2.0 / self.s as f64
    }

    /// Length of `ys`: `s + 1` slots.
    pub fn ys_len(&self) -> usize {
        (self.s + 1) * self.m
    }

    /// Length of `c`: four blocks.
    pub fn c_len(&self) -> usize {
        4 * self.m
    }
}

/// `ys[(k + 1)·m ..] += one Runge–Kutta step from ys[k·m ..]` for every step `k < s`
/// ([`rk4_step`]). `ys` has `s + 1` slots of `m = PAD + n`, each starting with [`PAD`] ones,
/// and `x` is padded the same way with zeros (both the caller's: [`Buffers::clear_solution`],
/// [`Buffers::set_x`]); `c` (zero, `4·m`) holds the step's diagonals meanwhile
/// ([`rk4_coefficients`]).
#[i(nocheck)]
pub fn ode_solve<T: Real>(ys: &mut [T], c: &mut [T], x: &mut [T], rk: Rk) {
    routine! {
        rk4_coefficients(c, x, rk);
    }
    for k in 0..rk.s {
        rk4_step(ys, c, k, rk);
    }
    uncompute!();
}

/// The diagonals `d_qᵢ = h^q/q!·xᵢ·xᵢ₋₁·…·xᵢ₋q₊₁` of the step's matrix into `c`, four blocks
/// of `m` (`q = 1 … 4`) whose [`PAD`] leading entries stay zero: `d₁ = h·x`, then
/// `d_qᵢ = d_{q−1}ᵢ·(h/q·xᵢ₋q₊₁)`, the second factor a scalar ancilla (`x` padded with zeros,
/// so `d_qᵢ = 0` for `i < q − 1`). Each pass reads `x` at one position, so the gradient's
/// passes update `x`'s gradient at one position per iteration.
#[i(nocheck)]
pub fn rk4_coefficients<T: Real>(c: &mut [T], x: &mut [T], rk: Rk) {
    for i in 0..rk.n {
        c[PAD + i] += x[PAD + i] * rk.h(1.0);
    }
    for q in 1..4 {
        for i in 0..rk.n {
            let t = T::zero();
            routine! {
                t += x[PAD + i - q] * rk.h(1.0 / (q + 1) as f64);
            }
            c[q * rk.m + PAD + i] += c[(q - 1) * rk.m + PAD + i] * t;
            uncompute!();
            dealloc!(t = T::zero());
        }
    }
}

/// Step `k`: slot `k + 1` += `M·y` for `y` in slot `k`, where the classical Runge–Kutta step of
/// the linear `y' = A·y` (`(A·y)ᵢ = xᵢ·yᵢ₋₁`, with `y₋₁ = 1` carrying `f₀ = x₀`) is
/// `M = I + hA + (hA)²/2 + (hA)³/6 + (hA)⁴/24`, a lower band: `(M·y)ᵢ = Σ_q d_qᵢ·yᵢ₋q`
/// (`d₀ = 1`; `yᵢ₋q` is `ys[k·m + PAD + i − q]`, `d_qᵢ` is `c[(q − 1)·m + PAD + i]`). Two
/// passes, the even diagonals and the odd ones: a pass reads `y` at positions two apart, so
/// the gradient pass's updates of `y`'s gradient are never adjacent (adjacent ones are merged
/// into 16-byte updates whose loads cannot be forwarded from the previous iteration's 8-byte
/// stores: a stall per component, most of the gradient's time in a stencil written that way).
#[i(nocheck)]
pub fn rk4_step<T: Real>(ys: &mut [T], c: &mut [T], k: usize, rk: Rk) {
    for i in 0..rk.n {
        ys[(k + 1) * rk.m + PAD + i] += identity(ys[k * rk.m + PAD + i]);
        ys[(k + 1) * rk.m + PAD + i] += c[rk.m + PAD + i] * ys[k * rk.m + PAD + i - 2];
        ys[(k + 1) * rk.m + PAD + i] += c[3 * rk.m + PAD + i] * ys[k * rk.m + i];
    }
    for i in 0..rk.n {
        ys[(k + 1) * rk.m + PAD + i] += c[PAD + i] * ys[k * rk.m + PAD + i - 1];
        ys[(k + 1) * rk.m + PAD + i] += c[2 * rk.m + PAD + i] * ys[k * rk.m + PAD + i - 3];
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
/// (as GradBench's C++ tools keep theirs): the solution at every step, the scaled
/// coefficients, `x`'s copy, and their gradients. For `n = 100 000` and `s = 100` the history
/// is 80 MB, whose pages a fresh allocation would fault in during every run.
#[derive(Clone, Debug)]
pub struct Buffers {
    /// Sizes.
    pub rk: Rk,
    /// The solution at every step, `s + 1` slots of `m` (zero at the start of a run).
    pub ys: Vec<f64>,
    /// Its gradient (the gradient's seed).
    pub ys_grad: Vec<f64>,
    /// The scaled coefficients (zero between runs).
    pub c: Vec<f64>,
    /// Their gradient.
    pub c_grad: Vec<f64>,
    /// The coefficients the program runs on, after [`PAD`] zeros.
    pub x: Vec<f64>,
    /// Their gradient (the first [`PAD`] entries are the padding's).
    pub x_grad: Vec<f64>,
}

impl Buffers {
    /// Buffers for `n` components and `s` steps.
    pub fn new(n: usize, s: usize) -> Buffers {
        let rk = Rk::new(n, s);
        Buffers {
            rk,
            ys: vec![0.0; rk.ys_len()],
            ys_grad: vec![0.0; rk.ys_len()],
            c: vec![0.0; rk.c_len()],
            c_grad: vec![0.0; rk.c_len()],
            x: vec![0.0; rk.m],
            x_grad: vec![0.0; rk.m],
        }
    }

    /// Every slot of the solution zero but for its [`PAD`] leading ones.
    pub fn clear_solution(&mut self) {
        self.ys.fill(0.0);
        for slot in self.ys.chunks_mut(self.rk.m) {
            slot[..PAD].fill(1.0);
        }
    }

    /// The coefficients `x` after the padding.
    pub fn set_x(&mut self, x: &[f64]) {
        self.x[PAD..].copy_from_slice(x);
    }

    /// `∇ₓ`, without the padding's entries, after a gradient run.
    pub fn gradient(&self) -> &[f64] {
        &self.x_grad[PAD..]
    }

    /// `y(2)`, the last slot's components, after a run.
    pub fn solution(&self) -> &[f64] {
        &self.ys[self.rk.s * self.rk.m + PAD..]
    }
}

/// `y(2)` by running [`ode_solve`] forward.
pub fn primal(x: &[f64], s: usize) -> Vec<f64> {
    let mut b = Buffers::new(x.len(), s);
    primal_in(x, &mut b);
    b.solution().to_vec()
}

/// Runs [`ode_solve`] forward in `b` (sized for `x`); the result is [`Buffers::solution`].
pub fn primal_in(x: &[f64], b: &mut Buffers) {
    b.clear_solution();
    b.set_x(x);
    ode_solve(&mut b.ys, &mut b.c, &mut b.x, b.rk);
}

/// `∇ₓ y(2)ₙ₋₁` ([`gradient_in`]).
pub fn gradient(x: &[f64], s: usize) -> Result<Vec<f64>, String> {
    Ok(gradient_in(x, &mut Buffers::new(x.len(), s)).to_vec())
}

/// `∇ₓ y(2)ₙ₋₁` by [`ode_solve_vjp`] in `b` (sized for `x`): the forward program, then its
/// adjoint with the gradients in buffers of their own, seeded with 1 on the last component of
/// `y(2)`.
pub fn gradient_in<'b>(x: &[f64], b: &'b mut Buffers) -> &'b [f64] {
    b.clear_solution();
    b.ys_grad.fill(0.0);
    b.c_grad.fill(0.0);
    b.x_grad.fill(0.0);
    b.set_x(x);
    let last = b.ys_grad.len() - 1;
    b.ys_grad[last] = 1.0;
    let rk = b.rk;
    ode_solve_vjp(
        &mut b.ys,
        &mut b.ys_grad,
        &mut b.c,
        &mut b.c_grad,
        &mut b.x,
        &mut b.x_grad,
        rk,
        (),
    );
    b.gradient()
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

/// The memory of [`Buffers::new`]`(n, s)` and of the answer ([`Need`]): every buffer and its
/// gradient (the primal allocates the gradients too), `s + 1` slots of `PAD + n` for the
/// solution. Saturating sums: a size past `usize` makes the product overflow, which is refused.
pub fn need(n: usize, s: usize) -> Result<(), String> {
    let mut need = Need::new("ode");
    let m = n.saturating_add(PAD);
    need.add("s", &[2, s.saturating_add(1), m], 8)?;
    need.add("x", &[2 * 5, m], 8)?;
    need.add("x", &[n], ANSWER_NUMBER_BYTES)
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
    need(inp.x.len(), inp.s)?;
    match function {
        "primal" => {
            let mut b = Buffers::new(inp.x.len(), inp.s);
            let mut run = |b: &mut Buffers| {
                primal_in(&inp.x, b);
                Ok(())
            };
            timed_into_with(input, &mut b, &mut run, |b| json!(b.solution()))
        }
        "gradient" => {
            let mut b = Buffers::new(inp.x.len(), inp.s);
            let mut run = |b: &mut Buffers| {
                gradient_in(&inp.x, b);
                Ok(())
            };
            timed_into_with(input, &mut b, &mut run, |b| json!(b.gradient()))
        }
        _ => Err(unknown_function("ode", function, &["primal", "gradient"])),
    }
}
