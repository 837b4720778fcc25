//! The evals written a second time as natural programs: the objective as plain Rust under
//! `#[nilang::differentiable]` (no unrolling, no ancillas, no uncomputation written by hand:
//! about the size of GradBench's C++ primal), the derivative from the `f_gradient` the front
//! end adds. Served with `--natural` (`nilang-gradbench --natural`, `nilang gradbench
//! --natural`): an eval with a natural version answers its derivative (and its objective,
//! where that is the natural function's own value) from it; every other eval and function
//! answers with the expert program, as without the option. Inputs are checked and outputs
//! encoded as by the expert programs, so the answers have the same format.

use super::programs::{self, Programs};
use crate::evals as e;
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

/// The modules (canonical GradBench names) with a natural version: those of every engine
/// ([`programs::MODULES`]) and `ht`.
pub const NATURAL: &[&str] = &[
    "lse", "llsq", "gmm", "ode", "det", "kmeans", "lstm", "ba", "ht",
];

/// The natural programs as an engine ([`Programs`]).
#[derive(Clone, Copy, Debug)]
pub struct Natural;

impl Programs for Natural {
    fn lse_primal(x: &[f64]) -> f64 {
        lse::primal(x)
    }
    fn lse_gradient(x: &[f64]) -> Result<Vec<f64>, String> {
        Ok(lse::gradient(x))
    }
    fn llsq_primal(x: &[f64], n: usize) -> f64 {
        llsq::primal(x, n)
    }
    fn llsq_gradient(x: &[f64], n: usize) -> Result<Vec<f64>, String> {
        Ok(llsq::gradient(x, n))
    }
    fn gmm_objective(p: &e::gmm::Problem) -> f64 {
        p.natural_objective()
    }
    fn gmm_gradient(p: &e::gmm::Problem) -> Result<e::gmm::Gradient, String> {
        Ok(p.natural_gradient())
    }
    fn ode_gradient(x: &[f64], s: usize) -> Result<Vec<f64>, String> {
        Ok(ode::gradient(x, s))
    }
    fn det_primal(a: &[f64], ell: usize) -> f64 {
        det::primal(a, ell)
    }
    fn det_gradient(a: &[f64], ell: usize) -> Result<Vec<f64>, String> {
        Ok(det::gradient(a, ell))
    }
    fn kmeans_cost(p: &e::kmeans::Problem) -> f64 {
        p.natural_cost()
    }
    fn kmeans_dir(p: &e::kmeans::Problem) -> Result<Vec<f64>, String> {
        Ok(p.natural_dir())
    }
    fn lstm_objective(p: &e::lstm::Problem) -> f64 {
        p.natural_objective()
    }
    fn lstm_gradient(p: &e::lstm::Problem) -> Result<Vec<f64>, String> {
        Ok(p.natural_gradient())
    }
    fn ba_objective_into(p: &e::ba::Problem, r: &mut e::ba::Residuals) {
        p.natural_objective_into(r)
    }
    fn ba_jacobian_into(p: &e::ba::Problem, j: &mut e::ba::Csr) -> Result<(), String> {
        p.natural_jacobian_into(j);
        Ok(())
    }
}

/// Evaluates `function` of the canonical `module` by its natural program: `None` where
/// `module` has no natural version or `function` is not one it answers (the expert program
/// answers then). Inputs are checked as the expert program checks them.
pub fn evaluate(
    module: &str,
    function: &str,
    input: &Value,
) -> Option<Result<(Value, Vec<Timing>), String>> {
    match (module, function) {
        ("ht", "objective" | "jacobian") => Some(evaluate_ht(function, input)),
        _ => programs::evaluate::<Natural>(module, function, input),
    }
}

/// `ht`'s functions by the natural program, its input checked as the expert program checks it.
fn evaluate_ht(function: &str, input: &Value) -> Result<(Value, Vec<Timing>), String> {
    let inp: e::ht::Input = e::decode("ht", input)?;
    let p = e::ht::Problem::from_input(&inp)?;
    e::ht::need(function, &p)?;
    match function {
        "objective" => e::timed(input, || Ok(p.natural_objective()), |r| json!(r)),
        _ => e::timed(input, || Ok(p.natural_jacobian()), |j| json!(j)),
    }
}
