//! Higher-order operations over slices.
//!
//! ```
//! use nilang::stdlib::mapreduce::{i_filter, i_filter_inv};
//!
//! let (mut out, mut x) = (Vec::new(), vec![1.0, -2.0, 3.0]);
//! let positive = |v: f64| v > 0.0;
//! i_filter(&mut out, &mut x, &positive);
//! assert_eq!(out, vec![1.0, 3.0]);
//! i_filter_inv(&mut out, &mut x, &positive);
//! assert!(out.is_empty());
//! ```

use crate::{i, Real};

/// Pushes onto `out`, in order, the elements of `x` for which `keep` holds (NiLang's
/// `i_filter!`). `keep` sees each element's value as `f64` (so one predicate serves plain,
/// `GVar` and dual scalars) and must give the same answer when the inverse asks again.
///
/// Each kept element is copied into an ancilla (`y += x[i]`) that is then moved onto the
/// stack, so the gradient of a pushed value flows back to its element of `x`. Inverse: one
/// scan backwards, popping and checking each popped value against its element. Adjoint: one
/// scan.
#[i]
pub fn i_filter<T: Real, F: Fn(f64) -> bool>(out: &mut Vec<T>, x: &mut [T], keep: &F) {
    for i in 0..x.len() {
        if keep(x[i].val()) {
            let y = T::zero();
            y += x[i];
            push!(out, y);
            dealloc!(y = T::zero());
        }
    }
}
