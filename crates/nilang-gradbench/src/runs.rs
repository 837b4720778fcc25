//! Repeated, timed evaluation: GradBench's `Runs` fields (`min_runs`, `min_seconds`).
//!
//! An input that carries `min_runs` and `min_seconds` asks the tool to run the function at
//! least `min_runs` times and until the runs add up to at least `min_seconds`, reporting one
//! `"evaluate"` timing per run. Only the computation is timed: the input is decoded before the
//! first run and the output encoded after the last.
//!
//! Both are capped ([`crate::limits`]): a `min_runs` above [`Limits::runs`] or a `min_seconds`
//! above [`Limits::seconds`] is an error, and the runs stop at [`Limits::runs`] even when
//! `min_seconds` is not filled yet (a function of well under a microsecond).

use crate::limits::{self, Limits, MAX_RUNS_VAR, MAX_SECONDS_VAR};
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
    /// Never more runs than this ([`Limits::runs`]).
    pub max_runs: usize,
}

impl Default for Runs {
    /// One run, at most the process's cap ([`limits::current`]).
    fn default() -> Self {
        Runs::once(limits::current())
    }
}

impl Runs {
    /// One run, at most `limits.runs`.
    fn once(limits: Limits) -> Runs {
        Runs {
            min_runs: 1,
            min_seconds: 0.0,
            max_runs: usize::try_from(limits.runs).unwrap_or(usize::MAX),
        }
    }

    /// Reads `min_runs` and `min_seconds` (and the older `runs`) from an input object; missing
    /// fields mean one run. Against the process's caps ([`limits::current`]).
    pub fn from_input(input: &Value) -> Result<Runs, String> {
        Runs::from_input_with(input, limits::current())
    }

    /// [`Runs::from_input`] against the caps of `limits`: a `min_runs` above
    /// [`Limits::runs`] or a `min_seconds` above [`Limits::seconds`] is an error.
    ///
    /// ```
    /// use nilang_gradbench::{limits::Limits, runs::Runs};
    /// let caps = Limits { runs: 10, seconds: 2.0, ..Limits::DEFAULT };
    /// let runs = Runs::from_input_with(&serde_json::json!({"min_runs": 10}), caps).unwrap();
    /// assert_eq!((runs.min_runs, runs.max_runs), (10, 10));
    /// for bad in [r#"{"min_runs": 11}"#, r#"{"min_seconds": 2.5}"#, r#"{"min_runs": 1e12}"#] {
    ///     let input = serde_json::from_str(bad).unwrap();
    ///     assert!(Runs::from_input_with(&input, caps).is_err(), "{bad}");
    /// }
    /// ```
    pub fn from_input_with(input: &Value, limits: Limits) -> Result<Runs, String> {
        let mut runs = Runs::once(limits);
        let field = |name: &str| input.get(name).filter(|v| !v.is_null());
        if let Some(v) = field("min_runs").or_else(|| field("runs")) {
            let n = v
                .as_u64()
                .ok_or_else(|| format!("`min_runs` must be a non-negative integer, got {v}"))?;
            if n > limits.runs {
                return Err(format!(
                    "`min_runs` = {n} is more than the cap of {} runs ({MAX_RUNS_VAR} changes it)",
                    limits.runs
                ));
            }
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
            if s > limits.seconds {
                return Err(format!(
                    "`min_seconds` = {s} is more than the cap of {} seconds ({MAX_SECONDS_VAR} \
                     changes it)",
                    limits.seconds
                ));
            }
            runs.min_seconds = s;
        }
        Ok(runs)
    }

    /// Runs `f` as often as asked (and at most [`Runs::max_runs`] times), timing each run;
    /// returns the last result and the timings. The first error stops the runs.
    pub fn run<R>(
        &self,
        mut f: impl FnMut() -> Result<R, String>,
    ) -> Result<(R, Vec<Timing>), String> {
        let mut timings = Vec::with_capacity(self.min_runs.min(self.max_runs));
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
            if (i >= self.min_runs && total >= self.min_seconds) || i >= self.max_runs {
                return Ok((r, timings));
            }
        }
    }
}
