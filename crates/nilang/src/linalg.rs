//! Linear-algebra instructions on top of `nalgebra`: [`logdet`], [`det`] and [`matinv`], each
//! a plain function over `f64` with its classical adjoint, declared with
//! [`#[instruction]`](crate::instruction) so that `#[i]` code calls, uncalls and differentiates
//! them as statements.
//!
//! Matrices are square and stored row-major in a slice of length `n²`. Each instruction adds
//! its result into its output (`out += f(A)`), so its inverse subtracts it and its adjoint is
//! exact for any incoming gradient: `A_grad += J(A)ᵀ out_grad` undoes the forward
//! (`adjoint`), `A_grad −= J(A)ᵀ out_grad` redoes it (`adjoint_inv`), and the gradient of the
//! output passes through unchanged.
//!
//! ```
//! use nilang::{i, linalg::logdet, Loss, Real};
//!
//! /// loss += log|det A| − log|det B|
//! #[i]
//! fn ratio<T: Real>(loss: &mut T, a: &mut [T], b: &mut [T]) {
//!     logdet(loss, a);
//!     uncall!(logdet(loss, b));
//! }
//! let (mut a, mut b) = (vec![2.0f64, 1.0, 1.0, 3.0], vec![1.0f64, 0.0, 0.0, 4.0]);
//! let (_, ga, gb) = ratio_grad(Loss::arg(0), &mut 0.0, &mut a, &mut b).unwrap();
//! // ∂ log|det A| / ∂A = A⁻ᵀ; A⁻¹ = [3, −1; −1, 2] / 5
//! let expected = [0.6, -0.2, -0.2, 0.4];
//! assert!(ga.iter().zip(expected).all(|(g, e)| (g.g - e).abs() < 1e-12));
//! assert!((gb[0].g + 1.0).abs() < 1e-12 && (gb[3].g + 0.25).abs() < 1e-12);
//! ```

use crate::instruction;
use nalgebra::DMatrix;

/// The order `n` of a square matrix stored in `len = n²` entries.
fn order(len: usize, what: &str) -> usize {
    let n = (len as f64).sqrt().round() as usize;
    assert_eq!(
        n * n,
        len,
        "{what}: a square matrix is stored row-major in n² entries, got {len}"
    );
    n
}

/// A row-major slice as a matrix.
fn matrix(a: &[f64], what: &str) -> DMatrix<f64> {
    let n = order(a.len(), what);
    DMatrix::from_row_slice(n, n, a)
}

/// log|det A|, from the diagonal of A's LU factors (no overflow of the determinant itself).
fn logdet_value(a: &[f64]) -> f64 {
    let lu = matrix(a, "logdet").lu();
    lu.u().diagonal().iter().map(|u| u.abs().ln()).sum()
}

/// `grad += s · A⁻ᵀ` (row-major), where `A⁻ᵀ` is the cofactor matrix over det A. Panics for a
/// singular A (log|det A| has no derivative there).
fn add_inverse_transpose(a: &[f64], s: f64, grad: &mut [f64], what: &str) {
    let m = matrix(a, what);
    let n = m.nrows();
    let inv = m
        .try_inverse()
        .unwrap_or_else(|| panic!("{what}: the matrix is singular"));
    for i in 0..n {
        for j in 0..n {
            // (A⁻ᵀ)ᵢⱼ = (A⁻¹)ⱼᵢ
            grad[i * n + j] += s * inv[(j, i)];
        }
    }
}

/// The cofactor matrix of A (row-major), `Cᵢⱼ = (−1)^(i+j) det(A without row i and column j)`:
/// the derivative of det A, defined for a singular A too.
fn cofactors(a: &[f64]) -> Vec<f64> {
    let m = matrix(a, "det");
    let n = m.nrows();
    if let Some(inv) = m.clone().try_inverse() {
        let d = m.determinant();
        if d.is_finite() && d != 0.0 {
            return (0..n * n).map(|k| d * inv[(k % n, k / n)]).collect();
        }
    }
    // singular: the cofactors one by one
    let mut c = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            let minor = m.clone().remove_row(i).remove_column(j);
            let sign = if (i + j) % 2 == 0 { 1.0 } else { -1.0 };
            c[i * n + j] = if n == 1 {
                sign
            } else {
                sign * minor.determinant()
            };
        }
    }
    c
}

/// `out += log|det A|` for a square `A` stored row-major; its adjoint adds
/// `out_grad · A⁻ᵀ` to A's gradient. Panics when A is not square, and in the adjoint when A is
/// singular.
///
/// ```
/// use nilang::linalg::logdet;
///
/// let (mut out, mut a) = (1.0, vec![2.0, 0.0, 0.0, 3.0]);
/// logdet(&mut out, &mut a);
/// assert!((out - (1.0 + 6f64.ln())).abs() < 1e-15);
/// logdet::inv(&mut out, &mut a); // the inverse, as `uncall!` runs it
/// assert!((out - 1.0).abs() < 1e-15);
/// ```
#[instruction(inverse = logdet_sub, adjoint = logdet_adjoint, adjoint_inv = logdet_adjoint_inv)]
pub fn logdet(out: &mut f64, a: &mut [f64]) {
    *out += logdet_value(a);
}

fn logdet_sub(out: &mut f64, a: &mut [f64]) {
    *out -= logdet_value(a);
}

fn logdet_adjoint(out: &mut f64, out_grad: &mut f64, a: &mut [f64], a_grad: &mut [f64]) {
    *out -= logdet_value(a);
    add_inverse_transpose(a, *out_grad, a_grad, "logdet");
}

fn logdet_adjoint_inv(out: &mut f64, out_grad: &mut f64, a: &mut [f64], a_grad: &mut [f64]) {
    *out += logdet_value(a);
    add_inverse_transpose(a, -*out_grad, a_grad, "logdet");
}

/// `out += det A` for a square `A` stored row-major; its adjoint adds `out_grad` times the
/// cofactor matrix (`det A · A⁻ᵀ`, also for a singular A) to A's gradient.
///
/// ```
/// use nilang::linalg::det;
///
/// let (mut out, mut a) = (0.0f64, vec![1.0, 2.0, 3.0, 4.0]);
/// det(&mut out, &mut a);
/// assert!((out + 2.0).abs() < 1e-14);
/// // adjoint: restores out and adds out_grad · cof(A) to a_grad
/// let (mut out_grad, mut a_grad) = (1.0, vec![0.0; 4]);
/// det::adjoint(&mut out, &mut out_grad, &mut a, &mut a_grad);
/// assert!(out.abs() < 1e-14);
/// assert_eq!(a_grad, vec![4.0, -3.0, -2.0, 1.0]);
/// ```
#[instruction(inverse = det_sub, adjoint = det_adjoint, adjoint_inv = det_adjoint_inv)]
pub fn det(out: &mut f64, a: &mut [f64]) {
    *out += matrix(a, "det").determinant();
}

fn det_sub(out: &mut f64, a: &mut [f64]) {
    *out -= matrix(a, "det").determinant();
}

fn det_adjoint(out: &mut f64, out_grad: &mut f64, a: &mut [f64], a_grad: &mut [f64]) {
    *out -= matrix(a, "det").determinant();
    for (g, c) in a_grad.iter_mut().zip(cofactors(a)) {
        *g += *out_grad * c;
    }
}

fn det_adjoint_inv(out: &mut f64, out_grad: &mut f64, a: &mut [f64], a_grad: &mut [f64]) {
    *out += matrix(a, "det").determinant();
    for (g, c) in a_grad.iter_mut().zip(cofactors(a)) {
        *g -= *out_grad * c;
    }
}

/// A⁻¹ (row-major), panicking for a singular A.
fn inverse_of(a: &[f64]) -> DMatrix<f64> {
    matrix(a, "matinv")
        .try_inverse()
        .unwrap_or_else(|| panic!("matinv: the matrix is singular"))
}

/// `y += A⁻¹` (`y` and `A` square, row-major, of the same order); its adjoint adds
/// `−A⁻ᵀ · y_grad · A⁻ᵀ` to A's gradient. Panics for a singular A.
///
/// ```
/// use nilang::linalg::matinv;
///
/// let (mut y, mut a) = (vec![0.0; 4], vec![2.0, 0.0, 0.0, 4.0]);
/// matinv(&mut y, &mut a);
/// assert_eq!(y, vec![0.5, 0.0, 0.0, 0.25]);
/// matinv::inv(&mut y, &mut a);
/// assert_eq!(y, vec![0.0; 4]);
/// ```
#[instruction(inverse = matinv_sub, adjoint = matinv_adjoint, adjoint_inv = matinv_adjoint_inv)]
pub fn matinv(y: &mut [f64], a: &mut [f64]) {
    add_inverse(y, a, 1.0);
}

fn add_inverse(y: &mut [f64], a: &[f64], s: f64) {
    let inv = inverse_of(a);
    let n = inv.nrows();
    assert_eq!(y.len(), n * n, "matinv: y and A have different orders");
    for i in 0..n {
        for j in 0..n {
            y[i * n + j] += s * inv[(i, j)];
        }
    }
}

fn matinv_sub(y: &mut [f64], a: &mut [f64]) {
    add_inverse(y, a, -1.0);
}

/// `a_grad += s · (−A⁻ᵀ Ȳ A⁻ᵀ)`.
fn matinv_pullback(y_grad: &[f64], a: &[f64], a_grad: &mut [f64], s: f64) {
    let inv = inverse_of(a);
    let n = inv.nrows();
    let yg = DMatrix::from_row_slice(n, n, y_grad);
    let it = inv.transpose();
    let g = -(&it * yg * &it);
    for i in 0..n {
        for j in 0..n {
            a_grad[i * n + j] += s * g[(i, j)];
        }
    }
}

fn matinv_adjoint(y: &mut [f64], y_grad: &mut [f64], a: &mut [f64], a_grad: &mut [f64]) {
    add_inverse(y, a, -1.0);
    matinv_pullback(y_grad, a, a_grad, 1.0);
}

fn matinv_adjoint_inv(y: &mut [f64], y_grad: &mut [f64], a: &mut [f64], a_grad: &mut [f64]) {
    add_inverse(y, a, 1.0);
    matinv_pullback(y_grad, a, a_grad, -1.0);
}
