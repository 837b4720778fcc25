//! Reversible linear algebra on slices: sum, dot product (real, and conjugated on complex
//! vectors), norms, `axpy`, squared distance, matrix–vector and matrix–matrix products,
//! affine map, the unitary matrix multiplication of the papers and the Gram–Schmidt QR
//! decomposition.
//!
//! Every routine accumulates into its output (`y += …`), so its inverse (`idot_inv`, …)
//! subtracts the same amount back. All arguments are `&mut` slices, also the ones the
//! program only reads: that is where [`GVar`](crate::GVar) gradients accumulate when the
//! inverse runs on `GVar`s. Matrices are flat slices: [`i_affine`], [`imatvec`],
//! [`imatmul`] and [`iqr`] take them row-major, [`i_umm`] takes `x` column-major.
//!
//! **Costs.** Every function here is a loop of instructions: its inverse runs the same
//! instructions backwards, one inverse instruction each, so it costs what the forward costs.
//! Its adjoint program (`f_adjoint`, or `f_vjp` after the forward) runs each instruction's
//! adjoint rule once, which also uncomputes the value: about twice the forward's arithmetic
//! and no extra memory beyond the gradient buffers, except where a doc comment says otherwise
//! (a `routine!` is run forward once more in the adjoint unless the fused `f_vjp` skips it).
//!
//! ```
//! use nilang::blas::{idot, idot_inv};
//!
//! let (mut out, mut x, mut y) = (0.0, vec![1.0, 2.0], vec![3.0, 4.0]);
//! idot(&mut out, &mut x, &mut y);
//! assert_eq!(out, 11.0);
//! idot_inv(&mut out, &mut x, &mut y);
//! assert_eq!(out, 0.0);
//! ```

use crate::{i, Real};
use num_complex::Complex;

/// `out += Σᵢ x[i]·y[i]` over the common length of `x` and `y` (which must be equal).
///
/// ```
/// use nilang::blas::{idot, idot_grad};
/// use nilang::Loss;
///
/// let mut out = 0.0;
/// idot(&mut out, &mut vec![1.0, 2.0], &mut vec![3.0, 4.0]);
/// assert_eq!(out, 11.0);
/// let (_, dx, dy) = idot_grad(Loss::arg(0), &mut 0.0, &mut vec![1.0, 2.0], &mut vec![3.0, 4.0]).unwrap();
/// assert_eq!((dx[1].g, dy[1].g), (4.0, 2.0));
/// ```
#[i]
pub fn idot<T: Real>(out: &mut T, x: &mut [T], y: &mut [T]) {
    safe! {
        assert_eq!(x.len(), y.len(), "idot: x and y have different lengths");
    }
    for i in 0..x.len() {
        out += x[i] * y[i];
    }
}

/// `out += Σᵢ x[i]²`, the squared Euclidean norm (NiLang's `i_norm2`).
///
/// ```
/// let mut out = 0.0;
/// nilang::blas::inorm2(&mut out, &mut vec![3.0, 4.0]);
/// assert_eq!(out, 25.0);
/// ```
#[i]
pub fn inorm2<T: Real>(out: &mut T, x: &mut [T]) {
    for i in 0..x.len() {
        out += square(x[i]);
    }
}

/// `y += W·x + b`, the in-place affine map of the ICLR paper, Appendix B.1 (`i_affine!`).
///
/// `W` is `y.len() × x.len()`, stored row-major as a flat slice (`W[i, j] = w[i·x.len() + j]`);
/// `b` has the length of `y`. The loops visit `W` column by column, as the listing does.
///
/// ```
/// use nilang::blas::{i_affine, i_affine_inv};
///
/// // W = [[1, 2], [3, 4]], b = (10, 20), x = (1, 1)
/// let (mut w, mut b, mut x) = (vec![1.0, 2.0, 3.0, 4.0], vec![10.0, 20.0], vec![1.0, 1.0]);
/// let mut y = vec![0.0; 2];
/// i_affine(&mut y, &mut w, &mut b, &mut x);
/// assert_eq!(y, [13.0, 27.0]);
/// i_affine_inv(&mut y, &mut w, &mut b, &mut x);
/// assert_eq!(y, [0.0, 0.0]);
/// ```
#[i]
pub fn i_affine<T: Real>(y: &mut [T], w: &mut [T], b: &mut [T], x: &mut [T]) {
    safe! {
        assert!(
            w.len() == y.len() * x.len() && b.len() == y.len(),
            "i_affine: W must be y.len() × x.len() and b must have y's length"
        );
    }
    for j in 0..x.len() {
        for i in 0..y.len() {
            y[i] += w[i * x.len() + j] * x[j];
        }
    }
    for i in 0..y.len() {
        y[i] += b[i];
    }
}

/// `x ← U(θ)·x`: multiplies the `m × n` matrix `x` (column-major flat slice, `n = x.len()/m`)
/// by the real unitary (orthogonal) matrix parametrized by `m(m−1)/2` rotation angles `θ`,
/// as a product of two-level rotations (ICLR paper, Appendix B.2, `i_umm!`).
///
/// Each column gets the rotations `rot(x[i], x[i+1], θ[k])` for `j = 0…m−1`, `i = m−2…j`,
/// with `k` counting up through `θ`; the ancilla `k` is deallocated at the value `θ.len()`, so
/// a wrong number of angles is a reversibility error. (The listing keeps one counter across
/// all columns, which only fits `n = 1`; here each column has its own.) Norms of the columns
/// are preserved.
///
/// ```
/// use nilang::blas::{i_umm, i_umm_inv};
///
/// // one column of length 3 (m = 3): rotations for j = 0…2, i = 1…j, 3 angles
/// let (mut x, mut theta) = (vec![1.0, 2.0, 2.0], vec![0.3, -0.7, 1.1]);
/// i_umm(&mut x, &mut theta, 3);
/// let norm: f64 = x.iter().map(|v| v * v).sum();
/// assert!((norm - 9.0).abs() < 1e-12); // a unitary map keeps the norm
/// i_umm_inv(&mut x, &mut theta, 3);
/// assert!(x.iter().zip([1.0, 2.0, 2.0]).all(|(a, b)| (a - b).abs() < 1e-12));
/// ```
#[i]
pub fn i_umm<T: Real>(x: &mut [T], theta: &mut [T], m: usize) {
    safe! {
        assert!(m > 0 && x.len() % m == 0, "i_umm: x.len() must be a multiple of m");
        assert_eq!(theta.len(), m * (m - 1) / 2, "i_umm: θ must have m(m−1)/2 angles");
    }
    for l in 0..x.len() / m {
        let k = 0usize;
        for j in 0..m {
            for i in (j..m - 1).rev() {
                rot(x[l * m + i], x[l * m + i + 1], theta[k]);
                inc(k);
            }
        }
        dealloc!(k = theta.len());
    }
}

/// `y += Σᵢ x[i]`.
///
/// ```
/// let mut y = 1.0;
/// nilang::blas::isum(&mut y, &mut vec![1.0, 2.0, 3.0]);
/// assert_eq!(y, 7.0);
/// ```
#[i]
pub fn isum<T: Real>(y: &mut T, x: &mut [T]) {
    for i in 0..x.len() {
        y += x[i];
    }
}

/// `y += A·x`, the matrix–vector product with `A` of `m × n` stored row-major as a flat slice
/// (`A[i, j] = a[i·n + j]`), `x` of length `n` and `y` of length `m`.
///
/// ```
/// // A = [[1, 2, 3], [4, 5, 6]] (2 × 3), x = (1, 0, −1)
/// let mut y = vec![0.0; 2];
/// nilang::blas::imatvec(&mut y, &mut vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &mut vec![1.0, 0.0, -1.0], 2, 3);
/// assert_eq!(y, [-2.0, -2.0]);
/// ```
#[i]
pub fn imatvec<T: Real>(y: &mut [T], a: &mut [T], x: &mut [T], m: usize, n: usize) {
    safe! {
        assert!(
            a.len() == m * n && x.len() == n && y.len() == m,
            "imatvec: A must be m × n, x of length n and y of length m"
        );
    }
    for i in 0..m {
        for j in 0..n {
            y[i] += a[i * n + j] * x[j];
        }
    }
}

/// `C += A·B`, the matrix product with `A` of `m × k`, `B` of `k × n` and `C` of `m × n`, all
/// stored row-major as flat slices.
///
/// ```
/// // [[1, 2], [3, 4]] · [[0, 1], [1, 0]]: the columns swapped
/// let mut c = vec![0.0; 4];
/// nilang::blas::imatmul(&mut c, &mut vec![1.0, 2.0, 3.0, 4.0], &mut vec![0.0, 1.0, 1.0, 0.0], 2, 2, 2);
/// assert_eq!(c, [2.0, 1.0, 4.0, 3.0]);
/// ```
#[i]
#[allow(clippy::too_many_arguments)]
pub fn imatmul<T: Real>(c: &mut [T], a: &mut [T], b: &mut [T], m: usize, k: usize, n: usize) {
    safe! {
        assert!(
            a.len() == m * k && b.len() == k * n && c.len() == m * n,
            "imatmul: A must be m × k, B k × n and C m × n"
        );
    }
    for i in 0..m {
        for l in 0..k {
            for j in 0..n {
                c[i * n + j] += a[i * k + l] * b[l * n + j];
            }
        }
    }
}

/// The thin QR decomposition `A = Q·R` by modified Gram–Schmidt ("Automatic differentiation
/// in reversible Turing machines", §V.C, `iqr`): `A` is `m × n` (`m ≥ n`, full column rank),
/// `Q` is `m × n` with orthonormal columns and `R` is `n × n` upper triangular with a positive
/// diagonal; all three row-major flat slices.
///
/// `Q` and `R` must be zero on entry (the outputs are accumulated, and column `j` of `Q` is
/// `rⱼ / R[j, j]`). For each column `j` the routine copies `A[:, j]` into an ancilla `r`,
/// projects out the previous columns of `Q` (their coefficients kept in ancillas `dots`),
/// and takes the squared norm `‖r‖²` into an ancilla; then it adds the coefficients to
/// `R[:, j]`, `√‖r‖²` to `R[j, j]`, and `r / R[j, j]` to `Q[:, j]`: the normalisation is a
/// division by a value that stays in `R`, so it is reversible. Finally the column's ancillas
/// are uncomputed, so only `O(m + n)` scratch is used in all.
///
/// ```
/// use nilang::blas::{iqr, iqr_inv};
///
/// // A = [[3, 1], [4, 2]] (2 × 2): Q's first column is (0.6, 0.8), R[0, 0] = 5
/// let mut a = vec![3.0f64, 1.0, 4.0, 2.0];
/// let (mut q, mut r) = (vec![0.0; 4], vec![0.0; 4]);
/// iqr(&mut q, &mut r, &mut a, 2, 2);
/// assert!((q[0] - 0.6).abs() < 1e-15 && (q[2] - 0.8).abs() < 1e-15);
/// assert!((r[0] - 5.0).abs() < 1e-15 && r[2] == 0.0); // upper triangular
/// iqr_inv(&mut q, &mut r, &mut a, 2, 2);
/// assert_eq!(q, [0.0; 4]);
/// ```
#[i]
pub fn iqr<T: Real>(q: &mut [T], r: &mut [T], a: &mut [T], m: usize, n: usize) {
    safe! {
        assert!(
            m >= n && a.len() == m * n && q.len() == m * n && r.len() == n * n,
            "iqr: A and Q must be m × n with m ≥ n, and R n × n"
        );
    }
    let norm = T::zero();
    let dots = vec![T::zero(); n];
    let ri = vec![T::zero(); m];
    for col in 0..n {
        routine! {
            for row in 0..m {
                ri[row] += a[row * n + col];
            }
            for pre in 0..col {
                for row in 0..m {
                    dots[pre] += q[row * n + pre] * ri[row];
                }
                for row in 0..m {
                    ri[row] -= dots[pre] * q[row * n + pre];
                }
            }
            for row in 0..m {
                norm += square(ri[row]);
            }
        }
        for pre in 0..col {
            r[pre * n + col] += dots[pre];
        }
        r[col * n + col] += sqrt(norm);
        for row in 0..m {
            q[row * n + col] += ri[row] / r[col * n + col];
        }
        uncompute!();
    }
    dealloc!(
        norm = T::zero(),
        dots = vec![T::zero(); n],
        ri = vec![T::zero(); m]
    );
}

/// `y += a·x` for vectors of the same length (NiLang's `i_axpy!`), one broadcast: vectors of
/// different lengths are a runtime error ([`CheckKind::BroadcastLength`](crate::CheckKind)).
///
/// ```
/// let mut y = vec![1.0, 1.0];
/// nilang::blas::i_axpy(&mut 2.0, &mut vec![3.0, -1.0], &mut y);
/// assert_eq!(y, [7.0, -1.0]);
/// ```
#[i]
pub fn i_axpy<T: Real>(a: &mut T, x: &mut [T], y: &mut [T]) {
    y[..] += a * x[..];
}

/// `dist += Σᵢ (x1[i] − x2[i])²`, the squared Euclidean distance (NiLang's `i_sqdistance`).
///
/// Each difference is computed into one ancilla, squared into `dist` and subtracted back,
/// which clears the ancilla exactly (it holds the same rounded difference both times); the
/// points themselves are only read.
///
/// ```
/// let mut d = 0.0;
/// nilang::blas::i_sqdistance(&mut d, &mut vec![1.0, 1.0], &mut vec![4.0, 5.0]);
/// assert_eq!(d, 25.0);
/// ```
#[i]
pub fn i_sqdistance<T: Real>(dist: &mut T, x1: &mut [T], x2: &mut [T]) {
    safe! {
        assert_eq!(x1.len(), x2.len(), "i_sqdistance: x1 and x2 have different lengths");
    }
    let d = T::zero();
    for i in 0..x1.len() {
        d += x1[i] - x2[i];
        dist += square(d);
        d -= x1[i] - x2[i];
    }
    dealloc!(d = T::zero());
}

/// `out += ‖x‖ = √(Σᵢ x[i]²)`, the Euclidean norm, through the squared norm in an ancilla
/// (computed, used, uncomputed: the adjoint runs [`inorm2`] twice more, the fused `f_vjp`
/// once). `‖x‖ = 0` is a singular point of the gradient (`sqrt` at 0).
///
/// ```
/// let mut n = 0.0;
/// nilang::blas::i_norm(&mut n, &mut vec![3.0, 4.0]);
/// assert_eq!(n, 5.0);
/// ```
#[i]
pub fn i_norm<T: Real>(out: &mut T, x: &mut [T]) {
    let s = T::zero();
    routine! {
        inorm2(s, x);
    }
    out += sqrt(s);
    uncompute!();
    dealloc!(s = T::zero());
}

/// `out += Σᵢ conj(x[i])·y[i]`, the dot product of complex vectors, conjugating the first
/// (BLAS's `zdotc`; NiLang's `i_dot` on complex vectors). Written on the real and imaginary
/// fields, four real multiply-adds per element.
///
/// ```
/// use num_complex::Complex;
///
/// let mut out = Complex::new(0.0, 0.0);
/// let mut x = vec![Complex::new(1.0, 2.0)];
/// let mut y = vec![Complex::new(3.0, 1.0)];
/// nilang::blas::i_cdot(&mut out, &mut x, &mut y);
/// assert_eq!(out, x[0].conj() * y[0]);
/// ```
#[i]
pub fn i_cdot<T: Real>(out: &mut Complex<T>, x: &mut [Complex<T>], y: &mut [Complex<T>]) {
    safe! {
        assert_eq!(x.len(), y.len(), "i_cdot: x and y have different lengths");
    }
    for i in 0..x.len() {
        out.re += x[i].re * y[i].re;
        out.re += x[i].im * y[i].im;
        out.im += x[i].re * y[i].im;
        out.im -= x[i].im * y[i].re;
    }
}

/// `out += Σᵢ |x[i]|²`, the squared norm of a complex vector, into a real output (NiLang's
/// `i_norm2` on complex vectors).
///
/// ```
/// use num_complex::Complex;
///
/// let mut out = 0.0;
/// nilang::blas::i_cnorm2(&mut out, &mut vec![Complex::new(3.0, 4.0), Complex::new(0.0, 1.0)]);
/// assert_eq!(out, 26.0);
/// ```
#[i]
pub fn i_cnorm2<T: Real>(out: &mut T, x: &mut [Complex<T>]) {
    for i in 0..x.len() {
        out += square(x[i].re);
        out += square(x[i].im);
    }
}

/// `out += ‖x‖ = √(Σᵢ |x[i]|²)`, the norm of a complex vector, into a real output; costs as
/// [`i_norm`].
///
/// ```
/// use num_complex::Complex;
///
/// let mut out = 0.0;
/// nilang::blas::i_cnorm(&mut out, &mut vec![Complex::new(3.0, 4.0)]);
/// assert_eq!(out, 5.0);
/// ```
#[i]
pub fn i_cnorm<T: Real>(out: &mut T, x: &mut [Complex<T>]) {
    let s = T::zero();
    routine! {
        i_cnorm2(s, x);
    }
    out += sqrt(s);
    uncompute!();
    dealloc!(s = T::zero());
}
