//! The Box–Muller transform as an in-place reversible program: two uniforms become two
//! standard normals, and the inverse gives the uniforms back (NiLang.jl's
//! `examples/boxmuller.jl`).
//!
//! **The transform.** For `u₁ ∈ (0, 1)` and `u₂ ∈ [0, 1)`, with `r = √(−2 ln u₁)` and
//! `θ = 2π u₂`,
//!
//! `z₁ = r cos θ`,  `z₂ = r sin θ`
//!
//! are independent standard normals when `u₁, u₂` are independent uniforms. It is a bijection
//! onto the plane minus the origin, with inverse `u₁ = exp(−(z₁² + z₂²)/2)`,
//! `u₂ = atan2(z₂, z₁)/2π` (plus 1 when `z₂ < 0`), and `|det ∂z/∂u| = 1/(φ(z₁) φ(z₂))`,
//! `φ` the normal density — the change of variables behind it, which the tests check on the
//! Jacobian of the program.
//!
//! **Reversibly, in place.** [`iboxmuller`] computes the normals into two fresh ancillas
//! (`r` and `θ` are ancillas of a routine, uncomputed), exchanges them with the uniforms, and
//! must then clear the ancillas, which now hold the uniforms. Nothing in the forward formulas
//! undoes itself, so the program *recomputes* the uniforms from the normals with the inverse
//! formulas and subtracts them (NiLang's "arithmetic uncomputing"). In exact arithmetic the
//! ancillas become zero; in floating point they hold a rounding error (about `1e-16`), which
//! the deallocation accepts within the runtime checks' tolerance and drops. So
//! `iboxmuller_inv(iboxmuller(u))` gives `u` back to within a few rounding errors, not to the
//! bit: the transform is reversible arithmetically, not in finite precision.
//!
//! ```
//! use nilang_apps::boxmuller::{iboxmuller, iboxmuller_inv};
//!
//! let (mut a, mut b) = (0.3, 0.8);
//! iboxmuller(&mut a, &mut b);
//! let r = (-2.0 * 0.3f64.ln()).sqrt();
//! let theta = 2.0 * std::f64::consts::PI * 0.8;
//! assert!((a - r * theta.cos()).abs() < 1e-15 && (b - r * theta.sin()).abs() < 1e-15);
//! iboxmuller_inv(&mut a, &mut b);
//! assert!((a - 0.3).abs() < 1e-15 && (b - 0.8).abs() < 1e-15);
//! ```

use nilang::{i, Real};
use rand::{Rng, SeedableRng};

/// In place: the uniforms `(u₁, u₂)` in `(a, b)` become the normals `(z₁, z₂)`
/// (`u₁ ∈ (0, 1)`, `u₂ ∈ [0, 1)`).
#[i]
pub fn iboxmuller<T: Real>(a: &mut T, b: &mut T) {
    let (z1, z2) = (T::zero(), T::zero());
    let (theta, log_u, r2) = (T::zero(), T::zero(), T::zero());
    routine! {
        theta += b * (2.0 * std::f64::consts::PI);
        log_u += log(a);
        r2 -= 2.0 * log_u;
    }
    // (r, 0) rotated by θ is (r cos θ, r sin θ)
    z1 += sqrt(r2);
    rot(z1, z2, theta);
    uncompute!();
    dealloc!(theta = T::zero(), log_u = T::zero(), r2 = T::zero());
    swap(a, z1);
    swap(b, z2);
    // z1, z2 now hold the uniforms: clear them by recomputing the uniforms from the normals
    let (angle, rr, half) = (T::zero(), T::zero(), T::zero());
    routine! {
        angle += atan2(b, a);
        // atan2 is in (−π, π]; θ was in [0, 2π)
        if *b < T::zero() {
            angle += 2.0 * std::f64::consts::PI;
        }
        rr += square(a);
        rr += square(b);
        half -= 0.5 * rr;
    }
    z1 -= exp(half);
    z2 -= angle * (0.5 / std::f64::consts::PI);
    uncompute!();
    dealloc!(angle = T::zero(), rr = T::zero(), half = T::zero());
    // a rounding error is left in each (see the module documentation)
    dealloc!(z1 = T::zero(), z2 = T::zero());
}

/// [`iboxmuller`] on every pair `(a[k], b[k])`.
#[i]
pub fn iboxmuller_each<T: Real>(a: &mut [T], b: &mut [T]) {
    for k in 0..a.len() {
        iboxmuller(a[k], b[k]);
    }
}

/// The transform in plain Rust: `(z₁, z₂)` from `(u₁, u₂)`.
pub fn boxmuller(u1: f64, u2: f64) -> (f64, f64) {
    let r = (-2.0 * u1.ln()).sqrt();
    let theta = u2 * (2.0 * std::f64::consts::PI);
    (r * theta.cos(), r * theta.sin())
}

/// `2n` standard normals from a seed: `n` pairs of uniforms (ChaCha8) through
/// [`iboxmuller_each`], the first `n` from the `u₁`s, the last `n` from the `u₂`s.
pub fn normals(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    // `gen` is in [0, 1), and u₁ = 0 has no logarithm: draw again (u₁ = 1, where θ would be
    // lost with r = 0, cannot occur)
    let mut u1 = Vec::with_capacity(n);
    while u1.len() < n {
        let u: f64 = rng.gen();
        if u > 0.0 {
            u1.push(u);
        }
    }
    let mut u2: Vec<f64> = (0..n).map(|_| rng.gen()).collect();
    iboxmuller_each(&mut u1, &mut u2);
    u1.extend(u2);
    u1
}

#[cfg(test)]
mod tests {
    use super::*;
    use nilang::Dual;

    const GRID: [f64; 6] = [1e-9, 0.01, 0.3, 0.5, 0.77, 0.999];
    const ANGLES: [f64; 7] = [0.0, 0.1, 0.25, 0.5, 0.6, 0.75, 0.999];

    #[test]
    fn forward_matches_plain_rust() {
        for u1 in GRID {
            for u2 in ANGLES {
                let (mut a, mut b) = (u1, u2);
                iboxmuller(&mut a, &mut b);
                let (z1, z2) = boxmuller(u1, u2);
                // the same operations (θ, ln, √, and cos θ, sin θ inside `rot`), so equal up
                // to the rounding of `0·sin θ` and `0·cos θ` added by the rotation
                assert!(
                    (a - z1).abs() <= 1e-15 * z1.abs().max(1.0),
                    "{u1}, {u2}: {a} vs {z1}"
                );
                assert!(
                    (b - z2).abs() <= 1e-15 * z2.abs().max(1.0),
                    "{u1}, {u2}: {b} vs {z2}"
                );
            }
        }
    }

    #[test]
    fn inverse_recovers_the_uniforms() {
        for u1 in GRID {
            for u2 in ANGLES {
                let (mut a, mut b) = (u1, u2);
                iboxmuller(&mut a, &mut b);
                iboxmuller_inv(&mut a, &mut b);
                // u₁ = exp(−r²/2) from a rounded r²: absolute error ≈ u₁·|ln u₁|·ε ≤ ε/e; u₂
                // from atan2 and a division: a few ε
                assert!((a - u1).abs() < 4.0 * f64::EPSILON, "{u1}: {a}");
                assert!((b - u2).abs() < 4.0 * f64::EPSILON, "{u2}: {b}");
            }
        }
    }

    #[test]
    fn forward_undoes_the_inverse() {
        // the inverse on its own maps normals to uniforms
        for (z1, z2) in [(0.3, -1.2), (-2.5, 0.1), (1.0, 1.0), (-0.7, -0.4)] {
            let (mut a, mut b) = (z1, z2);
            iboxmuller_inv(&mut a, &mut b);
            assert!(a > 0.0 && a < 1.0 && (0.0..1.0).contains(&b), "{a}, {b}");
            assert!((a - (-(z1 * z1 + z2 * z2) / 2.0f64).exp()).abs() < 1e-15);
            iboxmuller(&mut a, &mut b);
            assert!((a - z1).abs() < 1e-14 && (b - z2).abs() < 1e-14, "{a}, {b}");
        }
    }

    #[test]
    fn samples_are_standard_normal() {
        let n = 50_000;
        let z = normals(n, 2026);
        let m = z.len() as f64;
        let mean = z.iter().sum::<f64>() / m;
        let var = z.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (m - 1.0);
        let within = z.iter().filter(|v| v.abs() < 1.959_963_985).count() as f64 / m;
        let corr = (0..n).map(|k| z[k] * z[n + k]).sum::<f64>() / n as f64;
        // standard errors over m = 1e5 normals: mean 1/√m ≈ 0.0032, variance √(2/m) ≈
        // 0.0045, the fraction within ±1.96 √(0.95·0.05/m) ≈ 0.0007, the pair correlation
        // 1/√n ≈ 0.0045; a deterministic seed, and bounds at five standard errors
        assert!(mean.abs() < 5.0 / m.sqrt(), "mean {mean}");
        assert!((var - 1.0).abs() < 5.0 * (2.0 / m).sqrt(), "variance {var}");
        assert!(
            (within - 0.95).abs() < 5.0 * (0.95 * 0.05 / m).sqrt(),
            "{within}"
        );
        assert!(corr.abs() < 5.0 / (n as f64).sqrt(), "correlation {corr}");
    }

    #[test]
    fn jacobian_is_the_change_of_density() {
        for (u1, u2) in [(0.5, 0.5), (0.2, 0.1), (0.9, 0.7), (0.05, 0.33)] {
            let j = iboxmuller_jacobian(&mut u1.clone(), &mut u2.clone()).unwrap();
            let (z1, z2) = boxmuller(u1, u2);
            // |det ∂z/∂u| = 1 / (φ(z₁) φ(z₂)) = 2π exp((z₁² + z₂²)/2) = 2π / u₁
            let det = j[(0, 0)] * j[(1, 1)] - j[(0, 1)] * j[(1, 0)];
            let log_det = (2.0 * std::f64::consts::PI).ln() + (z1 * z1 + z2 * z2) / 2.0;
            assert!((det.abs().ln() - log_det).abs() < 1e-12, "{u1}, {u2}");
            // each entry against a central difference of the plain transform
            let h = 1e-7;
            for (col, (du1, du2)) in [(0, (h, 0.0)), (1, (0.0, h))] {
                let (p1, p2) = boxmuller(u1 + du1, u2 + du2);
                let (m1, m2) = boxmuller(u1 - du1, u2 - du2);
                for (row, numeric) in [(0, (p1 - m1) / (2.0 * h)), (1, (p2 - m2) / (2.0 * h))] {
                    // truncation h²·f‴ (f‴ ~ 1/u₁³ for the logarithm) and round-off ε/h
                    let tol = 1e-6 * (1.0 + numeric.abs());
                    assert!((j[(row, col)] - numeric).abs() < tol, "{row}, {col}");
                }
            }
            // and against forward mode: one dual-number pass per input is one column
            for col in 0..2 {
                let seed = |k| if k == col { 1.0 } else { 0.0 };
                let (mut a, mut b) = (Dual::new(u1, seed(0)), Dual::new(u2, seed(1)));
                iboxmuller(&mut a, &mut b);
                assert!((a.eps - j[(0, col)]).abs() < 1e-12 * j[(0, col)].abs().max(1.0));
                assert!((b.eps - j[(1, col)]).abs() < 1e-12 * j[(1, col)].abs().max(1.0));
            }
        }
    }
}
