//! Random reversible programs for nilang's tests (issue 14).
//!
//! - [`generator`]: well-formed random programs as source text, from a seed. The IR-level
//!   tests (`nilang/tests/random_programs.rs`) run very many of them on an interpreter of the
//!   IR.
//! - The corpus: the build script writes `NILANG_CORPUS_PROGRAMS` programs (default 300) as
//!   Rust source into `$OUT_DIR/corpus.rs` (with [`Features::INDEXED`]: a fixed-point
//!   parameter beside a differentiable one does not compile in the adjoint programs yet); `tests/compiled.rs` compiles them with `#[i]`
//!   and checks the generated code: `f_inv(f(x)) == x`, the shadow gradient (`f_vjp`) against
//!   the `GVar` gradient (`f_grad`) and central differences.

pub mod generator;

pub use generator::{function, program, program_with, Features, Rng, LIBRARY, NN, NQ, NX};
