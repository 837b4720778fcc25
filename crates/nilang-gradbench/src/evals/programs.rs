//! The evals' functions as one engine answers them ([`Programs`]), and their protocol entry
//! ([`evaluate`]), shared by the engines other than the expert programs: the natural programs
//! (`--engine natural`, [`super::natural`]) and the dual-numbers reverse AD of
//! `nilang-dualrev` (`--engine dualrev`, [`super::dualrev`]). Inputs are checked and outputs
//! encoded as by the expert programs, so the answers have the same format.

use super::{ba, decode, det, gmm, kmeans, llsq, lse, lstm, ode, rows, timed, timed_into_with};
use crate::runs::Timing;
use serde_json::{json, Value};

/// What an engine answers: each eval's objective and derivative, on checked inputs. An `Err`
/// is a clear refusal (an input over a cap, say), answered as the expert program's errors are.
#[allow(missing_docs)] // the names say which function of which eval
pub trait Programs {
    fn lse_primal(x: &[f64]) -> f64;
    fn lse_gradient(x: &[f64]) -> Result<Vec<f64>, String>;
    fn llsq_primal(x: &[f64], n: usize) -> f64;
    fn llsq_gradient(x: &[f64], n: usize) -> Result<Vec<f64>, String>;
    fn gmm_objective(p: &gmm::Problem) -> f64;
    fn gmm_gradient(p: &gmm::Problem) -> Result<gmm::Gradient, String>;
    fn ode_gradient(x: &[f64], s: usize) -> Result<Vec<f64>, String>;
    fn det_primal(a: &[f64], ell: usize) -> f64;
    fn det_gradient(a: &[f64], ell: usize) -> Result<Vec<f64>, String>;
    fn kmeans_cost(p: &kmeans::Problem) -> f64;
    fn kmeans_dir(p: &kmeans::Problem) -> Result<Vec<f64>, String>;
    fn lstm_objective(p: &lstm::Problem) -> f64;
    fn lstm_gradient(p: &lstm::Problem) -> Result<Vec<f64>, String>;
    /// Into `r`, which the runs of one message share (emptied or overwritten by each).
    fn ba_objective_into(p: &ba::Problem, r: &mut ba::Residuals);
    /// Into `j`, which the runs of one message share (emptied or overwritten by each).
    fn ba_jacobian_into(p: &ba::Problem, j: &mut ba::Csr) -> Result<(), String>;
}

/// The modules (canonical GradBench names) every engine of [`Programs`] answers.
pub const MODULES: &[&str] = &["lse", "llsq", "gmm", "ode", "det", "kmeans", "lstm", "ba"];

/// Evaluates `function` of the canonical `module` by the engine `P`: `None` where `function`
/// of `module` is not one `P` answers (the expert program answers then). Inputs are checked
/// as the expert program checks them.
pub fn evaluate<P: Programs>(
    module: &str,
    function: &str,
    input: &Value,
) -> Option<Result<(Value, Vec<Timing>), String>> {
    Some(match (module, function) {
        ("lse", "primal" | "gradient") => (|| {
            let inp: lse::Input = decode("lse", input)?;
            if inp.x.is_empty() {
                return Err("bad `lse` input: `x` is empty".to_string());
            }
            match function {
                "primal" => timed(input, || Ok(P::lse_primal(&inp.x)), |y| json!(y)),
                _ => timed(input, || P::lse_gradient(&inp.x), |g| json!(g)),
            }
        })(),
        ("llsq", "primal" | "gradient") => (|| {
            let inp: llsq::Input = decode("llsq", input)?;
            if inp.n < 2 {
                return Err(format!(
                    "bad `llsq` input: `n` must be at least 2 (tᵢ divides by n − 1), got {}",
                    inp.n
                ));
            }
            llsq::need(function, &inp)?;
            match function {
                "primal" => timed(input, || Ok(P::llsq_primal(&inp.x, inp.n)), |y| json!(y)),
                _ => timed(input, || P::llsq_gradient(&inp.x, inp.n), |g| json!(g)),
            }
        })(),
        ("gmm", "objective" | "jacobian") => (|| {
            let raw: gmm::RawInput = decode("gmm", input)?;
            gmm::need(raw.d, raw.k, raw.n)?;
            let p = gmm::Problem::from_raw(raw)?;
            match function {
                "objective" => timed(input, || Ok(P::gmm_objective(&p)), |y| json!(y)),
                _ => timed(input, || P::gmm_gradient(&p), |g| p.encode_gradient(&g)),
            }
        })(),
        ("ode", "gradient") => (|| {
            let inp: ode::Input = decode("ode", input)?;
            if inp.x.is_empty() || inp.s == 0 {
                return Err(format!(
                    "bad `ode` input: need a non-empty `x` and s ≥ 1, got {} entries and s = {}",
                    inp.x.len(),
                    inp.s
                ));
            }
            ode::need(inp.x.len(), inp.s)?;
            timed(input, || P::ode_gradient(&inp.x, inp.s), |g| json!(g))
        })(),
        ("det", "primal" | "gradient") => (|| {
            let inp: det::Input = decode("det", input)?;
            let max = det::MAX_ELL;
            if inp.ell == 0 || inp.ell > max || inp.a.len() != inp.ell * inp.ell {
                return Err(format!(
                    "bad `det` input: need 1 ≤ ell ≤ {max} and ell² entries in `A`, got ell = {} and {} entries",
                    inp.ell,
                    inp.a.len()
                ));
            }
            det::need(function, inp.ell)?;
            match function {
                "primal" => timed(input, || Ok(P::det_primal(&inp.a, inp.ell)), |y| json!(y)),
                _ => timed(input, || P::det_gradient(&inp.a, inp.ell), |g| json!(g)),
            }
        })(),
        ("kmeans", "cost" | "dir") => (|| {
            let i: kmeans::Input = decode("kmeans", input)?;
            kmeans::need(&i)?;
            let p = kmeans::Problem::from_input(&i)?;
            let k = p.centroids.len() / p.d;
            match function {
                "cost" => timed(input, || Ok(P::kmeans_cost(&p)), |c| json!(c)),
                _ => timed(input, || P::kmeans_dir(&p), |v| json!(rows(&v, k, p.d))),
            }
        })(),
        ("lstm", "objective" | "jacobian") => (|| {
            let p = lstm::Problem::from_input(&decode("lstm", input)?)?;
            lstm::need(function, &p)?;
            match function {
                "objective" => timed(input, || Ok(P::lstm_objective(&p)), |v| json!(v)),
                _ => timed(input, || P::lstm_gradient(&p), |g| json!(g)),
            }
        })(),
        ("ba", "objective" | "jacobian") => (|| {
            let inp: ba::Input = decode("ba", input)?;
            ba::need(function, &inp)?;
            let p = ba::Problem::from_input(&inp)?;
            // the output buffers are the runs' own, as the expert program's are
            match function {
                "objective" => timed_into_with(
                    input,
                    &mut ba::Residuals::default(),
                    |r| {
                        P::ba_objective_into(&p, r);
                        Ok(())
                    },
                    ba::encode_objective,
                ),
                _ => timed_into_with(
                    input,
                    &mut ba::Csr::default(),
                    |j| P::ba_jacobian_into(&p, j),
                    ba::encode_jacobian,
                ),
            }
        })(),
        _ => return None,
    })
}
