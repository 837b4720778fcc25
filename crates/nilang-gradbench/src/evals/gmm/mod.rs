//! `gmm`: the Gaussian mixture model objective of ADBench and its gradient.
//!
//! With `Q_c = diag(exp q_c) + L_c` (strictly lower `L_c`), `x_i` the data, `α` the weights:
//!
//! ```text
//! f = −nd/2·log 2π + Σᵢ LSE_c(α_c + Σⱼ q_cj − ½‖Q_c (x_i − μ_c)‖²) − n·LSE(α)
//!     + s·(½γ² Σ_c (‖exp q_c‖² + ‖L_c‖²) − m Σ_c Σⱼ q_cj − k·C)
//! C = N d (log γ − ½ log 2) − log Γ_d(N/2),  N = d + m + 1
//! ```
//!
//! GradBench has sent this eval in two layouts, both accepted here:
//!
//! * **ADBench layout** (`means`, `icf`; the eval README): `icf[c]` is `q_c` followed by the
//!   strictly-lower entries of `L_c` column by column; the `jacobian` output is one flat vector
//!   `[∂α, ∂means, ∂icf]`. The Wishart term has ADBench's sign, `s = +1` (so ADBench's test
//!   instance gives its published objective).
//! * **Split layout** (`mu`, `q`, `l`; the newer eval): the same numbers in separate fields;
//!   the `jacobian` output is `{"alpha", "mu", "q", "l"}`. The objective is the log posterior,
//!   `s = −1`.
//!
//! The reversible program ([`gmm_objective`]) keeps `exp q` and `Σⱼ q_cj` in ancillas for the
//! whole run and writes the `n·k` main terms and their exponentials to outputs instead of
//! uncomputing them. It computes the main terms in blocks of points ([`points_per_call`]),
//! the blocks in a parallel loop (`.par()`, on every thread of the rayon pool), each block
//! component by component, so that a component's `L` stays in cache across the block's
//! points, four points at a time ([`qtimes4`]: each entry of `L` read once for four points,
//! four independent chains of multiply–adds); per point and component, `x − μ` and `Q(x − μ)`
//! are ancillas, computed, used and uncomputed in one routine ([`sub_half_sqnorms`]), whose
//! uncomputation the forward run skips and whose computation the gradient runs on values
//! alone. Then each point's LogSumExp is added to the output ([`logsumexps_keep`], a parallel
//! loop too). The gradient is the generated `gmm_objective_vjp`: the program run forward,
//! then backward on gradient values; in its parallel loops each chunk of blocks adds the
//! gradients of `μ`, `Q` and `L` to its own zeroed copy, summed in chunk order. On one thread
//! (`RAYON_NUM_THREADS=1`, GradBench's default `--threads 1`) the loops are the sequential
//! loops, bit for bit.
//!
//! The files, one job each: `input.rs` (the JSON input in both layouts, an ADBench data file,
//! the problem back to JSON, the gradient's output), `prior.rs` (the constant terms),
//! `program.rs` (the reversible program), `run.rs` (the objective and gradient by running it,
//! in [`Buffers`] kept across runs), `reference.rs` (plain Rust objective for the tests),
//! `random.rs` (seeded random problems); this file: the memory check and the protocol entry.

mod input;
mod prior;
mod program;
mod random;
mod reference;
mod run;

pub use input::*;
pub use prior::*;
pub use program::*;
pub use run::*;

use super::{decode, timed, timed_into_with, unknown_function};
use crate::limits::{Need, ANSWER_NUMBER_BYTES};
use crate::runs::Timing;
use serde_json::{json, Value};

/// The memory the `gmm` functions need on `n` points of dimension `d` and `k` components
/// ([`Need`]): the `n·k` main terms, their exponentials and both their gradients
/// ([`Buffers`]), the flattened points, and per component its parameters (`1 + 2d` values and
/// `d(d − 1)/2` strictly-lower entries) four times (the problem's, the copy the program runs
/// on, the gradient, the answer).
pub fn need(d: usize, k: usize, n: usize) -> Result<(), String> {
    let mut need = Need::new("gmm");
    let per_value = 3 * 8 + ANSWER_NUMBER_BYTES;
    need.add("n", &[4, n, k], 8)?;
    need.add("x", &[n, d], 8)?;
    need.add("d", &[k, d.saturating_mul(2).saturating_add(1)], per_value)?;
    need.add("d", &[k, d, d.saturating_sub(1)], per_value / 2)
}

/// The `gmm` functions: `objective` and `jacobian` (the gradient). The sizes are checked
/// first ([`need`]).
pub fn evaluate(function: &str, input: &Value) -> Result<(Value, Vec<Timing>), String> {
    let raw: RawInput = decode("gmm", input)?;
    need(raw.d, raw.k, raw.n)?;
    let p = Problem::from_raw(raw)?;
    match function {
        "objective" => {
            let mut b = p.buffers();
            timed(input, || Ok(p.objective_in(&mut b)), |y| json!(y))
        }
        "jacobian" => {
            let (mut b, mut g) = (p.buffers(), p.zero_gradient());
            timed_into_with(
                input,
                &mut g,
                |g| {
                    p.gradient_into(&mut b, g);
                    Ok(())
                },
                |g| p.encode_gradient(g),
            )
        }
        _ => Err(unknown_function(
            "gmm",
            function,
            &["objective", "jacobian"],
        )),
    }
}
