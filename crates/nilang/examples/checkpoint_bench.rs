//! The gradient of RK4 Lotka–Volterra over `T` steps with respect to the initial state and
//! the parameters `(α, β, γ, δ)`, by every scheduler, against the native objective (a plain
//! Rust loop): time (thread CPU time, interleaved repetitions, medians) and peak heap memory
//! (a counting allocator).
//!
//! `cargo run --release -p nilang --example checkpoint_bench [T] [REPETITIONS]` (defaults
//! 10000 and 21).
//!
//! The schedulers: storing the whole trajectory (`trajectory_gradient`), Treeverse with
//! `δ = ⌈log₂ T⌉` and with 20 stored states (`treeverse_gradient`), both running the step's
//! generated `rk4_vjp`, for the default step (unchecked in a release build) and its
//! `#[i(check)]` twin; the same loop as ordinary Rust under `#[differentiable]`, storing every
//! step, under `#[checkpoint]` (√T chunk starts) and under `#[checkpoint(levels = 2 or 3)]`; the
//! generic Treeverse before them (`treeverse` on a `ReversalChain`:
//! the parameters carried in a state of 6 by identity, each step reversed by
//! `rk4_carried_inv` on `GVar`s); Bennett with k = 10 (`bennett_gradient`, `rk4_adjoint`). T forward steps of the reversible step alone show
//! what the checks cost before any gradient.

#[path = "../tests/support/lotka_volterra.rs"]
mod lotka_volterra;

use lotka_volterra::{checked, rk4_vjp, H, THETA, X0};
use lotka_volterra::{native_final, rk4, rk4_adjoint, rk4_carried, rk4_carried_inv, rk4_inv};
use nilang::checkpoint::{bennett_gradient, trajectory_gradient, treeverse_gradient, ParamStep};
use nilang::treeverse::{treeverse, ReversalChain};
use nilang::GVar;
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The system allocator, counting the bytes live now and the most live since the last reset.
struct Peak;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to `System` unchanged; the counters only observe sizes.
unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(live, Relaxed);
        // SAFETY: the caller's layout, as `GlobalAlloc::alloc` requires.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: `ptr` was allocated by `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Peak = Peak;

/// The most bytes `f` had allocated at once beyond what was live when it started, with the
/// thread's pool of tape buffers emptied first (a pooled buffer from an earlier call would
/// otherwise not count).
fn peak_bytes(f: impl FnOnce()) -> usize {
    nilang::stack::release_pooled_tapes();
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    f();
    PEAK.load(Relaxed) - base
}

/// This thread's CPU time in nanoseconds (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`), or the
/// wall clock off Linux.
fn now_ns() -> u128 {
    #[cfg(target_os = "linux")]
    {
        /// `struct timespec`: seconds and nanoseconds, each as wide as a pointer on Linux.
        #[repr(C)]
        struct Timespec(isize, isize);
        extern "C" {
            fn clock_gettime(clock: i32, out: *mut Timespec) -> i32;
        }
        let mut t = Timespec(0, 0);
        // SAFETY: `t` is a `struct timespec` for the call to write; 3 is CLOCK_THREAD_CPUTIME_ID.
        let rc = unsafe { clock_gettime(3, &mut t) };
        assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
        t.0 as u128 * 1_000_000_000 + t.1 as u128
    }
    #[cfg(not(target_os = "linux"))]
    {
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        START
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_nanos()
    }
}

const W: [f64; 2] = [1.0, -0.5];

/// `W·x_T` after `steps` RK4 steps of Lotka–Volterra as ordinary Rust under
/// `#[differentiable]` (the arithmetic of `native_step`), its loop marked by the tokens given.
macro_rules! ordinary_loss {
    ($name:ident $($budget:tt)*) => {
        #[nilang::differentiable(wrt(state, p))]
        fn $name(state: &[f64], p: &[f64], steps: usize, h: f64) -> f64 {
            let (mut x, mut y) = (state[0], state[1]);
            $($budget)*
            for _ in 0..steps {
                let (k1x, k1y) = (p[0] * x - p[1] * (x * y), p[3] * (x * y) - p[2] * y);
                let (ax, ay) = (x + 0.5 * h * k1x, y + 0.5 * h * k1y);
                let (k2x, k2y) = (p[0] * ax - p[1] * (ax * ay), p[3] * (ax * ay) - p[2] * ay);
                let (bx, by) = (x + 0.5 * h * k2x, y + 0.5 * h * k2y);
                let (k3x, k3y) = (p[0] * bx - p[1] * (bx * by), p[3] * (bx * by) - p[2] * by);
                let (cx, cy) = (x + h * k3x, y + h * k3y);
                let (k4x, k4y) = (p[0] * cx - p[1] * (cx * cy), p[3] * (cx * cy) - p[2] * cy);
                x += h / 6.0 * k1x + h / 3.0 * k2x + h / 3.0 * k3x + h / 6.0 * k4x;
                y += h / 6.0 * k1y + h / 3.0 * k2y + h / 3.0 * k3y + h / 6.0 * k4y;
            }
            x - 0.5 * y
        }
    };
}

ordinary_loss!(ordinary_stored);
ordinary_loss!(ordinary_sqrt #[checkpoint]);
ordinary_loss!(ordinary_two #[checkpoint(levels = 2)]);
ordinary_loss!(ordinary_levels #[checkpoint(levels = 3)]);

/// The runs of the ordinary-Rust loss: every step stored, and the two budgets.
fn ordinary_runs(t: usize) -> Vec<Run> {
    let native = native_final(X0, &THETA, t);
    for plain in [
        ordinary_stored,
        ordinary_sqrt,
        ordinary_two,
        ordinary_levels,
    ] {
        let value = plain(&X0, &THETA, t, H);
        assert!((value - (W[0] * native[0] + W[1] * native[1])).abs() < 1e-9);
    }
    type Gradient = fn(&[f64], &[f64], usize, f64) -> (f64, (Vec<f64>, Vec<f64>));
    let variants: [(&str, Gradient); 4] = [
        ("every step stored", ordinary_stored_gradient),
        ("#[checkpoint]", ordinary_sqrt_gradient),
        ("#[checkpoint(levels = 2)]", ordinary_two_gradient),
        ("#[checkpoint(levels = 3)]", ordinary_levels_gradient),
    ];
    let mut v: Vec<Run> = vec![(
        "ordinary Rust, #[differentiable]: forward only (ordinary_stored_rev)".into(),
        Box::new(move || {
            let (mut s, mut p, mut out) = (X0.to_vec(), black_box(THETA).to_vec(), 0.0);
            ordinary_stored_rev(&mut out, &mut s, &mut p, t, H);
            (vec![out], vec![])
        }),
    )];
    for (name, gradient) in variants {
        v.push((
            format!("ordinary Rust, #[differentiable]: {name}"),
            Box::new(move || gradient(&X0, black_box(&THETA), t, H).1),
        ));
    }
    v
}

/// One scheduler: its name and a run that returns `(∂/∂x₀, ∂/∂θ)`.
type Run = (String, Box<dyn Fn() -> (Vec<f64>, Vec<f64>)>);

/// The runs of a step `(f, f_vjp)`: `T` forward steps alone, the gradient storing the
/// trajectory, and Treeverse with `δ = ⌈log₂ T⌉` and 20 stored states.
fn fast_runs<S: ParamStep<f64> + Copy + 'static>(which: &str, step: S, t: usize) -> Vec<Run> {
    let seed = |_: &[f64]| W.to_vec();
    let mut v: Vec<Run> = vec![
        (
            format!("{which}: forward only, T steps"),
            Box::new(move || {
                let (mut x, mut next, mut p) = (X0.to_vec(), vec![0.0; 2], black_box(THETA));
                for _ in 0..t {
                    next.fill(0.0);
                    step.forward(&mut next, &mut x, &mut p);
                    std::mem::swap(&mut x, &mut next);
                }
                (vec![W[0] * x[0] + W[1] * x[1]], vec![])
            }),
        ),
        (
            format!("{which}: trajectory_gradient (every state)"),
            Box::new(move || {
                let r = trajectory_gradient(&step, &X0, &THETA, t, seed);
                (r.state_grad, r.param_grad)
            }),
        ),
    ];
    for snaps in [log2(t), 20] {
        v.push((
            format!("{which}: treeverse_gradient (δ = {snaps})"),
            Box::new(move || {
                let r = treeverse_gradient(&step, &X0, &THETA, t, snaps, seed);
                (r.state_grad, r.param_grad)
            }),
        ));
    }
    v
}

/// `⌈log₂ t⌉`, at least 1.
fn log2(t: usize) -> usize {
    ((usize::BITS - t.saturating_sub(1).leading_zeros()) as usize).max(1)
}

fn runs(t: usize) -> Vec<Run> {
    let log_t = log2(t);
    let mut v: Vec<Run> = vec![(
        "native objective (plain Rust loop)".into(),
        Box::new(move || {
            let x = native_final(black_box(X0), black_box(&THETA), t);
            (vec![W[0] * x[0] + W[1] * x[1]], vec![])
        }),
    )];
    v.extend(fast_runs("rk4", (rk4, rk4_vjp), t));
    v.extend(ordinary_runs(t));
    v.extend(fast_runs(
        "rk4 #[i(check)]",
        (checked::rk4, checked::rk4_vjp),
        t,
    ));
    v.push((
        format!("rk4: generic treeverse (GVar inverse, θ in the state, δ = {log_t})"),
        Box::new(move || {
            let chain = ReversalChain::new(6, rk4_carried::<f64>, rk4_carried_inv::<GVar<f64>>);
            let x0: Vec<f64> = X0.iter().chain(&THETA).copied().collect();
            let r = treeverse(&chain, &x0, t, log_t, |_| {
                vec![W[0], W[1], 0.0, 0.0, 0.0, 0.0]
            });
            (r.gradient[..2].to_vec(), r.gradient[2..].to_vec())
        }),
    ));
    v.push((
        "rk4: bennett_gradient (rk4_adjoint, k = 10)".into(),
        Box::new(move || {
            let step = (rk4, rk4_inv, rk4_adjoint);
            let r = bennett_gradient(&step, 10, &X0, &THETA, t, |_| W.to_vec());
            (r.state_grad, r.param_grad)
        }),
    ));
    v
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a number"))
        .collect();
    let (t, reps) = (
        args.first().copied().unwrap_or(10_000),
        args.get(1).copied().unwrap_or(21),
    );
    let runs = runs(t);
    // every gradient agrees with the trajectory's
    let reference = (runs[2].1)();
    for (name, run) in runs
        .iter()
        .filter(|(n, _)| !n.contains("forward only") && !n.contains("native"))
    {
        let (gx, gp) = run();
        let close = |a: &[f64], b: &[f64]| {
            a.iter()
                .zip(b)
                .all(|(x, y)| (x - y).abs() <= 1e-12 * y.abs().max(1.0))
        };
        assert!(
            close(&gx, &reference.0) && close(&gp, &reference.1),
            "{name} disagrees"
        );
    }
    // repetitions of each run long enough to time (≥ 10 ms of CPU time)
    let inner: Vec<usize> = runs
        .iter()
        .map(|(_, run)| {
            let start = now_ns();
            black_box(run());
            (10_000_000 / (now_ns() - start).max(1)).clamp(1, 10_000) as usize
        })
        .collect();
    let mut samples = vec![Vec::new(); runs.len()];
    for _ in 0..reps {
        for (k, (_, run)) in runs.iter().enumerate() {
            let start = now_ns();
            for _ in 0..inner[k] {
                black_box(run());
            }
            samples[k].push((now_ns() - start) as f64 / inner[k] as f64);
        }
    }
    let medians: Vec<f64> = samples.into_iter().map(median).collect();
    println!("RK4 Lotka-Volterra, T = {t} steps, gradient w.r.t. (x0, alpha, beta, gamma, delta)");
    println!("medians of {reps} interleaved repetitions, thread CPU time\n");
    println!("| scheduler | time (ms) | ÷ native | peak heap (KiB) |");
    println!("|---|---:|---:|---:|");
    for (k, (name, run)) in runs.iter().enumerate() {
        let bytes = peak_bytes(|| {
            black_box(run());
        });
        let (ms, ratio) = (medians[k] / 1e6, medians[k] / medians[0]);
        println!(
            "| {name} | {ms:.3} | {ratio:.1} | {:.1} |",
            bytes as f64 / 1024.0
        );
    }
}
