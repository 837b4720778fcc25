//! Table: the two applications of `nilang-apps` that had only examples — a variational
//! quantum circuit (`nilang_apps::quantum`: energy, plain state-vector simulator, gradient by
//! reversal, and the same gradient by the tape engines on the plain simulator, with their
//! memory; [`quantum`]) and the ground state of a spin glass (`nilang_apps::spinglass`:
//! tropical contraction, ground state from the gradient, plain dynamic programming;
//! [`spin_glass`]).

mod quantum;
mod spin_glass;

use super::{Ctx, Section, Table};

/// Number of measurements of this section: three variants of the circuit, five of its tape
/// comparison (reversible energy and gradient at the tapes' size, three tape engines), three
/// of the spin glass.
pub const MEASUREMENTS: u64 = 11;

/// One application's part of the section.
struct Part {
    title: String,
    intro: String,
    table: Table,
    notes: Vec<String>,
    plots: Vec<String>,
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
    let q = quantum::part(ctx);
    let s = spin_glass::part(ctx);
    Section {
        title: format!("{} and {}", q.title, s.title),
        intro: format!(
            "The two applications of `nilang-apps` beyond the papers' tables (their examples \
             `quantum` and `spinglass`), seconds per call; each application's variants are \
             measured together. {} {}",
            q.intro, s.intro
        ),
        tables: vec![q.table, s.table],
        notes: q.notes.into_iter().chain(s.notes).collect(),
        plots: q.plots.into_iter().chain(s.plots).collect(),
    }
}
