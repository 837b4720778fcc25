//! `ibesselj_terms`, the Bessel program that keeps the powers of `(z/2)²` in a fixed array of slots:
//! its value against the plain series, its inverse, and its gradient against the exact
//! derivative and against the other AD modes (`_adjoint`, the inverse on `GVar`s).

use nilang::special::{
    besselj_series, ibesselj_terms, ibesselj_terms_adjoint, ibesselj_terms_inv,
    ibesselj_terms_nocheck, ibesselj_terms_nocheck_vjp, ibesselj_terms_vjp, BESSEL_SLOTS,
};
use nilang::GVar;

/// The terms of the plain series `besselj_series(ν, z)` sums, in order.
fn series_terms(nu: i64, z: f64) -> Vec<f64> {
    let h = z / 2.0;
    let mut s = h.powi(nu as i32) / (1..=nu).map(|i| i as f64).product::<f64>();
    let mut terms = vec![s];
    let mut k = 0i64;
    while s.abs() > 1e-8 {
        k += 1;
        s *= h * h / -((k * (k + nu)) as f64);
        terms.push(s);
    }
    terms
}

/// J_ν(z) to full precision (40 terms), for the exact derivative.
fn bessel_j(nu: i64, z: f64) -> f64 {
    let h = z / 2.0;
    let mut term = h.powi(nu as i32) / (1..=nu).map(|i| i as f64).product::<f64>();
    let mut sum = 0.0;
    for k in 1..=40 {
        sum += term;
        term *= -h * h / (k * (k + nu)) as f64;
    }
    sum
}

#[test]
fn the_slots_hold_every_term_for_the_documented_range() {
    // BESSEL_SLOTS' promise: every ν ≥ 0 with |z| ≤ 16 (fewer terms as ν grows)
    for nu in 0..=30 {
        for i in 0..=64 {
            let z = -16.0 + 0.5 * i as f64;
            let n = series_terms(nu, z).len();
            assert!(n <= BESSEL_SLOTS, "ν = {nu}, z = {z}: {n} terms");
        }
    }
    // and the range is not much wider than that: |z| = 20 needs more slots for ν = 0
    assert!(series_terms(0, 20.0).len() > BESSEL_SLOTS);
}

#[test]
fn value_is_the_plain_series_and_the_inverse_restores_the_inputs() {
    for nu in 0..=12 {
        for i in 0..=64 {
            let z = -16.0 + 0.5 * i as f64;
            let largest = series_terms(nu, z)
                .iter()
                .fold(1.0f64, |m, t| m.max(t.abs()));
            let (mut out, mut zz) = (0.0, z);
            ibesselj_terms(&mut out, nu, &mut zz); // checked: ancillas and loop conditions
            let series = besselj_series(nu, z);
            assert!(
                (out - series).abs() <= 1e-14 * largest,
                "ν = {nu}, z = {z}: {out} vs {series}"
            );
            let (mut unchecked, mut zu) = (0.0, z);
            ibesselj_terms_nocheck(&mut unchecked, nu, &mut zu);
            assert_eq!(unchecked.to_bits(), out.to_bits());
            ibesselj_terms_inv(&mut out, nu, &mut zz);
            assert_eq!((out, zz), (0.0, z), "ν = {nu}, z = {z}");
        }
    }
}

#[test]
fn gradient_is_the_derivative_and_every_mode_agrees() {
    for nu in 0..=5 {
        for z in [0.0, 0.3, 1.0, 1.7, 2.5, -3.0, 4.0] {
            // vjp on caller buffers, checks off (what the benchmark runs)
            let (mut out, mut zz, mut og, mut zg) = (0.0, z, 1.0, 0.0);
            ibesselj_terms_nocheck_vjp(&mut out, &mut og, nu, (), &mut zz, &mut zg);
            assert_eq!((out, zz), (0.0, z), "the vjp restores its arguments");
            let exact = if nu == 0 {
                -bessel_j(1, z)
            } else {
                (bessel_j(nu - 1, z) - bessel_j(nu + 1, z)) / 2.0
            };
            // the series stops at terms of 1e-8: its derivative is that close to the exact one
            assert!(
                (zg - exact).abs() < 1e-7,
                "ν = {nu}, z = {z}: {zg} vs {exact}"
            );
            // checked vjp, forward then adjoint, and the inverse run on GVar values agree bit for bit
            let (mut out, mut zz, mut og, mut zc) = (0.0, z, 1.0, 0.0);
            ibesselj_terms_vjp(&mut out, &mut og, nu, (), &mut zz, &mut zc);
            let (mut out, mut zz, mut og, mut za) = (0.0, z, 1.0, 0.0);
            ibesselj_terms(&mut out, nu, &mut zz);
            ibesselj_terms_adjoint(&mut out, &mut og, nu, (), &mut zz, &mut za);
            let (mut out, mut zz) = (0.0, z);
            ibesselj_terms(&mut out, nu, &mut zz);
            let (mut wo, mut wz) = (GVar::with_grad(out, 1.0), GVar::new(zz));
            ibesselj_terms_inv(&mut wo, nu, &mut wz);
            for g in [zc, za, wz.g] {
                assert_eq!(g.to_bits(), zg.to_bits(), "ν = {nu}, z = {z}");
            }
        }
    }
}

/// Past the range where the slots always suffice, the program says so instead of risking a
/// truncated sum.
#[test]
fn too_many_terms_is_an_error_not_a_truncated_sum() {
    let result = std::panic::catch_unwind(|| {
        let (mut out, mut z) = (0.0, 20.0);
        ibesselj_terms_nocheck(&mut out, 0, &mut z);
        out
    });
    let err = result.expect_err("J_0(20) needs more terms than the slots");
    let text = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(text.contains("needs more than"), "{text}");
}
