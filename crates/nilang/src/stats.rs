//! Reversible statistics on slices: the maximum (by a branch keeper), LogSumExp, softmax
//! cross-entropy, mean and variance.
//!
//! As in [`crate::blas`], every routine accumulates into its outputs (`y += …`), its inverse
//! (`imax_inv`, …) subtracts the same amount back, and the inputs are `&mut` slices so that
//! gradients accumulate in them when the inverse runs on [`GVar`](crate::GVar)s. All the
//! scratch space is allocated and uncomputed inside each routine.
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

use crate::blas::{isum, isum_adjoint, isum_adjoint_inv, isum_inv};
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
