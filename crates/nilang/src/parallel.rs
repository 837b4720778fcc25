//! What the parallel loop `for i in (a..b).par() { … }` runs on: contiguous chunks of the
//! iteration space on rayon's current pool, cells for places the iterations write at
//! disjoint elements, and the in-order combination of per-chunk partials.
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
//! much per loop (see [`DEFAULT_MIN_PARALLEL_WORK`]). The cells and the
//! gradient bookkeeping that generated loops call are hidden from these docs: they are no
//! public API and may change.
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

use core::cell::UnsafeCell;
use core::ops::Add;
use core::sync::atomic::{AtomicUsize, Ordering};
use num_traits::PrimInt;
use rayon::prelude::*;
use std::sync::OnceLock;

use crate::check::Site;

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

/// A slice whose elements the iterations of a parallel loop write, shared by all chunks:
/// each chunk reaches its elements through its own [`Window`], and the windows of different
/// chunks are disjoint, whatever the loop's index expressions compute.
///
/// Called by generated parallel loops (through `nilang::__private`); not a public API.
#[doc(hidden)]
pub struct Cells<'a, E>(&'a [UnsafeCell<E>]);

// SAFETY: `Cells` gives access to its elements only through `Cells::window`, whose contract
// (checked where generated code calls it) makes the windows alive on different threads
// disjoint, so no element is reached from two threads; sending `&mut E` across threads needs
// `E: Send`.
unsafe impl<E: Send> Sync for Cells<'_, E> {}
// SAFETY: as above.
unsafe impl<E: Send> Send for Cells<'_, E> {}

impl<'a, E> Cells<'a, E> {
    /// The cells of a slice borrowed for the whole loop.
    pub fn new(s: &'a mut [E]) -> Self {
        let len = s.len();
        let ptr = s.as_mut_ptr() as *mut UnsafeCell<E>;
        // SAFETY: `UnsafeCell<E>` has the layout of `E`, and the exclusive borrow of `s`
        // lasts as long as the cells.
        Cells(unsafe { core::slice::from_raw_parts(ptr, len) })
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The elements `slots` (clamped to the slice) of one chunk of iterations.
    ///
    /// # Safety
    /// No window overlapping this one is used on another thread while this one is alive.
    /// Generated loops give every chunk `[lo, hi)` of the iterations the window
    /// [`slots`]`(lo, hi, stride, shift)` with one `stride` and `shift` for all chunks,
    /// evaluated once before the loop: chunks are disjoint ([`chunks`]), so their windows are.
    #[inline(always)]
    pub unsafe fn window(&self, slots: core::ops::Range<usize>) -> Window<'_, E> {
        let len = self.0.len();
        let (lo, hi) = (slots.start.min(len), slots.end.min(len));
        Window {
            cells: self.0,
            lo,
            hi: hi.max(lo),
        }
    }
}

/// The elements `[s*lo + b, s*hi + b)` that the iterations `[lo, hi)` of a parallel loop own
/// at stride `s` and shift `b` (`y[s*i + o]` with `o` in `0..s`: `b` is 0; `y[i + b]`: `s` is
/// 1); an overflow or a negative bound fails with a message.
///
/// Called by generated parallel loops (through `nilang::__private`); not a public API.
#[doc(hidden)]
#[inline(always)]
pub fn slots<I: PrimInt>(lo: I, hi: I, stride: usize, shift: usize) -> core::ops::Range<usize> {
    let at = |k: I| {
        k.to_usize()
            .and_then(|k| k.checked_mul(stride))
            .and_then(|k| k.checked_add(shift))
    };
    match (at(lo), at(hi)) {
        (Some(a), Some(b)) => a..b,
        _ => slots_overflow(),
    }
}

#[cold]
#[inline(never)]
fn slots_overflow() -> ! {
    panic!(
        "a parallel loop's owned slots do not fit in `usize` (its stride times its iterations \
         overflows, or the loop variable is negative)"
    )
}

/// The elements one chunk of a parallel loop may reach in a place its iterations own
/// ([`Cells::window`]): every access outside it fails with a message, so no iteration of
/// another chunk can be reached, whatever an index expression computes.
///
/// Called by generated parallel loops (through `nilang::__private`); not a public API.
#[doc(hidden)]
pub struct Window<'c, E> {
    cells: &'c [UnsafeCell<E>],
    lo: usize,
    hi: usize,
}

impl<'c, E> Window<'c, E> {
    /// The length of the whole place (what `y.len()` reads in the loop's body).
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Whether the whole place is empty.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The elements this window may reach.
    #[inline(always)]
    pub fn bounds(&self) -> core::ops::Range<usize> {
        self.lo..self.hi
    }

    #[inline(always)]
    fn cell(&self, k: usize) -> &'c UnsafeCell<E> {
        if k < self.lo || k >= self.hi {
            outside_window(k, self.lo, self.hi, self.cells.len());
        }
        &self.cells[k]
    }

    /// Element `k` (in the window, else a panic).
    ///
    /// # Safety
    /// No other reference to element `k` (from `at`, `at_unchecked`, `range` or indexing) is
    /// alive while the result is: generated code uses each result within one statement, and
    /// hands places that share a root to one call through temporaries.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn at(&self, k: usize) -> &'c mut E {
        // SAFETY: `k` is in this window (`cell`), which no other thread reaches
        // (`Cells::window`); no other reference to it is alive (the caller's contract).
        unsafe { &mut *self.cell(k).get() }
    }

    /// Element `k`, without the window check.
    ///
    /// # Safety
    /// As [`Window::at`], and `k` lies in [`Window::bounds`]: generated code calls it only for
    /// an index that `check_hoisted_index` checked against those bounds before the chunk's loop
    /// (`nilang::__private::hoist`).
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn at_unchecked(&self, k: usize) -> &'c mut E {
        // SAFETY: the caller's contract: `lo <= k < hi <= len`.
        unsafe { &mut *self.cells.get_unchecked(k).get() }
    }

    /// The elements in `r` (in the window, else a panic).
    ///
    /// # Safety
    /// As [`Window::at`], for every element of `r`.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn range(&self, r: core::ops::Range<usize>) -> &'c mut [E] {
        if r.start > r.end || r.start < self.lo || r.end > self.hi {
            outside_window_range(r.clone(), self.lo, self.hi, self.cells.len());
        }
        let s = &self.cells[r];
        // SAFETY: the elements are in this window (checked just above), which no other thread
        // reaches; no other reference to them is alive (the caller's contract); `UnsafeCell<E>`
        // has the layout of `E`.
        unsafe { core::slice::from_raw_parts_mut(UnsafeCell::raw_get(s.as_ptr()), s.len()) }
    }
}

#[cold]
#[inline(never)]
fn outside_window(k: usize, lo: usize, hi: usize, len: usize) -> ! {
    if k >= len {
        panic!("index out of bounds: the len is {len} but the index is {k}");
    }
    panic!(
        "a parallel loop reached element {k} of a place its iterations own, outside the \
         elements {lo}..{hi} of this chunk of iterations: its index expressions do not compute \
         the slots the compile-time check saw"
    )
}

#[cold]
#[inline(never)]
fn outside_window_range(r: core::ops::Range<usize>, lo: usize, hi: usize, len: usize) -> ! {
    if r.start > r.end || r.end > len {
        panic!("range {r:?} out of bounds for a place of length {len}");
    }
    outside_window(if r.start < lo { r.start } else { r.end - 1 }, lo, hi, len)
}

/// Reads element `k` (what `expand!`'s `(y[i]).zero_like()` does inside a parallel loop).
impl<E> core::ops::Index<usize> for Window<'_, E> {
    type Output = E;
    fn index(&self, k: usize) -> &E {
        // SAFETY: `k` is in this window (`cell`), which no other thread reaches; generated
        // code reads an element only while no `&mut` to it (from `at`/`range`) is alive.
        unsafe { &*self.cell(k).get() }
    }
}

/// Reads the elements in a range (`&y[k*i..k*(i+1)]` in an expression of a parallel loop).
impl<E> core::ops::Index<core::ops::Range<usize>> for Window<'_, E> {
    type Output = [E];
    fn index(&self, r: core::ops::Range<usize>) -> &[E] {
        if r.start > r.end || r.start < self.lo || r.end > self.hi {
            outside_window_range(r.clone(), self.lo, self.hi, self.cells.len());
        }
        let s = &self.cells[r];
        // SAFETY: the elements are in this window (checked just above), which no other thread
        // reaches; generated code reads them only while no `&mut` to them is alive;
        // `UnsafeCell<E>` has the layout of `E`.
        unsafe { core::slice::from_raw_parts(s.as_ptr() as *const E, s.len()) }
    }
}

/// Checks before a parallel loop that an owned slot `y[s*i + lo]` (or the sub-slice
/// `y[s*i + lo .. s*i + hi]`) lies in `y[s*i .. s*(i+1)]`: `0 ≤ lo < s` (`0 ≤ lo ≤ hi ≤ s`),
/// so that different iterations touch different elements.
///
/// Called by generated parallel loops (through `nilang::__private`); not a public API.
#[doc(hidden)]
pub fn check_slot<I: PrimInt + core::fmt::Debug>(
    lo: I,
    hi: Option<I>,
    stride: I,
    site: &Site,
    text: &'static str,
) {
    let ok = match hi {
        None => I::zero() <= lo && lo < stride,
        Some(hi) => I::zero() <= lo && lo <= hi && hi <= stride,
    };
    if !ok {
        let offsets = match hi {
            None => format!("offset {lo:?}"),
            Some(hi) => format!("offsets {lo:?}..{hi:?}"),
        };
        panic!(
            "in `{}`, statement `{}`: the parallel loop's access `{text}` has stride {stride:?} \
             and {offsets}, which do not lie in 0..stride: iterations could write the same \
             element",
            site.function, site.statement
        );
    }
}

/// A zero gradient for every element of a slice (a chunk's own gradient of a place all
/// iterations read).
///
/// Called by generated parallel loops (through `nilang::__private`); not a public API.
#[doc(hidden)]
pub fn zero_grads<X: crate::__private::Shadow<L>, L>(x: &[X]) -> Vec<X::Grad> {
    x.iter().map(|v| v.zero_grad()).collect()
}

/// Adds the chunks' gradients (`parts`, in chunk order) into the real shadow `to`: each
/// element adds them in chunk order, which gives the bits of adding one chunk after another.
/// The elements are split across the current pool's threads ([`chunks`]) when the shadow is
/// long enough ([`worth_splitting`], a chunk's add one unit of work), since a shadow as large
/// as gmm's `L` (200 000 values at d = 64, k = 100, one copy per chunk) would otherwise be
/// summed by one thread after the loop.
///
/// Called by generated parallel loops (through `nilang::__private`); not a public API.
///
/// ```
/// use nilang::parallel::add_grads;
/// let mut to = vec![1.0, 2.0];
/// add_grads(&mut to, &[vec![0.5, 0.25], vec![0.125, -2.0]]);
/// assert_eq!(to, vec![1.625, 0.25]);
/// ```
#[doc(hidden)]
pub fn add_grads<G: Copy + Add<Output = G> + Send + Sync>(to: &mut [G], parts: &[Vec<G>]) {
    let add = |first: usize, piece: &mut [G]| {
        for (k, t) in piece.iter_mut().enumerate() {
            for part in parts {
                *t = *t + part[first + k];
            }
        }
    };
    if !worth_splitting(0, to.len(), false, parts.len()) {
        return add(0, to);
    }
    let mut pieces = Vec::new();
    let mut rest = to;
    for (lo, hi) in chunks(0, rest.len(), false) {
        let (piece, tail) = rest.split_at_mut(hi - lo);
        pieces.push((lo, piece));
        rest = tail;
    }
    pieces
        .into_par_iter()
        .for_each(|(lo, piece)| add(lo, piece));
}

/// Adds a chunk's gradient into the real shadow.
///
/// Called by generated parallel loops (through `nilang::__private`); not a public API.
#[doc(hidden)]
pub fn add_grad<G: Copy + Add<Output = G>>(to: &mut G, from: G) {
    *to = *to + from;
}

/// A chunk's own copy of a place that the loop's iterations hand to calls which take it
/// `&mut` without writing it (`g(mu[c*d..(c+1)*d])`): `&mut` borrows cannot be shared between
/// threads, so each chunk hands out borrows of its copy.
///
/// Called by generated parallel loops (through `nilang::__private`); not a public API.
#[doc(hidden)]
pub fn own_copy<X: ToOwned + ?Sized>(x: &X) -> X::Owned {
    x.to_owned()
}

/// The copy made by [`own_copy`] borrowed as the original's type (`&mut [T]` for a slice's
/// `Vec<T>`); `like` only names that type.
///
/// Called by generated parallel loops (through `nilang::__private`); not a public API.
#[doc(hidden)]
pub fn reborrow_like<'a, X>(like: &X, own: &'a mut X::Owned) -> &'a mut X
where
    X: ToOwned + ?Sized,
    X::Owned: core::borrow::BorrowMut<X>,
{
    let _ = like;
    core::borrow::BorrowMut::borrow_mut(own)
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

    fn panic_message(f: impl FnOnce()) -> String {
        let e = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_err();
        match e.downcast_ref::<&str>() {
            Some(s) => s.to_string(),
            None => e.downcast_ref::<String>().cloned().unwrap_or_default(),
        }
    }

    /// Every way into a window stays inside it: an element or a range outside fails with a
    /// message, past the slice as an ordinary bounds error.
    #[test]
    fn a_window_reaches_its_own_elements_only() {
        let mut v: Vec<f64> = (0..10).map(f64::from).collect();
        let cells = Cells::new(&mut v);
        // SAFETY: one window, on this thread only.
        let w = unsafe { cells.window(slots(1usize, 3, 2, 1)) };
        assert_eq!(w.bounds(), 3..7);
        assert_eq!(w.len(), 10);
        // SAFETY: no other reference to elements 3 and 4..6 is alive.
        unsafe { *w.at(3) += 0.5 };
        assert_eq!(unsafe { &*w.range(4..6) }, &[4.0, 5.0]);
        assert_eq!((w[3], &w[5..7]), (3.5, &[5.0, 6.0][..]));
        // SAFETY (each): the accesses fail before any reference is made.
        let outside = panic_message(|| unsafe {
            w.at(7);
        });
        assert!(
            outside.contains("element 7") && outside.contains("3..7"),
            "{outside}"
        );
        // SAFETY: the access fails before any reference is made.
        let below = panic_message(|| unsafe {
            w.range(2..4);
        });
        assert!(below.contains("element 2"), "{below}");
        assert!(panic_message(|| {
            let _read = w[9];
        })
        .contains("outside the elements 3..7"));
        let past = panic_message(|| {
            let _read = w[12];
        });
        assert!(past.contains("the len is 10 but the index is 12"), "{past}");
        // a window past the slice is clamped to it
        // SAFETY: as above.
        let end = unsafe { cells.window(slots(4usize, 9, 2, 0)) };
        assert_eq!(end.bounds(), 8..10);
    }

    #[test]
    fn slots_overflowing_usize_fail_with_a_message() {
        let m = panic_message(|| drop(slots(0usize, usize::MAX, 2, 0)));
        assert!(m.contains("do not fit in `usize`"), "{m}");
        let m = panic_message(|| drop(slots(-3i64, 2, 1, 0)));
        assert!(m.contains("negative"), "{m}");
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
