//! `llsq`: the linear least-squares objective of cmpad,
//! `y(x) = ½ Σᵢ (sᵢ − Σⱼ xⱼ tᵢʲ)²` with `tᵢ = −1 + 2i/(n−1)` and `sᵢ = sign(tᵢ)`, and its
//! gradient.
//!
//! Each residual is computed into an ancilla, its half square added to the output, and the
//! residual uncomputed (compute–copy–uncompute), so the program needs one ancilla in all.

use super::{decode, timed, unknown_function};
use crate::runs::Timing;
use nilang::{i, Loss, Real};
use serde::Deserialize;
use serde_json::{json, Value};

/// `tᵢ = −1 + 2i/(n−1)`.
pub fn t(i: usize, n: usize) -> f64 {
    -1.0 + i as f64 * 2.0 / (n as f64 - 1.0)
}

/// `sign(tᵢ)`, with `sign(0) = 0`.
pub fn s(i: usize, n: usize) -> f64 {
    let t = t(i, n);
    if t > 0.0 {
        1.0
    } else if t < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// `out += ½ Σᵢ (sᵢ − Σⱼ x[j] tᵢʲ)²` over `i < n`.
#[i(nocheck)]
pub fn llsq_objective<T: Real>(out: &mut T, x: &mut [T], n: usize) {
    let r = T::zero();
    for i in 0..n {
        routine! {
            r += identity(s(i, n));
            for j in 0..x.len() {
                r -= x[j] * t(i, n).powi(j as i32);
            }
        }
        expand! {
            out += square(r) * 0.5;
        }
        uncompute!();
    }
    dealloc!(r = T::zero());
}

/// The `llsq` input.
#[derive(Clone, Debug, Deserialize)]
pub struct Input {
    /// The coefficients.
    pub x: Vec<f64>,
    /// The number of sample points.
    pub n: usize,
}

/// `y(x)` by running [`llsq_objective`] forward.
pub fn primal(x: &[f64], n: usize) -> f64 {
    let (mut out, mut x) = (0.0, x.to_vec());
    llsq_objective(&mut out, &mut x, n);
    out
}

/// `∇y(x)` by running [`llsq_objective_inv`] on gradient values.
pub fn gradient(x: &[f64], n: usize) -> Result<Vec<f64>, String> {
    let (mut out, mut x) = (0.0, x.to_vec());
    let (_g_out, gx) =
        llsq_objective_grad(Loss::arg(0), &mut out, &mut x, n).map_err(|e| e.to_string())?;
    Ok(gx.iter().map(|v| v.g).collect())
}

/// Plain Rust objective (the reference for tests).
pub fn reference(x: &[f64], n: usize) -> f64 {
    let mut sum = 0.0;
    for i in 0..n {
        let mut r = s(i, n);
        for (j, xj) in x.iter().enumerate() {
            r -= xj * t(i, n).powi(j as i32);
        }
        sum += r * r;
    }
    sum / 2.0
}

/// The `llsq` functions: `primal` and `gradient`.
pub fn evaluate(function: &str, input: &Value) -> Result<(Value, Vec<Timing>), String> {
    let inp: Input = decode("llsq", input)?;
    if inp.n < 2 {
        return Err(format!(
            "bad `llsq` input: `n` must be at least 2 (tᵢ divides by n − 1), got {}",
            inp.n
        ));
    }
    match function {
        "primal" => timed(input, || Ok(primal(&inp.x, inp.n)), |y| json!(y)),
        "gradient" => timed(input, || gradient(&inp.x, inp.n), |g| json!(g)),
        _ => Err(unknown_function("llsq", function, &["primal", "gradient"])),
    }
}
