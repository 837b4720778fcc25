//! Timing: every variant of a comparison warmed up first, then timed in interleaved rounds
//! (A B C, A B C, …), so that a ratio is never between a cold and a warm number, nor between
//! numbers taken under different load of a shared machine.
//!
//! A [`Group`] holds the variants being compared (a native objective, a gradient, peers). Its
//! [`Group::run`]:
//!
//! 1. *warms up every variant before timing any*: one call counted by the allocation counter
//!    (heap allocations and peak bytes of one call), then batches of doubling size until one
//!    batch lasts at least [`Budget::sample_time`]; that batch size is the variant's;
//! 2. *times interleaved rounds*: each round times one batch of each variant, in the group's
//!    order ([`schedule`]); a sample is the batch's time divided by its size, timed by the CPU
//!    clock of the thread where there is one (see [`Clock`] for why not wall time);
//! 3. reports per variant the median over rounds ([`Timing`]), and per ratio the median and
//!    quartiles of the per-round ratios ([`Results::ratio`]).
//!
//! Ratios come from *per-round* ratios rather than from the ratio of the two medians: the two
//! samples of a round are taken close together in time (at most one batch of each other
//! variant between them), so a slow phase of the shared machine (another build starting, a
//! frequency change) slows numerator and denominator alike and cancels in their quotient,
//! while two medians can come from different phases. The spread of the per-round ratios
//! (interquartile range) is then the ratio's own noise, and a verdict against a target is only
//! given when the whole range lies on one side of it ([`Verdict`]).

use std::time::Duration;

/// How long and how often to measure.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Interleaved rounds (each times every variant once).
    pub rounds: usize,
    /// Rounds when one call of some variant of the group lasts longer than
    /// [`Budget::slow_call`] (so that the full run of the largest inputs stays short).
    pub slow_rounds: usize,
    /// What counts as a slow call.
    pub slow_call: Duration,
    /// Minimum duration of one sample (calls are batched to reach it).
    pub sample_time: Duration,
}

impl Budget {
    /// The `--quick` budget (CI smoke test).
    pub fn quick() -> Budget {
        Budget {
            rounds: 15,
            slow_rounds: 5,
            slow_call: Duration::from_millis(250),
            sample_time: Duration::from_millis(2),
        }
    }
    /// The full budget.
    pub fn full() -> Budget {
        Budget {
            rounds: 21,
            slow_rounds: 5,
            slow_call: Duration::from_millis(250),
            sample_time: Duration::from_millis(10),
        }
    }
}

/// A measured operation: median seconds per call, and heap use of one call.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// Median time per call in seconds.
    pub seconds: f64,
    /// Heap allocations in one call.
    pub allocations: usize,
    /// Peak live heap bytes during one call.
    pub peak_bytes: usize,
}

/// The clock of the samples: CPU time of the calling thread on Linux, wall time elsewhere.
///
/// On a shared machine with more runnable threads than cores, wall time also counts the time
/// this process waits for a core, and how much of that a sample catches depends on its length:
/// a 2 ms batch often runs within one time slice, a 20 ms one never does, so wall-time ratios
/// between a short and a long variant swing with the load. Three `--quick` runs at a load
/// average of 7–8 on 2 cores gave the BA Jacobian ÷ objective ratio as 5.94, 19.70 and 16.01 by
/// wall time, and 8.66, 8.72 and 8.67 by CPU time (interquartile ranges 5.2–26.5 against
/// 8.5–8.9). CPU time leaves the waiting out; what remains of the load (shared caches, a busy
/// sibling hyperthread) slows the variants of one round alike and cancels in per-round
/// ratios. Every variant measured here runs on the calling thread (a variant that started
/// threads would need another clock), so its CPU time is its run time on a core of its own.
///
/// With `nilang bench --threads N` for `N > 1` the programs' parallel loops run on a pool of
/// `N` threads, whose work the calling thread's CPU clock would not count: then the clock is
/// wall time ([`use_wall_clock`]), with the waiting it counts on a loaded machine.
#[derive(Clone, Copy)]
struct Clock {
    start: f64,
}

/// Whether [`Clock`] is wall time (see [`use_wall_clock`]).
static WALL_CLOCK: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Times samples by wall time (`true`: the variants run on several threads) or by the calling
/// thread's CPU time where there is one (`false`, the default).
pub fn use_wall_clock(wall: bool) {
    WALL_CLOCK.store(wall, std::sync::atomic::Ordering::Relaxed);
}

/// Whether samples are timed by wall time.
pub fn wall_clock() -> bool {
    WALL_CLOCK.load(std::sync::atomic::Ordering::Relaxed) || !cfg!(target_os = "linux")
}

#[cfg(target_os = "linux")]
mod cpu_clock {
    /// `struct timespec` (`time_t` and `long` are both the width of a pointer on Linux).
    #[repr(C)]
    struct Timespec {
        tv_sec: isize,
        tv_nsec: isize,
    }
    extern "C" {
        fn clock_gettime(clock: i32, out: *mut Timespec) -> i32;
    }
    /// `CLOCK_THREAD_CPUTIME_ID` of Linux.
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;

    /// CPU seconds used by the calling thread so far.
    pub fn seconds() -> f64 {
        let mut t = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `t` is a `struct timespec` the call writes into; the clock id is valid.
        let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut t) };
        assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
        t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
    }
}

/// Seconds on the chosen clock since some fixed moment.
fn seconds() -> f64 {
    #[cfg(target_os = "linux")]
    if !wall_clock() {
        return cpu_clock::seconds();
    }
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs_f64()
}

impl Clock {
    fn now() -> Clock {
        Clock { start: seconds() }
    }

    /// Seconds since [`Clock::now`].
    fn elapsed(&self) -> f64 {
        seconds() - self.start
    }
}

/// Index of a variant in its [`Group`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Id(usize);

/// Something timed: a batch of `n` calls, or one call with its heap use counted.
trait Timed {
    /// Seconds taken by `n` calls.
    fn batch(&mut self, n: u64) -> f64;
    /// Heap allocations and peak live bytes of one call.
    fn count(&mut self) -> (usize, usize);
}

struct Closure<F>(F);

impl<R, F: FnMut() -> R> Timed for Closure<F> {
    fn batch(&mut self, n: u64) -> f64 {
        // The loop is compiled per closure (no dynamic call per iteration).
        let t = Clock::now();
        for _ in 0..n {
            std::hint::black_box((self.0)());
        }
        t.elapsed()
    }
    fn count(&mut self) -> (usize, usize) {
        // a pooled tape would reuse the buffer an earlier call grew and hide its size
        nilang::stack::release_pooled_tapes();
        let ((), allocations, _, peak) = crate::alloc::count(|| {
            std::hint::black_box((self.0)());
        });
        (allocations, peak)
    }
}

/// The variants of one comparison, measured together by [`Group::run`].
#[derive(Default)]
pub struct Group<'a> {
    variants: Vec<(String, Box<dyn Timed + 'a>)>,
}

impl<'a> Group<'a> {
    /// An empty group.
    pub fn new() -> Group<'a> {
        Group::default()
    }

    /// Adds a variant; its result is read back with the returned id.
    pub fn add<R>(&mut self, label: &str, f: impl FnMut() -> R + 'a) -> Id {
        self.variants
            .push((label.to_string(), Box::new(Closure(f))));
        Id(self.variants.len() - 1)
    }

    /// Number of variants.
    pub fn len(&self) -> usize {
        self.variants.len()
    }

    /// Warms up every variant, then times them in interleaved rounds (see the module doc).
    /// `progress` is told the label of each variant before it is run.
    pub fn run(mut self, budget: Budget, mut progress: impl FnMut(&str)) -> Results {
        let n = self.variants.len();
        // 1. warm-up of every variant: a counted call, then batches doubling up to the sample time
        let mut heap = Vec::with_capacity(n);
        let mut batches = Vec::with_capacity(n);
        let mut slowest_call: f64 = 0.0;
        for (label, v) in &mut self.variants {
            progress(&format!("{label} (warm-up)"));
            heap.push(v.count());
            let mut batch = 1u64;
            loop {
                let t = v.batch(batch);
                if batch == 1 {
                    slowest_call = slowest_call.max(t);
                }
                if t >= budget.sample_time.as_secs_f64() || batch >= 1 << 30 {
                    break;
                }
                batch *= 2;
            }
            batches.push(batch);
        }
        let rounds = if slowest_call > budget.slow_call.as_secs_f64() {
            budget.slow_rounds.min(budget.rounds)
        } else {
            budget.rounds
        };
        // 2. interleaved rounds
        let mut samples = vec![Vec::with_capacity(rounds); n];
        for (round, i) in schedule(n, rounds) {
            let (label, v) = &mut self.variants[i];
            progress(&format!("{label} (round {}/{rounds})", round + 1));
            samples[i].push(v.batch(batches[i]) / batches[i] as f64);
        }
        // 3. medians
        let timings = samples
            .iter()
            .zip(heap)
            .map(|(s, (allocations, peak_bytes))| Timing {
                seconds: median(s),
                allocations,
                peak_bytes,
            })
            .collect();
        Results { timings, samples }
    }
}

/// The order in which [`Group::run`] times `variants` variants over `rounds` rounds:
/// `(round, variant)` pairs, every variant once per round, rounds one after the other.
pub fn schedule(variants: usize, rounds: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..rounds).flat_map(move |r| (0..variants).map(move |v| (r, v)))
}

/// What [`Group::run`] measured.
#[derive(Clone, Debug)]
pub struct Results {
    timings: Vec<Timing>,
    /// Seconds per call, per variant, per round.
    samples: Vec<Vec<f64>>,
}

impl Results {
    /// The median time and heap use of a variant.
    pub fn get(&self, id: Id) -> Timing {
        self.timings[id.0]
    }

    /// `num ÷ den` from the per-round ratios (see the module doc for why).
    pub fn ratio(&self, num: Id, den: Id) -> Ratio {
        Ratio::of(
            self.samples[num.0]
                .iter()
                .zip(&self.samples[den.0])
                .map(|(a, b)| a / b)
                .collect(),
        )
    }

    /// The variant among `ids` with the smallest median time.
    pub fn fastest(&self, ids: &[Id]) -> Id {
        *ids.iter()
            .min_by(|a, b| self.get(**a).seconds.total_cmp(&self.get(**b).seconds))
            .expect("at least one variant")
    }
}

/// A ratio measured over rounds: median and quartiles of the per-round ratios.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ratio {
    /// Median.
    pub median: f64,
    /// First quartile.
    pub q1: f64,
    /// Third quartile.
    pub q3: f64,
}

impl Ratio {
    /// The median and quartiles of `values` (at least one).
    pub fn of(mut values: Vec<f64>) -> Ratio {
        values.sort_by(f64::total_cmp);
        Ratio {
            median: quantile(&values, 0.5),
            q1: quantile(&values, 0.25),
            q3: quantile(&values, 0.75),
        }
    }

    /// Whether the ratio meets an upper bound: met when even the third quartile is within it,
    /// missed when even the first quartile exceeds it, inconclusive when the bound lies
    /// inside the interquartile range (the rounds disagree, so the median's side of the bound
    /// is noise).
    pub fn verdict(&self, at_most: f64) -> Verdict {
        if self.q3 <= at_most {
            Verdict::Met
        } else if self.q1 > at_most {
            Verdict::Missed
        } else {
            Verdict::Inconclusive
        }
    }

    /// `median [q1–q3]`, two decimals.
    pub fn cell(&self) -> String {
        format!("{:.2} [{:.2}–{:.2}]", self.median, self.q1, self.q3)
    }
}

/// A target checked against a measured ratio.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Met in at least three rounds out of four.
    Met,
    /// Missed in at least three rounds out of four.
    Missed,
    /// The target lies inside the ratio's interquartile range.
    Inconclusive,
}

impl Verdict {
    /// The verdict on "every one of several ratios meets the target": missed if one is missed,
    /// met if all are met, inconclusive otherwise.
    pub fn all(verdicts: impl IntoIterator<Item = Verdict>) -> Verdict {
        verdicts
            .into_iter()
            .fold(Verdict::Met, |acc, v| match (acc, v) {
                (Verdict::Missed, _) | (_, Verdict::Missed) => Verdict::Missed,
                (Verdict::Inconclusive, _) | (_, Verdict::Inconclusive) => Verdict::Inconclusive,
                _ => Verdict::Met,
            })
    }

    /// One word: "met", "missed" or "inconclusive" (for a second, earlier target).
    pub fn short(&self) -> &'static str {
        match self {
            Verdict::Met => "met",
            Verdict::Missed => "missed",
            Verdict::Inconclusive => "inconclusive",
        }
    }

    /// The words of the report: "target met", "target missed: {why}", or
    /// "inconclusive (noise)".
    pub fn words(&self, why_missed: &str) -> String {
        match self {
            Verdict::Met => "target met".into(),
            Verdict::Missed => format!("target missed: {why_missed}"),
            Verdict::Inconclusive => {
                "inconclusive (noise): the target lies within the interquartile range of the \
                 per-round ratios"
                    .into()
            }
        }
    }
}

/// The `p`-quantile (0 ≤ p ≤ 1) of sorted values, interpolating linearly between neighbours.
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    assert!(!sorted.is_empty(), "quantile of no values");
    let h = (sorted.len() - 1) as f64 * p;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// The median of values in any order.
pub fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    quantile(&v, 0.5)
}

/// Seconds in engineering notation (`1.234e-05`), as the papers' tables print them.
pub fn sci(seconds: f64) -> String {
    format!("{seconds:.3e}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    #[test]
    fn median_of_odd_and_even_counts_in_any_order() {
        assert_eq!(median(&[5.0, 1.0, 3.0]), 3.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[7.0]), 7.0);
        // one wild sample does not move it
        assert_eq!(median(&[1.0, 1.1, 0.9, 1000.0, 1.0]), 1.0);
    }

    #[test]
    fn quartiles_interpolate() {
        let r = Ratio::of(vec![5.0, 4.0, 3.0, 2.0, 1.0]);
        assert_eq!((r.q1, r.median, r.q3), (2.0, 3.0, 4.0));
        let r = Ratio::of(vec![1.0, 2.0, 3.0, 4.0]);
        assert_eq!((r.q1, r.median, r.q3), (1.75, 2.5, 3.25));
    }

    #[test]
    fn schedule_interleaves_rounds() {
        let order: Vec<_> = schedule(3, 2).collect();
        assert_eq!(order, [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]);
    }

    #[test]
    fn verdict_needs_the_whole_interquartile_range_on_one_side() {
        let r = Ratio::of(vec![2.0, 2.5, 2.9, 3.2, 3.5]); // q1 2.5, median 2.9, q3 3.2
        assert_eq!(r.verdict(4.0), Verdict::Met);
        assert_eq!(r.verdict(3.2), Verdict::Met);
        assert_eq!(r.verdict(2.4), Verdict::Missed);
        // the median alone would say "met" here; the rounds disagree
        assert_eq!(r.verdict(3.0), Verdict::Inconclusive);
        assert_eq!(r.verdict(2.5), Verdict::Inconclusive);
        assert!(r
            .verdict(3.0)
            .words("why")
            .starts_with("inconclusive (noise)"));
        assert_eq!(r.verdict(2.0).words("why"), "target missed: why");
        assert_eq!(r.verdict(9.0).words("why"), "target met");
    }

    #[test]
    fn all_verdicts_together() {
        use Verdict::*;
        assert_eq!(Verdict::all([Met, Met]), Met);
        assert_eq!(Verdict::all([Met, Inconclusive]), Inconclusive);
        assert_eq!(Verdict::all([Inconclusive, Missed, Met]), Missed);
        assert_eq!(Verdict::all([]), Met);
    }

    #[test]
    fn per_round_ratios_cancel_a_shared_slowdown() {
        // round 2 ran under load: both variants 3× slower; the ratio is 2 in every round
        let results = Results {
            timings: vec![],
            samples: vec![vec![2.0, 6.0, 2.0], vec![1.0, 3.0, 1.0]],
        };
        let r = results.ratio(Id(0), Id(1));
        assert_eq!((r.q1, r.median, r.q3), (2.0, 2.0, 2.0));
    }

    /// The real runner, with a zero sample time (batches of one call): every variant is warmed
    /// up (a counted call, then a one-call batch) before any is timed, then rounds interleave.
    #[test]
    fn run_warms_up_everything_then_interleaves() {
        let log = RefCell::new(Vec::with_capacity(64));
        let budget = Budget {
            rounds: 3,
            slow_rounds: 1,
            slow_call: Duration::from_secs(3600),
            sample_time: Duration::ZERO,
        };
        let mut g = Group::new();
        let a = g.add("a", || log.borrow_mut().push('a'));
        let b = g.add("b", || {
            log.borrow_mut().push('b');
            vec![0u8; 16]
        });
        let c = g.add("c", || log.borrow_mut().push('c'));
        let mut labels = Vec::new();
        let results = g.run(budget, |l| labels.push(l.to_string()));
        let log: String = log.into_inner().into_iter().collect();
        assert_eq!(
            log,
            "aabbcc" /* warm-up */
                .to_string()
                + "abcabcabc"
        );
        assert_eq!(labels[0], "a (warm-up)");
        assert_eq!(labels[3], "a (round 1/3)");
        // the counters are global and other tests run in parallel: the allocation count only
        // grows, so its lower bound is exact; the peak of live bytes is not (another thread's
        // frees during the call lower it), so it is not asserted here
        assert!(results.get(b).allocations >= 1);
        assert_eq!(
            results.samples.iter().map(Vec::len).collect::<Vec<_>>(),
            [3, 3, 3]
        );
        assert!(results.get(a).seconds >= 0.0 && results.get(c).seconds >= 0.0);
    }

    /// The sample clock counts running, not waiting (on Linux, where it is a CPU clock).
    #[cfg(target_os = "linux")]
    #[test]
    fn the_clock_leaves_out_waiting() {
        assert!(!wall_clock(), "the default clock is the thread's CPU clock");
        let t = Clock::now();
        std::thread::sleep(Duration::from_millis(50));
        let slept = t.elapsed();
        let t = Clock::now();
        let wall = std::time::Instant::now();
        while wall.elapsed() < Duration::from_millis(20) {
            std::hint::black_box(0);
        }
        let busy = t.elapsed();
        assert!(slept < 0.01, "50 ms asleep counted as {slept} s");
        assert!(
            busy > 0.0 && busy <= 0.021,
            "20 ms busy counted as {busy} s"
        );
    }

    /// A call slower than `slow_call` cuts the group to `slow_rounds` rounds.
    #[test]
    fn slow_calls_get_fewer_rounds() {
        let budget = Budget {
            rounds: 7,
            slow_rounds: 2,
            slow_call: Duration::ZERO,
            sample_time: Duration::ZERO,
        };
        let mut g = Group::new();
        let calls = RefCell::new(0);
        g.add("slow", || {
            // busy (the clock may count CPU time only)
            let t = std::time::Instant::now();
            while t.elapsed() < Duration::from_micros(10) {}
            *calls.borrow_mut() += 1;
        });
        let results = g.run(budget, |_| {});
        assert_eq!(results.samples[0].len(), 2);
        assert_eq!(*calls.borrow(), 2 + 2);
    }
}
