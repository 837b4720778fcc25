//! Constant memory: the reversal gradient of the NICE flow allocates only its parameters'
//! gradient copies, whatever the number of samples; a tape grows with them.

use nilang_apps::flow::*;
use nilang_apps::plain::peers;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Peak;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(l.size(), Ordering::SeqCst) + l.size();
        PEAK.fetch_max(live, Ordering::SeqCst);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::SeqCst);
        System.dealloc(p, l)
    }
}

#[global_allocator]
static A: Peak = Peak;

fn peak_above_baseline(f: impl FnOnce()) -> usize {
    let base = LIVE.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    f();
    PEAK.load(Ordering::SeqCst) - base
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
