//! Prints the paper's Table 1 as measured in this run: median time per
//! gradient (or Jacobian) for this crate and for each peer crate, and the
//! ratio ours ÷ peer (below 1 means we are faster).
//!
//! `cargo run --release -p nilang-dualrev --example table1`
//!
//! Engines are sampled round-robin (one timed batch each per round) so that
//! machine noise affects them alike; the reported value is the median over
//! rounds of the per-call time within a batch. The last column compares with
//! running the same generic program on plain `f64` (no derivatives).

use std::hint::black_box;
use std::time::{Duration, Instant};

#[path = "../benches/common/mod.rs"]
mod common;
use common::*;

const ENGINES: [&str; 4] = ["nilang-dualrev", "echidna", "reverse", "easy-ml"];
const ROUNDS: usize = 31;
const BATCH_TARGET: Duration = Duration::from_millis(2);

/// Median seconds per call of each closure, sampled round-robin.
fn measure(fs: &mut [Box<dyn FnMut() + '_>]) -> Vec<f64> {
    // Calibrate a batch size per engine.
    let mut iters = Vec::new();
    for f in fs.iter_mut() {
        let mut k = 1u64;
        loop {
            let t = Instant::now();
            for _ in 0..k {
                f();
            }
            if t.elapsed() >= BATCH_TARGET / 4 || k >= 1 << 24 {
                let per = t.elapsed().as_secs_f64() / k as f64;
                iters.push(((BATCH_TARGET.as_secs_f64() / per).ceil() as u64).max(1));
                break;
            }
            k *= 2;
        }
    }
    let mut samples = vec![Vec::with_capacity(ROUNDS); fs.len()];
    for round in 0..ROUNDS {
        for j in 0..fs.len() {
            let e = (j + round) % fs.len();
            let t = Instant::now();
            for _ in 0..iters[e] {
                (fs[e])();
            }
            samples[e].push(t.elapsed().as_secs_f64() / iters[e] as f64);
        }
    }
    samples
        .into_iter()
        .map(|mut s| {
            s.sort_by(f64::total_cmp);
            s[s.len() / 2]
        })
        .collect()
}

fn fmt_time(s: f64) -> String {
    if s < 1e-6 {
        format!("{:.1} ns", s * 1e9)
    } else if s < 1e-3 {
        format!("{:.2} µs", s * 1e6)
    } else {
        format!("{:.2} ms", s * 1e3)
    }
}

fn row(name: &str, n: usize, t: &[f64]) {
    let ratios: Vec<String> = t[1..4].iter().map(|p| format!("{:.2}", t[0] / p)).collect();
    println!(
        "| {name} | {n} | {} | {} | {} | {} | {} | {:.2} ns | {:.0}× |",
        fmt_time(t[0]),
        fmt_time(t[1]),
        fmt_time(t[2]),
        fmt_time(t[3]),
        ratios.join(" / "),
        t[0] * 1e9 / n as f64,
        t[0] / t[4],
    );
}

fn main() {
    cross_check();
    let mut echidna_tape = echidna::tape::Tape::<f64>::new();
    let reverse_tape = reverse::Tape::new();
    let easy_list = easy_ml::differentiation::WengertList::<f64>::new();

    println!(
        "| benchmark | n | {} | {} | {} | {} | ours ÷ echidna / reverse / easy-ml | ours per element | ours ÷ primal f64 |",
        ENGINES[0], ENGINES[1], ENGINES[2], ENGINES[3]
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");

    let plan: &[(&str, &[usize])] = &[
        ("scalar_mult", &[1]),
        ("dot_product", &[10, 100, 1_000, 10_000]),
        ("sum_mat_vec", &[16, 100, 1_024, 10_000]),
    ];
    for &(name, ns) in plan {
        for &n in ns {
            let (k, x) = Kernel::for_size(name, n);
            let x = &x;
            let t = measure(&mut [
                Box::new(|| {
                    black_box(ours::gradient(k, black_box(x)));
                }),
                Box::new(|| {
                    black_box(echidna_engine::gradient(k, black_box(x)));
                }),
                Box::new(|| {
                    black_box(reverse_engine::gradient(&reverse_tape, k, black_box(x)));
                }),
                Box::new(|| {
                    black_box(easy_ml_engine::gradient(&easy_list, k, black_box(x)));
                }),
                Box::new(|| {
                    black_box(k.eval(black_box(x.as_slice())));
                }),
            ]);
            row(name, n, &t);
        }
    }

    let x = &rotate_input();
    let t = measure(&mut [
        Box::new(|| {
            black_box(ours::rotate_jacobian(black_box(x)));
        }),
        Box::new(|| {
            black_box(echidna_engine::rotate_jacobian(
                &mut echidna_tape,
                black_box(x),
            ));
        }),
        Box::new(|| {
            black_box(reverse_engine::rotate_jacobian(&reverse_tape, black_box(x)));
        }),
        Box::new(|| {
            black_box(easy_ml_engine::rotate_jacobian(&easy_list, black_box(x)));
        }),
        Box::new(|| {
            black_box(rotate_vec_by_quat(black_box(x.as_slice())));
        }),
    ]);
    row("rotate_vec_by_quat (3 sweeps)", 1, &t);
    println!();
    println!(
        "n = problem size: scalar_mult and rotate_vec_by_quat time one differentiation \
         (the paper repeats them n times, which scales exactly linearly); dot_product uses \
         vectors of length n; sum_mat_vec a sqrt(n) x sqrt(n) matrix."
    );
}
