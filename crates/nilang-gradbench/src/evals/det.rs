//! `det`: the determinant by expansion by minors (cmpad's `det_by_minor`) and its gradient.
//!
//! [`det_minor`] adds the determinant of the minor made of rows `row..ℓ` and the columns in
//! `cols` to `out`, by expansion along its first row. Each sub-minor's determinant is
//! computed into a fresh ancilla and, once multiplied into `out`, either
//!
//! * pushed on a stack (`push!`, minors of size above [`RECOMPUTE_MAX`]): the inverse pops it
//!   back instead of recomputing it, so the reverse sweep costs what the forward does; or
//! * uncomputed (compute–copy–uncompute, small minors): no memory, twice the work.
//!
//! The stack holds about `0.22·ℓ!` values (`ℓ = 11`: 8.7 million).

use super::{decode, timed, unknown_function};
use crate::runs::Timing;
use nilang::{i, Loss, Real};
use serde::Deserialize;
use serde_json::{json, Value};

/// Largest minor whose sub-minors are uncomputed rather than stacked.
pub const RECOMPUTE_MAX: usize = 3;

/// Largest matrix handled.
pub const MAX_ELL: usize = 16;

/// A set of column indices (at most [`MAX_ELL`]), in increasing order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cols {
    /// How many.
    pub n: usize,
    /// The columns, `c[..n]`.
    pub c: [usize; MAX_ELL],
}

impl Cols {
    /// Columns `0..n`.
    pub fn all(n: usize) -> Cols {
        let mut c = [0; MAX_ELL];
        for (i, v) in c.iter_mut().enumerate().take(n) {
            *v = i;
        }
        Cols { n, c }
    }

    /// The same columns without the `j`-th.
    pub fn without(&self, j: usize) -> Cols {
        let mut c = [0; MAX_ELL];
        let mut k = 0;
        for i in 0..self.n {
            if i != j {
                c[k] = self.c[i];
                k += 1;
            }
        }
        Cols { n: self.n - 1, c }
    }
}

/// `out += det(A[row.., cols])` for the `ℓ × ℓ` row-major `a`; `stack` receives the
/// sub-minor determinants of large minors.
#[i(nocheck)]
pub fn det_minor<T: Real>(
    out: &mut T,
    a: &mut [T],
    stack: &mut Vec<T>,
    row: usize,
    cols: Cols,
    ell: usize,
) {
    if cols.n == 1 {
        out += a[row * ell + cols.c[0]];
    } else if cols.n == 2 {
        out += a[row * ell + cols.c[0]] * a[(row + 1) * ell + cols.c[1]];
        out -= a[row * ell + cols.c[1]] * a[(row + 1) * ell + cols.c[0]];
    } else if cols.n <= RECOMPUTE_MAX {
        for j in 0..cols.n {
            let s = T::zero();
            routine! {
                det_minor(s, a, stack, row + 1, cols.without(j), ell);
            }
            if j % 2 == 0 {
                out += a[row * ell + cols.c[j]] * s;
            } else {
                out -= a[row * ell + cols.c[j]] * s;
            }
            uncompute!();
            dealloc!(s = T::zero());
        }
    } else {
        for j in 0..cols.n {
            let s = T::zero();
            det_minor(s, a, stack, row + 1, cols.without(j), ell);
            if j % 2 == 0 {
                out += a[row * ell + cols.c[j]] * s;
            } else {
                out -= a[row * ell + cols.c[j]] * s;
            }
            push!(stack, s);
            dealloc!(s = T::zero());
        }
    }
}

/// `out += det(A)` for the `ℓ × ℓ` row-major `a` (the stack is left holding sub-minors).
#[i(nocheck)]
pub fn det_objective<T: Real>(out: &mut T, a: &mut [T], stack: &mut Vec<T>, ell: usize) {
    det_minor(out, a, stack, 0, Cols::all(ell), ell);
}

/// The `det` input.
#[derive(Clone, Debug, Deserialize)]
pub struct Input {
    /// The matrix, row-major.
    #[serde(rename = "A")]
    pub a: Vec<f64>,
    /// Its size.
    pub ell: usize,
}

/// `det(A)` by running [`det_objective`] forward.
pub fn primal(a: &[f64], ell: usize) -> f64 {
    let (mut out, mut a, mut stack) = (0.0, a.to_vec(), Vec::new());
    det_objective(&mut out, &mut a, &mut stack, ell);
    out
}

/// `∇det(A)` (row-major) by running [`det_objective_inv`] on gradient values.
pub fn gradient(a: &[f64], ell: usize) -> Result<Vec<f64>, String> {
    let (mut out, mut a, mut stack) = (0.0, a.to_vec(), Vec::new());
    let (_g_out, ga, _g_stack) =
        det_objective_grad(Loss::arg(0), &mut out, &mut a, &mut stack, ell)
            .map_err(|e| e.to_string())?;
    Ok(ga.iter().map(|v| v.g).collect())
}

/// Plain Rust determinant by expansion by minors (the reference for tests).
pub fn reference(a: &[f64], ell: usize) -> f64 {
    fn minor(a: &[f64], ell: usize, row: usize, cols: Cols) -> f64 {
        if cols.n == 1 {
            return a[row * ell + cols.c[0]];
        }
        (0..cols.n)
            .map(|j| {
                let sign = if j % 2 == 0 { 1.0 } else { -1.0 };
                sign * a[row * ell + cols.c[j]] * minor(a, ell, row + 1, cols.without(j))
            })
            .sum()
    }
    minor(a, ell, 0, Cols::all(ell))
}

/// The `det` functions: `primal` and `gradient`.
pub fn evaluate(function: &str, input: &Value) -> Result<(Value, Vec<Timing>), String> {
    let inp: Input = decode("det", input)?;
    if inp.ell == 0 || inp.ell > MAX_ELL || inp.a.len() != inp.ell * inp.ell {
        return Err(format!(
            "bad `det` input: need 1 ≤ ell ≤ {MAX_ELL} and ell² entries in `A`, got ell = {} and {} entries",
            inp.ell,
            inp.a.len()
        ));
    }
    match function {
        "primal" => timed(input, || Ok(primal(&inp.a, inp.ell)), |y| json!(y)),
        "gradient" => timed(input, || gradient(&inp.a, inp.ell), |g| json!(g)),
        _ => Err(unknown_function("det", function, &["primal", "gradient"])),
    }
}
