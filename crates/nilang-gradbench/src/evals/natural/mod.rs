//! The evals written a second time as natural programs: the objective as plain Rust under
//! `#[nilang::differentiable]` (no unrolling, no ancillas, no uncomputation written by hand:
//! about the size of GradBench's C++ primal), the derivative from the `f_gradient` the front
//! end adds. Served with `--natural` (`nilang-gradbench --natural`, `nilang gradbench
//! --natural`): an eval with a natural version answers its derivative (and its objective,
//! where that is the natural function's own value) from it; every other eval and function
//! answers with the expert program, as without the option. Inputs are checked and outputs
//! encoded as by the expert programs, so the answers have the same format.

use super::{decode, rows, timed};
use crate::runs::Timing;
use serde_json::{json, Value};

pub mod ba;
pub mod det;
pub mod gmm;
pub mod ht;
pub mod kmeans;
pub mod llsq;
pub mod lse;
pub mod lstm;
pub mod ode;

/// The modules (canonical GradBench names) with a natural version.
pub const NATURAL: &[&str] = &[
    "lse", "llsq", "gmm", "ode", "det", "kmeans", "lstm", "ba", "ht",
];

/// Evaluates `function` of the canonical `module` by its natural program: `None` where
/// `module` has no natural version or `function` is not one it answers (the expert program
/// answers then). Inputs are checked as the expert program checks them.
pub fn evaluate(
    module: &str,
    function: &str,
    input: &Value,
) -> Option<Result<(Value, Vec<Timing>), String>> {
    Some(match (module, function) {
        ("lse", "primal" | "gradient") => (|| {
            let inp: super::lse::Input = decode("lse", input)?;
            if inp.x.is_empty() {
                return Err("bad `lse` input: `x` is empty".to_string());
            }
            match function {
                "primal" => timed(input, || Ok(lse::primal(&inp.x)), |y| json!(y)),
                _ => timed(input, || Ok(lse::gradient(&inp.x)), |g| json!(g)),
            }
        })(),
        ("llsq", "primal" | "gradient") => (|| {
            let inp: super::llsq::Input = decode("llsq", input)?;
            if inp.n < 2 {
                return Err(format!(
                    "bad `llsq` input: `n` must be at least 2 (tᵢ divides by n − 1), got {}",
                    inp.n
                ));
            }
            super::llsq::need(function, &inp)?;
            match function {
                "primal" => timed(input, || Ok(llsq::primal(&inp.x, inp.n)), |y| json!(y)),
                _ => timed(input, || Ok(llsq::gradient(&inp.x, inp.n)), |g| json!(g)),
            }
        })(),
        ("gmm", "objective" | "jacobian") => (|| {
            let raw: super::gmm::RawInput = decode("gmm", input)?;
            super::gmm::need(raw.d, raw.k, raw.n)?;
            let p = super::gmm::Problem::from_raw(raw)?;
            match function {
                "objective" => timed(input, || Ok(p.natural_objective()), |y| json!(y)),
                _ => timed(
                    input,
                    || Ok(p.natural_gradient()),
                    |g| p.encode_gradient(&g),
                ),
            }
        })(),
        ("ode", "gradient") => (|| {
            let inp: super::ode::Input = decode("ode", input)?;
            if inp.x.is_empty() || inp.s == 0 {
                return Err(format!(
                    "bad `ode` input: need a non-empty `x` and s ≥ 1, got {} entries and s = {}",
                    inp.x.len(),
                    inp.s
                ));
            }
            super::ode::need(inp.x.len(), inp.s)?;
            timed(input, || Ok(ode::gradient(&inp.x, inp.s)), |g| json!(g))
        })(),
        ("det", "primal" | "gradient") => (|| {
            let inp: super::det::Input = decode("det", input)?;
            let max = super::det::MAX_ELL;
            if inp.ell == 0 || inp.ell > max || inp.a.len() != inp.ell * inp.ell {
                return Err(format!(
                    "bad `det` input: need 1 ≤ ell ≤ {max} and ell² entries in `A`, got ell = {} and {} entries",
                    inp.ell,
                    inp.a.len()
                ));
            }
            super::det::need(function, inp.ell)?;
            match function {
                "primal" => timed(input, || Ok(det::primal(&inp.a, inp.ell)), |y| json!(y)),
                _ => timed(input, || Ok(det::gradient(&inp.a, inp.ell)), |g| json!(g)),
            }
        })(),
        ("kmeans", "cost" | "dir") => (|| {
            let i: super::kmeans::Input = decode("kmeans", input)?;
            super::kmeans::need(&i)?;
            let p = super::kmeans::Problem::from_input(&i)?;
            let k = p.centroids.len() / p.d;
            match function {
                "cost" => timed(input, || Ok(p.natural_cost()), |c| json!(c)),
                _ => timed(input, || Ok(p.natural_dir()), |v| json!(rows(&v, k, p.d))),
            }
        })(),
        ("lstm", "objective" | "jacobian") => (|| {
            let p = super::lstm::Problem::from_input(&decode("lstm", input)?)?;
            super::lstm::need(function, &p)?;
            match function {
                "objective" => timed(input, || Ok(p.natural_objective()), |v| json!(v)),
                _ => timed(input, || Ok(p.natural_gradient()), |g| json!(g)),
            }
        })(),
        ("ba", "objective" | "jacobian") => (|| {
            let inp: super::ba::Input = decode("ba", input)?;
            super::ba::need(function, &inp)?;
            let p = super::ba::Problem::from_input(&inp)?;
            match function {
                "objective" => timed(
                    input,
                    || Ok(p.natural_objective()),
                    |r| super::ba::encode_objective(&r),
                ),
                _ => timed(
                    input,
                    || Ok(p.natural_jacobian()),
                    |j| super::ba::encode_jacobian(&j),
                ),
            }
        })(),
        ("ht", "objective" | "jacobian") => (|| {
            let inp: super::ht::Input = decode("ht", input)?;
            let p = super::ht::Problem::from_input(&inp)?;
            super::ht::need(function, &p)?;
            match function {
                "objective" => timed(input, || Ok(p.natural_objective()), |r| json!(r)),
                _ => timed(input, || Ok(p.natural_jacobian()), |j| json!(j)),
            }
        })(),
        _ => return None,
    })
}
