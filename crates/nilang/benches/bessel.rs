//! Bessel J₂(1.0) forward: the reversible program without runtime checks against plain Rust.
//! Recorded in docs/benchmarks.md.
//!
//! Two plain-Rust baselines: `plain series` is the paper's irreversible `besselj` (one pass
//! over the terms), and `plain same work` is the reversible algorithm written by hand in
//! ordinary Rust (compute with the approximate multiplier, copy, uncompute: two passes), i.e.
//! exactly the arithmetic `ibesselj_nocheck` does. The second ratio is the overhead of the
//! language's generated code; the first adds the cost of reversibility itself.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use nilang::special::{besselj_series, ibesselj, ibesselj_nocheck};
use std::mem::swap;

/// `ibesselj` hand-written in plain Rust on `f64`: the same statements in the same order.
fn besselj_same_work(out: &mut f64, nu: i64, z: &mut f64) {
    let (mut k, mut fact_nu, mut fanc) = (0i64, 0i64, 0i64);
    let (mut halfz, mut hz_nu, mut hz_2, mut out_anc) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let (mut anc1, mut anc2, mut anc3, mut anc4, mut anc5) =
        (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
    // compute
    halfz += *z / 2.0;
    hz_nu += halfz.powi(nu as i32);
    hz_2 += halfz.powi(2);
    fact_nu += 1;
    for i in 1..=nu {
        fanc += fact_nu * i;
        fact_nu -= fanc / i;
        swap(&mut fact_nu, &mut fanc);
    }
    anc1 += hz_nu / fact_nu as f64;
    out_anc += anc1;
    while anc1.abs() > 1e-8 && anc4.abs() < 1e-8 {
        k += 1;
        anc5 += k as f64;
        anc5 += nu as f64;
        anc2 -= k as f64 * anc5;
        anc3 += hz_2 / anc2;
        anc4 += anc1 * anc3;
        anc1 -= anc4 / anc3;
        swap(&mut anc1, &mut anc4);
        out_anc += anc1;
        anc3 -= hz_2 / anc2;
        anc2 += k as f64 * anc5;
        anc5 -= nu as f64;
        anc5 -= k as f64;
    }
    // copy
    *out += out_anc;
    // uncompute
    while k != 0 {
        anc5 += k as f64;
        anc5 += nu as f64;
        anc2 -= k as f64 * anc5;
        anc3 += hz_2 / anc2;
        out_anc -= anc1;
        swap(&mut anc1, &mut anc4);
        anc1 += anc4 / anc3;
        anc4 -= anc1 * anc3;
        anc3 -= hz_2 / anc2;
        anc2 += k as f64 * anc5;
        anc5 -= nu as f64;
        anc5 -= k as f64;
        k -= 1;
    }
    out_anc -= anc1;
    anc1 -= hz_nu / fact_nu as f64;
    for i in (1..=nu).rev() {
        swap(&mut fact_nu, &mut fanc);
        fact_nu += fanc / i;
        fanc -= fact_nu * i;
    }
    fact_nu -= 1;
    hz_2 -= halfz.powi(2);
    hz_nu -= halfz.powi(nu as i32);
    halfz -= *z / 2.0;
    black_box((
        k, fact_nu, fanc, halfz, hz_nu, hz_2, out_anc, anc1, anc2, anc3, anc4, anc5,
    ));
}

fn bessel(c: &mut Criterion) {
    let mut check = 0.0;
    besselj_same_work(&mut check, 2, &mut 1.0);
    assert_eq!(check, besselj_series(2, 1.0));

    let mut g = c.benchmark_group("Bessel J2(1.0) forward");
    g.bench_function("plain series", |b| {
        b.iter(|| besselj_series(black_box(2), black_box(1.0)))
    });
    g.bench_function("plain same work", |b| {
        b.iter(|| {
            let (mut out, mut z) = (0.0f64, black_box(1.0f64));
            besselj_same_work(&mut out, black_box(2), &mut z);
            out
        })
    });
    g.bench_function("ibesselj nocheck", |b| {
        b.iter(|| {
            let (mut out, mut z) = (0.0f64, black_box(1.0f64));
            ibesselj_nocheck(&mut out, black_box(2), &mut z);
            out
        })
    });
    g.bench_function("ibesselj checked", |b| {
        b.iter(|| {
            let (mut out, mut z) = (0.0f64, black_box(1.0f64));
            ibesselj(&mut out, black_box(2), &mut z);
            out
        })
    });
    g.finish();
}

criterion_group!(benches, bessel);
criterion_main!(benches);
