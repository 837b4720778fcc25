// Parallel loops with the shapes the lse and gmm loops lack, compiled here by `#[i]` (as a
// module of tests/par_vs_rust.rs) and translated from this file's text by nilang-cgen.
use nilang::{i, Real};

/// Owned slots of stride 2 written by an inner loop, a reversed inclusive range, a branch
/// on a value the loop reads, a scalar every iteration reads (`w`: a shared adjoint), and a
/// reduction written by `+=` in one branch and `-=` in the other.
#[i(nocheck)]
pub fn strided<T: Real>(y: &mut [T], x: &mut [T], w: &mut T, total: &mut T, n: usize) {
    for i in (0..=n - 1).rev().par() {
        for j in 0..2 {
            y[2 * i + j] += w * x[i];
        }
        if x[i].val() > 0.0 {
            total += sin(x[i]);
        } else {
            total -= cos(w);
        }
    }
}
