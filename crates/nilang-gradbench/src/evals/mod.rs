//! The evals nilang implements, one module each: the objective as a reversible `#[i]`
//! function, the derivative the eval asks for by reversal, the JSON input and output.
//!
//! Every module has `evaluate(function, input)`, which decodes the input, runs the function
//! as often as the input's `Runs` fields ask ([`crate::runs::Runs`]), and encodes the output,
//! and a plain-Rust `reference` objective used by the tests.
//!
//! The larger evals (`ba`, `gmm`, `ht`, `kmeans`, `lstm`, `ode`) are folders, one file per
//! job: `mod.rs` the protocol entry (`evaluate`, the memory check `need`), `input.rs` the JSON
//! input and the problem checked from it, `program.rs` the reversible program, `jacobian.rs`
//! or `run.rs` the derivative (and objective) by running it, `reference.rs` the plain-Rust
//! reference, `random.rs` seeded random problems; each folder's `mod.rs` names its files. The
//! smaller evals are one file each, the program being most of it. A folder's items are
//! re-exported from its `mod.rs`, so their paths (`evals::ht::Problem`) do not name the files.

use crate::runs::{Runs, Timing};
use serde::de::DeserializeOwned;
use serde_json::Value;

pub mod ba;
pub mod det;
pub mod dualrev;
pub mod gd;
pub mod gmm;
pub mod hello;
pub mod ht;
pub mod kmeans;
pub mod llsq;
pub mod lse;
pub mod lstm;
pub mod natural;
pub mod ode;
pub mod particle;
pub mod programs;
pub mod saddle;

/// `T::fresh()`: the zero an accumulating ancilla starts from, `−0`. Since `−0 + v = v` for
/// every `v` (while `+0 + (−0) = +0`), the compiler drops the first `+=` into it, which on `+0`
/// it must keep — an addition on the dependency chain of every gate or sub-minor. It equals
/// zero, so deallocations and results are as with `T::zero()`. Use it in `dealloc!` too, so
/// the inverse (which allocates there) starts from it as well.
pub trait Fresh {
    /// `−0`.
    fn fresh() -> Self;
}

impl<T: nilang::Real> Fresh for T {
    #[inline(always)]
    fn fresh() -> T {
        T::lit(-0.0)
    }
}

/// The modules (GradBench eval names) this tool defines.
pub const MODULES: &[&str] = &[
    "hello",
    "lse",
    "llsq",
    "gmm",
    "ba",
    "kmeans",
    "det",
    "lstm",
    "ode",
    "saddle",
    "particle",
    "ht",
    "logsumexp",
    "llsq_obj",
    "det_by_minor",
    "an_ode",
];

/// Eval names GradBench also uses for the same problems (the names of cmpad, which several
/// evals were adapted from): same input, same functions, same output.
pub fn canonical(module: &str) -> &str {
    match module {
        "logsumexp" => "lse",
        "llsq_obj" => "llsq",
        "det_by_minor" => "det",
        "an_ode" => "ode",
        other => other,
    }
}

/// Evaluates `function` of `module` on `input`: the output and one timing per run. The
/// input's `Runs` fields are checked against their caps first ([`crate::limits`]), before the
/// eval allocates anything; each eval checks the memory its sizes ask for
/// ([`crate::limits::Need`]) before allocating it.
pub fn evaluate(
    module: &str,
    function: &str,
    input: &Value,
) -> Result<(Value, Vec<Timing>), String> {
    evaluate_with(module, function, input, Engine::Expert)
}

/// The engine that answers an eval's objective and derivative.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// The expert reversible programs of this module.
    #[default]
    Expert,
    /// The natural programs (plain Rust under `#[differentiable]`, [`natural`]) where an eval
    /// has one.
    Natural,
    /// Ordinary generic Rust differentiated by `nilang-dualrev` ([`dualrev`]) where an eval
    /// has a version there.
    DualRev,
}

impl Engine {
    /// The engine of an `--engine` value: `expert`, `natural` or `dualrev`.
    pub fn from_name(name: &str) -> Result<Engine, String> {
        match name {
            "expert" => Ok(Engine::Expert),
            "natural" => Ok(Engine::Natural),
            "dualrev" => Ok(Engine::DualRev),
            _ => Err(format!(
                "unknown engine `{name}` (the engines are `expert`, `natural` and `dualrev`)"
            )),
        }
    }
}

/// [`evaluate`] by `engine` where it answers `function` of `module` ([`natural`],
/// [`dualrev`]); by the expert program otherwise.
pub fn evaluate_with(
    module: &str,
    function: &str,
    input: &Value,
    engine: Engine,
) -> Result<(Value, Vec<Timing>), String> {
    Runs::from_input(input)?;
    let by_engine = match engine {
        Engine::Expert => None,
        Engine::Natural => natural::evaluate(canonical(module), function, input),
        Engine::DualRev => dualrev::evaluate(canonical(module), function, input),
    };
    if let Some(result) = by_engine {
        return result;
    }
    match canonical(module) {
        "hello" => hello::evaluate(function, input),
        "lse" => lse::evaluate(function, input),
        "llsq" => llsq::evaluate(function, input),
        "gmm" => gmm::evaluate(function, input),
        "ba" => ba::evaluate(function, input),
        "kmeans" => kmeans::evaluate(function, input),
        "det" => det::evaluate(function, input),
        "lstm" => lstm::evaluate(function, input),
        "ode" => ode::evaluate(function, input),
        "saddle" => saddle::evaluate(function, input),
        "particle" => particle::evaluate(function, input),
        "ht" => ht::evaluate(function, input),
        _ => Err(format!(
            "module `{module}` is not implemented by nilang (implemented: {})",
            MODULES.join(", ")
        )),
    }
}

/// Decodes an eval's input type from JSON, with a readable error.
pub fn decode<I: DeserializeOwned>(module: &str, input: &Value) -> Result<I, String> {
    I::deserialize(input).map_err(|e| format!("bad `{module}` input: {e}"))
}

/// The error for a function a module does not have.
pub fn unknown_function(module: &str, function: &str, known: &[&str]) -> String {
    format!(
        "module `{module}` has no function `{function}` (functions: {})",
        known.join(", ")
    )
}

/// Runs `compute` as the input's `Runs` fields ask and encodes its last result.
pub fn timed<R>(
    input: &Value,
    compute: impl FnMut() -> Result<R, String>,
    encode: impl FnOnce(R) -> Value,
) -> Result<(Value, Vec<Timing>), String> {
    let runs = Runs::from_input(input)?;
    let (r, timings) = runs.run(compute)?;
    Ok((encode(r), timings))
}

/// Runs `compute` as the input's `Runs` fields ask, every run writing its result into the same
/// `out`, allocated once before the runs (as GradBench's C++ tools keep their output object
/// across the runs of one message), and encodes `out`.
pub fn timed_into<B: serde::Serialize>(
    input: &Value,
    out: &mut B,
    compute: impl FnMut(&mut B) -> Result<(), String>,
) -> Result<(Value, Vec<Timing>), String> {
    let (value, timings) = timed_into_with(input, out, compute, |out| {
        serde_json::to_value(out).map_err(|e| e.to_string())
    })?;
    Ok((value?, timings))
}

/// [`timed_into`] with the eval's own encoding of `out` (a cut of it, say), after the runs.
pub fn timed_into_with<B, V>(
    input: &Value,
    out: &mut B,
    mut compute: impl FnMut(&mut B) -> Result<(), String>,
    encode: impl FnOnce(&B) -> V,
) -> Result<(V, Vec<Timing>), String> {
    let runs = Runs::from_input(input)?;
    let ((), timings) = runs.run(|| compute(out))?;
    Ok((encode(out), timings))
}

/// Flattens rows into one row-major vector, checking every row has `cols` entries (before
/// allocating: the vector is then as long as the rows together, whatever `cols` says).
pub fn flatten(what: &str, rows: &[Vec<f64>], cols: usize) -> Result<Vec<f64>, String> {
    if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| r.len() != cols) {
        return Err(format!(
            "`{what}[{i}]` has {} entries, expected {cols}",
            r.len()
        ));
    }
    Ok(rows.concat())
}

/// Splits a row-major vector into `count` rows of `cols` entries.
pub fn rows(v: &[f64], count: usize, cols: usize) -> Vec<Vec<f64>> {
    (0..count)
        .map(|i| v[i * cols..(i + 1) * cols].to_vec())
        .collect()
}

/// Runs `f(first, piece)` on consecutive pieces of `whole`, which holds `n` blocks (`split(s,
/// k)` cuts the first `k` blocks off `s`; `first` is the index of a piece's first block): on
/// several threads of the current rayon pool the pieces are the chunks of the parallel loop
/// (`nilang::parallel::chunks`: four per thread, boundaries from `n` and the thread count
/// only), run in parallel; on one thread, or when `n` blocks of `weight` units of work each are
/// below `nilang::parallel::min_parallel_work` (the rule of `(a..b).par().weight(w)`: a unit is
/// about a nanosecond of one core's work), `f(0, whole)`, the sequential loop itself.
/// For blocks computed independently of each other (Jacobian blocks, residuals), the result is
/// the same bits for every thread count.
///
/// For loops that are plain Rust around reversible calls (a Jacobian assembled from one
/// adjoint sweep per observation), where the language's `.par()` loop does not apply.
pub fn par_split<S: Send>(
    whole: S,
    n: usize,
    weight: usize,
    split: impl Fn(S, usize) -> (S, S),
    f: impl Fn(usize, S) + Sync,
) {
    if !nilang::parallel::worth_splitting(0, n, false, weight) {
        return f(0, whole);
    }
    let mut pieces = Vec::new();
    let mut rest = whole;
    for (lo, hi) in nilang::parallel::chunks(0, n, false) {
        let (piece, tail) = split(rest, hi - lo);
        pieces.push((lo, piece));
        rest = tail;
    }
    use rayon::prelude::*;
    pieces.into_par_iter().for_each(|(lo, piece)| f(lo, piece));
}

/// [`par_split`] of one slice of `n` blocks of `block` elements (`block > 0`), each `weight`
/// units of work.
pub fn par_blocks<E: Send>(
    out: &mut [E],
    block: usize,
    weight: usize,
    f: impl Fn(usize, &mut [E]) + Sync,
) {
    let n = out.len() / block;
    par_split(out, n, weight, |s, k| s.split_at_mut(k * block), f);
}

/// [`par_split`] of two slices of `n` blocks of `block` elements each, cut at the same blocks,
/// each block `weight` units of work.
pub fn par_blocks2<A: Send, B: Send>(
    a: &mut [A],
    b: &mut [B],
    block: usize,
    weight: usize,
    f: impl Fn(usize, &mut [A], &mut [B]) + Sync,
) {
    let n = a.len().min(b.len()) / block;
    par_split(
        (a, b),
        n,
        weight,
        |(a, b), k| {
            let ((a0, a1), (b0, b1)) = (a.split_at_mut(k * block), b.split_at_mut(k * block));
            ((a0, b0), (a1, b1))
        },
        |first, (a, b)| f(first, a, b),
    );
}

/// `out.fill(v)`, in parallel on several threads ([`par_blocks`], one unit of work an element).
pub fn par_fill<E: Send + Sync + Clone>(out: &mut [E], v: E) {
    par_blocks(out, 1, 1, |_, piece| piece.fill(v.clone()));
}
