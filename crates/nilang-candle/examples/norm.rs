//! The ICLR paper's Appendix E in Rust: the gradient of `norm(x)` for `x` of length 1000 by
//! candle's own autograd (`sqrt(sum(x²))`) and by nilang's generated backward rule ported as a
//! candle custom operation. Prints the median time of forward + backward and the heap
//! allocations of one call.
//!
//! Run with `cargo run --release -p nilang-candle --example norm`.

use candle_core::{Device, Tensor, Var};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);
static BYTES: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(l.size(), Ordering::Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
}

#[global_allocator]
static A: Counting = Counting;

fn measure(name: &str, f: impl Fn() -> Vec<f64>) -> f64 {
    let (a0, b0) = (
        ALLOCS.load(Ordering::Relaxed),
        BYTES.load(Ordering::Relaxed),
    );
    std::hint::black_box(f());
    let (allocs, bytes) = (
        ALLOCS.load(Ordering::Relaxed) - a0,
        BYTES.load(Ordering::Relaxed) - b0,
    );
    let mut samples: Vec<f64> = (0..31)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..100 {
                std::hint::black_box(f());
            }
            t.elapsed().as_secs_f64() / 100.0
        })
        .collect();
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let median = samples[15];
    println!(
        "{name:<34} {:>9.2} µs   {allocs:>5} allocations  {:>8.1} KiB",
        median * 1e6,
        bytes as f64 / 1024.0
    );
    median
}

fn main() -> candle_core::Result<()> {
    let data: Vec<f64> = (0..1000).map(|i| ((i as f64) * 0.37).sin()).collect();
    let x = Var::from_tensor(&Tensor::new(data.as_slice(), &Device::Cpu)?)?;
    println!("gradient of norm(x), x of length 1000 (forward + backward):");
    let theirs = measure("candle autograd of sqrt(sum(x²))", || {
        let y = x
            .as_tensor()
            .sqr()
            .unwrap()
            .sum_all()
            .unwrap()
            .sqrt()
            .unwrap();
        y.backward()
            .unwrap()
            .get(&x)
            .unwrap()
            .to_vec1::<f64>()
            .unwrap()
    });
    let ours = measure("nilang backward rule (custom op)", || {
        let y = nilang_candle::norm(x.as_tensor()).unwrap();
        y.backward()
            .unwrap()
            .get(&x)
            .unwrap()
            .to_vec1::<f64>()
            .unwrap()
    });
    println!("speed-up: {:.2}×", theirs / ours);
    Ok(())
}
