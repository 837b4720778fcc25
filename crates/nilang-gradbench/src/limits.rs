//! Caps on what one message may ask of the tool, so that no message stops it: an input whose
//! sizes would need more memory than [`Limits::bytes`] is refused before anything is allocated
//! ([`Need`]), `min_runs` and `min_seconds` are bounded ([`Limits::runs`], [`Limits::seconds`]),
//! and every iterative solver stops after [`Limits::steps`] steps with an error
//! ([`Limits::step`]). Each refusal is the message's answer (`success: false` with an `error`
//! that names the field and the cap); the tool then serves the next message.
//!
//! | cap | default | environment variable |
//! |---|---|---|
//! | bytes one evaluation allocates | 4 GiB | `NILANG_GRADBENCH_MAX_BYTES` |
//! | runs of one evaluation (`min_runs`, and the runs `min_seconds` asks for) | 1 000 000 | `NILANG_GRADBENCH_MAX_RUNS` |
//! | `min_seconds` | 3600 | `NILANG_GRADBENCH_MAX_SECONDS` |
//! | steps of one solver loop (a gradient descent, an Euler integration) | 100 000 | `NILANG_GRADBENCH_MAX_STEPS` |
//!
//! The binaries read the variables once at start ([`Limits::from_env`], refusing a value that
//! is not a positive number) and [`set`] them for the process. A byte count may end in `K`,
//! `M`, `G` or `T` (powers of 1024): `NILANG_GRADBENCH_MAX_BYTES=16G`.
//!
//! The byte counts are the eval's own buffers (copies of the input it runs on, working memory,
//! outputs), computed from the input's sizes with checked arithmetic; the parsed message itself
//! is not counted (its size is the line's). GradBench's largest inputs need well under the
//! defaults: `ode` with `n = 100000`, `s = 100` about 160 MB, `det` with `ℓ = 11` about 140 MB.
//! When more than `min_runs` runs are needed to fill `min_seconds`, the runs stop at the run
//! cap, however short the total (a run of well under a microsecond: 1 000 000 runs); the
//! answer then holds one timing per run made.

use std::sync::RwLock;

/// The environment variable of [`Limits::bytes`].
pub const MAX_BYTES_VAR: &str = "NILANG_GRADBENCH_MAX_BYTES";
/// The environment variable of [`Limits::runs`].
pub const MAX_RUNS_VAR: &str = "NILANG_GRADBENCH_MAX_RUNS";
/// The environment variable of [`Limits::seconds`].
pub const MAX_SECONDS_VAR: &str = "NILANG_GRADBENCH_MAX_SECONDS";
/// The environment variable of [`Limits::steps`].
pub const MAX_STEPS_VAR: &str = "NILANG_GRADBENCH_MAX_STEPS";

/// The caps of one process.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Bytes one evaluation may allocate.
    pub bytes: u64,
    /// Runs of one evaluation.
    pub runs: u64,
    /// The largest `min_seconds`.
    pub seconds: f64,
    /// Steps of one solver loop.
    pub steps: u64,
}

impl Limits {
    /// 4 GiB, 1 000 000 runs, 3600 seconds, 100 000 steps.
    ///
    /// ```
    /// use nilang_gradbench::limits::Limits;
    /// assert_eq!(Limits::DEFAULT.bytes, 4 << 30);
    /// ```
    pub const DEFAULT: Limits = Limits {
        bytes: 4 << 30,
        runs: 1_000_000,
        seconds: 3600.0,
        steps: 100_000,
    };

    /// The defaults, with each cap whose environment variable is set taken from it.
    pub fn from_env() -> Result<Limits, String> {
        Limits::from_vars(|name| std::env::var_os(name).map(|v| v.to_string_lossy().into()))
    }

    /// The defaults, with each cap for which `var` gives a value taken from it (`var` reads
    /// the variable of that name); an error naming the variable for a value that is not a
    /// positive number.
    ///
    /// ```
    /// use nilang_gradbench::limits::Limits;
    /// let l = Limits::from_vars(|v| (v == "NILANG_GRADBENCH_MAX_BYTES").then(|| "2G".into()));
    /// assert_eq!(l, Ok(Limits { bytes: 2 << 30, ..Limits::DEFAULT }));
    /// assert!(Limits::from_vars(|_| Some("-1".into())).is_err());
    /// ```
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Limits, String> {
        let mut l = Limits::DEFAULT;
        if let Some(v) = var(MAX_BYTES_VAR) {
            l.bytes = parse_bytes(&v).ok_or_else(|| bad_var(MAX_BYTES_VAR, &v, "bytes"))?;
        }
        if let Some(v) = var(MAX_RUNS_VAR) {
            l.runs = positive_whole(&v).ok_or_else(|| bad_var(MAX_RUNS_VAR, &v, "runs"))?;
        }
        if let Some(v) = var(MAX_SECONDS_VAR) {
            let s = v
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s > 0.0);
            l.seconds = s.ok_or_else(|| bad_var(MAX_SECONDS_VAR, &v, "seconds"))?;
        }
        if let Some(v) = var(MAX_STEPS_VAR) {
            l.steps = positive_whole(&v).ok_or_else(|| bad_var(MAX_STEPS_VAR, &v, "steps"))?;
        }
        Ok(l)
    }

    /// Counts one more step of a solver loop that has taken `taken` so far: an error once
    /// that is more than [`Limits::steps`], which says what failed to happen (`what()`, only
    /// called then).
    ///
    /// ```
    /// use nilang_gradbench::limits::Limits;
    /// let l = Limits { steps: 2, ..Limits::DEFAULT };
    /// let mut taken = 0;
    /// let what = || "a descent did not converge".to_string();
    /// assert!(l.step(&mut taken, what).is_ok());
    /// assert!(l.step(&mut taken, what).is_ok());
    /// let e = l.step(&mut taken, what).unwrap_err();
    /// assert!(e.starts_with("a descent did not converge within 2 steps"), "{e}");
    /// ```
    #[inline]
    pub fn step(&self, taken: &mut u64, what: impl FnOnce() -> String) -> Result<(), String> {
        *taken += 1;
        if *taken > self.steps {
            return Err(self.exceeded(what));
        }
        Ok(())
    }

    /// The error of a loop past the cap (out of line: [`Limits::step`] runs in the nested
    /// evals' innermost loops, once per Euler step).
    #[cold]
    #[inline(never)]
    fn exceeded(&self, what: impl FnOnce() -> String) -> String {
        format!(
            "{} within {} steps (the cap; {MAX_STEPS_VAR} changes it)",
            what(),
            self.steps
        )
    }
}

fn bad_var(name: &str, value: &str, unit: &str) -> String {
    format!("{name} must be a positive number of {unit}, not `{value}`")
}

fn positive_whole(text: &str) -> Option<u64> {
    text.trim().parse::<u64>().ok().filter(|&n| n > 0)
}

/// A positive whole number of bytes, optionally ending in `K`, `M`, `G` or `T` (powers of
/// 1024).
fn parse_bytes(text: &str) -> Option<u64> {
    let t = text.trim();
    let (digits, shift) = match t.chars().last()? {
        'K' | 'k' => (&t[..t.len() - 1], 10),
        'M' | 'm' => (&t[..t.len() - 1], 20),
        'G' | 'g' => (&t[..t.len() - 1], 30),
        'T' | 't' => (&t[..t.len() - 1], 40),
        _ => (t, 0),
    };
    positive_whole(digits)?.checked_mul(1u64 << shift)
}

/// What one number of an answer costs while the answer is encoded, counted in a [`Need`] for
/// outputs whose length comes from the input: its `serde_json::Value` (32 bytes) and its text
/// (at most 24).
pub const ANSWER_NUMBER_BYTES: usize = 56;

static CURRENT: RwLock<Limits> = RwLock::new(Limits::DEFAULT);

/// The caps of this process: [`Limits::DEFAULT`] unless [`set`] changed them.
pub fn current() -> Limits {
    *CURRENT.read().unwrap_or_else(|e| e.into_inner())
}

/// Sets the caps of this process (the binaries: [`Limits::from_env`] at start).
pub fn set(limits: Limits) {
    *CURRENT.write().unwrap_or_else(|e| e.into_inner()) = limits;
}

/// The memory an evaluation will allocate, added up buffer by buffer before anything is
/// allocated, with checked arithmetic, and refused once it passes the cap ([`Limits::bytes`]).
///
/// ```
/// use nilang_gradbench::limits::{Limits, Need};
/// let cap = Limits { bytes: 1000, ..Limits::DEFAULT };
/// let mut need = Need::with_limits("llsq", cap);
/// assert!(need.add("n", &[100], 8).is_ok());
/// assert_eq!(need.bytes(), 800);
/// let e = need.add("n", &[100], 8).unwrap_err();
/// assert!(e.starts_with("bad `llsq` input: `n` asks for 100 × 8 bytes"), "{e}");
/// assert!(e.contains("(1600 bytes in all), over the cap of 1000 bytes"), "{e}");
/// let e = Need::new("ode").add("s", &[usize::MAX, 5], 8).unwrap_err();
/// assert!(e.contains("(more than 2^64), over the cap"), "{e}");
/// ```
#[derive(Clone, Debug)]
pub struct Need {
    module: &'static str,
    bytes: u64,
    cap: u64,
}

impl Need {
    /// Nothing yet, against the process's cap ([`current`]).
    pub fn new(module: &'static str) -> Need {
        Need::with_limits(module, current())
    }

    /// Nothing yet, against the cap of `limits`.
    pub fn with_limits(module: &'static str, limits: Limits) -> Need {
        Need {
            module,
            bytes: 0,
            cap: limits.bytes,
        }
    }

    /// The bytes counted so far.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Adds a buffer of `size`-byte values, as many as the product of `counts` (the sizes the
    /// input's `field` gives it); an error naming `field` when the product overflows or the
    /// total passes the cap.
    pub fn add(&mut self, field: &str, counts: &[usize], size: usize) -> Result<(), String> {
        let product = counts
            .iter()
            .try_fold(size as u64, |p, &c| p.checked_mul(c as u64));
        let total = product.and_then(|p| p.checked_add(self.bytes));
        let asked = counts
            .iter()
            .filter(|&&c| c != 1)
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(" × ");
        let asked = if asked.is_empty() { "1".into() } else { asked };
        let cap = self.cap;
        let module = self.module;
        let refuse = |what: String| {
            Err(format!(
                "bad `{module}` input: `{field}` asks for {asked} × {size} bytes ({what}), over \
                 the cap of {cap} bytes ({MAX_BYTES_VAR} changes it)"
            ))
        };
        match total {
            None => refuse("more than 2^64".into()),
            Some(t) if t > cap => refuse(format!("{t} bytes in all")),
            Some(t) => {
                self.bytes = t;
                Ok(())
            }
        }
    }
}

/// The largest `--threads` of the binaries: 64 threads per core (`available_parallelism`),
/// and never more than 4096. Far more threads than cores make the pool slow to start and to
/// hand out work (on two cores, 2048 threads took 19 s to answer a first message).
///
/// ```
/// let max = nilang_gradbench::limits::max_threads();
/// assert!((64..=4096).contains(&max));
/// ```
pub fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    cores.saturating_mul(64).min(4096)
}

/// `threads` when it is a thread count the binaries accept (`1..=`[`max_threads`]); an error
/// saying the bound otherwise.
///
/// ```
/// use nilang_gradbench::limits::check_threads;
/// assert_eq!(check_threads(2), Ok(2));
/// assert!(check_threads(0).is_err());
/// assert!(check_threads(200_000).unwrap_err().contains("at most"));
/// ```
pub fn check_threads(threads: usize) -> Result<usize, String> {
    let max = max_threads();
    if threads == 0 || threads > max {
        return Err(format!(
            "`--threads` takes a positive number of at most {max} (64 per core, and never \
             more than 4096), not `{threads}`"
        ));
    }
    Ok(threads)
}
