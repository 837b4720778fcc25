//! The evals written a third time, as ordinary generic Rust over `nilang_dualrev::Scalar`
//! (no reversible code, no macro): each objective is one function generic over its number
//! type, run on `f64` for the objective and on `nilang_dualrev::DualRev` for the derivative
//! (Smeding & Vákár's dual-numbers reverse AD: the operations are recorded on a tape and
//! swept back once per output). Served with `--engine dualrev` (`nilang-gradbench --engine
//! dualrev`), so that the project's second AD engine is judged by the same suite; an eval
//! without a version here answers with the expert program. Inputs are checked and outputs
//! encoded as by the expert programs ([`super::programs`]).
//!
//! The tape holds one record per arithmetic operation of the run, far more than the
//! reversible programs keep: each derivative checks its tape against the memory cap
//! (`NILANG_GRADBENCH_MAX_BYTES`, [`crate::limits`]) before recording ([`need_tape`]).

use super::programs::{self, Programs};
use crate::evals as e;
use crate::limits::Need;
use crate::runs::Timing;
use nilang_dualrev::{grad, DualRev};
use serde_json::Value;

pub mod ba;
pub mod det;
pub mod gmm;
pub mod kmeans;
pub mod llsq;
pub mod lse;
pub mod lstm;
pub mod ode;

/// Bytes of memory one recorded operation takes while a derivative runs: its tape record
/// (24 bytes) and staging cell (8 bytes), and the tape's spare capacity (up to a block of
/// `nilang_dualrev`'s tape).
pub const TAPE_BYTES_PER_OP: usize = 40;

/// Refuses a derivative whose tape, about the product of `ops` operations, would pass the
/// memory cap.
pub fn need_tape(module: &'static str, ops: &[usize]) -> Result<(), String> {
    Need::new(module).add("tape", ops, TAPE_BYTES_PER_OP)
}

/// The gradient of `f` at `x` by `nilang_dualrev::grad`, its error as a message.
pub fn gradient_of(f: impl FnOnce(&[DualRev]) -> DualRev, x: &[f64]) -> Result<Vec<f64>, String> {
    grad(f, x)
        .map(|(_, g)| g)
        .map_err(|e| format!("nilang-dualrev: {e}"))
}

/// `nilang-dualrev` as an engine ([`Programs`]).
#[derive(Clone, Copy, Debug)]
pub struct DualRevEngine;

impl Programs for DualRevEngine {
    fn lse_primal(x: &[f64]) -> f64 {
        lse::primal(x)
    }
    fn lse_gradient(x: &[f64]) -> Result<Vec<f64>, String> {
        lse::gradient(x)
    }
    fn llsq_primal(x: &[f64], n: usize) -> f64 {
        llsq::primal(x, n)
    }
    fn llsq_gradient(x: &[f64], n: usize) -> Result<Vec<f64>, String> {
        llsq::gradient(x, n)
    }
    fn gmm_objective(p: &e::gmm::Problem) -> f64 {
        p.dualrev_objective()
    }
    fn gmm_gradient(p: &e::gmm::Problem) -> Result<e::gmm::Gradient, String> {
        p.dualrev_gradient()
    }
    fn ode_gradient(x: &[f64], s: usize) -> Result<Vec<f64>, String> {
        ode::gradient(x, s)
    }
    fn det_primal(a: &[f64], ell: usize) -> f64 {
        det::primal(a, ell)
    }
    fn det_gradient(a: &[f64], ell: usize) -> Result<Vec<f64>, String> {
        det::gradient(a, ell)
    }
    fn kmeans_cost(p: &e::kmeans::Problem) -> f64 {
        p.dualrev_cost()
    }
    fn kmeans_dir(p: &e::kmeans::Problem) -> Result<Vec<f64>, String> {
        p.dualrev_dir()
    }
    fn lstm_objective(p: &e::lstm::Problem) -> f64 {
        p.dualrev_objective()
    }
    fn lstm_gradient(p: &e::lstm::Problem) -> Result<Vec<f64>, String> {
        p.dualrev_gradient()
    }
    fn ba_objective_into(p: &e::ba::Problem, r: &mut e::ba::Residuals) {
        // a new buffer each run, as this engine's other answers
        *r = p.dualrev_objective();
    }
    fn ba_jacobian_into(p: &e::ba::Problem, j: &mut e::ba::Csr) -> Result<(), String> {
        *j = p.dualrev_jacobian()?;
        Ok(())
    }
}

/// Evaluates `function` of the canonical `module` by its program here: `None` where `module`
/// has none or `function` is not one it answers (the expert program answers then).
pub fn evaluate(
    module: &str,
    function: &str,
    input: &Value,
) -> Option<Result<(Value, Vec<Timing>), String>> {
    programs::evaluate::<DualRevEngine>(module, function, input)
}
