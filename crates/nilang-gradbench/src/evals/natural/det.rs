//! `det` as a natural program: the determinant by expansion by minors, recursively, as plain
//! Rust; the columns of a minor are a bit mask.

use nilang::differentiable;

/// The determinant of the minor of the `ell × ell` matrix `a` (row-major) made of rows
/// `row..ell` and the columns whose bits are set in `cols`, expanded along its first row.
#[differentiable(wrt(a))]
pub fn minor(a: &[f64], ell: usize, row: usize, cols: usize) -> f64 {
    let mut det = 0.0;
    if row + 1 == ell {
        for j in 0..ell {
            if cols & (1 << j) != 0 {
                det += a[row * ell + j];
            }
        }
    } else {
        for j in 0..ell {
            if cols & (1 << j) != 0 {
                if before(cols, j) % 2 == 0 {
                    det += a[row * ell + j] * minor(a, ell, row + 1, cols & !(1 << j));
                } else {
                    det -= a[row * ell + j] * minor(a, ell, row + 1, cols & !(1 << j));
                }
            }
        }
    }
    det
}

/// How many of the columns in `cols` come before column `j` (the sign of its term).
pub fn before(cols: usize, j: usize) -> u32 {
    (cols & ((1 << j) - 1)).count_ones()
}

/// det(A), the plain function.
pub fn primal(a: &[f64], ell: usize) -> f64 {
    minor(a, ell, 0, (1 << ell) - 1)
}

/// ∇det(A) by `minor_gradient`.
pub fn gradient(a: &[f64], ell: usize) -> Vec<f64> {
    minor_gradient(a, ell, 0, (1 << ell) - 1).1
}
