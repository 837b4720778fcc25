//! Criterion version of the paper's Table 1 (Smeding & Vákár, POPL 2023,
//! §10): every engine differentiates the same generic programs.
//!
//! Run with `cargo bench -p nilang-dualrev --bench table1`. For a compact
//! table of medians and ratios see `examples/table1.rs`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

#[path = "common/mod.rs"]
mod common;
use common::*;

fn scalar_kernels(c: &mut Criterion) {
    cross_check();
    let reverse_tape = reverse::Tape::new();
    let easy_list = easy_ml::differentiation::WengertList::<f64>::new();
    let sizes: &[(&str, &[usize])] = &[
        ("scalar_mult", &[1]),
        ("dot_product", &[100, 10_000]),
        ("sum_mat_vec", &[100, 10_000]),
    ];
    for &(name, ns) in sizes {
        let mut g = c.benchmark_group(name);
        for &n in ns {
            let (k, x) = Kernel::for_size(name, n);
            g.throughput(Throughput::Elements(n as u64));
            g.bench_with_input(BenchmarkId::new("nilang-dualrev", n), &x, |b, x| {
                b.iter(|| ours::gradient(k, black_box(x)))
            });
            g.bench_with_input(BenchmarkId::new("echidna", n), &x, |b, x| {
                b.iter(|| echidna_engine::gradient(k, black_box(x)))
            });
            g.bench_with_input(BenchmarkId::new("reverse", n), &x, |b, x| {
                b.iter(|| reverse_engine::gradient(&reverse_tape, k, black_box(x)))
            });
            g.bench_with_input(BenchmarkId::new("easy-ml", n), &x, |b, x| {
                b.iter(|| easy_ml_engine::gradient(&easy_list, k, black_box(x)))
            });
        }
        g.finish();
    }
}

fn rotate(c: &mut Criterion) {
    let x = rotate_input();
    let mut echidna_tape = echidna::tape::Tape::<f64>::new();
    let reverse_tape = reverse::Tape::new();
    let easy_list = easy_ml::differentiation::WengertList::<f64>::new();
    let mut g = c.benchmark_group("rotate_vec_by_quat");
    g.bench_function("nilang-dualrev", |b| {
        b.iter(|| ours::rotate_jacobian(black_box(&x)))
    });
    g.bench_function("echidna", |b| {
        b.iter(|| echidna_engine::rotate_jacobian(&mut echidna_tape, black_box(&x)))
    });
    g.bench_function("reverse", |b| {
        b.iter(|| reverse_engine::rotate_jacobian(&reverse_tape, black_box(&x)))
    });
    g.bench_function("easy-ml", |b| {
        b.iter(|| easy_ml_engine::rotate_jacobian(&easy_list, black_box(&x)))
    });
    g.finish();
}

fn config() -> Criterion {
    // Short runs: the development machines have two shared cores.
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(20)
}

criterion_group! {
    name = table1;
    config = config();
    targets = scalar_kernels, rotate
}
criterion_main!(table1);
