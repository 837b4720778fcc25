//! Timing: medians of repeated batches, so that noise on a shared machine averages out.

use std::time::{Duration, Instant};

/// How long and how often to measure.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Samples per measurement (the median is reported).
    pub samples: usize,
    /// Minimum duration of one sample (calls are batched to reach it).
    pub sample_time: Duration,
}

impl Budget {
    /// The `--quick` budget (CI smoke test).
    pub fn quick() -> Budget {
        Budget {
            samples: 5,
            sample_time: Duration::from_millis(2),
        }
    }
    /// The full budget.
    pub fn full() -> Budget {
        Budget {
            samples: 21,
            sample_time: Duration::from_millis(20),
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

/// Measures `f`: one counted call for heap use, then `budget.samples` batched samples.
pub fn measure<R>(budget: Budget, mut f: impl FnMut() -> R) -> Timing {
    let ((), allocations, _, peak_bytes) = crate::alloc::count(|| {
        std::hint::black_box(f());
    });
    // calibrate a batch size reaching the sample time
    let mut batch = 1usize;
    loop {
        let t = Instant::now();
        for _ in 0..batch {
            std::hint::black_box(f());
        }
        if t.elapsed() >= budget.sample_time || batch >= 1 << 30 {
            break;
        }
        batch *= 2;
    }
    // Calls of a quarter second or more get fewer samples, so the full run stays short.
    let one = Instant::now();
    std::hint::black_box(f());
    let single = one.elapsed().as_secs_f64();
    let count = if single > 0.25 {
        budget.samples.min(5)
    } else {
        budget.samples
    };
    let mut samples: Vec<f64> = (0..count)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..batch {
                std::hint::black_box(f());
            }
            t.elapsed().as_secs_f64() / batch as f64
        })
        .collect();
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    Timing {
        seconds: samples[samples.len() / 2],
        allocations,
        peak_bytes,
    }
}

/// Seconds in engineering notation (`1.234e-05`), as the papers' tables print them.
pub fn sci(seconds: f64) -> String {
    format!("{seconds:.3e}")
}
