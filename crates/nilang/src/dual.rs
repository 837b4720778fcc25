//! Forward-mode dual numbers: feed them through a gradient program for Hessians.
//!
//! [`Dual`] carries one tangent, [`DualN`] carries `N` tangents at once (a batch of
//! Hessian–vector products per pass). Both implement [`Float`], so every primitive, every
//! instruction and [`crate::GVar`] work on them: `GVar<Dual<f64>>` is forward-over-reverse.
//!
//! Run a reversible function itself on dual numbers for forward-mode derivatives:
//!
//! ```
//! use nilang::{i, Dual, DualN, Real};
//!
//! #[i]
//! fn f<T: Real>(y: &mut T, a: &mut T, b: &mut T) {
//!     y += a * b;
//!     y += sin(a);
//! }
//! // one direction: ∂y/∂a, seeding a's tangent with 1
//! let (mut y, mut a, mut b) = (Dual::constant(0.0), Dual::new(0.5, 1.0), Dual::constant(3.0));
//! f(&mut y, &mut a, &mut b);
//! assert_eq!(y.eps, 3.0 + 0.5f64.cos());
//! // two directions in one run: the whole gradient
//! let (mut y, mut a, mut b) =
//!     (DualN::<f64, 2>::constant(0.0), DualN::seeded(0.5, 0), DualN::seeded(3.0, 1));
//! f(&mut y, &mut a, &mut b);
//! assert_eq!(y.eps, [3.0 + 0.5f64.cos(), 0.5]);
//! ```

use crate::check::Check;
use crate::float::Float;
use crate::instr::Accepts;
use core::ops::{Add, Div, Mul, Neg, Sub};

/// A number `re + eps·ε` with ε² = 0: a value and one directional derivative.
///
/// ```
/// use nilang::{i, Dual, Loss, Real};
///
/// let x = Dual::new(3.0, 1.0); // x = 3, dx = 1
/// let y = x * x;
/// assert_eq!((y.re, y.eps), (9.0, 6.0)); // d(x²) = 2x dx
///
/// // through a gradient program: a Hessian–vector product
/// #[i]
/// fn cube<T: Real>(out: &mut T, x: &mut T) {
///     out += pow(x, 3);
/// }
/// let (_, dx) = cube_grad(Loss::arg(0), &mut Dual::constant(0.0), &mut Dual::new(2.0, 1.0)).unwrap();
/// assert_eq!((dx.g.re, dx.g.eps), (12.0, 12.0)); // 3x², and 6x · 1
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Dual<T> {
    /// The value.
    pub re: T,
    /// The tangent (directional derivative).
    pub eps: T,
}

impl<T: Float> Dual<T> {
    /// A value with a tangent.
    ///
    /// ```
    /// let x = nilang::Dual::new(3.0, 1.0);
    /// assert_eq!((x.re, x.eps), (3.0, 1.0));
    /// ```
    pub fn new(re: T, eps: T) -> Self {
        Dual { re, eps }
    }

    /// A constant (zero tangent).
    ///
    /// ```
    /// let c = nilang::Dual::constant(2.0);
    /// assert_eq!((c.re, c.eps), (2.0, 0.0));
    /// ```
    pub fn constant(re: T) -> Self {
        Dual {
            re,
            eps: T::f_zero(),
        }
    }

    /// Applies a function with known value and derivative at `re` (the chain rule).
    #[inline(always)]
    fn chain(self, value: T, derivative: T) -> Self {
        Dual {
            re: value,
            eps: self.eps * derivative,
        }
    }
}

/// `re + epsε` (or `re - |eps|ε`), each part formatted with the formatter's options:
///
/// ```
/// use nilang::Dual;
/// assert_eq!(Dual::new(2.0, 0.5).to_string(), "2 + 0.5ε");
/// assert_eq!(format!("{:.1}", Dual::new(2.0, -0.5)), "2.0 - 0.5ε");
/// ```
impl<T: Float + core::fmt::Display> core::fmt::Display for Dual<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.re, f)?;
        let (sign, eps) = if self.eps.to_f64() < 0.0 {
            (" - ", -self.eps)
        } else {
            (" + ", self.eps)
        };
        f.write_str(sign)?;
        core::fmt::Display::fmt(&eps, f)?;
        f.write_str("ε")
    }
}

/// A value with `N` tangents, propagated together.
///
/// ```
/// use nilang::DualN;
///
/// // f(x, y) = x·y with both partial derivatives in one pass
/// let (x, y) = (DualN::<f64, 2>::seeded(3.0, 0), DualN::<f64, 2>::seeded(2.0, 1));
/// let f = x * y;
/// assert_eq!((f.re, f.eps), (6.0, [2.0, 3.0]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DualN<T, const N: usize> {
    /// The value.
    pub re: T,
    /// The tangents.
    pub eps: [T; N],
}

impl<T: Float, const N: usize> Default for DualN<T, N> {
    fn default() -> Self {
        DualN::constant(T::f_zero())
    }
}

impl<T: Float, const N: usize> DualN<T, N> {
    /// A value with the given tangents.
    ///
    /// ```
    /// let x = nilang::DualN::new(1.0, [1.0, 0.0, 2.0]);
    /// assert_eq!(x.eps[2], 2.0);
    /// ```
    pub fn new(re: T, eps: [T; N]) -> Self {
        DualN { re, eps }
    }

    /// A constant (zero tangents).
    ///
    /// ```
    /// let c = nilang::DualN::<f64, 3>::constant(5.0);
    /// assert_eq!((c.re, c.eps), (5.0, [0.0; 3]));
    /// ```
    pub fn constant(re: T) -> Self {
        DualN {
            re,
            eps: [T::f_zero(); N],
        }
    }

    /// A variable whose `k`-th tangent is one.
    ///
    /// ```
    /// let x = nilang::DualN::<f64, 3>::seeded(5.0, 1);
    /// assert_eq!((x.re, x.eps), (5.0, [0.0, 1.0, 0.0]));
    /// ```
    pub fn seeded(re: T, k: usize) -> Self {
        let mut eps = [T::f_zero(); N];
        if k < N {
            eps[k] = T::f_one();
        }
        DualN { re, eps }
    }

    #[inline(always)]
    fn chain(self, value: T, derivative: T) -> Self {
        DualN {
            re: value,
            eps: self.eps.map(|e| e * derivative),
        }
    }
}

// Arithmetic: the one place where each operation's tangent rule is written, for both types
// through a small abstraction over "the tangent part".
trait Tangent<T>: Copy {
    fn zip(self, other: Self, f: impl Fn(T, T) -> T) -> Self;
    fn scale(self, f: impl Fn(T) -> T) -> Self;
    fn nonzero(self) -> bool;
}

impl<T: Float> Tangent<T> for T {
    #[inline(always)]
    fn zip(self, other: T, f: impl Fn(T, T) -> T) -> T {
        f(self, other)
    }
    #[inline(always)]
    fn scale(self, f: impl Fn(T) -> T) -> T {
        f(self)
    }
    #[inline(always)]
    fn nonzero(self) -> bool {
        self.to_f64() != 0.0 || self.has_tangent()
    }
}

impl<T: Float, const N: usize> Tangent<T> for [T; N] {
    #[inline(always)]
    fn zip(self, other: [T; N], f: impl Fn(T, T) -> T) -> [T; N] {
        let mut out = self;
        for k in 0..N {
            out[k] = f(self[k], other[k]);
        }
        out
    }
    #[inline(always)]
    fn scale(self, f: impl Fn(T) -> T) -> [T; N] {
        self.map(f)
    }
    #[inline(always)]
    fn nonzero(self) -> bool {
        self.iter().any(|&e| Tangent::<T>::nonzero(e))
    }
}

/// The dual-number rule of each elementary `Float` method of the primitive table: the value
/// and derivative of the row's primitive on the real part, chained into the tangent.
macro_rules! dual_rules {
    ([] $(($ty:ident $method:ident $($rest:tt)*))*) => {$(
        fn $method(self) -> Self {
            let (v, d) = <crate::prims::$ty as crate::prims::Unary<T>>::value_and_derivative(self.re);
            self.chain(v, d)
        }
    )*};
}

macro_rules! dual_impl {
    ([$($gen:tt)*] $ty:ty, $eps:ty) => {
        impl<$($gen)*> Add for $ty {
            type Output = Self;
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                Self { re: self.re + o.re, eps: Tangent::<T>::zip(self.eps, o.eps, |a, b| a + b) }
            }
        }
        impl<$($gen)*> Sub for $ty {
            type Output = Self;
            #[inline(always)]
            fn sub(self, o: Self) -> Self {
                Self { re: self.re - o.re, eps: Tangent::<T>::zip(self.eps, o.eps, |a, b| a - b) }
            }
        }
        impl<$($gen)*> Mul for $ty {
            type Output = Self;
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                let (a, b) = (self.re, o.re);
                Self { re: a * b, eps: Tangent::<T>::zip(self.eps, o.eps, |da, db| da * b + a * db) }
            }
        }
        impl<$($gen)*> Div for $ty {
            type Output = Self;
            #[inline(always)]
            fn div(self, o: Self) -> Self {
                // the tangent scaled by 1/b², computed from `b` alone: the one division runs
                // beside the tangent's products instead of after them (and once, not per
                // tangent of a `DualN`)
                let (a, b) = (self.re, o.re);
                let inv = T::f_one() / b;
                let inv2 = inv * inv;
                Self { re: a / b, eps: Tangent::<T>::zip(self.eps, o.eps, |da, db| (da * b - a * db) * inv2) }
            }
        }
        impl<$($gen)*> Neg for $ty {
            type Output = Self;
            #[inline(always)]
            fn neg(self) -> Self {
                Self { re: -self.re, eps: Tangent::<T>::scale(self.eps, |e| -e) }
            }
        }
        impl<$($gen)*> PartialOrd for $ty {
            /// Orders by value.
            fn partial_cmp(&self, o: &Self) -> Option<core::cmp::Ordering> {
                self.re.partial_cmp(&o.re)
            }
        }
        impl<$($gen)*> Float for $ty {
            #[inline(always)]
            fn from_f64(v: f64) -> Self { Self::constant(T::from_f64(v)) }
            #[inline(always)]
            fn to_f64(self) -> f64 { self.re.to_f64() }
            #[inline(always)]
            fn has_tangent(self) -> bool { self.re.has_tangent() || Tangent::<T>::nonzero(self.eps) }
            const PARALLEL_SAFE: bool = T::PARALLEL_SAFE;
            nilang_prims::elementary!(dual_rules);
            fn abs(self) -> Self { self.chain(self.re.abs(), self.re.signum()) }
            fn signum(self) -> Self { Self::constant(self.re.signum()) }
            fn powf(self, y: Self) -> Self {
                // d(aᵇ) = b aᵇ⁻¹ da + aᵇ ln a db
                let v = self.re.powf(y.re);
                let da = y.re * self.re.powf(y.re - T::f_one());
                let db = if v.to_f64() == 0.0 { T::f_zero() } else { v * self.re.ln() };
                Self { re: v, eps: Tangent::<T>::zip(self.eps, y.eps, |ea, eb| ea * da + eb * db) }
            }
            fn powi(self, n: i32) -> Self {
                let d = if n == 0 { T::f_zero() } else { T::from_f64(n as f64) * self.re.powi(n - 1) };
                self.chain(self.re.powi(n), d)
            }
            fn atan2(self, x: Self) -> Self {
                let (a, b) = (self.re, x.re);
                let r2 = a * a + b * b;
                Self { re: a.atan2(b), eps: Tangent::<T>::zip(self.eps, x.eps, |ea, eb| (ea * b - eb * a) / r2) }
            }
        }
        impl<$($gen)*> Check for $ty {
            /// Compares values only.
            fn check_eq(&self, other: &Self, tol: f64) -> bool {
                crate::check::close(self.re.to_f64(), other.re.to_f64(), tol)
            }
        }
        impl<$($gen)*> Accepts<$ty> for $ty {
            #[inline(always)]
            fn load(x: &Self) -> Self { *x }
            /// A dual-number operand is unchanged by an instruction: nothing to store.
            #[inline(always)]
            fn store(_: &mut Self, _: Self) {}
        }
    };
}

macro_rules! dual_accepts_constant {
    ($($from:ty),*) => {$(
        impl<T: Float> Accepts<$from> for Dual<T> {
            #[inline(always)]
            fn load(x: &$from) -> Self { Self::constant(T::from_f64(*x as f64)) }
            #[inline(always)]
            fn store(_: &mut $from, _: Self) {}
        }
        impl<T: Float, const N: usize> Accepts<$from> for DualN<T, N> {
            #[inline(always)]
            fn load(x: &$from) -> Self { Self::constant(T::from_f64(*x as f64)) }
            #[inline(always)]
            fn store(_: &mut $from, _: Self) {}
        }
    )*};
}

dual_accepts_constant!(f64, f32, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

dual_impl!([T: Float] Dual<T>, T);
dual_impl!([T: Float, const N: usize] DualN<T, N>, [T; N]);
