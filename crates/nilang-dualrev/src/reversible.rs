//! [`DualRev`] as a number type of nilang's reversible programs (feature `reversible`).
//!
//! With this feature `DualRev` implements [`nilang::Float`], so every instruction of the
//! reversible language (and hence [`nilang::Real`]) is available on it: an `#[i]` function runs
//! on `DualRev` like on `f64`, and so do its generated derivatives (`f_grad::<DualRev>` runs
//! the inverse program on `GVar<DualRev>`). Inside [`grad`](crate::grad) this records the
//! reversible program — or the reversal that differentiates it — on the tape, which is how a
//! reverse-mode derivative is taken *through* ordinary Rust code that calls reversible programs
//! and their gradients (reverse over reversal; GradBench's nested `rr` evals).
//!
//! ```
//! use nilang::{i, Loss, Real};
//! use nilang_dualrev::{grad, DualRev};
//!
//! #[i]
//! fn cube<T: Real>(y: &mut T, x: &mut T) {
//!     y += pow(x, 3);
//! }
//!
//! // Reverse mode through a reversal gradient: d/dx (dy/dx) = d/dx 3x² = 6x.
//! let (_, h) = grad(
//!     |x: &[DualRev]| {
//!         let (mut y, mut x) = (DualRev::constant(0.0), x[0]);
//!         let (_, gx) = cube_grad(Loss::arg(0), &mut y, &mut x).unwrap();
//!         gx.g
//!     },
//!     &[1.5],
//! )
//! .unwrap();
//! assert!((h[0] - 9.0).abs() < 1e-12);
//! ```

use crate::dual::unary_fns;
use crate::scalar::{partials, Scalar};
use crate::DualRev;
use nilang::check::{close, Check};
use nilang::instr::Accepts;
use nilang::Float;

macro_rules! scalar_fns {
    ($($name:ident),*) => {$(
        #[inline]
        fn $name(self) -> Self {
            Scalar::$name(self)
        }
    )*};
}

impl Float for DualRev {
    /// The tape is thread-local: parallel loops run sequentially on `DualRev`.
    const PARALLEL_SAFE: bool = false;
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        DualRev::constant(v)
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self.value
    }
    /// An active scalar of a differentiation carries a derivative (so `pow` does not take its
    /// constant-exponent shortcut on it).
    #[inline(always)]
    fn has_tangent(self) -> bool {
        self.id != crate::tape::SINK
    }
    // exp, ln, ln_1p, exp_m1, sin, cos, tan, …: the elementary rows of the primitive table
    nilang_prims::elementary!(unary_fns);
    scalar_fns!(abs);
    /// The sign of the value, a constant.
    #[inline]
    fn signum(self) -> Self {
        DualRev::constant(if self.value == 0.0 {
            0.0
        } else {
            self.value.signum()
        })
    }
    #[inline]
    fn powf(self, y: Self) -> Self {
        Scalar::powf(self, y)
    }
    #[inline]
    fn powi(self, n: i32) -> Self {
        Scalar::powi(self, n)
    }
    #[inline]
    fn atan2(self, x: Self) -> Self {
        Scalar::atan2(self, x)
    }
}

impl Check for DualRev {
    /// Compares values only.
    fn check_eq(&self, other: &Self, tol: f64) -> bool {
        close(self.value, other.value, tol)
    }
}

impl Accepts<DualRev> for DualRev {
    #[inline(always)]
    fn load(x: &Self) -> Self {
        *x
    }
    /// An operand's recorded value is unchanged by an instruction: nothing to store.
    #[inline(always)]
    fn store(_: &mut Self, _: Self) {}
}

macro_rules! accepts_constant {
    ($($from:ty),*) => {$(
        impl Accepts<$from> for DualRev {
            #[inline(always)]
            fn load(x: &$from) -> Self {
                DualRev::constant(*x as f64)
            }
            #[inline(always)]
            fn store(_: &mut $from, _: Self) {}
        }
    )*};
}

accepts_constant!(f64, f32, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{grad, jacobian};
    use nilang::{i, Dual, Loss, Real};

    /// `y += exp(x₀)/(1 + x₁²) + Σ sin(xₖ)·xₖ₊₁ + log1p(x₂) + expm1(x₀)`, through ancillas.
    #[i]
    fn mix<T: Real>(y: &mut T, x: &mut [T]) {
        let (t, e, s) = (T::zero(), T::zero(), T::zero());
        routine! {
            t += square(x[1]);
            t += identity(1.0);
            e += exp(x[0]);
        }
        y += e / t;
        uncompute!();
        dealloc!(t = T::zero(), e = T::zero());
        for k in 0..x.len() - 1 {
            s += sin(x[k]);
            y += s * x[k + 1];
            s -= sin(x[k]);
        }
        dealloc!(s = T::zero());
        y += log1p(x[2]);
        y += expm1(x[0]);
    }

    fn value_of<S: Float + Real>(x: &[S]) -> S {
        let (mut y, mut x) = (S::f_zero(), x.to_vec());
        mix(&mut y, &mut x);
        y
    }

    fn gradient_of<S: Float + Real>(x: &[S]) -> Vec<S> {
        let (mut y, mut x) = (S::f_zero(), x.to_vec());
        let (_, gx) = mix_grad(Loss::arg(0), &mut y, &mut x).unwrap();
        gx.iter().map(|v| v.g).collect()
    }

    const X: [f64; 3] = [0.3, -0.7, 0.45];

    #[test]
    fn a_reversible_program_on_dualrev_has_the_reversal_gradient() {
        let (v, g) = grad(|x| value_of(x), &X).unwrap();
        assert_eq!(v, value_of(&X));
        let reversal = gradient_of(&X);
        for (a, b) in g.iter().zip(&reversal) {
            assert!((a - b).abs() < 1e-14, "{g:?} vs {reversal:?}");
        }
    }

    #[test]
    fn reverse_over_reversal_is_the_hessian() {
        // the Jacobian of the reversal gradient, by the tape, against forward over reversal
        let (gv, h) = jacobian(|x| gradient_of(x), &X).unwrap();
        assert_eq!(gv, gradient_of(&X));
        for j in 0..3 {
            let xd: Vec<Dual<f64>> = (0..3)
                .map(|k| Dual::new(X[k], if k == j { 1.0 } else { 0.0 }))
                .collect();
            let column: Vec<f64> = gradient_of(&xd).iter().map(|d| d.eps).collect();
            for i in 0..3 {
                assert!((h[i][j] - column[i]).abs() < 1e-13, "H[{i}][{j}]");
            }
        }
    }

    #[test]
    fn constants_and_inactive_scalars_behave_as_plain_numbers() {
        let c = DualRev::constant(2.0);
        assert!(!c.has_tangent());
        assert_eq!(Float::powi(c, 3).val(), 8.0);
        assert_eq!(Float::signum(DualRev::constant(-3.0)).val(), -1.0);
        assert_eq!(Float::signum(DualRev::constant(0.0)).val(), 0.0);
        assert!(c.check_eq(&DualRev::constant(2.0 + 1e-15), 1e-12));
        assert!(!c.check_eq(&DualRev::constant(2.1), 1e-12));
        let mut y = DualRev::constant(0.0);
        let mut x = [DualRev::constant(0.3), DualRev::constant(0.1), c];
        mix(&mut y, &mut x);
        assert_eq!(y.val(), value_of(&[0.3, 0.1, 2.0]));
    }
}

#[cfg(test)]
mod parallel_tests {
    use crate::DualRev;
    use nilang::{i, Real};

    #[i]
    fn sum_sin<T: Real>(out: &mut T, x: &mut [T]) {
        for i in (0..x.len()).par() {
            out += sin(x[i]);
        }
    }

    /// A parallel loop on `DualRev` runs sequentially (the tape is thread-local), so it is
    /// recorded in full even inside a 4-thread pool.
    #[test]
    fn parallel_loops_run_sequentially_on_the_tape() {
        let x: Vec<f64> = (0..200_000).map(|k| k as f64 * 1e-5).collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let (value, g) = pool
            .install(|| {
                crate::grad(
                    |x: &[DualRev]| {
                        let (mut out, mut xs) = (DualRev::constant(0.0), x.to_vec());
                        sum_sin(&mut out, &mut xs);
                        out
                    },
                    &x,
                )
            })
            .unwrap();
        assert!((value - x.iter().map(|v| v.sin()).sum::<f64>()).abs() < 1e-9);
        for (gi, xi) in g.iter().zip(&x) {
            assert!((gi - xi.cos()).abs() < 1e-12, "{gi} {}", xi.cos());
        }
    }
}
