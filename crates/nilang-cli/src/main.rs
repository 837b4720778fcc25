//! `nilang`: the command-line tool of the nilang workspace.
//!
//! * `nilang expand FILE.rs` prints, for each reversible function (`#[i]`) of a Rust file, its
//!   forward, inverse and adjoint programs in the language's own syntax (the papers'
//!   `macroexpand`); for each `#[differentiable]` function, first the reversible program the
//!   front end wrote from it.
//! * `nilang demo` runs the papers' small examples and prints what a user would check.
//! * `nilang bench [--quick] [--threads N]` measures the papers' benchmark tables against peers
//!   and writes a markdown report with SVG plots (parallel loops on `N` threads, every core by
//!   default).
//! * `nilang gradbench` is the GradBench tool (`nilang_gradbench::serve` on stdin/stdout).
#![warn(missing_docs)]

mod alloc;
mod bench;
mod demo;
mod expand;

#[global_allocator]
static ALLOCATOR: alloc::Counting = alloc::Counting;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Differentiable reversible programming: command-line tool.
#[derive(Parser)]
#[command(name = "nilang", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the forward, inverse and adjoint programs of every `#[i]` function in a Rust file
    /// (and of the program `#[differentiable]` writes from an ordinary function).
    Expand {
        /// The Rust source file.
        file: PathBuf,
    },
    /// Run the papers' small examples forward, backward and through the gradient.
    Demo,
    /// Be a GradBench tool: answer GradBench's JSON-lines messages on stdin, on stdout (as the
    /// `nilang-gradbench` binary, which times without this binary's allocation counter).
    Gradbench {
        /// Threads of the pool the evals' parallel loops run on (at most 64 per core, and
        /// 4096).
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Answer with the evals' natural programs (plain Rust under `#[differentiable]`) where
        /// they have one; the expert programs otherwise.
        #[arg(long)]
        natural: bool,
    },
    /// Measure the papers' benchmark tables side by side with peers; write a markdown report
    /// and SVG plots.
    Bench {
        /// Small sizes and few samples (a smoke test that finishes in under two minutes).
        #[arg(long)]
        quick: bool,
        /// Output directory of the report and plots.
        #[arg(long, default_value = "target/nilang-bench")]
        out: std::path::PathBuf,
        /// Only the tables whose name contains this (bessel, sparse, graph, gmm, ba, guide,
        /// apps).
        #[arg(long)]
        only: Option<String>,
        /// The ADBench data directory (with `gmm/` and `ba/`); it must exist. Without it,
        /// `../shared/data/adbench`, or instances of the same sizes from a seed where that is
        /// absent.
        #[arg(long)]
        data: Option<std::path::PathBuf>,
        /// Threads for the programs' parallel loops (default: every core; at most 64 per core,
        /// and 4096). With more than one, samples are timed by wall time instead of the
        /// thread's CPU time.
        #[arg(long)]
        threads: Option<usize>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Expand { file } => {
            let src = match std::fs::read_to_string(&file) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: cannot read {}: {e}", file.display());
                    return ExitCode::FAILURE;
                }
            };
            match expand::expand(&src) {
                Ok(text) => {
                    print!("{text}");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {}: {e}", file.display());
                    ExitCode::FAILURE
                }
            }
        }
        Command::Bench {
            quick,
            out,
            only,
            data,
            threads,
        } => {
            let threads = threads.unwrap_or_else(|| {
                std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
            });
            match bench::run(&bench::Options {
                quick,
                out,
                only,
                data,
                threads,
            }) {
                Ok(path) => {
                    println!("report written to {}", path.display());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Demo => {
            demo::run();
            ExitCode::SUCCESS
        }
        Command::Gradbench { threads, natural } => {
            match nilang_gradbench::serve_stdio_with(threads, natural) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("nilang gradbench: {e}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}
