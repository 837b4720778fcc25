//! Dense linear algebra beyond products: the matrix inverse.
//!
//! ```
//! use nilang::stdlib::linalg::{i_inv, i_inv_inv};
//!
//! let mut a = vec![0.0, 2.0, 1.0, 1.0]; // [[0, 2], [1, 1]]: needs a row exchange
//! let mut out = vec![0.0; 4];
//! i_inv(&mut out, &mut a, 2);
//! assert_eq!(out, vec![-0.5, 1.0, 0.5, 0.0]);
//! i_inv_inv(&mut out, &mut a, 2);
//! assert_eq!(out, vec![0.0; 4]);
//! ```

use crate::{i, Real};

/// The row `r ≥ k` whose entry in column `k` of the `n × n` row-major `w` is largest in
/// magnitude (the first such row): the partial pivot of elimination step `k`.
fn pivot_row<T: Real>(w: &[T], k: usize, n: usize) -> usize {
    (k..n).fold(k, |best, r| {
        if w[r * n + k].val().abs() > w[best * n + k].val().abs() {
            r
        } else {
            best
        }
    })
}

/// `out += A⁻¹` for an invertible `n × n` matrix `A` (NiLang's `i_inv!`); both row-major
/// flat slices.
///
/// Gauss–Jordan elimination with partial pivoting, written in the language (NiLang makes it
/// a primitive with a hand-written adjoint; here the gradient, `Ā = −A⁻ᵀ · out̄ · A⁻ᵀ`, comes
/// from the instructions' rules). In a `routine!`, a working copy `W` of `A` and `E = I` are
/// reduced: at step `k` the pivot row is chosen (an integer ancilla; it is chosen again from
/// the same, untouched column when the step is undone), rows `k` and the pivot are swapped
/// in `W` and `E`, and each row below loses `l·(row k)` with the multiplier `l` kept in an
/// ancilla matrix `L` (elimination loses information; the multipliers keep it). Back
/// substitution then solves `U X = E` row by row into `X`, one scratch scalar per entry
/// computed and uncomputed. `X` is added to `out` and everything is uncomputed.
///
/// Cost: the routine is about `4n³/3` multiply-adds (`n³/3` to reduce `W`, `n³/2` for `E`,
/// `n³/2` for the back substitution; a plain Gauss–Jordan inverse takes about `n³`).
/// Unchecked forward code runs it once (its uncomputation is dead, see the language guide),
/// checked code and the inverse twice; the fused gradient (`i_inv_vjp`) runs it once on
/// values and once backwards on values with gradients. Scratch: four `n × n` matrices and
/// `n` indices. Round-off: the uncomputation restores the
/// scratch to within round-off, and a checked program's deallocations compare within the
/// tolerance ([`crate::set_tolerance`]); an ill-conditioned `A` can exceed it. A singular `A`
/// divides by zero: `out` is then not finite, and a checked gradient names the division.
///
/// ```
/// use nilang::stdlib::linalg::{i_inv, i_inv_grad};
/// use nilang::Loss;
///
/// // A = [[2, 1], [1, 1]]: A⁻¹ = [[1, −1], [−1, 2]]
/// let mut out = vec![0.0f64; 4];
/// i_inv(&mut out, &mut vec![2.0, 1.0, 1.0, 1.0], 2);
/// assert!(out.iter().zip([1.0, -1.0, -1.0, 2.0]).all(|(a, b)| (a - b).abs() < 1e-14));
/// // ∂(A⁻¹)₀₀/∂A = −(A⁻ᵀ)[:, 0] (A⁻ᵀ)[0, :] = −[[1, −1], [−1, 1]]
/// let (_, da) = i_inv_grad(Loss::elem(0, 0), &mut vec![0.0; 4], &mut vec![2.0, 1.0, 1.0, 1.0], 2).unwrap();
/// assert!(da.iter().map(|v| v.g).zip([-1.0f64, 1.0, 1.0, -1.0]).all(|(a, b)| (a - b).abs() < 1e-14));
/// ```
#[i]
pub fn i_inv<T: Real>(out: &mut [T], a: &mut [T], n: usize) {
    safe! {
        assert!(
            a.len() == n * n && out.len() == n * n,
            "i_inv: A and out must be n × n"
        );
    }
    let w = vec![T::zero(); n * n];
    let e = vec![T::zero(); n * n];
    let l = vec![T::zero(); n * n];
    let x = vec![T::zero(); n * n];
    let piv = vec![0usize; n];
    let t = T::zero();
    routine! {
        for i in 0..n * n {
            w[i] += a[i];
        }
        for i in 0..n {
            e[i * n + i] += 1.0;
        }
        for k in 0..n {
            piv[k] += identity(pivot_row(&w, k, n));
            if piv[k] != k {
                for j in 0..n {
                    swap(w[k * n + j], w[piv[k] * n + j]);
                    swap(e[k * n + j], e[piv[k] * n + j]);
                }
            }
            for r in k + 1..n {
                l[r * n + k] += w[r * n + k] / w[k * n + k];
                for j in k + 1..n {
                    w[r * n + j] -= l[r * n + k] * w[k * n + j];
                }
                for j in 0..n {
                    e[r * n + j] -= l[r * n + k] * e[k * n + j];
                }
            }
        }
        for r in (0..n).rev() {
            for c in 0..n {
                routine! {
                    t += e[r * n + c];
                    for j in r + 1..n {
                        t -= w[r * n + j] * x[j * n + c];
                    }
                }
                x[r * n + c] += t / w[r * n + r];
                uncompute!();
            }
        }
    }
    for i in 0..n * n {
        out[i] += x[i];
    }
    uncompute!();
    dealloc!(
        w = vec![T::zero(); n * n],
        e = vec![T::zero(); n * n],
        l = vec![T::zero(); n * n],
        x = vec![T::zero(); n * n],
        piv = vec![0usize; n],
        t = T::zero()
    );
}
