//! Table: the two applications of `nilang-apps` that had only examples — a variational
//! quantum circuit (`nilang_apps::quantum`: energy, plain state-vector simulator, gradient by
//! reversal, and the same gradient by the tape engines on the plain simulator, with their
//! memory; [`quantum`]) and the ground state of a spin glass (`nilang_apps::spinglass`:
//! tropical contraction, ground state from the gradient, plain dynamic programming;
//! [`spin_glass`]).

mod flows;
mod quantum;
mod spin_glass;

use super::{Ctx, Section, Table};

/// Number of measurements of this section: three variants of the circuit, five of its tape
/// comparison (reversible energy and gradient at the tapes' size, three tape engines), three
/// of the spin glass, three of each normalizing flow.
pub const MEASUREMENTS: u64 = 17;

/// One application's part of the section.
struct Part {
    title: String,
    intro: String,
    table: Table,
    notes: Vec<String>,
    plots: Vec<String>,
}

/// Drops the tapes that echidna and nilang-dualrev keep per thread for their next gradient:
/// before a measurement, so that its counted call grows its own tape (one kept from a check or
/// an earlier table would hide its size), and after it, so that the tape is not held for the
/// rest of the run.
fn release_tapes() {
    <f64 as echidna::tape::TapeThreadLocal>::pool_cell().with(|pool| drop(pool.take()));
    nilang_dualrev::release_pooled_tape();
}

/// Bytes in GiB from 1 GiB up, in MiB from 1 MiB up, in KiB below.
fn size(bytes: usize) -> String {
    if bytes >= 1 << 30 {
        format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
    } else if bytes >= 1 << 20 {
        format!("{:.2} MiB", bytes as f64 / (1u64 << 20) as f64)
    } else {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    }
}

/// Runs the section.
pub fn run(ctx: &Ctx) -> Section {
    let parts = [quantum::part(ctx), spin_glass::part(ctx), flows::part(ctx)];
    let titles: Vec<&str> = parts.iter().map(|p| p.title.as_str()).collect();
    let intros: Vec<&str> = parts.iter().map(|p| p.intro.as_str()).collect();
    Section {
        title: format!("{}, {} and {}", titles[0], titles[1], titles[2]),
        intro: format!(
            "The applications of `nilang-apps` beyond the papers' tables (their examples \
             `quantum`, `spinglass` and `flow`), seconds per call; each application's variants \
             are measured together. {}",
            intros.join(" ")
        ),
        notes: parts.iter().flat_map(|p| p.notes.clone()).collect(),
        plots: parts.iter().flat_map(|p| p.plots.clone()).collect(),
        tables: parts.into_iter().map(|p| p.table).collect(),
    }
}
