//! The Lotka–Volterra equations `x' = αx − βxy`, `y' = δxy − γy` integrated by classical
//! fourth-order Runge–Kutta with time step [`H`], as a reversible step with parameters
//! `θ = (α, β, γ, δ)` ([`rk4`], for `nilang::checkpoint`), as a plain Rust loop (the native
//! objective, [`native_final`]), and with the parameters carried in the state by identity
//! (`[x, y, α, β, γ, δ]`, [`rk4_carried`], for `nilang::treeverse::ReversalChain`). Shared by
//! `tests/checkpoint.rs` and `examples/checkpoint_bench.rs`.

#![allow(dead_code)]

use nilang::{i, Real};

/// The time step.
pub const H: f64 = 0.01;

/// Defines `lotka_volterra`, `axpy2` and `rk4` with the options `$options` of `#[i]`:
/// the default here (checked in debug builds, unchecked in release builds), `check` pinned
/// in [`checked`].
macro_rules! runge_kutta {
    ($($options:tt)*) => {
        /// `(dx, dy) += (αx − βxy, δxy − γy)` at `(x, y)`.
        #[i $($options)*]
        pub fn lotka_volterra<T: Real>(dx: &mut T, dy: &mut T, x: &mut T, y: &mut T, p: &mut [T]) {
            let xy = T::zero();
            routine! {
                xy += x * y;
            }
            dx += p[0] * x;
            dx -= p[1] * xy;
            dy += p[3] * xy;
            dy -= p[2] * y;
            uncompute!();
            dealloc!(xy = T::zero());
        }

        /// `(ax, ay) += (x, y) + c·(kx, ky)`.
        #[i $($options)*]
        pub fn axpy2<T: Real>(
            ax: &mut T,
            ay: &mut T,
            x: &mut T,
            y: &mut T,
            kx: &mut T,
            ky: &mut T,
            c: f64,
        ) {
            ax += identity(x);
            ax += c * kx;
            ay += identity(y);
            ay += c * ky;
        }

        /// One Runge–Kutta step: `out += s + H/6 (k₁ + 2k₂ + 2k₃ + k₄)`, the stages computed on
        /// ancillas and uncomputed.
        #[i $($options)*]
        pub fn rk4<T: Real>(out: &mut [T], s: &mut [T], p: &mut [T]) {
            let (k1x, k1y, k2x, k2y) = (T::zero(), T::zero(), T::zero(), T::zero());
            let (k3x, k3y, k4x, k4y) = (T::zero(), T::zero(), T::zero(), T::zero());
            let (ax, ay, bx) = (T::zero(), T::zero(), T::zero());
            let (by, cx, cy) = (T::zero(), T::zero(), T::zero());
            routine! {
                lotka_volterra(k1x, k1y, s[0], s[1], p);
                axpy2(ax, ay, s[0], s[1], k1x, k1y, 0.5 * H);
                lotka_volterra(k2x, k2y, ax, ay, p);
                axpy2(bx, by, s[0], s[1], k2x, k2y, 0.5 * H);
                lotka_volterra(k3x, k3y, bx, by, p);
                axpy2(cx, cy, s[0], s[1], k3x, k3y, H);
                lotka_volterra(k4x, k4y, cx, cy, p);
            }
            out[0] += identity(s[0]);
            out[0] += (H / 6.0) * k1x;
            out[0] += (H / 3.0) * k2x;
            out[0] += (H / 3.0) * k3x;
            out[0] += (H / 6.0) * k4x;
            out[1] += identity(s[1]);
            out[1] += (H / 6.0) * k1y;
            out[1] += (H / 3.0) * k2y;
            out[1] += (H / 3.0) * k3y;
            out[1] += (H / 6.0) * k4y;
            uncompute!();
            dealloc!(k1x = T::zero(), k1y = T::zero(), k2x = T::zero());
            dealloc!(k2y = T::zero(), k3x = T::zero(), k3y = T::zero());
            dealloc!(k4x = T::zero(), k4y = T::zero(), ax = T::zero());
            dealloc!(ay = T::zero(), bx = T::zero(), by = T::zero());
            dealloc!(cx = T::zero(), cy = T::zero());
        }
    };
}

runge_kutta!();

/// The same step with runtime reversibility checks in every build (`#[i(check)]`).
pub mod checked {
    use super::H;
    use nilang::{i, Real};

    runge_kutta!((check));
}

/// [`rk4`] on the state `[x, y, α, β, γ, δ]`: the parameters are carried to the next state
/// by identity, so that a chain of steps differentiates with respect to them.
#[i]
pub fn rk4_carried<T: Real>(out: &mut [T], s: &mut [T]) {
    rk4(out[0..2], s[0..2], s[2..6]);
    for k in 2..6 {
        out[k] += identity(s[k]);
    }
}

/// `(αx − βxy, δxy − γy)`.
fn rhs(s: [f64; 2], p: &[f64]) -> [f64; 2] {
    let (x, y) = (s[0], s[1]);
    [p[0] * x - p[1] * (x * y), p[3] * (x * y) - p[2] * y]
}

/// One Runge–Kutta step in plain Rust, the same arithmetic as [`rk4`].
pub fn native_step(s: [f64; 2], p: &[f64]) -> [f64; 2] {
    let at = |k: [f64; 2], c: f64| [s[0] + c * k[0], s[1] + c * k[1]];
    let k1 = rhs(s, p);
    let k2 = rhs(at(k1, 0.5 * H), p);
    let k3 = rhs(at(k2, 0.5 * H), p);
    let k4 = rhs(at(k3, H), p);
    let step = |j: usize| {
        s[j] + (H / 6.0) * k1[j] + (H / 3.0) * k2[j] + (H / 3.0) * k3[j] + (H / 6.0) * k4[j]
    };
    [step(0), step(1)]
}

/// `x_T` after `steps` native steps from `s0`.
pub fn native_final(s0: [f64; 2], p: &[f64], steps: usize) -> [f64; 2] {
    (0..steps).fold(s0, |s, _| native_step(s, p))
}

/// The initial state and parameters of the tests and the benchmark.
pub const X0: [f64; 2] = [1.0, 0.5];
/// `(α, β, γ, δ)`.
pub const THETA: [f64; 4] = [1.5, 1.0, 3.0, 1.0];
