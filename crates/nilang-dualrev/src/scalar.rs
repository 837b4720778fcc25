//! The [`Scalar`] trait: the one bound user code is generic over.
//!
//! In the paper's terms (§3.2) the code transformation maps the scalar type
//! `ℝ` to a pair of a scalar and a derivative component, and everything else
//! homomorphically. In Rust we get the "everything else homomorphically" part
//! for free from generics: a function written once as `fn f<S: Scalar>(..)`
//! is monomorphised for `f64` (the primal program), for
//! [`DualRev`](crate::DualRev) (the efficient transformed program of §7–§8.2)
//! and for [`naive::NaiveDual`](crate::naive::NaiveDual) (the naive
//! transformation of §3). Closures, iterators, recursion, `Option`, user
//! structs and enums need no special treatment, because only the scalar type
//! changes.

use core::fmt::{Debug, Display};
use core::iter::{Product, Sum};
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// A real scalar that generic numeric code can be written against.
///
/// Implemented for `f64` (plain evaluation), [`DualRev`](crate::DualRev)
/// (efficient reverse AD) and [`NaiveDual`](crate::naive::NaiveDual) (the
/// naive reference transformation).
///
/// Arithmetic with `f64` constants works with the constant on the right
/// (`x * 2.0`, `x - 1.0`) in generic code. The concrete AD types additionally
/// implement `2.0 * x`, but Rust cannot express that as a bound of this trait,
/// so in generic code write `S::cst(2.0) * x` (or `x * 2.0`) instead.
///
/// Comparisons (`<`, `==`, `max`, `min`) look at primal values only, which is
/// what makes data-dependent control flow (`if x > 0.0 { .. }`) work: the
/// branch taken is recorded, not the branch condition.
pub trait Scalar:
    Copy
    + Debug
    + Display
    + Default
    + PartialEq
    + PartialOrd
    + PartialEq<f64>
    + PartialOrd<f64>
    + From<f64>
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + Add<f64, Output = Self>
    + Sub<f64, Output = Self>
    + Mul<f64, Output = Self>
    + Div<f64, Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + AddAssign<f64>
    + SubAssign<f64>
    + MulAssign<f64>
    + DivAssign<f64>
    + Sum
    + Product
{
    /// A constant (derivative-free) scalar with value `c`.
    fn cst(c: f64) -> Self;
    /// The primal value.
    fn value(self) -> f64;
    /// The constant `0`.
    #[inline]
    fn zero() -> Self {
        Self::cst(0.0)
    }
    /// The constant `1`.
    #[inline]
    fn one() -> Self {
        Self::cst(1.0)
    }

    /// `e^self`.
    fn exp(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// Base-10 logarithm.
    fn log10(self) -> Self;
    /// Square root.
    fn sqrt(self) -> Self;
    /// Cube root.
    fn cbrt(self) -> Self;
    /// Sine.
    fn sin(self) -> Self;
    /// Cosine.
    fn cos(self) -> Self;
    /// Tangent.
    fn tan(self) -> Self;
    /// Arcsine.
    fn asin(self) -> Self;
    /// Arccosine.
    fn acos(self) -> Self;
    /// Arctangent.
    fn atan(self) -> Self;
    /// Hyperbolic sine.
    fn sinh(self) -> Self;
    /// Hyperbolic cosine.
    fn cosh(self) -> Self;
    /// Hyperbolic tangent.
    fn tanh(self) -> Self;
    /// Absolute value (derivative `signum(self)`, `0` at `0`).
    fn abs(self) -> Self;
    /// `1 / self`.
    fn recip(self) -> Self;
    /// Integer power.
    fn powi(self, n: i32) -> Self;
    /// Real power `self^n` (both arguments differentiable).
    fn powf(self, n: Self) -> Self;
    /// Four-quadrant arctangent of `self / other` (`self` is `y`).
    fn atan2(self, other: Self) -> Self;
    /// `sqrt(self² + other²)` without undue overflow.
    fn hypot(self, other: Self) -> Self;
    /// The larger of the two by value; the derivative flows to the chosen
    /// argument (`self` on ties).
    fn max(self, other: Self) -> Self;
    /// The smaller of the two by value; the derivative flows to the chosen
    /// argument (`self` on ties).
    fn min(self, other: Self) -> Self;
}

impl Scalar for f64 {
    #[inline]
    fn cst(c: f64) -> Self {
        c
    }
    #[inline]
    fn value(self) -> f64 {
        self
    }
    #[inline]
    fn exp(self) -> Self {
        f64::exp(self)
    }
    #[inline]
    fn ln(self) -> Self {
        f64::ln(self)
    }
    #[inline]
    fn log10(self) -> Self {
        f64::log10(self)
    }
    #[inline]
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    #[inline]
    fn cbrt(self) -> Self {
        f64::cbrt(self)
    }
    #[inline]
    fn sin(self) -> Self {
        f64::sin(self)
    }
    #[inline]
    fn cos(self) -> Self {
        f64::cos(self)
    }
    #[inline]
    fn tan(self) -> Self {
        f64::tan(self)
    }
    #[inline]
    fn asin(self) -> Self {
        f64::asin(self)
    }
    #[inline]
    fn acos(self) -> Self {
        f64::acos(self)
    }
    #[inline]
    fn atan(self) -> Self {
        f64::atan(self)
    }
    #[inline]
    fn sinh(self) -> Self {
        f64::sinh(self)
    }
    #[inline]
    fn cosh(self) -> Self {
        f64::cosh(self)
    }
    #[inline]
    fn tanh(self) -> Self {
        f64::tanh(self)
    }
    #[inline]
    fn abs(self) -> Self {
        f64::abs(self)
    }
    #[inline]
    fn recip(self) -> Self {
        f64::recip(self)
    }
    #[inline]
    fn powi(self, n: i32) -> Self {
        f64::powi(self, n)
    }
    #[inline]
    fn powf(self, n: Self) -> Self {
        f64::powf(self, n)
    }
    #[inline]
    fn atan2(self, other: Self) -> Self {
        f64::atan2(self, other)
    }
    #[inline]
    fn hypot(self, other: Self) -> Self {
        f64::hypot(self, other)
    }
    #[inline]
    fn max(self, other: Self) -> Self {
        if other > self {
            other
        } else {
            self
        }
    }
    #[inline]
    fn min(self, other: Self) -> Self {
        if other < self {
            other
        } else {
            self
        }
    }
}

/// Local partial derivatives of the elementary functions, shared by every
/// AD engine in this crate so that they cannot disagree.
///
/// Each function returns `(value, ∂value/∂x)` (or both partials for binary
/// functions) given primal inputs; these are the `∂ᵢop(x₁,…,xₙ)(1)` of §8.2.
pub(crate) mod partials {
    /// The primitive table's constants on `f64`: its rows write `T::f_one()` and
    /// `T::from_f64(c)` for a number type `T`, here `f64`.
    struct T;
    impl T {
        #[inline(always)]
        fn f_one() -> f64 {
            1.0
        }
        #[inline(always)]
        fn from_f64(c: f64) -> f64 {
            c
        }
    }

    /// A row's `(f(x), f′(x))`: `f′` from the value `v` where the row gives that form.
    macro_rules! value_and_derivative {
        ($value:block $deriv:block [$v:ident $from:block]) => {{
            let $v = $value;
            ($v, $from)
        }};
        ($value:block $deriv:block []) => {
            ($value, $deriv)
        };
    }
    /// `(f(x), f′(x))` for each elementary row of the primitive table (`nilang_prims`),
    /// `f′` from `f(x)` where the row gives it so.
    macro_rules! table_partials {
        ([] $(($ty:ident $method:ident $doc:literal $x:ident $value:block $deriv:block
            [$($v:ident $from:block)?]))*) => {$(
            #[doc = $doc]
            #[inline]
            #[allow(dead_code)] // engines use the functions their scalar has
            pub fn $method($x: f64) -> (f64, f64) {
                value_and_derivative!($value $deriv [$($v $from)?])
            }
        )*};
    }
    nilang_prims::elementary!(table_partials);

    #[inline]
    pub fn cbrt(x: f64) -> (f64, f64) {
        let c = x.cbrt();
        (c, 1.0 / (3.0 * c * c))
    }
    #[inline]
    pub fn abs(x: f64) -> (f64, f64) {
        let d = if x > 0.0 {
            1.0
        } else if x < 0.0 {
            -1.0
        } else {
            0.0
        };
        (x.abs(), d)
    }
    #[inline]
    pub fn recip(x: f64) -> (f64, f64) {
        let r = 1.0 / x;
        (r, -r * r)
    }
    #[inline]
    pub fn powi(x: f64, n: i32) -> (f64, f64) {
        let d = if n == 0 {
            0.0
        } else {
            f64::from(n) * x.powi(n - 1)
        };
        (x.powi(n), d)
    }
    /// `(x^y, ∂/∂x, ∂/∂y)`. The `y`-partial `x^y ln x` is taken as `0`
    /// where `x^y` is `0` (so `0^y` does not produce `NaN` from `0 · -∞`).
    #[inline]
    pub fn powf(x: f64, y: f64) -> (f64, f64, f64) {
        let v = x.powf(y);
        let dx = if y == 0.0 { 0.0 } else { y * x.powf(y - 1.0) };
        let dy = if v == 0.0 { 0.0 } else { v * x.ln() };
        (v, dx, dy)
    }
    /// `(atan2(y, x), ∂/∂y, ∂/∂x)`.
    #[inline]
    pub fn atan2(y: f64, x: f64) -> (f64, f64, f64) {
        let r2 = x * x + y * y;
        (y.atan2(x), x / r2, -y / r2)
    }
    /// `(hypot(x, y), ∂/∂x, ∂/∂y)`.
    #[inline]
    pub fn hypot(x: f64, y: f64) -> (f64, f64, f64) {
        let h = x.hypot(y);
        if h == 0.0 {
            (h, 0.0, 0.0)
        } else {
            (h, x / h, y / h)
        }
    }
}
