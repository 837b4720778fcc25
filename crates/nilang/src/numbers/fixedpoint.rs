//! Fixed-point numbers from the `fixed` crate: `+=` and `-=` are exactly reversible.
//!
//! The papers use 64-bit fixed-point numbers with 43 fractional bits ([`I21F43`]: 21 integer
//! bits including the sign, resolution 2⁻⁴³ ≈ 1.1·10⁻¹³, range ±2²⁰). Every instruction here
//! uses the crate's wrapping arithmetic: the value added by `y += f(…)` is a deterministic
//! function of the operands (products and quotients are rounded the same way every time), and
//! two's-complement addition wraps, so `y -= f(…)` takes exactly the same bits back out, even
//! on overflow. That holds for any program, however long.
//!
//! ```
//! use nilang::i;
//! use nilang::numbers::{FixedPoint, I21F43};
//!
//! #[i]
//! fn mac<T: FixedPoint>(y: &mut T, a: &mut T, b: &mut T) {
//!     y += a * b;
//!     y -= a / b;
//!     inc(y);
//! }
//!
//! let (mut y, mut a, mut b) = (I21F43::from_num(0.1), I21F43::from_num(3.7), I21F43::from_num(-1.3));
//! let y0 = y;
//! mac(&mut y, &mut a, &mut b);
//! mac_inv(&mut y, &mut a, &mut b);
//! assert_eq!(y.to_bits(), y0.to_bits());
//! ```
//!
//! Primitives with no exact fixed-point value (`exp`, `sin`, …) and `*=`/`/=` are compile
//! errors on these types. [`crate::numbers::fixed_math`] computes `exp`, `log`, `sin` and `cos`
//! as reversible functions by series instead (`iexp(y, x)` for `y += eˣ`).
//!
//! **Gradients.** `GVar<I21F43>` (a value and its gradient, both fixed point) is itself a
//! `FixedPoint`: the inverse of a generic function run on `GVar`s is its gradient program, with
//! exact `+=`/`-=` adjoints and rounded products ([`crate::numbers::fixed_gvar`]). Generic
//! functions over `FixedPoint` get no `f_grad`; that inverse is the way to their gradients.
//!
//! [`I21F43`]: fixed::types::I21F43

use crate::check::Check;
use crate::instr::*;
use crate::prims;
use core::fmt::Debug;
use fixed::types::extra::{LeEqU32, LeEqU64};
use fixed::{FixedI32, FixedI64};

/// The bound of reversible functions over fixed-point numbers: every exact instruction,
/// constants, and conversions to and from `f64`.
///
/// ```
/// use nilang::numbers::{FixedPoint, I21F43};
/// use nilang::i;
///
/// #[i]
/// fn axpy<Q: FixedPoint>(y: &mut Q, a: &mut Q, x: &mut Q) {
///     y += a * x;
/// }
/// let (mut y, mut a, mut x) = (I21F43::from_num(1), I21F43::from_num(0.5), I21F43::from_num(3));
/// axpy(&mut y, &mut a, &mut x);
/// assert_eq!(y, I21F43::from_num(2.5));
/// axpy_inv(&mut y, &mut a, &mut x);
/// assert_eq!(y, I21F43::from_num(1)); // exactly: fixed-point arithmetic has no rounding here
/// ```
pub trait FixedPoint:
    Copy
    + Debug
    + PartialOrd
    + Check
    + Zeroable
    + Accepts<Self>
    + Accepts<f64>
    + Accepts<f32>
    + Accepts<i32>
    + Accepts<i64>
    + Accepts<usize>
    + Acc1<prims::Identity>
    + Acc1<prims::Neg>
    + Acc1<prims::Abs>
    + Acc1<prims::Square>
    + Acc2<prims::Add>
    + Acc2<prims::Sub>
    + Acc2<prims::Mul>
    + Acc2<prims::Div>
    + Negate
    + Step
    + Conjugate
    + 'static
{
    /// A constant (rounded to the nearest representable value; panics if out of range).
    fn lit(v: f64) -> Self;
    /// The value as `f64` (for conditions).
    fn val(&self) -> f64;
    /// The number of integer bits, the sign included: values lie in `[−2ᴵ⁻¹, 2ᴵ⁻¹)` (21 for
    /// [`crate::numbers::I21F43`]). The range checks of the series in
    /// [`crate::numbers::fixed_math`] use it.
    fn int_bits() -> u32;
    /// Zero.
    fn zero() -> Self {
        Self::lit(0.0)
    }
}

macro_rules! fixed_instructions {
    ($fx:ident, $bound:ident) => {
        impl<Frac: $bound> Acc1<prims::Identity> for $fx<Frac> {
            #[inline(always)]
            fn add1(y: &mut Self, x: &mut Self) {
                *y = y.wrapping_add(*x);
            }
            #[inline(always)]
            fn sub1(y: &mut Self, x: &mut Self) {
                *y = y.wrapping_sub(*x);
            }
        }
        impl<Frac: $bound> Acc1<prims::Neg> for $fx<Frac> {
            #[inline(always)]
            fn add1(y: &mut Self, x: &mut Self) {
                *y = y.wrapping_sub(*x);
            }
            #[inline(always)]
            fn sub1(y: &mut Self, x: &mut Self) {
                *y = y.wrapping_add(*x);
            }
        }
        impl<Frac: $bound> Acc1<prims::Abs> for $fx<Frac> {
            #[inline(always)]
            fn add1(y: &mut Self, x: &mut Self) {
                *y = y.wrapping_add(x.wrapping_abs());
            }
            #[inline(always)]
            fn sub1(y: &mut Self, x: &mut Self) {
                *y = y.wrapping_sub(x.wrapping_abs());
            }
        }
        impl<Frac: $bound> Acc1<prims::Square> for $fx<Frac> {
            #[inline(always)]
            fn add1(y: &mut Self, x: &mut Self) {
                *y = y.wrapping_add(x.wrapping_mul(*x));
            }
            #[inline(always)]
            fn sub1(y: &mut Self, x: &mut Self) {
                *y = y.wrapping_sub(x.wrapping_mul(*x));
            }
        }
        impl<Frac: $bound> Acc2<prims::Add> for $fx<Frac> {
            #[inline(always)]
            fn add2(y: &mut Self, a: &mut Self, b: &mut Self) {
                *y = y.wrapping_add(a.wrapping_add(*b));
            }
            #[inline(always)]
            fn sub2(y: &mut Self, a: &mut Self, b: &mut Self) {
                *y = y.wrapping_sub(a.wrapping_add(*b));
            }
        }
        impl<Frac: $bound> Acc2<prims::Sub> for $fx<Frac> {
            #[inline(always)]
            fn add2(y: &mut Self, a: &mut Self, b: &mut Self) {
                *y = y.wrapping_add(a.wrapping_sub(*b));
            }
            #[inline(always)]
            fn sub2(y: &mut Self, a: &mut Self, b: &mut Self) {
                *y = y.wrapping_sub(a.wrapping_sub(*b));
            }
        }
        impl<Frac: $bound> Acc2<prims::Mul> for $fx<Frac> {
            /// The product is rounded (by the `fixed` crate's rule) before it is added, so
            /// `y -= a * b` subtracts the very same bits.
            #[inline(always)]
            fn add2(y: &mut Self, a: &mut Self, b: &mut Self) {
                *y = y.wrapping_add(a.wrapping_mul(*b));
            }
            #[inline(always)]
            fn sub2(y: &mut Self, a: &mut Self, b: &mut Self) {
                *y = y.wrapping_sub(a.wrapping_mul(*b));
            }
        }
        impl<Frac: $bound> Acc2<prims::Div> for $fx<Frac> {
            /// Panics when `b` is zero.
            #[inline(always)]
            fn add2(y: &mut Self, a: &mut Self, b: &mut Self) {
                *y = y.wrapping_add(a.wrapping_div(*b));
            }
            #[inline(always)]
            fn sub2(y: &mut Self, a: &mut Self, b: &mut Self) {
                *y = y.wrapping_sub(a.wrapping_div(*b));
            }
        }
        impl<Frac: $bound> Negate for $fx<Frac> {
            #[inline(always)]
            fn negate(&mut self) {
                *self = self.wrapping_neg();
            }
        }
        impl<Frac: $bound> Step for $fx<Frac> {
            /// Adds one (wrapping; for types with no integer bits, one wraps too).
            #[inline(always)]
            fn inc(&mut self) {
                *self = self.wrapping_add(Self::wrapping_from_num(1));
            }
            #[inline(always)]
            fn dec(&mut self) {
                *self = self.wrapping_sub(Self::wrapping_from_num(1));
            }
        }
        impl<Frac: $bound> Conjugate for $fx<Frac> {
            #[inline(always)]
            fn conjugate(&mut self) {}
        }
        impl<Frac: $bound> Zeroable for $fx<Frac> {
            #[inline(always)]
            fn zero_like(&self) -> Self {
                Self::ZERO
            }
            #[inline(always)]
            fn is_zero(&self) -> bool {
                *self == Self::ZERO
            }
        }
        impl<Frac: $bound> Check for $fx<Frac> {
            /// Fixed-point checks are exact.
            #[inline]
            fn check_eq(&self, other: &Self, _tol: f64) -> bool {
                self == other
            }
        }
        impl<Frac: $bound> Accepts<$fx<Frac>> for $fx<Frac> {
            #[inline(always)]
            fn load(x: &Self) -> Self {
                *x
            }
            #[inline(always)]
            fn store(x: &mut Self, v: Self) {
                *x = v;
            }
        }
        fixed_accepts!($fx, $bound: f64, f32, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
        impl<Frac: $bound> FixedPoint for $fx<Frac> {
            #[inline]
            fn lit(v: f64) -> Self {
                Self::from_num(v)
            }
            #[inline]
            fn val(&self) -> f64 {
                self.to_num::<f64>()
            }
            #[inline]
            fn int_bits() -> u32 {
                Self::INT_NBITS
            }
        }
    };
}

macro_rules! fixed_accepts {
    ($fx:ident, $bound:ident: $($from:ty),*) => {$(
        impl<Frac: $bound> Accepts<$from> for $fx<Frac> {
            /// A constant operand, rounded to the nearest representable value.
            #[inline(always)]
            fn load(x: &$from) -> Self {
                Self::from_num(*x)
            }
            #[inline(always)]
            fn store(_: &mut $from, _: Self) {}
        }
    )*};
}

fixed_instructions!(FixedI64, LeEqU64);
fixed_instructions!(FixedI32, LeEqU32);
