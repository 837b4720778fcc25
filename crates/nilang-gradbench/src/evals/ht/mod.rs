//! `ht`: ADBench's hand tracking residuals and their Jacobian with respect to the pose (and,
//! in the complicated variant, the barycentric coordinates `us`).
//!
//! The hand model: `bone_count` bones in a tree (`parents`, a parent before its children),
//! each with a 4 × 4 base relative transform and an inverse base absolute transform; vertices
//! (homogeneous `base_positions`) skinned by per-bone `weights`. `theta` (26 values) is the
//! global rotation (angle-axis), the global translation, then 20 finger angles mapped into
//! the pose parameters as ADBench's `to_pose_params` does (bone `b` gets column `b + 3`; the
//! global scale is 1). Per bone the Euler angles (x, z, y order) give a rotation `R`; the
//! posed relative is `base_relative · [R 0; 0 1]`, the absolutes are the products along the
//! tree, and the skinning transform is `absolute · inverse_base_absolute`. A vertex is
//! `Σ_b w_b (T_b · p)`, mirrored in x when `is_mirrored`, then `R_global · v + t`. Residual
//! `i` is `points[i] − vertex(correspondences[i])` (simple), or `points[i] −` the point of
//! triangle `correspondences[i]` at barycentric `(u₀, u₁, 1 − u₀ − u₁)` (complicated, `us`
//! non-empty).
//!
//! Reversible program: [`ht_transforms`] computes the skinning transforms from `theta` into a
//! zero buffer (the Euler rotations, posed relatives and absolutes are ancillas computed in a
//! routine and uncomputed); [`ht_pose`] adds the global rotation ([`angle_axis_to_matrix`]);
//! [`ht_residuals`] computes the pose and every skinned vertex once, then, in a parallel loop
//! over the correspondences (`.par()`), takes each one's point from them and accumulates its
//! residual ([`ht_residual`], [`ht_place`]).
//!
//! Jacobian in three stages chained ([`Problem::jacobian`]): the pose with respect to `theta`
//! ([`ht_pose`] run forward on dual numbers, once: 273 values of 26 angles), then by reversal
//! each vertex a correspondence uses, skinned, with respect to the pose ([`ht_skin`], once per
//! vertex), and per correspondence its three residuals with respect to its skinned vertices,
//! the global rotation, the translation and `us` ([`ht_residual`], the
//! rows in lanes of one sweep). [`Problem::jacobian_direct`] reverses the
//! whole [`ht_residuals`] per row instead (the check). Output as GradBench's reference:
//! `objective` → the `3n` residuals; `jacobian` →
//! `3n` rows of `26` (simple) or `2 + 26` (complicated: `∂/∂u₀`, `∂/∂u₁` of the row's own
//! correspondence, then `theta`) values.
//!
//! The files, one job each: `input.rs` (the JSON input, its checks, the [`Model`] and
//! [`PoseLayout`] the program reads, and back to JSON), `program.rs` (the reversible program and
//! the objective that runs it), `jacobian.rs` (the staged Jacobian, and the one-stage check
//! [`Problem::jacobian_direct`]), `reference.rs` (plain Rust residuals for the tests),
//! `random.rs` (seeded random hands); this file: the memory check and the protocol entry.

mod input;
mod jacobian;
mod program;
mod random;
mod reference;

pub use input::*;
pub use jacobian::*;
pub use program::*;
pub use reference::*;

use super::{decode, timed_into, timed_into_with, unknown_function};
use crate::limits::{Need, ANSWER_NUMBER_BYTES};
use crate::runs::Timing;
use serde_json::{json, Value};

/// The memory `function` needs on `p` ([`Need`]): the `3n` residuals, or the Jacobian's `3n`
/// rows of `26` or `28`, each value with its answer; for the Jacobian also every vertex's
/// skinned position and its `3 × 26` derivatives, and the pose's `12·bones + 9` values with
/// their `26` derivatives (dense, and on dual numbers).
pub fn need(function: &str, p: &Problem) -> Result<(), String> {
    let m = &p.model;
    let n = m.correspondences.len();
    let mut need = Need::new("ht");
    if function != "jacobian" {
        return need.add("correspondences", &[3, n], 8 + ANSWER_NUMBER_BYTES);
    }
    let cols = if p.complicated() { 2 + NTHETA } else { NTHETA };
    need.add("correspondences", &[3, cols, n], 8 + ANSWER_NUMBER_BYTES)?;
    need.add(
        "base_positions",
        &[m.base_positions.len(), 3 * (NTHETA + 1) + 1],
        8,
    )?;
    need.add("bone_count", &[12 * m.nb + 9, 2 * NTHETA + 1], 8)
}

/// The `ht` functions: `objective` and `jacobian`. The sizes are checked before the outputs
/// are allocated ([`need`]).
pub fn evaluate(function: &str, input: &Value) -> Result<(Value, Vec<Timing>), String> {
    let inp: Input = decode("ht", input)?;
    let problem = Problem::from_input(&inp)?;
    need(function, &problem)?;
    match function {
        "objective" => {
            let mut buffers = problem.objective_buffers();
            let run = |b: &mut ObjectiveBuffers| {
                problem.objective_into(b);
                Ok(())
            };
            timed_into_with(input, &mut buffers, run, |b| json!(b.err))
        }
        "jacobian" => {
            let mut out = RowMajor {
                cols: 1,
                data: Vec::new(),
            };
            timed_into(input, &mut out, |out| problem.jacobian_into(out))
        }
        _ => Err(unknown_function("ht", function, &["objective", "jacobian"])),
    }
}
