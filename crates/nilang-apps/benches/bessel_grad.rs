//! Bessel J₂(1.0) gradient: reverse-mode AD by running the inverse program against the plain
//! objective and against other AD engines, in one criterion group. Recorded in
//! docs/benchmarks.md ("Bessel J2(1.0) under criterion").
//!
//! Every peer differentiates the same plain generic series `nilang_apps::bessel::besselj` (the paper's
//! irreversible `besselj(ν, z; atol = 1e-8)`, term by term the arithmetic of
//! `nilang::special::besselj_series`); ours differentiates the reversible `ibesselj` (checks
//! off) by running `ibesselj_nocheck_inv` on `GVar`s.
//!
//! `cargo bench -p nilang-apps --bench bessel_grad -- --warm-up-time 1 --measurement-time 3`

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use nilang::special::{
    besselj_series, ibesselj_grad, ibesselj_nocheck, ibesselj_nocheck_grad, ibesselj_nocheck_inv,
};
use nilang::{GVar, Loss};
use nilang_apps::bessel::besselj;
use nilang_apps::plain::peers;

fn reversal(nu: i64, z: f64) -> f64 {
    let (mut out, mut zz) = (0.0, z);
    let (_, gz): (GVar<f64>, GVar<f64>) =
        ibesselj_nocheck_grad(Loss::arg(0), &mut out, nu, &mut zz).unwrap();
    gz.g
}

fn num_dual_grad(nu: i64, z: f64) -> f64 {
    peers::num_dual_gradient(|x| besselj(nu, x[0]), &[z])[0]
}

fn echidna_grad(nu: i64, z: f64) -> f64 {
    peers::echidna_gradient(|x| besselj(nu, x[0]), &[z])[0]
}

fn easy_ml_grad(list: &easy_ml::differentiation::WengertList<f64>, nu: i64, z: f64) -> f64 {
    peers::easy_ml_gradient(list, |x| besselj(nu, x[0]), &[z])[0]
}

fn dualrev_grad(nu: i64, z: f64) -> f64 {
    peers::dualrev_gradient(|x| besselj(nu, x[0]), &[z])[0]
}

fn bessel_grad(c: &mut Criterion) {
    let (nu, z) = (2i64, 1.0f64);
    // every engine computes the same derivative
    let list = easy_ml::differentiation::WengertList::new();
    let ours = reversal(nu, z);
    assert!((ours - 0.2102436).abs() < 1e-7);
    assert_eq!(besselj(nu, z), besselj_series(nu, z));
    for (name, g) in [
        ("num-dual", num_dual_grad(nu, z)),
        ("echidna", echidna_grad(nu, z)),
        ("easy-ml", easy_ml_grad(&list, nu, z)),
        ("nilang-dualrev", dualrev_grad(nu, z)),
    ] {
        assert!((g - ours).abs() < 1e-7, "{name}: {g} vs {ours}");
    }

    let mut g = c.benchmark_group("Bessel J2(1.0) gradient");
    g.bench_function("objective: plain f64 series", |b| {
        b.iter(|| besselj::<f64>(black_box(nu), black_box(z)))
    });
    g.bench_function("objective: ibesselj_nocheck (reversible forward)", |b| {
        b.iter(|| {
            let (mut out, mut zz) = (0.0f64, black_box(z));
            ibesselj_nocheck(&mut out, black_box(nu), &mut zz);
            out
        })
    });
    let (mut out0, mut z0) = (0.0, z);
    ibesselj_nocheck(&mut out0, nu, &mut z0);
    g.bench_function(
        "objective: ibesselj_nocheck_inv (reversible inverse)",
        |b| {
            b.iter(|| {
                let (mut out, mut zz) = (black_box(out0), black_box(z));
                ibesselj_nocheck_inv(&mut out, black_box(nu), &mut zz);
                out
            })
        },
    );
    g.bench_function("gradient: ibesselj_nocheck_grad (reversal, ours)", |b| {
        b.iter(|| reversal(black_box(nu), black_box(z)))
    });
    g.bench_function("gradient: ibesselj_grad (reversal, checked)", |b| {
        b.iter(|| {
            let (mut out, mut zz) = (0.0, black_box(z));
            let (_, gz) = ibesselj_grad(Loss::arg(0), &mut out, black_box(nu), &mut zz).unwrap();
            gz.g
        })
    });
    g.bench_function("gradient: num-dual Dual64 (forward)", |b| {
        b.iter(|| num_dual_grad(black_box(nu), black_box(z)))
    });
    g.bench_function("gradient: echidna (tape)", |b| {
        b.iter(|| echidna_grad(black_box(nu), black_box(z)))
    });
    g.bench_function("gradient: easy-ml (Wengert list)", |b| {
        b.iter(|| easy_ml_grad(&list, black_box(nu), black_box(z)))
    });
    g.bench_function("gradient: nilang-dualrev (dual-numbers reverse)", |b| {
        b.iter(|| dualrev_grad(black_box(nu), black_box(z)))
    });
    g.finish();
}

criterion_group!(benches, bessel_grad);
criterion_main!(benches);
