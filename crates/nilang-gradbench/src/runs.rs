//! Repeated, timed evaluation: GradBench's `Runs` fields (`min_runs`, `min_seconds`).
//!
//! An input that carries `min_runs` and `min_seconds` asks the tool to run the function at
//! least `min_runs` times and until the runs add up to at least `min_seconds`, reporting one
//! `"evaluate"` timing per run. Only the computation is timed: the input is decoded before the
//! first run and the output encoded after the last.

use serde::Serialize;
use serde_json::Value;
use std::time::Instant;

/// One timing entry of an `evaluate` response.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Timing {
    /// What was timed (`"evaluate"`).
    pub name: String,
    /// How long it took.
    pub nanoseconds: u128,
}

/// How many times to run a function.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Runs {
    /// At least this many runs (at least 1).
    pub min_runs: usize,
    /// Keep running until the runs add up to this many seconds.
    pub min_seconds: f64,
}

impl Default for Runs {
    fn default() -> Self {
        Runs {
            min_runs: 1,
            min_seconds: 0.0,
        }
    }
}

impl Runs {
    /// Reads `min_runs` and `min_seconds` (and the older `runs`) from an input object; missing
    /// fields mean one run.
    pub fn from_input(input: &Value) -> Result<Runs, String> {
        let mut runs = Runs::default();
        let field = |name: &str| input.get(name).filter(|v| !v.is_null());
        if let Some(v) = field("min_runs").or_else(|| field("runs")) {
            let n = v
                .as_u64()
                .ok_or_else(|| format!("`min_runs` must be a non-negative integer, got {v}"))?;
            runs.min_runs = (n as usize).max(1);
        }
        if let Some(v) = field("min_seconds") {
            let s = v
                .as_f64()
                .ok_or_else(|| format!("`min_seconds` must be a number, got {v}"))?;
            if !s.is_finite() || s < 0.0 {
                return Err(format!(
                    "`min_seconds` must be finite and non-negative, got {s}"
                ));
            }
            runs.min_seconds = s;
        }
        Ok(runs)
    }

    /// Runs `f` as often as asked, timing each run; returns the last result and the timings.
    /// The first error stops the runs.
    pub fn run<R>(
        &self,
        mut f: impl FnMut() -> Result<R, String>,
    ) -> Result<(R, Vec<Timing>), String> {
        let mut timings = Vec::with_capacity(self.min_runs);
        let mut total = 0.0;
        let mut i = 0;
        loop {
            let start = Instant::now();
            let r = f();
            let ns = start.elapsed().as_nanos();
            let r = r?;
            timings.push(Timing {
                name: "evaluate".into(),
                nanoseconds: ns,
            });
            total += ns as f64 * 1e-9;
            i += 1;
            if i >= self.min_runs && total >= self.min_seconds {
                return Ok((r, timings));
            }
        }
    }
}
