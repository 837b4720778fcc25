//! Building blocks of neural networks. LogSumExp and the softmax cross-entropy are in
//! [`stats`](super::stats) ([`ilogsumexp`](super::stats::ilogsumexp),
//! [`isoftmax_cross_entropy`](super::stats::isoftmax_cross_entropy)), the affine map in
//! [`blas`](super::blas) ([`i_affine`](super::blas::i_affine)).
//!
//! ```
//! use nilang::stdlib::nn::{i_relu, i_relu_inv};
//!
//! let (mut y, mut x) = (0.0, -1.5);
//! i_relu(&mut y, &mut x);
//! assert_eq!(y, 0.0);
//! let mut x = 2.5;
//! i_relu(&mut y, &mut x);
//! assert_eq!(y, 2.5);
//! i_relu_inv(&mut y, &mut x);
//! assert_eq!(y, 0.0);
//! ```

use crate::{i, Real};

/// `out += max(x, 0)`, the rectifier (NiLang's `i_relu`). The condition `x > 0` is not
/// changed by the branch, so it is its own postcondition. Gradient: 1 for `x > 0`, 0 for
/// `x ≤ 0` (at 0, the subgradient 0). Inverse and adjoint: one comparison and at most one
/// instruction each.
///
/// ```
/// use nilang::stdlib::nn::i_relu_grad;
/// use nilang::Loss;
///
/// let (_, dx) = i_relu_grad(Loss::arg(0), &mut 0.0, &mut 2.5).unwrap();
/// assert_eq!(dx.g, 1.0);
/// let (_, dx) = i_relu_grad(Loss::arg(0), &mut 0.0, &mut -2.5).unwrap();
/// assert_eq!(dx.g, 0.0);
/// ```
#[i]
pub fn i_relu<T: Real>(out: &mut T, x: &mut T) {
    if *x > T::zero() {
        out += identity(x);
    }
}

/// `y[i] += max(x[i], 0)` for every element (NiLang: `i_relu.(y, x)` broadcast).
///
/// ```
/// let mut y = vec![0.0; 3];
/// nilang::stdlib::nn::i_relu_each(&mut y, &mut vec![-1.0, 0.0, 2.0]);
/// assert_eq!(y, [0.0, 0.0, 2.0]);
/// ```
#[i]
pub fn i_relu_each<T: Real>(y: &mut [T], x: &mut [T]) {
    safe! {
        assert_eq!(x.len(), y.len(), "i_relu_each: x and y have different lengths");
    }
    for i in 0..x.len() {
        i_relu(y[i], x[i]);
    }
}
