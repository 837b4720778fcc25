//! `det` over [`Scalar`]: the determinant by expansion by minors, recursively; the columns of
//! a minor are a bit mask.

use crate::evals::natural::det::before;
use nilang_dualrev::Scalar;

/// The determinant of the minor of the `ell × ell` matrix `a` (row-major) made of rows
/// `row..ell` and the columns whose bits are set in `cols`, expanded along its first row.
pub fn minor<S: Scalar>(a: &[S], ell: usize, row: usize, cols: usize) -> S {
    let mut det = S::zero();
    for j in (0..ell).filter(|j| cols & (1 << j) != 0) {
        let entry = a[row * ell + j];
        if row + 1 == ell {
            det += entry;
        } else if before(cols, j) % 2 == 0 {
            det += entry * minor(a, ell, row + 1, cols & !(1 << j));
        } else {
            det -= entry * minor(a, ell, row + 1, cols & !(1 << j));
        }
    }
    det
}

/// det(A) on `f64`.
pub fn primal(a: &[f64], ell: usize) -> f64 {
    minor(a, ell, 0, (1 << ell) - 1)
}

/// ∇det(A) by one reverse sweep. The expansion has about `e·ell!` terms of two operations
/// each.
pub fn gradient(a: &[f64], ell: usize) -> Result<Vec<f64>, String> {
    let terms = (1..=ell).fold(1usize, |t, i| t.saturating_mul(i));
    super::need_tape("det", &[terms, 6])?;
    super::gradient_of(|a| primal_of(a, ell), a)
}

fn primal_of<S: Scalar>(a: &[S], ell: usize) -> S {
    minor(a, ell, 0, (1 << ell) - 1)
}
