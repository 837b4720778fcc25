//! Griewank's pyramid (Griewank & Walther, *Evaluating Derivatives*, §3.5; NiLang.jl's
//! `examples/pyramid.jl`): a triangular recurrence whose value depends on every input through
//! every level, the book's example of what reversal costs.
//!
//! **The recurrence.** Level 0 holds the `n ≥ 1` inputs, `v_{0,j} = x_j`; level `k + 1` has one
//! entry fewer than level `k`,
//!
//! `v_{k+1,j} = sin(v_{k,j}) · cos(v_{k,j+1})`,  `j = 0 … n − k − 2`,
//!
//! and the output is the apex, `y = v_{n−1,0}` (the two-argument `f` is NiLang.jl's choice). The
//! value takes `n(n − 1)/2` products; every level depends on the one below it only, so an
//! irreversible program keeps two levels (`O(n)` memory) and overwrites them.
//!
//! **Reversibly.** [`ipyramid`] keeps every level in a workspace of `n(n + 1)/2` numbers (level
//! `k` at [`level`]`(n, k)`): each entry is computed once into a zero place and never
//! overwritten, which is what makes the program its own record — the inverse and the adjoint
//! program run the levels top down and read the stored values, with no tape. This is the
//! book's "store everything" reversal: `O(n²)` memory for `O(n²)` operations, and the adjoint
//! sweep recomputes each product's two factors from the stored level below it rather than
//! keeping them. [`ipyramid_clean`] adds `y` and uncomputes the levels
//! (Bennett's compute–copy–uncompute), so the workspace is zero again on exit at the price of
//! running the pyramid twice.
//!
//! ```
//! use nilang_apps::pyramid::{gradient, pyramid};
//!
//! let x = [0.3, -0.2, 1.1, 0.7, 0.4];
//! let (y, dx) = gradient(&x);
//! assert!((y - pyramid(&x)).abs() < 1e-15);
//! // ∂y/∂x₀ by a central difference
//! let h = 1e-6;
//! let (mut up, mut down) = (x, x);
//! up[0] += h;
//! down[0] -= h;
//! let numeric = (pyramid(&up) - pyramid(&down)) / (2.0 * h);
//! assert!((dx[0] - numeric).abs() < 1e-8);
//! ```

use nilang::{i, Loss, Real};

/// Offset of level `k` in the workspace of a pyramid over `n` inputs: the levels below it
/// hold `n + (n − 1) + … + (n − k + 1)` entries.
pub const fn level(n: usize, k: usize) -> usize {
    k * n - k * k.saturating_sub(1) / 2
}

/// Length of the workspace of a pyramid over `n` inputs, `n(n + 1)/2`.
pub const fn workspace_len(n: usize) -> usize {
    n * (n + 1) / 2
}

/// `y += v_{n−1,0}`, every level left in `v` (zero on entry, [`workspace_len`]`(n)` long).
#[i]
pub fn ipyramid<T: Real>(y: &mut T, v: &mut [T], x: &mut [T]) {
    for j in 0..x.len() {
        v[j] += identity(x[j]);
    }
    for k in 0..x.len() - 1 {
        for j in 0..x.len() - k - 1 {
            let (s, c) = (T::zero(), T::zero());
            // the two factors live only as long as the product that needs them
            routine! {
                s += sin(v[level(x.len(), k) + j]);
                c += cos(v[level(x.len(), k) + j + 1]);
            }
            v[level(x.len(), k + 1) + j] += s * c;
            uncompute!();
            dealloc!(s = T::zero(), c = T::zero());
        }
    }
    y += identity(v[level(x.len(), x.len() - 1)]);
}

/// `y += v_{n−1,0}` with the workspace `v` zero on entry and on exit: the levels are computed,
/// the apex added to `y`, and the levels uncomputed.
#[i]
pub fn ipyramid_clean<T: Real>(y: &mut T, v: &mut [T], x: &mut [T]) {
    let apex = T::zero();
    routine! {
        ipyramid(apex, v, x);
    }
    y += identity(apex);
    uncompute!();
    dealloc!(apex = T::zero());
}

/// The same value in plain Rust, keeping one level at a time.
pub fn pyramid(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for k in 0..x.len() - 1 {
        for j in 0..x.len() - k - 1 {
            v[j] = v[j].sin() * v[j + 1].cos();
        }
    }
    v[0]
}

/// `y` and `∂y/∂x` by reversal of [`ipyramid_clean`].
pub fn gradient(x: &[f64]) -> (f64, Vec<f64>) {
    let (mut y, mut v, mut xs) = (0.0, vec![0.0; workspace_len(x.len())], x.to_vec());
    let (_, _, gx) = ipyramid_clean_grad(Loss::arg(0), &mut y, &mut v, &mut xs)
        .expect("argument 0 is the output");
    (y, gx.iter().map(|g| g.g).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nilang::Dual;
    use rand::{Rng, SeedableRng};

    fn inputs(n: usize, seed: u64) -> Vec<f64> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (0..n).map(|_| rng.gen_range(-1.5..1.5)).collect()
    }

    #[test]
    fn levels_tile_the_workspace() {
        for n in 1..8 {
            for k in 0..n {
                assert_eq!(level(n, k + 1) - level(n, k), n - k);
            }
            assert_eq!(level(n, n), workspace_len(n));
        }
    }

    #[test]
    fn value_matches_plain_rust_and_inverse_restores() {
        for n in [1, 2, 3, 7, 20] {
            let x0 = inputs(n, n as u64);
            let (mut y, mut v, mut x) = (0.25, vec![0.0; workspace_len(n)], x0.clone());
            ipyramid(&mut y, &mut v, &mut x);
            // the same operations in the same order: equal to the bit
            assert_eq!(y, 0.25 + pyramid(&x0), "n = {n}");
            assert_eq!(v[level(n, n - 1)], pyramid(&x0));
            // level 1 is the first application of f
            if n > 1 {
                assert_eq!(v[level(n, 1)], x0[0].sin() * x0[1].cos());
            }
            ipyramid_inv(&mut y, &mut v, &mut x);
            // `v[·] -= s · c` subtracts exactly what `+=` added to a zero place (the same
            // factors, recomputed from untouched levels), so every entry is an exact zero;
            // only `y` went through a rounded addition and back
            assert!(v.iter().all(|&e| e == 0.0), "n = {n}: {v:?}");
            assert_eq!(x, x0);
            assert!((y - 0.25).abs() <= f64::EPSILON);
        }
    }

    #[test]
    fn clean_variant_leaves_a_zero_workspace() {
        let x0 = inputs(9, 3);
        let (mut y, mut v, mut x) = (0.0, vec![0.0; workspace_len(9)], x0.clone());
        ipyramid_clean(&mut y, &mut v, &mut x);
        assert_eq!(y, pyramid(&x0));
        assert!(v.iter().all(|&e| e == 0.0));
        ipyramid_clean_inv(&mut y, &mut v, &mut x);
        assert_eq!((y, x), (0.0, x0));
    }

    #[test]
    fn gradient_matches_central_differences() {
        for n in [2, 3, 6, 12] {
            let x = inputs(n, 10 + n as u64);
            let (y, g) = gradient(&x);
            assert_eq!(y, pyramid(&x));
            let h = 1e-6;
            for j in 0..n {
                let (mut up, mut down) = (x.clone(), x.clone());
                up[j] += h;
                down[j] -= h;
                let numeric = (pyramid(&up) - pyramid(&down)) / (2.0 * h);
                // central differences: truncation O(h²·f‴) and round-off O(ε/h), both ≲ 1e-9
                // for these O(1) sines and cosines
                assert!(
                    (g[j] - numeric).abs() < 1e-8,
                    "n = {n}, j = {j}: {} vs {numeric}",
                    g[j]
                );
            }
        }
    }

    #[test]
    fn gradient_matches_forward_mode() {
        // one forward pass on dual numbers per input: column j of the (1 × n) Jacobian
        let n = 8;
        let x = inputs(n, 42);
        let (_, g) = gradient(&x);
        for (j, &gj) in g.iter().enumerate() {
            let mut xd: Vec<Dual<f64>> = x
                .iter()
                .enumerate()
                .map(|(k, &v)| Dual::new(v, if k == j { 1.0 } else { 0.0 }))
                .collect();
            let (mut y, mut v) = (
                Dual::constant(0.0),
                vec![Dual::constant(0.0); workspace_len(n)],
            );
            ipyramid(&mut y, &mut v, &mut xd);
            assert!((y.eps - gj).abs() < 1e-14, "j = {j}: {} vs {gj}", y.eps);
        }
    }

    #[test]
    fn gradient_of_two_inputs_by_hand() {
        // y = sin(x₀) cos(x₁): ∂y/∂x₀ = cos x₀ cos x₁, ∂y/∂x₁ = −sin x₀ sin x₁
        let x = [0.4, -1.3];
        let (y, g) = gradient(&x);
        assert_eq!(y, x[0].sin() * x[1].cos());
        assert!((g[0] - x[0].cos() * x[1].cos()).abs() < 1e-15);
        assert!((g[1] + x[0].sin() * x[1].sin()).abs() < 1e-15);
    }
}
