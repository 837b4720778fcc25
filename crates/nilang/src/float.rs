//! `Float`: the base number types that primitives compute with (`f64`, `f32`, dual numbers).
//!
//! Every primitive of the language is defined once, generically over `Float`, by its value and
//! its derivative (see [`crate::prims`]); plain floats, value+gradient numbers and dual numbers
//! then all get the instruction for free.
//!
//! Code generic over `Float` runs on plain floats and on dual numbers, so it is
//! differentiable in forward mode as written:
//!
//! ```
//! use nilang::{Dual, Float};
//!
//! fn softsign<T: Float>(x: T) -> T {
//!     x / (T::f_one() + x.abs())
//! }
//! assert_eq!(softsign(1.0f64), 0.5);
//! assert_eq!(softsign(Dual::new(1.0, 1.0)).eps, 0.25); // 1/(1 + |x|)²
//! ```

use core::fmt::Debug;
use core::ops::{Add, Div, Mul, Neg, Sub};

/// The `Float` methods of the primitive table's elementary rows: their declarations in the
/// trait, and `<f64>::exp(self)` and the like on a primitive float type.
macro_rules! float_methods {
    ([] $(($ty:ident $method:ident $doc:literal $($rest:tt)*))*) => {$(
        #[doc = $doc]
        fn $method(self) -> Self;
    )*};
    ([$t:ty] $(($ty:ident $method:ident $($rest:tt)*))*) => {$(
        #[inline(always)]
        fn $method(self) -> Self {
            <$t>::$method(self)
        }
    )*};
}

/// A real number type the primitives can be evaluated on.
///
/// ```
/// use nilang::{Dual, Float};
///
/// // generic code over every number type the primitives run on
/// fn softplus<T: Float>(x: T) -> T {
///     (T::f_one() + x.exp()).ln()
/// }
/// assert_eq!(softplus(0.0f64), 2f64.ln());
/// let d = softplus(Dual::new(0.0, 1.0));
/// assert_eq!((d.re, d.eps), (2f64.ln(), 0.5)); // the derivative is the logistic function
/// assert_eq!(f64::from_f64(1.5).to_f64(), 1.5);
/// ```
pub trait Float:
    Copy
    + Debug
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + Send
    + Sync
    + 'static
{
    /// Converts a constant.
    fn from_f64(v: f64) -> Self;
    /// The primal value as `f64` (for conditions and messages).
    fn to_f64(self) -> f64;
    /// `0` (named apart from [`crate::Real::zero`], so that a type that is both is unambiguous)
    fn f_zero() -> Self {
        Self::from_f64(0.0)
    }
    /// `1`
    fn f_one() -> Self {
        Self::from_f64(1.0)
    }
    // exp, ln, ln_1p, exp_m1, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, sqrt, …:
    // one method for each elementary row of the primitive table
    nilang_prims::elementary!(float_methods);
    /// absolute value
    fn abs(self) -> Self;
    /// sign (−1, 0 or 1 as the primal value's sign)
    fn signum(self) -> Self;
    /// xʸ
    fn powf(self, y: Self) -> Self;
    /// xⁿ for an integer n
    fn powi(self, n: i32) -> Self;
    /// four-quadrant arctangent of `self / x`
    fn atan2(self, x: Self) -> Self;
    /// Whether the number carries a nonzero derivative part (a dual number's tangent); plain
    /// numbers never do. Primitives with a fast path for special constant operands (`pow` with
    /// an integer exponent) take it only when the operand has no tangent.
    fn has_tangent(self) -> bool {
        false
    }
    /// Whether a parallel loop (`for i in (a..b).par()`) may run its iterations on several
    /// threads when its program runs on this type. `false` for a type whose arithmetic
    /// records on a thread-local tape (`nilang_dualrev::DualRev`): such programs run their
    /// parallel loops sequentially.
    const PARALLEL_SAFE: bool = true;
}

macro_rules! float_impl {
    ($t:ty) => {
        impl Float for $t {
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            nilang_prims::elementary!(float_methods, $t);
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn signum(self) -> Self {
                if self == 0.0 {
                    0.0
                } else {
                    <$t>::signum(self)
                }
            }
            #[inline(always)]
            fn powf(self, y: Self) -> Self {
                <$t>::powf(self, y)
            }
            #[inline(always)]
            fn powi(self, n: i32) -> Self {
                <$t>::powi(self, n)
            }
            #[inline(always)]
            fn atan2(self, x: Self) -> Self {
                <$t>::atan2(self, x)
            }
        }
    };
}

float_impl!(f64);
float_impl!(f32);
