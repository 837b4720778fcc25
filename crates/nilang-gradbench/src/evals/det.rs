//! `det`: the determinant by expansion by minors (cmpad's `det_by_minor`) and its gradient.
//!
//! [`det_minor`] adds the determinant of the minor made of rows `row..ℓ` and the columns in
//! `cols` (a bit mask, [`Cols`]) to `out`, by expansion along its first row:
//!
//! * minors of at most [`DIRECT_MAX`] = 3 columns are expanded in place: a 3 × 3 minor computes
//!   its three 2 × 2 sub-minors in ancillas its routine allocates, so the unchecked forward
//!   computes them once (their uncomputation only restores the routine's own ancillas) and
//!   the reverse sweep recomputes them;
//! * a larger minor computes each sub-minor's determinant into a fresh ancilla, multiplies it
//!   into `out` and pushes it on a stack (`push!`): the inverse pops it back instead of
//!   recomputing it, so the reverse sweep costs what the forward does.
//!
//! The stack holds [`stacked`]`(ℓ)` values, about `0.22·ℓ!` (`ℓ = 11`: 8.7 million); the
//! forward's work is about `ℓ!/6` direct 3 × 3 expansions, against the `e·ℓ!` recursive calls
//! of an expansion down to 1 × 1 minors.

use super::{decode, timed, unknown_function};
use crate::limits::{Need, ANSWER_NUMBER_BYTES};
use crate::runs::Timing;
use nilang::{i, Loss, Real};
use serde::Deserialize;
use serde_json::{json, Value};

/// Largest minor computed directly from its entries; the determinants of the sub-minors of
/// larger minors are stacked.
pub const DIRECT_MAX: usize = 3;

/// Largest matrix handled.
pub const MAX_ELL: usize = 16;

/// A set of column indices below [`MAX_ELL`], as a bit mask (bit `c` set: column `c` is in).
/// Its `j`-th column is the `j`-th set bit from the lowest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cols(pub u32);

impl Cols {
    /// Columns `0..n`.
    pub fn all(n: usize) -> Cols {
        Cols((1 << n) - 1)
    }

    /// How many.
    #[inline(always)]
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether there is none.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The `j`-th column (`j < self.len()`).
    #[inline(always)]
    pub fn get(self, j: usize) -> usize {
        debug_assert!(j < self.len(), "column {j} of {}", self.len());
        let mut m = self.0;
        for _ in 0..j {
            m &= m - 1;
        }
        m.trailing_zeros() as usize
    }

    /// The same columns without the `j`-th.
    #[inline(always)]
    pub fn without(self, j: usize) -> Cols {
        Cols(self.0 & !(1 << self.get(j)))
    }
}

/// How many sub-minor determinants [`det_minor`] pushes for a minor of `n` columns.
pub fn stacked(n: usize) -> usize {
    if n <= DIRECT_MAX {
        0
    } else {
        n * (1 + stacked(n - 1))
    }
}

/// `out += det(A[row.., cols])` for the `ℓ × ℓ` row-major `a`; `stack` receives the
/// sub-minor determinants of minors larger than [`DIRECT_MAX`].
#[i(nocheck)]
pub fn det_minor<T: Real>(
    out: &mut T,
    a: &mut [T],
    stack: &mut Vec<T>,
    row: usize,
    cols: Cols,
    ell: usize,
) {
    if cols.len() == 1 {
        out += a[row * ell + cols.get(0)];
    } else if cols.len() == 2 {
        out += a[row * ell + cols.get(0)] * a[(row + 1) * ell + cols.get(1)];
        out -= a[row * ell + cols.get(1)] * a[(row + 1) * ell + cols.get(0)];
    } else if cols.len() == 3 {
        // the 2 × 2 sub-minors (rows `row + 1`, `row + 2`) in ancillas of the routine's own,
        // so the forward does not uncompute them
        routine! {
            let (m0, m1, m2) = (T::zero(), T::zero(), T::zero());
            m0 += a[(row + 1) * ell + cols.get(1)] * a[(row + 2) * ell + cols.get(2)];
            m0 -= a[(row + 1) * ell + cols.get(2)] * a[(row + 2) * ell + cols.get(1)];
            m1 += a[(row + 1) * ell + cols.get(0)] * a[(row + 2) * ell + cols.get(2)];
            m1 -= a[(row + 1) * ell + cols.get(2)] * a[(row + 2) * ell + cols.get(0)];
            m2 += a[(row + 1) * ell + cols.get(0)] * a[(row + 2) * ell + cols.get(1)];
            m2 -= a[(row + 1) * ell + cols.get(1)] * a[(row + 2) * ell + cols.get(0)];
        }
        out += a[row * ell + cols.get(0)] * m0;
        out -= a[row * ell + cols.get(1)] * m1;
        out += a[row * ell + cols.get(2)] * m2;
        uncompute!();
    } else {
        for j in 0..cols.len() {
            let s = T::zero();
            det_minor(s, a, stack, row + 1, cols.without(j), ell);
            if j % 2 == 0 {
                out += a[row * ell + cols.get(j)] * s;
            } else {
                out -= a[row * ell + cols.get(j)] * s;
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

/// An empty stack with room for what [`det_objective`] pushes (when that much can be had).
fn new_stack(ell: usize) -> Vec<f64> {
    let mut stack = Vec::new();
    // without the room the stack grows as it fills (slower, same results)
    let _ = stack.try_reserve_exact(stacked(ell));
    stack
}

/// `det(A)` by running [`det_objective`] forward.
pub fn primal(a: &[f64], ell: usize) -> f64 {
    let (mut out, mut a, mut stack) = (0.0, a.to_vec(), new_stack(ell));
    det_objective(&mut out, &mut a, &mut stack, ell);
    out
}

/// `∇det(A)` (row-major) by running [`det_objective_inv`] on gradient values.
pub fn gradient(a: &[f64], ell: usize) -> Result<Vec<f64>, String> {
    let (mut out, mut a, mut stack) = (0.0, a.to_vec(), new_stack(ell));
    let (_g_out, ga, _g_stack) =
        det_objective_grad(Loss::arg(0), &mut out, &mut a, &mut stack, ell)
            .map_err(|e| e.to_string())?;
    Ok(ga.iter().map(|v| v.g).collect())
}

/// Plain Rust determinant by expansion by minors (the reference for tests).
pub fn reference(a: &[f64], ell: usize) -> f64 {
    fn minor(a: &[f64], ell: usize, row: usize, cols: Cols) -> f64 {
        if cols.len() == 1 {
            return a[row * ell + cols.get(0)];
        }
        (0..cols.len())
            .map(|j| {
                let sign = if j % 2 == 0 { 1.0 } else { -1.0 };
                sign * a[row * ell + cols.get(j)] * minor(a, ell, row + 1, cols.without(j))
            })
            .sum()
    }
    minor(a, ell, 0, Cols::all(ell))
}

/// The memory `function` needs for an `ell × ell` matrix (`ell ≤` [`MAX_ELL`]; [`Need`]): the
/// [`stacked`] sub-minors, 8 bytes each forward, 16 in the gradient's sweep (measured: 8.0
/// and 16.0 bytes each at `ell = 11`), and the matrix's copies and the answer.
pub fn need(function: &str, ell: usize) -> Result<(), String> {
    let mut need = Need::new("det");
    let per_value = if function == "gradient" { 16 } else { 8 };
    need.add("ell", &[stacked(ell)], per_value)?;
    need.add("ell", &[3, ell, ell], 8 + ANSWER_NUMBER_BYTES)
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
    need(function, inp.ell)?;
    match function {
        "primal" => timed(input, || Ok(primal(&inp.a, inp.ell)), |y| json!(y)),
        "gradient" => timed(input, || gradient(&inp.a, inp.ell), |g| json!(g)),
        _ => Err(unknown_function("det", function, &["primal", "gradient"])),
    }
}
