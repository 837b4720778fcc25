//! Sparse matrices (arXiv paper §"Sparse Matrices"): the Frobenius dot product of two CSC
//! matrices and sparse × dense multiplication, reversible and differentiable.
//!
//! Matrices are `sprs::CsMat` in CSC storage. A reversible function takes the values of a
//! matrix as a `&mut [T]` (its differentiable state) and its structure as a [`Pattern`]
//! (read-only control parameters), so the gradient with respect to the stored values keeps the
//! sparsity structure.

use nilang::{i, Acc2, Accepts, Real};
use num_complex::Complex;
use sprs::CsMat;

/// The structure of a CSC matrix: column pointers and row indices.
#[derive(Clone, Copy, Debug)]
pub struct Pattern<'a> {
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// Column `j` holds entries `indptr[j]..indptr[j + 1]`.
    pub indptr: &'a [usize],
    /// Row index of each stored entry.
    pub indices: &'a [usize],
}

impl<'a> Pattern<'a> {
    /// The structure of a CSC matrix (an error for CSR storage).
    pub fn of<N>(m: &'a CsMat<N>) -> Result<Pattern<'a>, SparseError> {
        if !m.is_csc() {
            return Err(SparseError::NotCsc);
        }
        Ok(Pattern {
            rows: m.rows(),
            cols: m.cols(),
            indptr: m.indptr().into_raw_storage(),
            indices: m.indices(),
        })
    }
}

/// Bad input to the sparse functions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SparseError {
    /// The matrix is stored by rows; convert it with `to_csc()`.
    NotCsc,
    /// The shapes do not match.
    Shape {
        /// What was expected.
        expected: (usize, usize),
        /// What was found.
        found: (usize, usize),
    },
}

impl std::fmt::Display for SparseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SparseError::NotCsc => write!(
                f,
                "the matrix is stored by rows (CSR); convert it with to_csc()"
            ),
            SparseError::Shape { expected, found } => {
                write!(f, "shape {found:?} does not match {expected:?}")
            }
        }
    }
}

impl std::error::Error for SparseError {}

/// `r += Σᵢⱼ Aᵢⱼ Bᵢⱼ` for CSC matrices of the same shape.
///
/// Column by column, the row lists of A and B are merged: a step moves one pointer, and the
/// pointers consume the rows of both lists (all but each list's last) in the order of
/// `(row, A before B)`. The merge's decisions need no branch keeper: a step's decision is
/// computed into a bit `b_moves`, which moves the pointers, and is then cleared from the state
/// after the step (b moved exactly when a is at its start or b's previous row is at least a's
/// previous row); the inverse computes the bit from the state after, steps back and clears it
/// from the state before. Both are written with `&`/`|` so that the step has no branch, and
/// the merge ends with both pointers at their lists' last entries, so they are deallocated
/// there without walking back. One walk per column forward, one backward in the inverse and
/// the adjoint.
#[i]
pub fn isparse_dot<T: Real>(
    r: &mut T,
    av: &mut [T],
    bv: &mut [T],
    a: &Pattern<'_>,
    b: &Pattern<'_>,
) {
    for j in 0..a.cols {
        let (ia1, ia2, ib1, ib2) = (a.indptr[j], a.indptr[j + 1], b.indptr[j], b.indptr[j + 1]);
        if ia2 > ia1 && ib2 > ib1 {
            let (ia, ib) = (ia1, ib1);
            for _s in 0..ia2 - ia1 + ib2 - ib1 - 2 {
                if a.indices[ia] == b.indices[ib] {
                    r += av[ia] * bv[ib];
                }
                // b moves when a is at its end, or when b's row is smaller and b is not at its end
                // (`&`, `|`: no branches; every index read is in range)
                let b_moves = false;
                b_moves ^= (ia == ia2 - 1) | ((ib < ib2 - 1) & (a.indices[ia] > b.indices[ib]));
                ib += b_moves as usize;
                ia += (!b_moves) as usize;
                // after the step: b moved when a is at its start or b's previous row is at least a's
                b_moves ^= (ia == ia1)
                    | ((ib > ib1)
                        & (b.indices[ib.saturating_sub(1)] >= a.indices[ia.saturating_sub(1)]));
                dealloc!(b_moves = false);
            }
            if a.indices[ia] == b.indices[ib] {
                r += av[ia] * bv[ib];
            }
            dealloc!(ia = ia2 - 1, ib = ib2 - 1);
        }
        dealloc!(
            ia1 = a.indptr[j],
            ia2 = a.indptr[j + 1],
            ib1 = b.indptr[j],
            ib2 = b.indptr[j + 1]
        );
    }
}

/// [`isparse_dot`] with the runtime checks off (for benchmarks).
#[i(nocheck)]
pub fn isparse_dot_nocheck<T: Real>(
    r: &mut T,
    av: &mut [T],
    bv: &mut [T],
    a: &Pattern<'_>,
    b: &Pattern<'_>,
) {
    isparse_dot(r, av, bv, a, b);
}

/// The elements a sparse product accepts: real numbers, `GVar`s, complex numbers of them.
pub trait Element: Clone + Accepts<Self> + Acc2<nilang::prims::Mul> {}
impl<E: Clone + Accepts<E> + Acc2<nilang::prims::Mul>> Element for E {}

/// `C += A · B` with A sparse (CSC, `a.rows × a.cols`), B and C dense column-major
/// (`a.cols × n` and `a.rows × n`). Works for real and complex elements and their gradients.
#[i(nocheck)]
pub fn isparse_matmul<E: Element>(
    c: &mut [E],
    av: &mut [E],
    b: &mut [E],
    a: &Pattern<'_>,
    n: usize,
) {
    for col in 0..n {
        for j in 0..a.cols {
            for p in a.indptr[j]..a.indptr[j + 1] {
                c[col * a.rows + a.indices[p]] += av[p] * b[col * a.cols + j];
            }
        }
    }
}

/// [`isparse_matmul`] for complex matrices, generic over the real scalar `T` so that it has
/// adjoint programs (`isparse_matmul_complex_adjoint`: gradients in `Complex<G>` buffers, the
/// real and imaginary parts each a real variable). A complex product is four real
/// instructions on the parts. The entry of B that a column of A multiplies is copied into an
/// ancilla `bj` for the column (and uncopied after it), so that in the adjoint its gradient
/// is summed in registers and added to B's gradient once per column, not once per entry.
#[i(nocheck)]
pub fn isparse_matmul_complex<T: Real>(
    c: &mut [Complex<T>],
    av: &mut [Complex<T>],
    b: &mut [Complex<T>],
    a: &Pattern<'_>,
    n: usize,
) {
    for col in 0..n {
        for j in 0..a.cols {
            let bj = Complex::new(T::zero(), T::zero());
            bj.re += b[col * a.cols + j].re;
            bj.im += b[col * a.cols + j].im;
            for p in a.indptr[j]..a.indptr[j + 1] {
                c[col * a.rows + a.indices[p]].re += av[p].re * bj.re;
                c[col * a.rows + a.indices[p]].re -= av[p].im * bj.im;
                c[col * a.rows + a.indices[p]].im += av[p].re * bj.im;
                c[col * a.rows + a.indices[p]].im += av[p].im * bj.re;
            }
            bj.re -= b[col * a.cols + j].re;
            bj.im -= b[col * a.cols + j].im;
            dealloc!(bj = Complex::new(T::zero(), T::zero()));
        }
    }
}

/// The Frobenius dot product of two CSC matrices, plain Rust (the native baseline).
pub fn sparse_dot(a: &CsMat<f64>, b: &CsMat<f64>) -> f64 {
    let (pa, pb) = (Pattern::of(a).expect("CSC"), Pattern::of(b).expect("CSC"));
    let (av, bv) = (a.data(), b.data());
    let mut r = 0.0;
    for j in 0..pa.cols {
        let (mut ia, ia2, mut ib, ib2) = (
            pa.indptr[j],
            pa.indptr[j + 1],
            pb.indptr[j],
            pb.indptr[j + 1],
        );
        while ia < ia2 && ib < ib2 {
            let (ra, rb) = (pa.indices[ia], pb.indices[ib]);
            if ra == rb {
                r += av[ia] * bv[ib];
                ia += 1;
                ib += 1;
            } else if ra < rb {
                ia += 1;
            } else {
                ib += 1;
            }
        }
    }
    r
}

/// Sparse × dense, plain Rust (the native baseline), same layout as [`isparse_matmul`].
pub fn sparse_matmul<E: Copy + core::ops::Add<Output = E> + core::ops::Mul<Output = E>>(
    c: &mut [E],
    a: &CsMat<E>,
    b: &[E],
    n: usize,
) {
    let pa = Pattern::of(a).expect("CSC");
    let av = a.data();
    for col in 0..n {
        for j in 0..pa.cols {
            let bj = b[col * pa.cols + j];
            for p in pa.indptr[j]..pa.indptr[j + 1] {
                let i = col * pa.rows + pa.indices[p];
                c[i] = c[i] + av[p] * bj;
            }
        }
    }
}

/// A random CSC matrix with the given density (entries in (−1, 1)), from a seed.
pub fn random_csc(rows: usize, cols: usize, density: f64, seed: u64) -> CsMat<f64> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut tri = sprs::TriMat::new((rows, cols));
    for j in 0..cols {
        for i in 0..rows {
            if rng.gen::<f64>() < density {
                tri.add_triplet(i, j, rng.gen_range(-1.0..1.0));
            }
        }
    }
    tri.to_csc()
}

/// `(dot, ∂dot/∂A values, ∂dot/∂B values)` by reversal: the forward program, the dot read
/// off, then its adjoint program seeded with 1 on the dot (`isparse_dot_nocheck_vjp` with the
/// dot read between its halves).
pub fn sparse_dot_gradient(
    a: &CsMat<f64>,
    b: &CsMat<f64>,
) -> Result<(f64, Vec<f64>, Vec<f64>), SparseError> {
    let (pa, pb) = (Pattern::of(a)?, Pattern::of(b)?);
    if (pa.rows, pa.cols) != (pb.rows, pb.cols) {
        return Err(SparseError::Shape {
            expected: (pa.rows, pa.cols),
            found: (pb.rows, pb.cols),
        });
    }
    let (mut r, mut r_grad) = (0.0, 1.0);
    let (mut av, mut bv) = (a.data().to_vec(), b.data().to_vec());
    let (mut ga, mut gb) = (vec![0.0; av.len()], vec![0.0; bv.len()]);
    isparse_dot_nocheck(&mut r, &mut av, &mut bv, &pa, &pb);
    let dot = r;
    isparse_dot_nocheck_adjoint(
        &mut r,
        &mut r_grad,
        &mut av,
        &mut ga,
        &mut bv,
        &mut gb,
        &pa,
        (),
        &pb,
        (),
    );
    Ok((dot, ga, gb))
}
