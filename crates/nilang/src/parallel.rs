//! What the parallel loop `for i in (a..b).par() { … }` runs on: contiguous chunks of the
//! iteration space, run on rayon's current pool with their results in chunk order, and
//! whether a loop is worth splitting at all.
//!
//! Determinism: the chunks depend only on the range and [`rayon::current_num_threads`] (the
//! global pool, sized by `RAYON_NUM_THREADS`, or the pool a caller `install`s), and every
//! per-chunk partial (reduction sums, gradients of shared reads) is combined in chunk order
//! after the loop, so a program gives the same bits on every run with the same thread count.
//!
//! Users call [`set_min_parallel_work`] or set `NILANG_MIN_PARALLEL_WORK` (when loops should
//! split) and, for hand-written chunked code beside the reversible programs,
//! [`worth_splitting`], [`chunks`] and [`run`] (the same rule, chunks and error propagation as
//! the generated loops).
//!
//! Run a program with parallel loops inside its pool (`pool.install(|| …)`, or from a task
//! already on the pool) rather than from a thread outside it: a loop entered from outside
//! hands its work to the pool and sleeps until it is done, which costs about four times as
//! much per loop (see [`DEFAULT_MIN_PARALLEL_WORK`]). The cells for places the iterations
//! write at disjoint elements and the in-order combination of per-chunk partials, which only
//! generated loops call, are in `nilang::__private::par`: no public API, they may change.
//!
//! ```
//! use nilang::parallel::set_min_parallel_work;
//! use nilang::{i, Real};
//!
//! #[i]
//! fn sum_of_squares<T: Real>(s: &mut T, x: &mut [T]) {
//!     for k in (0..x.len()).par() {
//!         s += square(x[k]);
//!     }
//! }
//! set_min_parallel_work(1); // split even this short loop
//! let x: Vec<f64> = (0..1000).map(|k| (k as f64).sin()).collect();
//! let on = |threads| {
//!     let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
//!     pool.install(|| {
//!         let mut s = 0.0;
//!         sum_of_squares(&mut s, &mut x.clone());
//!         s
//!     })
//! };
//! assert_eq!(on(2).to_bits(), on(2).to_bits()); // the same bits on every run
//! assert!((on(2) - on(1)).abs() < 1e-12); // and the sequential sum, to round-off
//! ```

use core::sync::atomic::{AtomicUsize, Ordering};
use num_traits::PrimInt;
use rayon::prelude::*;
use std::sync::OnceLock;

/// Whether parallel loops run in chunks: the current rayon pool has more than one thread.
/// On one thread they run as sequential loops, bit for bit the program without `.par()`.
///
/// ```
/// let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// assert!(!one.install(nilang::parallel::several_threads));
/// ```
pub fn several_threads() -> bool {
    rayon::current_num_threads() > 1
}

/// The default of [`min_parallel_work`]: about 0.2 ms of one core's work. On a pool of
/// several threads, 200 000 iterations of a short body split and 199 999 do not; 1 000
/// iterations of weight 200 (`(0..1000).par().weight(200)`) split too.
///
/// Measured on a 2-core virtual machine (docs/benchmarks.md, "What a parallel loop costs"):
/// an empty parallel loop whose threads have gone to sleep costs about 20 µs more than the
/// sequential loop when it is entered from a thread of the pool (inside
/// [`rayon::ThreadPool::install`]), and about 90 µs when entered from another thread, which
/// must hand the work to the pool and be woken at the end. In the GradBench programs a loop
/// split in two cost about 50 µs more than half its time (the second core's caches are cold),
/// so at 0.1 ms two threads tied with one and at 0.2 ms they are about 1.3× faster.
///
/// ```
/// use nilang::parallel::{worth_splitting, DEFAULT_MIN_PARALLEL_WORK as WORK};
///
/// let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let split = |n: usize, weight: usize| two.install(|| worth_splitting(0, n, false, weight));
/// assert!(split(WORK, 1) && !split(WORK - 1, 1));
/// assert!(split(1000, 200)); // a thousand heavier iterations
/// ```
pub const DEFAULT_MIN_PARALLEL_WORK: usize = 200_000;

/// The environment variable that sets [`min_parallel_work`] for a process (a whole number of
/// units, read at the first parallel loop), as `RAYON_NUM_THREADS` sets the thread count.
///
/// ```sh
/// NILANG_MIN_PARALLEL_WORK=50000 cargo run --release   # split loops from about 50 µs
/// ```
///
/// ```
/// assert_eq!(nilang::parallel::MIN_PARALLEL_WORK_VAR, "NILANG_MIN_PARALLEL_WORK");
/// ```
pub const MIN_PARALLEL_WORK_VAR: &str = "NILANG_MIN_PARALLEL_WORK";

static MIN_WORK: OnceLock<AtomicUsize> = OnceLock::new();

/// The work that the environment variable [`MIN_PARALLEL_WORK_VAR`] sets: `None` when it is
/// not set, an error that names it when it is not a whole number. Binaries call it at start to
/// refuse a bad value with that message; otherwise the first parallel loop panics with it.
///
/// ```
/// use nilang::parallel::min_parallel_work_from_env;
/// if std::env::var_os(nilang::parallel::MIN_PARALLEL_WORK_VAR).is_none() {
///     assert_eq!(min_parallel_work_from_env(), Ok(None));
/// }
/// ```
pub fn min_parallel_work_from_env() -> Result<Option<usize>, String> {
    let Some(text) = std::env::var_os(MIN_PARALLEL_WORK_VAR) else {
        return Ok(None);
    };
    let text = text.to_string_lossy();
    text.trim().parse().map(Some).map_err(|_| {
        format!(
            "{MIN_PARALLEL_WORK_VAR} must be a whole number of work units (about a nanosecond \
             each), not `{text}`"
        )
    })
}

/// The cell of [`min_parallel_work`], made at first use from [`MIN_PARALLEL_WORK_VAR`] or the
/// default.
fn min_work() -> &'static AtomicUsize {
    MIN_WORK.get_or_init(|| {
        let work = min_parallel_work_from_env().unwrap_or_else(|e| panic!("{e}"));
        AtomicUsize::new(work.unwrap_or(DEFAULT_MIN_PARALLEL_WORK))
    })
}

/// The least work a parallel loop splits into chunks: [`DEFAULT_MIN_PARALLEL_WORK`] unless
/// the environment variable [`MIN_PARALLEL_WORK_VAR`] or [`set_min_parallel_work`] says
/// otherwise. A loop's work is its iteration count times its weight
/// (`(a..b).par().weight(w)`, `1` when not stated), in units of about a nanosecond of one
/// core's time: a short body of a few floating-point operations is `1`; a heavier iteration
/// states its own (gmm's blocks of points, a BA observation's adjoint sweep at 115). Loops with
/// less work run as the sequential loop (bit for bit), since waking a pool's threads costs
/// more than a loop of a few microseconds saves.
///
/// ```
/// use nilang::parallel::{min_parallel_work, DEFAULT_MIN_PARALLEL_WORK};
/// if std::env::var_os(nilang::parallel::MIN_PARALLEL_WORK_VAR).is_none() {
///     assert_eq!(min_parallel_work(), DEFAULT_MIN_PARALLEL_WORK);
/// }
/// ```
pub fn min_parallel_work() -> usize {
    min_work().load(Ordering::Relaxed)
}

/// Sets [`min_parallel_work`] for the whole process (tests use 1, so that short loops
/// exercise the chunked code).
///
/// ```
/// use nilang::parallel::{min_parallel_work, set_min_parallel_work};
/// use nilang::{i, Real};
///
/// #[i]
/// fn double_each<T: Real>(y: &mut [T], x: &mut [T]) {
///     for k in (0..x.len()).par() {
///         y[k] += 2.0 * x[k];
///     }
/// }
/// set_min_parallel_work(1); // split even a short loop across rayon's threads
/// assert_eq!(min_parallel_work(), 1);
/// let (mut y, mut x) = (vec![0.0; 8], (0..8).map(f64::from).collect::<Vec<_>>());
/// double_each(&mut y, &mut x);
/// assert_eq!(y[7], 14.0);
/// ```
pub fn set_min_parallel_work(n: usize) {
    min_work().store(n, Ordering::Relaxed);
}

/// Whether a parallel loop over `start..end` (`start..=end` when `inclusive`) whose
/// iterations each do `weight` units of work is split into chunks: when the current pool has
/// [`several_threads`], at least two iterations, and the iterations times `weight` reach
/// [`min_parallel_work`]; otherwise the sequential loop runs. The one rule for generated loops
/// and for hand-written chunked code alike.
///
/// A range that [`chunks`] cannot cut is never split, and runs as the sequential loop: an
/// inclusive range up to its type's maximum (`0u8..=255`: the end of its last chunk, 256, is
/// no `u8`), and bounds beyond `i128` (`u128` above `i128::MAX`).
///
/// ```
/// use nilang::parallel::worth_splitting;
///
/// // 10 short iterations are less work than the default threshold: the loop runs sequentially
/// assert!(!worth_splitting(0usize, 10, false, 1));
/// // up to the type's maximum: the sequential loop, however much work
/// assert!(!worth_splitting(0u8, u8::MAX, true, usize::MAX));
/// ```
#[inline]
pub fn worth_splitting<I: PrimInt>(start: I, end: I, inclusive: bool, weight: usize) -> bool {
    if !several_threads() || !chunkable(end, inclusive) {
        return false;
    }
    let (Some(s), Some(e)) = (start.to_i128(), end.to_i128()) else {
        return false;
    };
    let n = if inclusive { e + 1 - s } else { e - s };
    n >= 2 && n.saturating_mul(weight as i128) >= min_parallel_work() as i128
}

/// How many chunks a parallel loop makes per thread of the pool (with more than one thread):
/// a thread slowed by other work on the machine then takes fewer of them, while the
/// boundaries still depend only on the range and the thread count.
///
/// ```
/// use nilang::parallel::{chunks, CHUNKS_PER_THREAD};
///
/// let three = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
/// assert_eq!(three.install(|| chunks(0usize, 1000, false)).len(), 3 * CHUNKS_PER_THREAD);
/// ```
pub const CHUNKS_PER_THREAD: usize = 4;

/// The chunks `[lo, hi)` of the iterations `start..end` (`start..=end` when `inclusive`), in
/// iteration order, of sizes that differ by at most one: one chunk on a one-thread pool (the
/// sequential loop's order; generated loops then run the sequential loop itself, see
/// [`worth_splitting`]), else [`CHUNKS_PER_THREAD`] per thread of the current rayon pool
/// (fewer for short ranges: at least one iteration each).
///
/// ```
/// use nilang::parallel::chunks;
///
/// let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// // 10 iterations in 2 × 4 chunks of 1 or 2, in order, covering the range once
/// let c = two.install(|| chunks(0usize, 10, false));
/// assert_eq!(c, [(0, 1), (1, 2), (2, 3), (3, 5), (5, 6), (6, 7), (7, 8), (8, 10)]);
/// let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// assert_eq!(one.install(|| chunks(1i64, 10, true)), [(1, 11)]); // 1..=10, one chunk
/// ```
///
/// # Panics
///
/// For a range [`worth_splitting`] never splits: an inclusive range up to its type's maximum
/// (`chunks(0u8, 255, true)`: the last chunk would end at 256), and bounds beyond `i128`.
pub fn chunks<I: PrimInt>(start: I, end: I, inclusive: bool) -> Vec<(I, I)> {
    assert!(
        chunkable(end, inclusive),
        "nilang::parallel::chunks: the range ends at its type's maximum ({}..={}), so the end \
         of its last chunk is no value of the type: `worth_splitting` is false for it, run \
         it as a sequential loop",
        start
            .to_i128()
            .map_or_else(|| "?".to_string(), |v| v.to_string()),
        end.to_i128()
            .map_or_else(|| "?".to_string(), |v| v.to_string()),
    );
    let (s, e) = (
        start.to_i128().expect("a loop bound fits in i128"),
        end.to_i128().expect("a loop bound fits in i128"),
    );
    let e = if inclusive { e + 1 } else { e };
    let n = (e - s).max(0);
    if n == 0 {
        return Vec::new();
    }
    let threads = rayon::current_num_threads();
    let per_pool = if threads <= 1 {
        1
    } else {
        threads * CHUNKS_PER_THREAD
    };
    let k = (per_pool as i128).clamp(1, n);
    let at = |c: i128| I::from(s + n * c / k).expect("a chunk bound lies in the loop's range");
    (0..k).map(|c| (at(c), at(c + 1))).collect()
}

/// Whether [`chunks`] can cut a range ending at `end`: its chunks' ends `[lo, hi)` are values
/// of the range's type, so an inclusive range up to the type's maximum cannot be cut.
#[inline]
fn chunkable<I: PrimInt>(end: I, inclusive: bool) -> bool {
    !(inclusive && end == I::max_value())
}

/// Runs `f` on every chunk, in parallel on the current rayon pool; the results in chunk order.
///
/// The checks in the chunks see the caller's check state (its [`crate::with_tolerance`], its
/// [`crate::catch`]); when chunks fail, the first failing chunk in chunk order decides the
/// panic that reaches the caller, with its [`crate::ReversibilityError`] recorded on the
/// caller's thread, so that `catch` around a parallel loop returns it as a value.
///
/// With [`worth_splitting`] and [`chunks`] it gives hand-written code the generated loops'
/// guarantees: a sum over chunks, combined in chunk order, has the same bits on every run.
///
/// ```
/// use nilang::parallel::{chunks, run, worth_splitting};
///
/// let x: Vec<f64> = (0..10_000).map(|k| (k as f64).sin()).collect();
/// let sum = || {
///     if !worth_splitting(0, x.len(), false, 1) {
///         return x.iter().sum::<f64>();
///     }
///     let parts = run(&chunks(0, x.len(), false), |lo, hi| x[lo..hi].iter().sum::<f64>());
///     parts.iter().sum::<f64>()
/// };
/// let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let (first, second) = (two.install(sum), two.install(sum));
/// assert_eq!(first.to_bits(), second.to_bits());
/// assert!((first - x.iter().sum::<f64>()).abs() < 1e-10);
/// ```
pub fn run<I, R, F>(chunks: &[(I, I)], f: F) -> Vec<R>
where
    I: Copy + Send + Sync,
    R: Send,
    F: Fn(I, I) -> R + Send + Sync,
{
    if chunks.len() <= 1 {
        return chunks.iter().map(|&(lo, hi)| f(lo, hi)).collect();
    }
    type Failure = (
        Box<dyn core::any::Any + Send>,
        Option<crate::ReversibilityError>,
    );
    let state = crate::check::thread_checks();
    let results: Vec<Result<R, Failure>> = chunks
        .par_iter()
        .map(|&(lo, hi)| {
            crate::check::with_thread_checks(&state, || {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(lo, hi)))
                    .map_err(|payload| (payload, crate::check::take_last_error()))
            })
        })
        .collect();
    let mut out = Vec::with_capacity(results.len());
    for r in results {
        match r {
            Ok(v) => out.push(v),
            Err((payload, err)) => {
                if let Some(err) = err {
                    crate::check::set_last_error(err);
                }
                std::panic::resume_unwind(payload)
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(n: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .expect("a thread pool")
    }

    /// A loop splits when its iterations times its weight reach `min_parallel_work`, and
    /// never on one thread.
    #[test]
    fn the_weight_scales_the_work() {
        assert_eq!(
            min_parallel_work(),
            DEFAULT_MIN_PARALLEL_WORK,
            "run the unit tests without {MIN_PARALLEL_WORK_VAR} set"
        );
        pool(2).install(|| {
            assert!(!worth_splitting(0, 10, false, 1));
            assert!(worth_splitting(0, 10, false, 20_000));
            assert!(!worth_splitting(0, 10, false, 19_999));
            assert!(worth_splitting(0, 200_000, false, 1));
            assert!(!worth_splitting(0, 199_999, false, 1));
            assert!(worth_splitting(0usize, 1, true, 100_000));
            assert!(!worth_splitting(5, 5, false, usize::MAX));
            assert!(!worth_splitting(5, 6, false, usize::MAX), "one iteration");
        });
        pool(1).install(|| assert!(!worth_splitting(0, 1 << 20, false, 1 << 20)));
    }
}
