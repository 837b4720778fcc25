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
//!
//! The files, one job each: `program.rs` (the reversible program and its sizes, [`Rk`]),
//! `run.rs` (the solution and the gradient by running it, in [`Buffers`] kept across runs),
//! `reference.rs` (plain Rust solution for the tests); this file: the input, the memory check
//! and the protocol entry.

mod program;
mod reference;
mod run;

pub use program::*;
pub use reference::*;
pub use run::*;

use super::{decode, timed_into_with, unknown_function};
use crate::limits::{Need, ANSWER_NUMBER_BYTES};
use crate::runs::Timing;
use serde::Deserialize;
use serde_json::{json, Value};

/// The `ode` input.
#[derive(Clone, Debug, Deserialize)]
pub struct Input {
    /// The coefficients.
    pub x: Vec<f64>,
    /// Number of Runge–Kutta steps.
    pub s: usize,
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
