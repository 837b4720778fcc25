//! # nilang-gradbench: nilang as a GradBench tool
//!
//! [GradBench](https://github.com/gradbench/gradbench) runs an *eval* and an AD *tool* as two
//! processes that talk JSON Lines: the eval writes one message per line on the tool's stdin,
//! the tool answers each with one line on its stdout carrying the same `id`. This crate is
//! that tool for nilang: the binary `nilang-gradbench` reads messages, answers them
//! ([`protocol::Tool`]), and evaluates each eval's functions ([`evals`]).
//!
//! Every objective is a reversible program: an `#[i]` function generic over `T: Real`.
//! Gradients come from the generated `f_grad` (run `f` forward, then its inverse `f_inv` on
//! [`nilang::GVar`] values), second derivatives from the same gradient program on
//! [`nilang::Dual`] numbers. No derivative is written by hand. The one tape is the outer
//! reverse-mode derivative of the nested evals (`rf`, `rr`), taken through their plain-Rust
//! solver loops by `nilang-dualrev` ([`evals::gd`]).
//!
//! Implemented evals: `hello`, `lse`, `llsq`, `gmm`, `ba`, `kmeans`, `det`, `lstm`, `ode`,
//! `ht`, `saddle` and `particle` (`ff`, `fr`, `rf`, `rr`), and the cmpad names `logsumexp`,
//! `llsq_obj`, `det_by_minor`, `an_ode` (see [`evals::MODULES`]).
#![warn(missing_docs)]

pub mod evals;
pub mod protocol;
pub mod runs;
pub mod seeded;

pub use protocol::{serve, Tool};

/// The thread count of `--threads N` / `--threads=N` among a tool's arguments (1 when absent):
/// the size of the rayon pool the evals' parallel loops run on.
pub fn threads_option(args: &[String]) -> Result<usize, String> {
    let mut threads = 1;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let value = if a == "--threads" {
            it.next().ok_or("`--threads` needs a number")?.clone()
        } else if let Some(v) = a.strip_prefix("--threads=") {
            v.to_string()
        } else {
            return Err(format!(
                "unknown argument `{a}` (the options are `--threads N`, `--help` and `--version`)"
            ));
        };
        threads = value
            .parse::<usize>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("`--threads` takes a positive number, not `{value}`"))?;
    }
    Ok(threads)
}

/// Sizes rayon's global pool, on which the evals' parallel loops run.
pub fn use_threads(threads: usize) -> Result<(), String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .map_err(|e| format!("cannot start {threads} threads: {e}"))
}
