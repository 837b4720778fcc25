//! `ode`'s reversible program: the step's band coefficients ([`rk4_coefficients`]), one step
//! ([`rk4_step`]), all steps ([`ode_solve`]); and the sizes they read ([`Rk`]).

use nilang::{i, Real};

/// Leading entries of every slot of `ys` and every block of `c` (the band of the step's
/// matrix reaches back four components).
pub const PAD: usize = 4;

/// Sizes and step of the integration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rk {
    /// Components.
    pub n: usize,
    /// Steps.
    pub s: usize,
    /// Length of a slot of `ys` and of a block of `c`: `PAD + n`.
    pub m: usize,
}

impl Rk {
    /// `n` components, `s` steps.
    pub fn new(n: usize, s: usize) -> Rk {
        Rk { n, s, m: PAD + n }
    }

    /// The step `h = 2 / s` times `c`.
    #[inline(always)]
    pub fn h(&self, c: f64) -> f64 {
        c * 2.0 / self.s as f64
    }

    /// Length of `ys`: `s + 1` slots.
    pub fn ys_len(&self) -> usize {
        (self.s + 1) * self.m
    }

    /// Length of `c`: four blocks.
    pub fn c_len(&self) -> usize {
        4 * self.m
    }
}

/// `ys[(k + 1)·m ..] += one Runge–Kutta step from ys[k·m ..]` for every step `k < s`
/// ([`rk4_step`]). `ys` has `s + 1` slots of `m = PAD + n`, each starting with [`PAD`] ones,
/// and `x` is padded the same way with zeros (both the caller's:
/// [`Buffers::clear_solution`](super::Buffers::clear_solution),
/// [`Buffers::set_x`](super::Buffers::set_x)); `c` (zero, `4·m`) holds the step's diagonals
/// meanwhile ([`rk4_coefficients`]).
#[i(nocheck)]
pub fn ode_solve<T: Real>(ys: &mut [T], c: &mut [T], x: &mut [T], rk: Rk) {
    routine! {
        rk4_coefficients(c, x, rk);
    }
    for k in 0..rk.s {
        rk4_step(ys, c, k, rk);
    }
    uncompute!();
}

/// The diagonals `d_qᵢ = h^q/q!·xᵢ·xᵢ₋₁·…·xᵢ₋q₊₁` of the step's matrix into `c`, four blocks
/// of `m` (`q = 1 … 4`) whose [`PAD`] leading entries stay zero: `d₁ = h·x`, then
/// `d_qᵢ = d_{q−1}ᵢ·(h/q·xᵢ₋q₊₁)`, the second factor a scalar ancilla (`x` padded with zeros,
/// so `d_qᵢ = 0` for `i < q − 1`). Each pass reads `x` at one position, so the gradient's
/// passes update `x`'s gradient at one position per iteration.
#[i(nocheck)]
pub fn rk4_coefficients<T: Real>(c: &mut [T], x: &mut [T], rk: Rk) {
    for i in 0..rk.n {
        c[PAD + i] += x[PAD + i] * rk.h(1.0);
    }
    for q in 1..4 {
        for i in 0..rk.n {
            let t = T::zero();
            routine! {
                t += x[PAD + i - q] * rk.h(1.0 / (q + 1) as f64);
            }
            c[q * rk.m + PAD + i] += c[(q - 1) * rk.m + PAD + i] * t;
            uncompute!();
            dealloc!(t = T::zero());
        }
    }
}

/// Step `k`: slot `k + 1` += `M·y` for `y` in slot `k`, where the classical Runge–Kutta step of
/// the linear `y' = A·y` (`(A·y)ᵢ = xᵢ·yᵢ₋₁`, with `y₋₁ = 1` carrying `f₀ = x₀`) is
/// `M = I + hA + (hA)²/2 + (hA)³/6 + (hA)⁴/24`, a lower band: `(M·y)ᵢ = Σ_q d_qᵢ·yᵢ₋q`
/// (`d₀ = 1`; `yᵢ₋q` is `ys[k·m + PAD + i − q]`, `d_qᵢ` is `c[(q − 1)·m + PAD + i]`). Two
/// passes, the even diagonals and the odd ones: a pass reads `y` at positions two apart, so
/// the gradient pass's updates of `y`'s gradient are never adjacent (adjacent ones are merged
/// into 16-byte updates whose loads cannot be forwarded from the previous iteration's 8-byte
/// stores: a stall per component, most of the gradient's time in a stencil written that way).
#[i(nocheck)]
pub fn rk4_step<T: Real>(ys: &mut [T], c: &mut [T], k: usize, rk: Rk) {
    for i in 0..rk.n {
        ys[(k + 1) * rk.m + PAD + i] += identity(ys[k * rk.m + PAD + i]);
        ys[(k + 1) * rk.m + PAD + i] += c[rk.m + PAD + i] * ys[k * rk.m + PAD + i - 2];
        ys[(k + 1) * rk.m + PAD + i] += c[3 * rk.m + PAD + i] * ys[k * rk.m + i];
    }
    for i in 0..rk.n {
        ys[(k + 1) * rk.m + PAD + i] += c[PAD + i] * ys[k * rk.m + PAD + i - 1];
        ys[(k + 1) * rk.m + PAD + i] += c[2 * rk.m + PAD + i] * ys[k * rk.m + PAD + i - 3];
    }
}
