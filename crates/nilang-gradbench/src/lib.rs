#![doc = include_str!("../README.md")]
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

/// Sizes rayon's global pool, on which the evals' parallel loops run; `0` is refused (rayon
/// would take it to mean every core, which `nilang gradbench --threads 0` must not do
/// silently).
pub fn use_threads(threads: usize) -> Result<(), String> {
    if threads == 0 {
        return Err("`--threads` takes a positive number, not `0`".into());
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .map_err(|e| format!("cannot start {threads} threads: {e}"))
}
