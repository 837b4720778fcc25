//! Gradient types: what the `g` of a [`crate::GVar`] can be. A plain `T` carries the gradient
//! of one loss; [`Lanes`] carries the gradients of `N` losses at once, so one adjoint sweep
//! gives `N` rows of a Jacobian. The adjoint rules (`nilang::gvar`) are written once, for
//! any [`Grad`].
//!
//! ```
//! use nilang::{i, GVar, Lanes, Real};
//!
//! #[i]
//! fn two_outputs<T: Real>(y: &mut [T], x: &mut T) {
//!     y[0] += sin(x);
//!     y[1] += square(x);
//! }
//! let (mut y, mut x) = (vec![0.0, 0.0], 0.5);
//! two_outputs(&mut y, &mut x);
//! // one reverse sweep, output k seeded in lane k: both rows of the Jacobian
//! let mut gy = vec![
//!     GVar { x: y[0], g: Lanes::unit(0, 1.0) },
//!     GVar { x: y[1], g: Lanes::unit(1, 1.0) },
//! ];
//! let mut gx = GVar { x, g: Lanes::default() };
//! two_outputs_inv(&mut gy, &mut gx);
//! assert_eq!(gx.g, Lanes([0.5f64.cos(), 1.0])); // ∂y₀/∂x = cos x, ∂y₁/∂x = 2x
//! ```

use crate::float::Float;
use core::ops::{Add, Mul, Neg, Sub};

/// A gradient of scalars of type `T`: added, subtracted, negated and scaled by a `T`.
///
/// ```
/// use nilang::{Grad, Lanes};
///
/// let mut g = Lanes::<f64, 2>::zero();
/// g.set_lane(1, 3.0);
/// assert_eq!((g.lane(0), g.lane(1), g.is_zero()), (0.0, 3.0, false));
/// let plain: f64 = Grad::<f64>::zero(); // one loss: a plain number
/// assert!(Grad::<f64>::is_zero(&plain));
/// ```
pub trait Grad<T>:
    Copy
    + core::fmt::Debug
    + PartialEq
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Neg<Output = Self>
    + Mul<T, Output = Self>
{
    /// The number of losses whose gradients it carries (its lanes `0..LANES`).
    const LANES: usize = 1;
    /// The zero gradient.
    fn zero() -> Self;
    /// The gradient of loss `k` (`k` = 0 for a plain `T`).
    fn lane(&self, k: usize) -> T;
    /// Sets the gradient of loss `k`.
    fn set_lane(&mut self, k: usize, v: T);
    /// Whether the gradient of every loss is zero (`f_vjp` takes its fused path when the
    /// gradients of the arguments a body's computation writes are zero on entry).
    fn is_zero(&self) -> bool;
    /// Whether the gradient of every loss is finite (checked adjoint programs report a NaN or
    /// an infinity produced by an instruction: `nilang::CheckKind::NonFinite`).
    fn is_finite(&self) -> bool;
}

impl<T: Float> Grad<T> for T {
    #[inline(always)]
    fn zero() -> T {
        T::f_zero()
    }
    #[inline(always)]
    fn lane(&self, k: usize) -> T {
        debug_assert_eq!(k, 0, "a plain gradient has one lane");
        *self
    }
    #[inline(always)]
    fn set_lane(&mut self, k: usize, v: T) {
        debug_assert_eq!(k, 0, "a plain gradient has one lane");
        *self = v;
    }
    #[inline(always)]
    fn is_zero(&self) -> bool {
        *self == T::f_zero()
    }
    #[inline(always)]
    fn is_finite(&self) -> bool {
        self.to_f64().is_finite()
    }
}

/// `N` gradients of one scalar, one per loss (lane `k` belongs to loss `k`).
///
/// ```
/// use nilang::{i, GVar, Lanes, Real};
///
/// #[i]
/// fn split<T: Real>(y: &mut [T], x: &mut T) {
///     y[0] += sin(x);
///     y[1] += cos(x);
/// }
/// // the gradients of y[0] (lane 0) and y[1] (lane 1) with respect to x, in one inverse run
/// let mut y = vec![
///     GVar { x: 0.5f64.sin(), g: Lanes::unit(0, 1.0) },
///     GVar { x: 0.5f64.cos(), g: Lanes::unit(1, 1.0) },
/// ];
/// let mut x = GVar { x: 0.5, g: Lanes([0.0; 2]) };
/// split_inv(&mut y, &mut x);
/// assert_eq!(x.g, Lanes([0.5f64.cos(), -0.5f64.sin()]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lanes<T, const N: usize>(pub [T; N]);

impl<T: Float, const N: usize> Default for Lanes<T, N> {
    fn default() -> Self {
        Lanes([T::f_zero(); N])
    }
}

impl<T: Float, const N: usize> Lanes<T, N> {
    /// Lane `k` set to `v`, the others zero (a seed).
    ///
    /// ```
    /// assert_eq!(nilang::Lanes::<f64, 3>::unit(1, 2.0).0, [0.0, 2.0, 0.0]);
    /// ```
    pub fn unit(k: usize, v: T) -> Self {
        let mut l = [T::f_zero(); N];
        l[k] = v;
        Lanes(l)
    }
}

/// The lanes as a list, `[g₀, g₁, …]`, each formatted with the formatter's options.
impl<T: core::fmt::Display, const N: usize> core::fmt::Display for Lanes<T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("[")?;
        for (k, v) in self.0.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            core::fmt::Display::fmt(v, f)?;
        }
        f.write_str("]")
    }
}

macro_rules! lanewise {
    ($tr:ident, $method:ident, $op:tt) => {
        impl<T: Float, const N: usize> $tr for Lanes<T, N> {
            type Output = Self;
            #[inline(always)]
            fn $method(self, o: Self) -> Self {
                Lanes(core::array::from_fn(|k| self.0[k] $op o.0[k]))
            }
        }
    };
}
lanewise!(Add, add, +);
lanewise!(Sub, sub, -);

impl<T: Float, const N: usize> Neg for Lanes<T, N> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Lanes(self.0.map(|v| -v))
    }
}

impl<T: Float, const N: usize> Mul<T> for Lanes<T, N> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, s: T) -> Self {
        Lanes(self.0.map(|v| v * s))
    }
}

impl<T: Float, const N: usize> Grad<T> for Lanes<T, N> {
    const LANES: usize = N;
    #[inline(always)]
    fn zero() -> Self {
        Lanes([T::f_zero(); N])
    }
    #[inline(always)]
    fn lane(&self, k: usize) -> T {
        self.0[k]
    }
    #[inline(always)]
    fn set_lane(&mut self, k: usize, v: T) {
        self.0[k] = v;
    }
    #[inline(always)]
    fn is_zero(&self) -> bool {
        self.0.iter().all(|v| *v == T::f_zero())
    }
    #[inline(always)]
    fn is_finite(&self) -> bool {
        self.0.iter().all(|v| v.to_f64().is_finite())
    }
}
