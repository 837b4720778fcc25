//! `ba`: bundle adjustment (ADBench): reprojection and weight residuals, and their sparse
//! Jacobian.
//!
//! The input carries one camera (11 values: Rodrigues rotation, centre, focal length,
//! principal point, two radial distortion coefficients), one point, one weight and one feature;
//! like GradBench's reference tool, the problem is `n` copies of the camera, `m` of the point,
//! `p` observations (camera `i mod n`, point `i mod m`) of weight `w` and feature `feat`.
//!
//! Per observation the reprojection residual `w·(proj(cam, X) − feat)` is the reversible
//! [`ba_reproj`] (with Rodrigues' formula for the rotation) and the weight residual `1 − w²` is
//! [`ba_weight`]. The Jacobian is assembled row by row, each row one gradient of one residual
//! by reversal: for every observation two rows of 15 non-zeros (11 camera, 3 point, 1 weight
//! columns) and one row of one non-zero, in compressed sparse rows (CSR) as ADBench does.
//! Both functions write into buffers that the runs of one message share
//! ([`Problem::objective_into`], [`Problem::jacobian_into`]).
//!
//! Output, as GradBench's reference tool encodes it (all observations are copies):
//! `objective` → `{"reproj_error": {"elements": [e₀, e₁], "repeated": p}, "w_err": {"element":
//! e, "repeated": p}}`; `jacobian` → `{"rows", "cols", "vals"}` holding the first 30 entries of
//! the CSR arrays followed by their last entry.
//!
//! The files, one job each: `input.rs` (the JSON input, an ADBench data file, the problem it
//! replicates), `program.rs` (the reversible residuals and the objective that runs them),
//! `jacobian.rs` (the sparse Jacobian by reversal), `reference.rs` (plain Rust residual for the
//! tests), `random.rs` (seeded random problems); this file: the memory check, the output's
//! encoding and the protocol entry.

mod input;
mod jacobian;
mod program;
mod random;
mod reference;

pub use input::*;
pub use jacobian::*;
pub use program::*;
pub use reference::*;

use super::{decode, timed_into_with, unknown_function};
use crate::limits::Need;
use crate::runs::Timing;
use serde_json::{json, Value};

/// The reference tool's encoding of the residuals (observations are copies).
pub fn encode_objective(r: &Residuals) -> Value {
    let p = r.w_err.len();
    let first = r.reproj.first().copied().unwrap_or([0.0; 2]);
    json!({
        "reproj_error": {"elements": first, "repeated": p},
        "w_err": {"element": r.w_err.first().copied().unwrap_or(0.0), "repeated": p},
    })
}

/// The reference tool's encoding of the Jacobian: the first 30 entries of each CSR array and
/// its last entry.
pub fn encode_jacobian(j: &Csr) -> Value {
    fn cut<X: Copy + serde::Serialize>(v: &[X]) -> Vec<X> {
        let head = 2 * (NCAM + 4);
        if v.len() <= head + 1 {
            return v.to_vec();
        }
        let mut out = v[..head].to_vec();
        out.push(v[v.len() - 1]);
        out
    }
    json!({"rows": cut(&j.rows), "cols": cut(&j.cols), "vals": cut(&j.vals)})
}

/// The memory `function` needs on `i` ([`Need`]): the replicated problem
/// ([`Problem::from_input`]: `n` cameras, `m` points, `p` weights, observations and features)
/// and the output buffers (residuals, or the Jacobian's `3p + 1` row starts and `31p` columns
/// and values). The answer is a cut of fixed size.
pub fn need(function: &str, i: &Input) -> Result<(), String> {
    let mut need = Need::new("ba");
    need.add("n", &[i.n, NCAM], 8)?;
    need.add("m", &[i.m, 3], 8)?;
    need.add("p", &[i.p, 1 + 2 + 2], 8)?;
    let row = NCAM + 4;
    match function {
        "jacobian" => need.add("p", &[i.p, 3 + 2 * (2 * row + 1)], 8),
        _ => need.add("p", &[i.p, 3], 8),
    }
}

/// The `ba` functions: `objective` and `jacobian`. The output buffers are allocated once and
/// reused by every run of the message ([`Problem::objective_into`], [`Problem::jacobian_into`]).
/// The sizes are checked first ([`need`]).
pub fn evaluate(function: &str, input: &Value) -> Result<(Value, Vec<Timing>), String> {
    let inp: Input = decode("ba", input)?;
    need(function, &inp)?;
    let problem = Problem::from_input(&inp)?;
    match function {
        "objective" => {
            let mut r = Residuals::default();
            let run = |r: &mut Residuals| {
                problem.objective_into(r);
                Ok(())
            };
            timed_into_with(input, &mut r, run, encode_objective)
        }
        "jacobian" => {
            let mut j = Csr::default();
            let run = |j: &mut Csr| {
                problem.jacobian_into(j);
                Ok(())
            };
            timed_into_with(input, &mut j, run, encode_jacobian)
        }
        _ => Err(unknown_function("ba", function, &["objective", "jacobian"])),
    }
}
