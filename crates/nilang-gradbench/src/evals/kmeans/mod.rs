//! `kmeans`: the k-means cost `Σᵢ minⱼ ‖Cⱼ − Pᵢ‖²` and the Newton direction `J·H⁻¹`.
//!
//! The nearest centroid of each point is an integer ancilla computed from the primal values;
//! the point's squared distance to that centroid is added to the cost, and the index is pushed
//! on a stack (`push!`), so the inverse program pops it instead of searching all centroids
//! again: `n` integers of memory buy back the `O(nkd)` search in every reverse sweep. (The
//! derivative of `min` is that of the selected term, as for any tool.) The search, plain Rust
//! on primal values, reads the centroids transposed and measures eight at a time
//! ([`Centroids`]), with each distance summed in the same order as one at a time; on a
//! processor with AVX2 (detected at run time) in 4-lane registers.
//!
//! `dir` needs the gradient `J` and the diagonal of the Hessian `H`, which is all of `H`
//! here: the cost is a sum of squares of single centroid coordinates. One run of the gradient
//! program on dual numbers ([`nilang::Dual`]), every centroid coordinate with tangent 1, gives
//! both: the gradients' values are `J`, their tangents `H·1 = diag H`. Output `J / diag H`.
//!
//! The files, one job each: `input.rs` (the JSON input, checked into a [`Problem`]),
//! `search.rs` (the nearest-centroid search), `program.rs` (the reversible cost, sequential
//! and parallel), `run.rs` (the cost and the direction by running it), `reference.rs` (plain
//! Rust cost for the tests); this file: the memory check and the protocol entry.

mod input;
mod program;
mod reference;
mod run;
mod search;

pub use input::*;
pub use program::*;
pub use search::*;

use super::{decode, rows, timed, unknown_function};
use crate::limits::{Need, ANSWER_NUMBER_BYTES};
use crate::runs::Timing;
use serde_json::{json, Value};

/// The memory the `kmeans` functions need on `i` ([`Need`]): per point its coordinates
/// flattened and its centroid's index (and that index's gradient); per centroid coordinate its
/// copies (the search's table, the program's on dual numbers and their gradient, the
/// direction's two halves) and the answer.
pub fn need(i: &Input) -> Result<(), String> {
    let mut need = Need::new("kmeans");
    let d = i.centroids.first().map_or(0, Vec::len);
    need.add("points", &[i.points.len(), d + 2], 8)?;
    need.add(
        "centroids",
        &[i.centroids.len(), d],
        8 * 8 + ANSWER_NUMBER_BYTES,
    )
}

/// The `kmeans` functions: `cost` and `dir`.
pub fn evaluate(function: &str, input: &Value) -> Result<(Value, Vec<Timing>), String> {
    let i: Input = decode("kmeans", input)?;
    need(&i)?;
    let p = Problem::from_input(&i)?;
    let k = p.centroids.len() / p.d;
    match function {
        "cost" => timed(input, || Ok(p.cost()), |c| json!(c)),
        "dir" => timed(input, || p.dir(), |v| json!(rows(&v, k, p.d))),
        _ => Err(unknown_function("kmeans", function, &["cost", "dir"])),
    }
}
