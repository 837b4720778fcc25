//! Reversible statistics on slices: the maximum (by a branch keeper), LogSumExp, softmax
//! cross-entropy, mean and sum, population and sample variance, correlation and covariance,
//! and the normal log-density.
//!
//! As in [`crate::blas`], every routine accumulates into its outputs (`y += …`), its inverse
//! (`imax_inv`, …) subtracts the same amount back, and the inputs are `&mut` slices so that
//! gradients accumulate in them when the inverse runs on [`GVar`](crate::GVar)s. All the
//! scratch space is allocated and uncomputed inside each routine. Inverses cost what the
//! forward costs; adjoints about twice, plus one more forward run of each `routine!`'s
//! computation (skipped by the fused `f_vjp` where the body is one routine).
//!
//! ```
//! use nilang::stats::{ilogsumexp, ilogsumexp_inv, imax};
//!
//! let (mut m, mut x) = (0.0, vec![1.0, 3.0, 2.0]);
//! imax(&mut m, &mut x);
//! assert_eq!(m, 3.0);
//! let mut lse = 0.0;
//! ilogsumexp(&mut lse, &mut x);
//! assert!((lse - x.iter().map(|v: &f64| v.exp()).sum::<f64>().ln()).abs() < 1e-14);
//! ilogsumexp_inv(&mut lse, &mut x);
//! assert!(lse.abs() < 1e-15); // floating-point addition is undone up to rounding
//! ```

use crate::blas::isum;
use crate::{i, Real};

/// `y += max(x)` (the first maximum on ties), for a non-empty `x`, without sorting.
///
/// The running argmax `k` (an integer ancilla) is the condition of its own update: at step
/// `i` the comparison `x[i] > x[k]` decides whether `k` moves to `i`, and moving it changes the
/// comparison. So the decision is kept in a branch keeper (one bit per element, the scheme of
/// the arXiv paper's sparse matrix merge), and `k` walks up to `i` one increment at a time,
/// in a reversible `while` whose postcondition (`k == i` or `x[k]` was not a kept maximum)
/// lets the inverse walk back to the previous maximum. After `y += x[k]` the whole sweep is
/// uncomputed, clearing the keeper and `k`. Time `O(n)` (the walks add up to at most `n`),
/// scratch `n` bits. The gradient goes to the selected element.
///
/// ```
/// use nilang::stats::{imax, imax_grad, imax_inv};
/// use nilang::Loss;
///
/// let (mut y, mut x) = (0.0, vec![1.0, 4.0, -2.0, 4.0]);
/// imax(&mut y, &mut x);
/// assert_eq!(y, 4.0);
/// imax_inv(&mut y, &mut x);
/// assert_eq!(y, 0.0);
/// let (_, dx) = imax_grad(Loss::arg(0), &mut 0.0, &mut x).unwrap();
/// assert_eq!(dx.iter().map(|v| v.g).collect::<Vec<_>>(), [0.0, 1.0, 0.0, 0.0]); // the first maximum
/// ```
#[i]
pub fn imax<T: Real>(y: &mut T, x: &mut [T]) {
    safe! {
        assert!(!x.is_empty(), "imax: x is empty");
    }
    let k = 0usize;
    let keeper = vec![false; x.len()];
    routine! {
        for i in 1..x.len() {
            keeper[i] ^= x[i].val() > x[k].val();
            if keeper[i] {
                while (k != i, k == i || !(k == 0 || keeper[k])) {
                    inc(k);
                }
            }
        }
    }
    y += x[k];
    uncompute!();
    dealloc!(k = 0usize, keeper = vec![false; x.len()]);
}

/// `out += log Σᵢ exp(x[i])`, for a non-empty `x`, computed stably as
/// `a + log Σᵢ exp(x[i] − a)` with `a = max(x)`.
///
/// `a` is an ancilla computed by [`imax`] (its decisions branch-kept) and uncomputed at the
/// end, like the shifted terms. The result does not depend on `a`, so its gradient through
/// `a` vanishes (up to rounding) and the gradient is the softmax of `x`.
///
/// ```
/// use nilang::stats::{ilogsumexp, ilogsumexp_grad};
/// use nilang::Loss;
///
/// let x = [1.0f64, 2.0, 3.0];
/// let lse = x.iter().map(|v| v.exp()).sum::<f64>().ln();
/// let mut out = 0.0;
/// ilogsumexp(&mut out, &mut x.to_vec());
/// assert!((out - lse).abs() < 1e-15);
/// let (_, dx) = ilogsumexp_grad(Loss::arg(0), &mut 0.0, &mut x.to_vec()).unwrap();
/// for (d, v) in dx.iter().zip(x) {
///     assert!((d.g - (v - lse).exp()).abs() < 1e-15); // the softmax
/// }
/// ```
#[i]
pub fn ilogsumexp<T: Real>(out: &mut T, x: &mut [T]) {
    let a = T::zero();
    let s = T::zero();
    let d = T::zero();
    routine! {
        imax(a, x);
        for i in 0..x.len() {
            d += x[i] - a;
            s += exp(d);
            d -= x[i] - a;
        }
    }
    out += log(s);
    out += a;
    uncompute!();
    dealloc!(a = T::zero(), s = T::zero(), d = T::zero());
}

/// `loss += −log softmax(x)[label] = LSE(x) − x[label]`, the cross-entropy of the logits `x`
/// against the class `label` (`label < x.len()`).
///
/// ```
/// use nilang::stats::{isoftmax_cross_entropy, isoftmax_cross_entropy_grad};
/// use nilang::Loss;
///
/// let logits = vec![0.5f64, 2.0, -1.0];
/// let z: f64 = logits.iter().map(|v| v.exp()).sum();
/// let mut loss = 0.0;
/// isoftmax_cross_entropy(&mut loss, &mut logits.clone(), 1);
/// assert!((loss - (z.ln() - 2.0)).abs() < 1e-15);
/// // ∂loss/∂x = softmax(x) − onehot(label)
/// let (_, dx) = isoftmax_cross_entropy_grad(Loss::arg(0), &mut 0.0, &mut logits.clone(), 1).unwrap();
/// assert!((dx[1].g - (2f64.exp() / z - 1.0)).abs() < 1e-15);
/// ```
#[i]
pub fn isoftmax_cross_entropy<T: Real>(loss: &mut T, x: &mut [T], label: usize) {
    safe! {
        assert!(label < x.len(), "isoftmax_cross_entropy: label out of range");
    }
    ilogsumexp(loss, x);
    loss -= x[label];
}

/// `mean += (1/n) Σᵢ x[i]` and `var += (1/n) Σᵢ (x[i] − x̄)²` for a non-empty `x` of length
/// `n`: the mean and the population variance (divided by `n`, not `n − 1`).
///
/// The sum and the mean `x̄` are ancillas (so the variance uses the mean of `x` even when
/// `mean` is not zero on entry); each deviation `x[i] − x̄` is computed into one ancilla,
/// squared into the sum of squares and subtracted back, which restores the ancilla exactly.
///
/// ```
/// use nilang::stats::{imean_var, imean_var_inv};
///
/// let (mut mean, mut var, mut x) = (0.0, 0.0, vec![1.0, 2.0, 3.0, 6.0]);
/// imean_var(&mut mean, &mut var, &mut x);
/// assert_eq!((mean, var), (3.0, 3.5)); // (4 + 1 + 0 + 9) / 4
/// imean_var_inv(&mut mean, &mut var, &mut x);
/// assert_eq!((mean, var), (0.0, 0.0));
/// ```
#[i]
pub fn imean_var<T: Real>(mean: &mut T, var: &mut T, x: &mut [T]) {
    safe! {
        assert!(!x.is_empty(), "imean_var: x is empty");
    }
    let s = T::zero();
    let m = T::zero();
    let d = T::zero();
    let ss = T::zero();
    routine! {
        isum(s, x);
        m += s / x.len();
        for i in 0..x.len() {
            d += x[i] - m;
            ss += square(d);
            d -= x[i] - m;
        }
    }
    mean += identity(m);
    var += ss / x.len();
    uncompute!();
    dealloc!(s = T::zero(), m = T::zero(), d = T::zero(), ss = T::zero());
}

/// `sum += Σᵢ x[i]`, then `mean += sum / n`, for a non-empty `x` of length `n` (NiLang's
/// `i_mean_sum`). With `sum` zero on entry, `sum` and `mean` receive the sum and the mean;
/// otherwise the mean is that of the accumulated `sum`, as in NiLang. Inverse and adjoint:
/// one pass over `x` each.
///
/// ```
/// use nilang::stats::i_mean_sum;
///
/// let (mut mean, mut sum) = (0.0, 0.0);
/// i_mean_sum(&mut mean, &mut sum, &mut vec![1.0, 2.0, 6.0]);
/// assert_eq!((mean, sum), (3.0, 9.0));
/// ```
#[i]
pub fn i_mean_sum<T: Real>(mean: &mut T, sum: &mut T, x: &mut [T]) {
    safe! {
        assert!(!x.is_empty(), "i_mean_sum: x is empty");
    }
    isum(sum, x);
    mean += sum / x.len();
}

/// `n − 1`, the degrees of freedom of a sample variance of `n` values.
fn degrees_of_freedom(n: usize) -> usize {
    n - 1
}

/// The sample variance with its by-products (NiLang's `i_var_mean_sum`): [`i_mean_sum`] into
/// `mean` and `sum`, then `varsum += Σᵢ (x[i] − mean)²` and `var += varsum / (n − 1)`, for
/// `x` of length `n ≥ 2`. With every output zero on entry, `var` is the unbiased sample
/// variance, `varsum` the sum of squared deviations. ([`imean_var`] gives the population
/// variance, divided by `n`.)
///
/// Each deviation is computed into one ancilla and subtracted back, which clears it exactly.
/// Inverse: the same two passes backwards. Adjoint: two passes, no scratch but that ancilla.
///
/// ```
/// use nilang::stats::i_var_mean_sum;
///
/// let (mut var, mut varsum, mut mean, mut sum) = (0.0, 0.0, 0.0, 0.0);
/// i_var_mean_sum(&mut var, &mut varsum, &mut mean, &mut sum, &mut vec![1.0, 2.0, 6.0]);
/// assert_eq!((mean, sum, varsum, var), (3.0, 9.0, 14.0, 7.0)); // 14 / (3 − 1)
/// ```
#[i]
pub fn i_var_mean_sum<T: Real>(
    var: &mut T,
    varsum: &mut T,
    mean: &mut T,
    sum: &mut T,
    x: &mut [T],
) {
    safe! {
        assert!(x.len() >= 2, "i_var_mean_sum: a sample variance needs at least 2 values");
    }
    i_mean_sum(mean, sum, x);
    let d = T::zero();
    for i in 0..x.len() {
        d += x[i] - mean;
        varsum += square(d);
        d -= x[i] - mean;
    }
    dealloc!(d = T::zero());
    var += varsum / degrees_of_freedom(x.len());
}

/// `rho += ρ(a, b)` and `cov += cov(a, b)`: Pearson's correlation and the sample covariance
/// (divided by `n − 1`) of two vectors of the same length `n ≥ 2` (NiLang's `i_cor_cov`).
///
/// `ρ = Σ (aᵢ − ā)(bᵢ − b̄) / √(Σ (aᵢ − ā)² · Σ (bᵢ − b̄)²)`: the means and sums of squared
/// deviations come from [`i_var_mean_sum`] into ancillas, which are computed, used and
/// uncomputed (a `routine!`), so the inverse costs what the forward costs (four passes over
/// the data) and the adjoint about three times that (the fused `f_vjp` two). Constant vectors
/// have no correlation: `ρ` is then not finite, and a checked gradient reports the division.
///
/// ```
/// use nilang::stats::i_cor_cov;
///
/// let (mut rho, mut cov) = (0.0f64, 0.0);
/// i_cor_cov(&mut rho, &mut cov, &mut vec![1.0, 2.0, 3.0], &mut vec![2.0, 4.0, 6.0]);
/// assert!((rho - 1.0).abs() < 1e-15); // b = 2a
/// assert!((cov - 2.0).abs() < 1e-15);
/// ```
#[i]
pub fn i_cor_cov<T: Real>(rho: &mut T, cov: &mut T, a: &mut [T], b: &mut [T]) {
    safe! {
        assert_eq!(a.len(), b.len(), "i_cor_cov: a and b have different lengths");
    }
    let (va, ssa, ma, sa) = (T::zero(), T::zero(), T::zero(), T::zero());
    let (vb, ssb, mb, sb) = (T::zero(), T::zero(), T::zero(), T::zero());
    let (da, db, sab, p, q) = (T::zero(), T::zero(), T::zero(), T::zero(), T::zero());
    routine! {
        i_var_mean_sum(va, ssa, ma, sa, a);
        i_var_mean_sum(vb, ssb, mb, sb, b);
        for i in 0..a.len() {
            da += a[i] - ma;
            db += b[i] - mb;
            sab += da * db;
            db -= b[i] - mb;
            da -= a[i] - ma;
        }
        p += ssa * ssb;
        q += sqrt(p);
    }
    cov += sab / degrees_of_freedom(a.len());
    rho += sab / q;
    uncompute!();
    dealloc!(
        (da, db, sab, p, q) = (T::zero(), T::zero(), T::zero(), T::zero(), T::zero()),
        (vb, ssb, mb, sb) = (T::zero(), T::zero(), T::zero(), T::zero()),
        (va, ssa, ma, sa) = (T::zero(), T::zero(), T::zero(), T::zero())
    );
}

/// `ln √(2π)`, the normal density's constant term (Python: `math.log(2 * math.pi) / 2`).
///
/// ```
/// assert!((nilang::stats::LN_SQRT_2PI - (2.0 * std::f64::consts::PI).sqrt().ln()).abs() < 1e-15);
/// ```
pub const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;

/// `out += ln N(x; μ, σ) = −((x − μ)/σ)²/2 − ln σ − ln √(2π)`, the log-density of the normal
/// distribution (NiLang's `i_normal_logpdf`), for `σ > 0`.
///
/// The standardised value `z = (x − μ)/σ` and `z²` are ancillas, computed, used and
/// uncomputed; the inverse costs what the forward costs, the adjoint about twice.
///
/// ```
/// use nilang::stats::{i_normal_logpdf, i_normal_logpdf_grad, LN_SQRT_2PI};
/// use nilang::Loss;
///
/// let mut out = 0.0;
/// i_normal_logpdf(&mut out, &mut 1.0, &mut 0.0, &mut 2.0);
/// assert!((out - (-0.125 - 2f64.ln() - LN_SQRT_2PI)).abs() < 1e-15);
/// // ∂/∂x = −(x − μ)/σ²
/// let (_, dx, _, _) = i_normal_logpdf_grad(Loss::arg(0), &mut 0.0f64, &mut 1.0, &mut 0.0, &mut 2.0).unwrap();
/// assert!((dx.g + 0.25).abs() < 1e-15);
/// ```
#[i]
pub fn i_normal_logpdf<T: Real>(out: &mut T, x: &mut T, mu: &mut T, sigma: &mut T) {
    let (d, z, z2) = (T::zero(), T::zero(), T::zero());
    routine! {
        d += x - mu;
        z += d / sigma;
        z2 += square(z);
    }
    out -= z2 * 0.5;
    out -= log(sigma);
    out -= LN_SQRT_2PI;
    uncompute!();
    dealloc!((d, z, z2) = (T::zero(), T::zero(), T::zero()));
}
