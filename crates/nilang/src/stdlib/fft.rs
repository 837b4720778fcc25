//! The fast Fourier transform, reversible: radix-2 butterflies are rotations.
//!
//! The unitary discrete Fourier transform `X[k] = (1/√n) Σⱼ x[j] e^{−2πi jk/n}` of a
//! power-of-two length `n`, in place, by the iterative Cooley–Tukey scheme: a bit-reversal
//! permutation (swaps), then `log₂ n` stages of butterflies. A butterfly multiplies its second
//! value by the twiddle factor `e^{−iθ}` (a rotation, `irot`) and maps the pair `(a, b)` to
//! `((a + b)/√2, (a − b)/√2)` (the `hadamard` instruction; a rotation by −π/4 followed by a
//! negation would do the same). Every step is unitary, so the transform needs no scratch and its inverse
//! (`i_fft_inv`) is the unitary inverse transform, `x[j] = (1/√n) Σₖ X[k] e^{2πi jk/n}`.
//! (The unnormalised transform `Σⱼ x[j] e^{…}` is `√n` times this one.)
//!
//! ```
//! use nilang::stdlib::fft::{i_fft, i_fft_inv};
//! use num_complex::Complex;
//!
//! let x0: Vec<Complex<f64>> = (0..4).map(|j| Complex::new(j as f64, 0.0)).collect();
//! let mut x = x0.clone();
//! i_fft(&mut x);
//! // X[0] = (0 + 1 + 2 + 3)/2 and X[2] = (0 − 1 + 2 − 3)/2
//! assert!((x[0] - Complex::new(3.0, 0.0)).norm() < 1e-15);
//! assert!((x[2] - Complex::new(-1.0, 0.0)).norm() < 1e-15);
//! i_fft_inv(&mut x);
//! assert!(x.iter().zip(&x0).all(|(a, b)| (a - b).norm() < 1e-15));
//! ```

use crate::{i, Real};
use num_complex::Complex;

/// `j` with its lowest `log₂ n` bits reversed (`n` a power of two): where element `j` goes
/// in the bit-reversal permutation.
fn bit_reversed(j: usize, n: usize) -> usize {
    let bits = n.trailing_zeros();
    if bits == 0 {
        0
    } else {
        j.reverse_bits() >> (usize::BITS - bits)
    }
}

/// The twiddle angle `2π j / m` of butterfly `j` in a stage of span `m`.
fn twiddle(j: usize, m: usize) -> f64 {
    2.0 * core::f64::consts::PI * j as f64 / m as f64
}

/// `x ← F x`, the unitary DFT of a vector whose length is a power of two (0 and 1 included),
/// in place.
///
/// Cost: `n/2 · log₂ n` butterflies of one rotation (the twiddle) and one complex Hadamard
/// transform, plus at most `n/2` swaps; no scratch. The inverse (`i_fft_inv`) is the same
/// butterflies backwards. The adjoint (`i_fft_adjoint`, the gradient) is one more such pass:
/// each instruction's rule transforms the gradients with the values (the angles are
/// constants, so they get none).
///
/// ```
/// use nilang::stdlib::fft::{i_fft, i_fft_inv};
/// use num_complex::Complex;
///
/// // the unitary DFT of an impulse is flat: every entry 1/√n
/// let mut x = vec![Complex::new(1.0f64, 0.0), Complex::new(0.0, 0.0), Complex::new(0.0, 0.0), Complex::new(0.0, 0.0)];
/// i_fft(&mut x);
/// assert!(x.iter().all(|v| (v.re - 0.5).abs() < 1e-15 && v.im.abs() < 1e-15));
/// i_fft_inv(&mut x);
/// assert!((x[0].re - 1.0).abs() < 1e-15 && x[1..].iter().all(|v| v.norm() < 1e-15));
/// ```
#[i]
pub fn i_fft<T: Real>(x: &mut [Complex<T>]) {
    safe! {
        assert!(
            x.len().is_power_of_two() || x.is_empty(),
            "i_fft: the length {} is not a power of two",
            x.len()
        );
    }
    let n = x.len();
    for j in 0..n {
        if j < bit_reversed(j, n) {
            swap(x[j], x[bit_reversed(j, n)]);
        }
    }
    for s in 0..n.trailing_zeros() as usize {
        for k in (0..n).step_by(2 << s) {
            for j in 0..1 << s {
                irot(
                    x[k + j + (1 << s)].re,
                    x[k + j + (1 << s)].im,
                    twiddle(j, 2 << s),
                );
                hadamard(x[k + j], x[k + j + (1 << s)]);
            }
        }
    }
    dealloc!(n = x.len());
}
