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
