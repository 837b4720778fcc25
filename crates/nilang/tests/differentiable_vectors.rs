//! `#[differentiable]` on whole vectors as plain Rust handles them: another name for a vector
//! (`let u = x;`), a copy (`x.to_vec()`, `x[a..b].to_vec()`, `.clone()`, one that shadows its
//! source), `x.iter().sum()` and `.product()` inside expressions, and `copy_from_slice` (sub-
//! slices on either side), and loops over vectors side by side (`zip`, enumerated, a zip of a
//! zip, vectors of different lengths, parts of vectors, constant tables). For each program, on random inputs (proptest): the reversible
//! program's value equals the plain function's bit for bit, `f_rev_inv` undoes `f_rev`, and
//! the gradient of `f_gradient` agrees with central differences of the plain function and
//! with forward mode (the reversible program run on `Dual` numbers).

use nilang::{differentiable, Dual};
use proptest::prelude::*;

#[path = "support/agreement.rs"]
mod agreement;
use agreement::{duals, inputs};

const STEPS: usize = 6;

/// An explicit heat equation with fixed ends, stepped with a copy of its input and
/// `copy_from_slice`, ending in a sum and a product over a copied part.
#[differentiable]
fn heat(u0: &[f64], kappa: f64, steps: usize) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    let mut next = vec![0.0; n];
    for _ in 0..steps {
        next[0] = u[0];
        next[n - 1] = u[n - 1];
        for i in 1..n - 1 {
            next[i] = u[i] + kappa * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        }
        u.copy_from_slice(&next);
    }
    let total: f64 = u.iter().sum();
    let tail = u[n / 2..].to_vec();
    let u = tail;
    total * total + u.iter().product::<f64>() + u0[1..n - 1].iter().sum::<f64>()
}

/// A copy that shadows its source, sub-slice copies in both directions, another name for a
/// vector, and a clone of a local vector.
#[differentiable]
fn shifted(x: &[f64]) -> f64 {
    let x = x.to_vec();
    let mut y = vec![0.0; x.len() + 2];
    y[1..x.len() + 1].copy_from_slice(&x[..]);
    y[0..2].copy_from_slice(&x[1..=2]);
    let z = &y;
    let w = z.clone();
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[i] * (i as f64 + 1.0) * z[i];
    }
    s * x.iter().sum::<f64>()
}

const W: [f64; 3] = [0.5, -1.0, 2.0];

/// Vectors side by side: an enumerated zip of a zip (with data, `w`), and a zip of vectors of
/// different lengths (it stops at the shorter, as Rust's does); a sum of the data.
#[differentiable(wrt(x, y))]
fn zipped(x: &[f64], y: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, (a, (b, &wi))) in x.iter().zip(y.iter().zip(w)).enumerate() {
        s += wi * a * b * (i as f64 + 1.0);
    }
    for (&a, b) in x.iter().zip(y) {
        s += (a - b).powi(2);
    }
    s * w.iter().sum::<f64>()
}

fn check_heat(v: &[f64], dir: &[f64]) {
    let n = v.len() - 1;
    let plain = |v: &[f64]| heat(&v[..n], v[n], STEPS);
    let (mut u0, mut kappa, mut out) = (v[..n].to_vec(), v[n], 0.0);
    heat_rev(&mut out, &mut u0, &mut kappa, STEPS);
    assert_eq!(out.to_bits(), plain(v).to_bits(), "f_rev's value");
    heat_rev_inv(&mut out, &mut u0, &mut kappa, STEPS);
    assert_eq!(
        (&u0[..], kappa, out),
        (&v[..n], v[n], 0.0),
        "f_rev_inv undoes f_rev"
    );
    let (value, (du, dkappa)) = heat_gradient(&v[..n], v[n], STEPS);
    assert_eq!(value.to_bits(), plain(v).to_bits(), "f_gradient's value");
    let grad = [du, vec![dkappa]].concat();
    nilang::ad::check_gradient(plain, v, &grad, 1e-6, 1e-5).unwrap();
    let d = duals(v, dir);
    let (mut u0, mut kappa) = (d[..n].to_vec(), d[n]);
    let mut out = Dual { re: 0.0, eps: 0.0 };
    heat_rev(&mut out, &mut u0, &mut kappa, STEPS);
    let along: f64 = grad.iter().zip(dir).map(|(g, d)| g * d).sum();
    assert!(
        (along - out.eps).abs() <= 1e-10 * (1.0 + out.eps.abs()),
        "{along} vs {}",
        out.eps
    );
}

fn check_shifted(v: &[f64], dir: &[f64]) {
    let (mut x, mut out) = (v.to_vec(), 0.0);
    shifted_rev(&mut out, &mut x);
    assert_eq!(out.to_bits(), shifted(v).to_bits(), "f_rev's value");
    shifted_rev_inv(&mut out, &mut x);
    assert_eq!((&x[..], out), (v, 0.0), "f_rev_inv undoes f_rev");
    let (value, grad) = shifted_gradient(v);
    assert_eq!(value.to_bits(), shifted(v).to_bits(), "f_gradient's value");
    nilang::ad::check_gradient(shifted, v, &grad, 1e-6, 1e-5).unwrap();
    let mut x = duals(v, dir);
    let mut out = Dual { re: 0.0, eps: 0.0 };
    shifted_rev(&mut out, &mut x);
    let along: f64 = grad.iter().zip(dir).map(|(g, d)| g * d).sum();
    assert!(
        (along - out.eps).abs() <= 1e-10 * (1.0 + out.eps.abs()),
        "{along} vs {}",
        out.eps
    );
}

fn check_zipped(v: &[f64], dir: &[f64]) {
    let plain = |v: &[f64]| zipped(&v[..4], &v[4..], &W);
    let (mut x, mut y, mut out) = (v[..4].to_vec(), v[4..].to_vec(), 0.0);
    zipped_rev(&mut out, &mut x, &mut y, &W);
    assert_eq!(out.to_bits(), plain(v).to_bits(), "f_rev's value");
    zipped_rev_inv(&mut out, &mut x, &mut y, &W);
    assert_eq!(
        (&x[..], &y[..], out),
        (&v[..4], &v[4..], 0.0),
        "f_rev_inv undoes f_rev"
    );
    let (value, (dx, dy)) = zipped_gradient(&v[..4], &v[4..], &W);
    assert_eq!(value.to_bits(), plain(v).to_bits(), "f_gradient's value");
    assert_eq!(dx[3], 0.0, "x[3] has no partner in y");
    let grad = [dx, dy].concat();
    nilang::ad::check_gradient(plain, v, &grad, 1e-6, 1e-5).unwrap();
    let d = duals(v, dir);
    let (mut x, mut y) = (d[..4].to_vec(), d[4..].to_vec());
    let mut out = Dual { re: 0.0, eps: 0.0 };
    zipped_rev(&mut out, &mut x, &mut y, &W);
    let along: f64 = grad.iter().zip(dir).map(|(g, d)| g * d).sum();
    assert!(
        (along - out.eps).abs() <= 1e-10 * (1.0 + out.eps.abs()),
        "{along} vs {}",
        out.eps
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn heat_agrees((mut v, dir) in inputs(7, 0.5, 1.5)) {
        v[6] *= 0.2; // kappa: a stable step
        check_heat(&v, &dir);
    }

    #[test]
    fn zipped_agrees((v, dir) in inputs(7, -1.0, 1.0)) {
        check_zipped(&v, &dir);
    }

    #[test]
    fn shifted_agrees((v, dir) in inputs(4, -1.0, 1.0)) {
        check_shifted(&v, &dir);
    }
}

/// Lanczos' coefficients for g = 7, nine terms (the table of the Lanczos approximation).
const LANCZOS: [f64; 9] = [
    0.999_999_999_999_809_9,
    676.520_368_121_885_1,
    -1_259.139_216_722_402_8,
    771.323_428_777_653_1,
    -176.615_029_162_140_6,
    12.507_343_278_686_905,
    -0.138_571_095_265_720_12,
    9.984_369_578_019_572e-6,
    1.505_632_735_149_311_6e-7,
];

/// ln Γ(x), x > 0.5, by Lanczos: a loop over a constant table, a method of a constant.
#[differentiable]
fn ln_gamma(x: f64) -> f64 {
    let z = x - 1.0;
    let mut a = LANCZOS[0];
    for (i, &c) in LANCZOS.iter().enumerate() {
        if i > 0 {
            a += c / (z + i as f64);
        }
    }
    let t = z + 7.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (z + 0.5) * t.ln() - t + a.ln()
}

/// A vector beside a constant table.
#[differentiable]
fn weighted(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (a, &w) in x.iter().zip(LANCZOS.iter()) {
        s += a * w;
    }
    s
}

#[test]
fn loops_over_constant_tables() {
    // Γ(4.5) = 3.5 · 2.5 · 1.5 · 0.5 · √π; ψ(4.5) = ψ(1/2) + 2 (1 + 1/3 + 1/5 + 1/7), with
    // ψ(1/2) = −γ − 2 ln 2
    let pi = std::f64::consts::PI;
    let ln_gamma_ref = (3.5 * 2.5 * 1.5 * 0.5 * pi.sqrt()).ln();
    let euler_gamma = 0.577_215_664_901_532_9;
    let digamma_ref = -euler_gamma - 2.0 * 2f64.ln() + 2.0 * (1.0 + 1.0 / 3.0 + 0.2 + 1.0 / 7.0);
    let (value, d) = ln_gamma_gradient(4.5);
    assert_eq!(value.to_bits(), ln_gamma(4.5).to_bits());
    assert!(
        (value - ln_gamma_ref).abs() < 1e-13,
        "{value} vs {ln_gamma_ref}"
    );
    assert!((d - digamma_ref).abs() < 1e-13, "{d} vs {digamma_ref}");
    let mut out = Dual { re: 0.0, eps: 0.0 };
    ln_gamma_rev(&mut out, &mut Dual { re: 4.5, eps: 1.0 });
    assert!((out.eps - d).abs() < 1e-13);
    let (value, g) = weighted_gradient(&[1.0, 2.0, 3.0, 4.0]);
    assert_eq!(value, weighted(&[1.0, 2.0, 3.0, 4.0]));
    assert_eq!(g, LANCZOS[..4]);
}

/// Loops over parts of a vector: alone, enumerated, and two parts side by side (differences of
/// neighbours).
#[differentiable]
fn parts(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for v in x[1..].iter() {
        s += v * v;
    }
    for (i, &v) in x[..n - 1].iter().enumerate() {
        s += v * i as f64;
    }
    for (a, b) in x[1..].iter().zip(x[..n - 1].iter()) {
        s += (a - b).powi(2);
    }
    s
}

#[test]
fn loops_over_parts_of_a_vector() {
    let x = [0.5, -1.0, 2.0, 0.25];
    let (value, grad) = parts_gradient(&x);
    assert_eq!(value.to_bits(), parts(&x).to_bits());
    nilang::ad::check_gradient(parts, &x, &grad, 1e-6, 1e-6).unwrap();
    let dir = [1.0, -0.5, 0.25, 2.0];
    let mut out = Dual { re: 0.0, eps: 0.0 };
    parts_rev(&mut out, &mut duals(&x, &dir));
    let along: f64 = grad.iter().zip(dir).map(|(g, d)| g * d).sum();
    assert!((along - out.eps).abs() < 1e-12 * (1.0 + along.abs()));
}

/// A sum alone: Rust's starts from −0.
#[differentiable]
fn total(x: &[f64]) -> f64 {
    x.iter().sum::<f64>()
}

/// A value of −0 from a program that saves (its `exp`): `f_gradient` runs its taped program.
#[differentiable]
fn negative_zero(x: &[f64]) -> f64 {
    let e = x[0].exp();
    -(e * 0.0) + x.iter().sum::<f64>() * 0.0
}

#[test]
fn a_sum_keeps_the_sign_of_zero() {
    let (value, _) = negative_zero_gradient(&[0.5, -1.0]);
    assert_eq!(value.to_bits(), negative_zero(&[0.5, -1.0]).to_bits());
    assert_eq!(value.to_bits(), (-0.0f64).to_bits());
    for x in [&[-0.0][..], &[-0.0, -0.0], &[0.0, -0.0], &[1.5, -2.0]] {
        let (value, grad) = total_gradient(x);
        assert_eq!(value.to_bits(), total(x).to_bits(), "{x:?}");
        assert_eq!(grad, vec![1.0; x.len()]);
    }
    assert_eq!(total(&[-0.0]).to_bits(), (-0.0f64).to_bits());
}

#[differentiable]
fn mismatched(x: &[f64], m: usize) -> f64 {
    let mut y = vec![0.0; m];
    y.copy_from_slice(x);
    y[0] * y[0]
}

#[test]
fn equal_lengths_copy() {
    assert_eq!(mismatched_gradient(&[3.0, 1.0], 2), (9.0, vec![6.0, 0.0]));
    assert_eq!(mismatched(&[3.0, 1.0], 2), 9.0);
}

#[test]
#[should_panic(expected = "copy_from_slice: the destination has length 3, the source 2")]
fn copy_from_slice_of_another_length_panics_naming_both() {
    let _ = mismatched_gradient(&[1.0, 2.0], 3);
}
