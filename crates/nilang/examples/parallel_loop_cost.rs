//! What a parallel loop costs beyond its work: a sum over 4 096 values (about 2 µs on one
//! thread) split into `nilang::parallel::chunks` and run by `nilang::parallel::run`, timed
//! 2 000 times after a pause of a set length (during which the pool's threads go to sleep),
//! entered from the main thread (outside the pool) and from inside a pool (`install`).
//! Medians and 90th percentiles in microseconds; the basis of
//! `nilang::parallel::DEFAULT_MIN_PARALLEL_WORK`.
//!
//! ```sh
//! cargo run --release -p nilang --example parallel_loop_cost -- 2   # threads
//! ```

use nilang::parallel::{chunks, run};
use std::time::{Duration, Instant};

/// Median and 90th percentile of `t`.
fn median_and_p90(mut t: Vec<f64>) -> (f64, f64) {
    t.sort_by(f64::total_cmp);
    (t[t.len() / 2], t[t.len() * 9 / 10])
}

/// Times of the chunked sum of `x`, each after busy-waiting `pause`, in microseconds.
fn times(x: &[f64], pause: Duration) -> Vec<f64> {
    (0..2000)
        .map(|_| {
            let wait = Instant::now();
            while wait.elapsed() < pause {}
            let start = Instant::now();
            let parts = run(&chunks(0, x.len(), false), |lo, hi| {
                x[lo..hi].iter().sum::<f64>()
            });
            std::hint::black_box(parts.iter().sum::<f64>());
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect()
}

fn main() {
    let threads: usize = match std::env::args().nth(1).map(|a| a.parse()) {
        None => 2,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("usage: parallel_loop_cost [THREADS > 0]");
            std::process::exit(2);
        }
    };
    let builder = || rayon::ThreadPoolBuilder::new().num_threads(threads);
    builder().build_global().expect("the global pool");
    let inside = builder().build().expect("a thread pool");
    let x: Vec<f64> = (0..4096).map(|k| f64::from(k).sin()).collect();
    println!("{threads} threads; microseconds per loop, median (90th percentile)");
    println!("pause (µs) | entered from outside the pool | from inside the pool");
    for pause in [0, 20, 100, 1000] {
        let pause = Duration::from_micros(pause);
        // from the main thread, `run` hands the chunks to the global pool
        let (o, o90) = median_and_p90(times(&x, pause));
        let (i, i90) = median_and_p90(inside.install(|| times(&x, pause)));
        println!(
            "{:>10} | {o:>8.1} ({o90:.1}) | {i:>8.1} ({i90:.1})",
            pause.as_micros()
        );
    }
}
