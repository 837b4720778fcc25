//! `lstm`: ADBench's LSTM loss (diagonal weight matrices) and its gradient with respect to the
//! main and extra parameters.
//!
//! `l` layers of `b` cells, a sequence of `c` one-hot characters of `b` bits. Per step `t` the
//! input `x = seq[t] ⊙ w_in` runs through the layers (each cell: gates
//! `f = σ(x·w_f + b_f)`, `i = σ(h·w_i + b_i)`, `o = σ(x·w_o + b_o)`, `g = tanh(h·w_c + b_c)`,
//! then `c ← c·f + i·g`, `h ← o·tanh c`; a layer's new `h` is the next layer's input); the
//! prediction `y = h_last ⊙ w_out + b_out` is normalised by ADBench's `log(Σ exp y + 2)` and
//! scored against `seq[t + 1]`. The loss is `−Σ ygold·ynorm / ((c − 1)·b)`.
//!
//! The reversible program keeps the whole state history: `hist` holds `(h, c)` of every layer
//! at every step (the initial state at step 0) and `ys` every step's prediction, so each state
//! update is an accumulation into a fresh zero slot (`c_{t+1} += c_t·f + i·g`). Everything else
//! lives in ancillas that routines allocate, use and uncompute: a cell's input and four gates,
//! `tanh c_{t+1}`, a step's LogSumExp. Each is computed once by the forward (the unchecked
//! forward skips uncomputations that only restore a routine's own ancillas), so the objective
//! costs what ADBench's does: three `exp` and two `tanh` per cell, `b` `exp` and a `log` per
//! step. A layer's cells are one loop ([`lstm_layer`], on the layer's slices of the history and
//! the parameters) whose indices are affine in the cell, so it checks bounds once per layer and
//! step. The gradient is the generated `lstm_objective_grad` (the inverse program walks the
//! steps backwards).
//!
//! The files, one job each: `input.rs` (the JSON input, an ADBench data file, seeded problems,
//! and back to JSON), `program.rs` (the reversible program), `run.rs` (the objective and
//! gradient by running it), `reference.rs` (plain Rust loss for the tests); this file: the
//! memory check and the protocol entry.

mod input;
mod program;
mod reference;
mod run;

pub use input::*;
pub use program::*;
pub use run::*;

use super::{decode, timed, unknown_function};
use crate::limits::{Need, ANSWER_NUMBER_BYTES};
use crate::runs::Timing;
use serde_json::{json, Value};

/// The memory `function` needs on `p` ([`Need`]): the state history (`c` steps of `l` layers
/// of `2b`) and the predictions (`(c − 1)·b`), 8 bytes a value for the objective and 40 for
/// the Jacobian (the history as gradient values too: measured 41 at `l = 2`, `c = 20000`,
/// `b = 8`); for the Jacobian, the answer (every parameter's derivative).
pub fn need(function: &str, p: &Problem) -> Result<(), String> {
    let Dims { l, c, b } = p.dims;
    let mut need = Need::new("lstm");
    let per_value = if function == "jacobian" { 40 } else { 8 };
    need.add("sequence", &[c, l, 2 * b], per_value)?;
    need.add("sequence", &[c, b], per_value)?;
    if function == "jacobian" {
        need.add("main_params", &[8 * l + 3, b], 8 + ANSWER_NUMBER_BYTES)?;
    }
    Ok(())
}

/// The `lstm` functions: `objective` and `jacobian`. The sizes are checked before the state
/// history is allocated ([`need`]).
pub fn evaluate(function: &str, input: &Value) -> Result<(Value, Vec<Timing>), String> {
    let p = Problem::from_input(&decode("lstm", input)?)?;
    need(function, &p)?;
    match function {
        "objective" => {
            let mut b = p.buffers();
            timed(input, || Ok(p.objective_in(&mut b)), |v| json!(v))
        }
        "jacobian" => timed(input, || p.gradient(), |g| json!(g)),
        _ => Err(unknown_function(
            "lstm",
            function,
            &["objective", "jacobian"],
        )),
    }
}
