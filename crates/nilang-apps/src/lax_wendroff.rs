//! The Lax–Wendroff scheme for the 1-D advection equation, written as a reversible program and
//! differentiated with respect to its initial condition and its Courant number (NiLang.jl's
//! `examples/lax_wendroff.jl`).
//!
//! **The equation and the scheme.** `∂q/∂t + u ∂q/∂x = 0` moves a profile `q(x)` at speed `u`
//! without changing its shape. On a periodic grid of `n` cells (cell `i`'s right neighbour is
//! `i + 1 mod n`) with Courant number `c = u Δt / Δx`, one step computes the flux through
//! every cell's right face from the old values,
//!
//! `F_i = (c/2) (q_i + q_{i+1}) + (c²/2) (q_i − q_{i+1})`,
//!
//! and then moves it: `q_i ← q_i + F_{i−1} − F_i`. It is second order, stable for `|c| ≤ 1`,
//! and has two exact properties the tests check: the fluxes telescope, so `Σ q_i` is conserved;
//! and at `c = 1` the flux is `F_i = q_i`, so a step is an exact shift by one cell.
//!
//! **Reversibly.** A step overwrites `q`, and recovering the old `q` from the new one would
//! mean solving a linear system: the program instead keeps each step's fluxes in a cache
//! `flux` (`steps · n` numbers, zero on entry, step `t`'s at `t·n …`; NiLang.jl's example keeps
//! them in a matrix in the same way). With the fluxes stored, the update `q_i += F_{i−1} − F_i`
//! is undone by subtracting them, and then the fluxes are uncomputed from the restored `q`. So
//! the inverse [`ilax_wendroff_inv`] runs the steps backwards, and the adjoint program of
//! [`ilax_energy`] gives `∂E/∂q(0)` and `∂E/∂c` with no tape beyond the cache. Memory is
//! `O(steps · n)`, the price of reversing a dissipative scheme by storing; a checkpointing
//! schedule ([`nilang::schedule`]) would trade it for recomputation.
//!
//! In floating point, `q + δ − δ` need not give `q` back to the bit, so the inverse restores
//! the initial condition to within a few rounding errors per step (the tests state bounds).
//!
//! ```
//! use nilang_apps::lax_wendroff::{energy_gradient, lax_wendroff};
//!
//! // a bump advected for 40 steps at c = 0.5 on 32 cells
//! let q0: Vec<f64> = (0..32).map(|i| (-((i as f64 - 10.0) / 3.0).powi(2)).exp()).collect();
//! let q = lax_wendroff(&q0, 0.5, 40);
//! let mass = |q: &[f64]| q.iter().sum::<f64>();
//! assert!((mass(&q) - mass(&q0)).abs() < 1e-12);
//! // E = Σ q_i(T)² and its gradient with respect to q(0) and c
//! let (e, dq0, dc) = energy_gradient(&q0, 0.5, 40);
//! assert!((e - q.iter().map(|v| v * v).sum::<f64>()).abs() < 1e-12);
//! assert_eq!(dq0.len(), 32);
//! // below c = 1 the scheme damps the bump: E is less than its initial value
//! assert!(e < q0.iter().map(|v| v * v).sum::<f64>());
//! // ∂E/∂c against a central difference of the plain scheme
//! let energy = |c: f64| lax_wendroff(&q0, c, 40).iter().map(|v| v * v).sum::<f64>();
//! assert!((dc - (energy(0.5 + 1e-6) - energy(0.5 - 1e-6)) / 2e-6).abs() < 1e-6);
//! ```

use nilang::{i, Loss, Real};

/// `steps` Lax–Wendroff steps on the periodic grid `q`, in place, with Courant number `c`;
/// step `t`'s fluxes are added to `flux[t·n .. (t + 1)·n]` (`n = q.len()`, `flux` zero on
/// entry and at least `steps · n` long).
#[i]
pub fn ilax_wendroff<T: Real>(q: &mut [T], flux: &mut [T], c: &mut T, steps: usize) {
    let half_c = T::zero();
    routine! {
        half_c += 0.5 * c;
    }
    for t in 0..steps {
        for i in 0..q.len() {
            let (diff, sum) = (T::zero(), T::zero());
            routine! {
                diff += q[i] - q[(i + 1) % q.len()];
                sum += q[i] + q[(i + 1) % q.len()];
                sum += c * diff;
            }
            flux[t * q.len() + i] += half_c * sum;
            uncompute!();
            dealloc!(diff = T::zero(), sum = T::zero());
        }
        // every flux of step t is known before any q_i moves: the update reads old values only
        for i in 0..q.len() {
            q[i] += flux[t * q.len() + (i + q.len() - 1) % q.len()] - flux[t * q.len() + i];
        }
    }
    uncompute!();
    dealloc!(half_c = T::zero());
}

/// `energy += Σ_i q_i(T)²` after `steps` steps from the initial condition in `q` (which holds
/// `q(T)` on exit): a scalar to differentiate with respect to `q(0)` and `c`.
#[i]
pub fn ilax_energy<T: Real>(energy: &mut T, q: &mut [T], flux: &mut [T], c: &mut T, steps: usize) {
    ilax_wendroff(q, flux, c, steps);
    for i in 0..q.len() {
        energy += square(q[i]);
    }
}

/// The same scheme in plain Rust: `q(T)` from `q(0)`, each step's fluxes computed in the
/// reversible program's order of operations.
pub fn lax_wendroff(q0: &[f64], c: f64, steps: usize) -> Vec<f64> {
    let n = q0.len();
    let mut q = q0.to_vec();
    let mut f = vec![0.0; n];
    for _ in 0..steps {
        for i in 0..n {
            let (a, b) = (q[i], q[(i + 1) % n]);
            f[i] = 0.5 * c * ((a + b) + c * (a - b));
        }
        for i in 0..n {
            q[i] += f[(i + n - 1) % n] - f[i];
        }
    }
    q
}

/// `E = Σ q_i(T)²`, `∂E/∂q(0)` and `∂E/∂c`, by reversal of [`ilax_energy`].
pub fn energy_gradient(q0: &[f64], c: f64, steps: usize) -> (f64, Vec<f64>, f64) {
    let (mut e, mut q, mut cc) = (0.0, q0.to_vec(), c);
    let mut flux = vec![0.0; steps * q0.len()];
    let (_, gq, _, gc) = ilax_energy_grad(Loss::arg(0), &mut e, &mut q, &mut flux, &mut cc, steps)
        .expect("argument 0 is the energy");
    (e, gq.iter().map(|g| g.g).collect(), gc.g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nilang::Dual;
    use rand::{Rng, SeedableRng};

    fn profile(n: usize, seed: u64) -> Vec<f64> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect()
    }

    fn max_diff(a: &[f64], b: &[f64]) -> f64 {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max)
    }

    fn run(q0: &[f64], c: f64, steps: usize) -> (Vec<f64>, Vec<f64>, f64) {
        let (mut q, mut flux, mut cc) = (q0.to_vec(), vec![0.0; steps * q0.len()], c);
        ilax_wendroff(&mut q, &mut flux, &mut cc, steps);
        (q, flux, cc)
    }

    #[test]
    fn matches_plain_rust() {
        for (n, c, steps) in [(5, 0.3, 7), (16, 0.8, 50), (40, -0.6, 25)] {
            let q0 = profile(n, n as u64);
            let (q, _, _) = run(&q0, c, steps);
            let want = lax_wendroff(&q0, c, steps);
            // the same operations in the same order; allow a rounding per step for the
            // accumulation of `c/2` into an ancilla before the product
            assert!(
                max_diff(&q, &want) < 1e-14 * steps as f64,
                "n = {n}, c = {c}"
            );
        }
    }

    #[test]
    fn conserves_mass_on_the_periodic_grid() {
        let q0 = profile(64, 1);
        let (q, _, _) = run(&q0, 0.7, 200);
        let (m0, m) = (q0.iter().sum::<f64>(), q.iter().sum::<f64>());
        // exactly conserved in real arithmetic; each of the 200 · 64 updates rounds once
        // (ε · |q| ≲ 2e-16), so the drift stays far below 1e-11
        assert!((m - m0).abs() < 1e-11, "{m} vs {m0}");
        // while the profile itself changed (dissipation at c < 1)
        assert!(max_diff(&q, &q0) > 0.1);
    }

    #[test]
    fn courant_number_one_is_an_exact_shift() {
        let n = 24;
        let q0 = profile(n, 2);
        for steps in [1, 5, n] {
            let (q, _, _) = run(&q0, 1.0, steps);
            let shifted: Vec<f64> = (0..n).map(|i| q0[(i + n - steps % n) % n]).collect();
            // F_i = q_i only up to the rounding of (q_i + q_{i+1}) + (q_i − q_{i+1}) and of
            // the update: a few ε per step
            assert!(
                max_diff(&q, &shifted) < 1e-15 * (4 * steps) as f64,
                "steps = {steps}"
            );
        }
    }

    #[test]
    fn inverse_restores_the_initial_condition() {
        let q0 = profile(32, 3);
        let steps = 100;
        let (mut q, mut flux, mut c) = run(&q0, 0.6, steps);
        assert!(flux.iter().any(|&f| f != 0.0));
        ilax_wendroff_inv(&mut q, &mut flux, &mut c, steps);
        // `q + δ − δ` is exact up to one rounding of each update, so the initial condition
        // comes back within a few ε per step, and the flux cache within as much of zero
        assert!(max_diff(&q, &q0) < 1e-13, "{}", max_diff(&q, &q0));
        assert!(flux.iter().all(|f| f.abs() < 1e-13));
        assert_eq!(c, 0.6);
    }

    #[test]
    fn gradient_matches_central_differences() {
        let (n, c, steps) = (12, 0.55, 30);
        let q0 = profile(n, 4);
        let energy = |q0: &[f64], c: f64| {
            lax_wendroff(q0, c, steps)
                .iter()
                .map(|v| v * v)
                .sum::<f64>()
        };
        let (e, gq, gc) = energy_gradient(&q0, c, steps);
        assert!((e - energy(&q0, c)).abs() < 1e-12);
        let h = 1e-6;
        for j in 0..n {
            let (mut up, mut down) = (q0.clone(), q0.clone());
            up[j] += h;
            down[j] -= h;
            // E is quadratic in q(0): the central difference is exact up to round-off ε·E/h
            let numeric = (energy(&up, c) - energy(&down, c)) / (2.0 * h);
            assert!(
                (gq[j] - numeric).abs() < 1e-8,
                "j = {j}: {} vs {numeric}",
                gq[j]
            );
        }
        // in c, E is a polynomial of degree 4·steps: truncation O(h²) with a large constant
        let numeric = (energy(&q0, c + h) - energy(&q0, c - h)) / (2.0 * h);
        assert!(
            (gc - numeric).abs() < 1e-6 * numeric.abs().max(1.0),
            "{gc} vs {numeric}"
        );
    }

    #[test]
    fn gradient_matches_forward_mode() {
        // one pass on dual numbers seeded with a direction (dq, dc) gives ∇E · (dq, dc)
        let (n, c, steps) = (10, -0.4, 20);
        let q0 = profile(n, 5);
        let dq = profile(n, 6);
        let dc = 0.7;
        let (_, gq, gc) = energy_gradient(&q0, c, steps);
        let want = gq.iter().zip(&dq).map(|(g, d)| g * d).sum::<f64>() + gc * dc;
        let mut q: Vec<Dual<f64>> = q0.iter().zip(&dq).map(|(&v, &d)| Dual::new(v, d)).collect();
        let mut flux = vec![Dual::constant(0.0); steps * n];
        let (mut e, mut cd) = (Dual::constant(0.0), Dual::new(c, dc));
        ilax_energy(&mut e, &mut q, &mut flux, &mut cd, steps);
        assert!(
            (e.eps - want).abs() < 1e-12 * want.abs().max(1.0),
            "{} vs {want}",
            e.eps
        );
    }
}
