//! Constant memory: the reversal gradient of the NICE flow allocates only its parameters'
//! gradient copies, whatever the number of samples; a tape grows with them.

use nilang_apps::flow::*;
use nilang_apps::plain::peers;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Live and peak heap bytes of the current thread while it is tracking: per thread, so the
/// test harness's own allocations (output capture, other threads) do not count (a process-wide
/// counter read 2 980 B once under load where this test's reversal needs under 2 496 B).
struct Peak;

thread_local! {
    static TRACKING: Cell<bool> = const { Cell::new(false) };
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

/// Adds `delta` bytes to this thread's live count if it is tracking.
fn record(delta: isize) {
    // `try_with`: the thread-locals may be gone while a thread shuts down
    let _ = TRACKING.try_with(|t| {
        if t.get() {
            let live = LIVE.with(|l| {
                l.set(l.get() + delta);
                l.get()
            });
            PEAK.with(|p| p.set(p.get().max(live)));
        }
    });
}

unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        record(l.size() as isize);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        record(-(l.size() as isize));
        System.dealloc(p, l)
    }
}

#[global_allocator]
static A: Peak = Peak;

/// The largest heap this thread holds while `f` runs, above what it held before.
fn peak_above_baseline(f: impl FnOnce()) -> usize {
    LIVE.with(|l| l.set(0));
    PEAK.with(|p| p.set(0));
    TRACKING.with(|t| t.set(true));
    f();
    TRACKING.with(|t| t.set(false));
    PEAK.with(|p| p.get()).max(0) as usize
}

const D: usize = 2;
const H: usize = 8;

#[test]
fn reversal_gradient_memory_does_not_grow_with_samples_or_layers() {
    let mut ours = Vec::new();
    let mut tape = Vec::new();
    for (samples, layers) in [(50, 2), (400, 2), (400, 8)] {
        let data = two_moons(samples, 0.05, 1);
        let p = initial_parameters(D, H, layers, 2);
        let bytes_p = p.len() * 8;
        let o = peak_above_baseline(|| {
            std::hint::black_box(nll_and_gradient::<D, H>(&p, &data, layers));
        });
        let t = peak_above_baseline(|| {
            std::hint::black_box(peers::dualrev_gradient(
                |p| nice_nll::<_, D, H>(p, &data, layers),
                &p,
            ));
        });
        println!(
            "samples {samples:4} layers {layers}: reversal {o} B ({:.1} × params), tape {t} B",
            o as f64 / bytes_p as f64
        );
        // parameters copied, wrapped as GVar (2 × 8 bytes), gradient vector: a few × params
        assert!(
            o <= 6 * bytes_p,
            "reversal peak {o} B for {bytes_p} B of parameters"
        );
        ours.push(o);
        tape.push(t);
    }
    assert_eq!(ours[0], ours[1], "8× the samples, same memory");
    assert!(
        tape[1] > 4 * tape[0],
        "the tape grows with the samples: {tape:?}"
    );
}
