//! Sorting-like operations that keep what they need to be undone.
//!
//! ```
//! use nilang::stdlib::sorting::{i_ascending, i_ascending_inv};
//!
//! let (mut xs, mut inds, mut a) = (Vec::new(), Vec::new(), vec![1.0, 0.5, 2.0, 3.0, -1.0, 4.0]);
//! i_ascending(&mut xs, &mut inds, &mut a);
//! assert_eq!((xs.clone(), inds.clone()), (vec![1.0, 2.0, 3.0, 4.0], vec![0, 2, 3, 5]));
//! assert_eq!(xs.last(), Some(&4.0)); // the maximum, at index inds.last()
//! i_ascending_inv(&mut xs, &mut inds, &mut a);
//! assert!(xs.is_empty() && inds.is_empty());
//! ```

use crate::{i, Real};

/// Pushes the running maxima of `a` onto `xs` and their indices onto `inds`: `a[0]`, then
/// every `a[i]` greater than the last value pushed (NiLang's `i_ascending!`). The last
/// entries are the maximum and the index of its first occurrence; the pushed values are the
/// strictly ascending subsequence that a left-to-right scan for the maximum visits.
///
/// The decision at `i` compares `a[i]` with the top of `xs`, which the branch itself changes,
/// so the postcondition is different: after the branch, the top of `inds` is `i` exactly when
/// it was taken. That makes the scan reversible without a branch keeper: the inverse pops while
/// the top index is `i`. Each value is moved onto the stack from an ancilla holding a copy
/// (`x += a[i]`), so the gradient of a pushed value flows back to its element of `a`.
///
/// Inverse: one scan backwards, popping. Adjoint: one scan, no scratch beyond the stacks.
/// An empty `a` pushes nothing.
///
/// ```
/// use nilang::stdlib::sorting::i_ascending;
///
/// let (mut xs, mut inds) = (Vec::new(), Vec::new());
/// i_ascending(&mut xs, &mut inds, &mut vec![3.0, 1.0, 5.0, 5.0]);
/// assert_eq!((xs, inds), (vec![3.0, 5.0], vec![0, 2])); // the first 5 only
/// ```
#[i]
pub fn i_ascending<T: Real>(xs: &mut Vec<T>, inds: &mut Vec<usize>, a: &mut [T]) {
    if !a.is_empty() {
        let first = T::zero();
        first += a[0];
        push!(xs, first);
        let k = 0usize;
        push!(inds, k);
        dealloc!(first = T::zero(), k = 0usize);
        for i in 1..a.len() {
            if (a[i] > xs[xs.len() - 1], inds[inds.len() - 1] == i) {
                let x = T::zero();
                x += a[i];
                push!(xs, x);
                let j = 0usize;
                j += i;
                push!(inds, j);
                dealloc!(x = T::zero(), j = 0usize);
            }
        }
    }
}
