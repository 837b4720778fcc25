//! `GVar`: a value with its gradient, and the adjoint rule of every instruction.
//!
//! This module is the one place where adjoint rules live. Each rule is bound to the
//! instruction's inverse (`y -= f(x)` uncomputes `y` and accumulates `x̄ += ȳ f′(x)`); the
//! forward instruction on `GVar` is the exact inverse of that, so that a `GVar` program is
//! itself reversible (inversion and differentiation commute).
//!
//! The gradient by hand, as the papers compute it: run the function forward on plain
//! numbers, then its inverse on `GVar`s with the output's gradient seeded (the generated
//! `f_grad` does this, and `f_vjp` the same on separate buffers):
//!
//! ```
//! use nilang::{i, GVar, Real};
//!
//! #[i]
//! fn f<T: Real>(y: &mut T, x: &mut T) {
//!     y += square(x);
//! }
//! let (mut y, mut x) = (0.0, 3.0);
//! f(&mut y, &mut x);
//! let (mut gy, mut gx) = (GVar::with_grad(y, 1.0), GVar::new(x)); // ∂loss/∂y = 1
//! f_inv(&mut gy, &mut gx);
//! assert_eq!((gy.x, gx.x), (0.0, 3.0)); // the inputs back
//! assert_eq!(gx.g, 6.0); // ∂y/∂x = 2x
//! ```

use crate::float::Float;
use crate::instr::*;
use crate::lanes::Grad;
use crate::prims::{Binary, Unary};

/// A scalar paired with the gradient of the loss with respect to it: a `T` (one loss), or
/// [`crate::Lanes`] of `T` (the gradients of several losses at once: several rows of a
/// Jacobian in one sweep).
///
/// `f_grad` returns the differentiable arguments with `GVar` scalars (`.x` the input, `.g` the
/// gradient), and a generic reversible function runs on `GVar`s directly: its inverse then
/// moves gradients from outputs to inputs.
///
/// ```
/// use nilang::{i, GVar, Real};
///
/// #[i]
/// fn cube<T: Real>(y: &mut T, x: &mut T) {
///     y += pow(x, 3);
/// }
/// // y holds the output 8 with gradient 1; x the input 2
/// let (mut y, mut x) = (GVar::with_grad(8.0, 1.0), GVar::new(2.0));
/// cube_inv(&mut y, &mut x);
/// assert_eq!((y.value(), x.value(), x.grad()), (0.0, 2.0, 12.0));
/// assert_eq!(x.to_string(), "2 (grad 12)");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GVar<T, G = T> {
    /// The value.
    pub x: T,
    /// The gradient.
    pub g: G,
}

impl<T: Float> GVar<T> {
    /// A value with a zero gradient.
    ///
    /// ```
    /// use nilang::GVar;
    /// let x = GVar::new(2.0);
    /// assert_eq!((x.x, x.g), (2.0, 0.0));
    /// ```
    pub fn new(x: T) -> Self {
        GVar { x, g: T::f_zero() }
    }

    /// A value with a given gradient.
    ///
    /// ```
    /// use nilang::GVar;
    /// let y = GVar::with_grad(8.0, 1.0); // an output 8, seeded with ∂loss/∂y = 1
    /// assert_eq!((y.x, y.g), (8.0, 1.0));
    /// ```
    pub fn with_grad(x: T, g: T) -> Self {
        GVar { x, g }
    }

    /// The value.
    ///
    /// ```
    /// assert_eq!(nilang::GVar::with_grad(8.0, 1.0).value(), 8.0);
    /// ```
    pub fn value(&self) -> T {
        self.x
    }

    /// The gradient.
    ///
    /// ```
    /// assert_eq!(nilang::GVar::with_grad(8.0, 1.0).grad(), 1.0);
    /// ```
    pub fn grad(&self) -> T {
        self.g
    }
}

impl<T, G: Copy + core::ops::Add<Output = G>> GVar<T, G> {
    /// Adjoint rule of a copy (`pop_copy!` on values with gradients): the gradient the copy
    /// accumulated flows back into the value it was copied from, ḡ ← ḡ + c̄.
    #[inline(always)]
    pub(crate) fn copy_adjoint(&mut self, copy: &Self) {
        self.g = self.g + copy.g;
    }
}

/// `value (grad gradient)`, each part formatted with the formatter's options:
///
/// ```
/// let v = nilang::GVar::with_grad(1.5, -0.25);
/// assert_eq!(v.to_string(), "1.5 (grad -0.25)");
/// assert_eq!(format!("{v:.2}"), "1.50 (grad -0.25)");
/// ```
impl<T: core::fmt::Display, G: core::fmt::Display> core::fmt::Display for GVar<T, G> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.x, f)?;
        f.write_str(" (grad ")?;
        core::fmt::Display::fmt(&self.g, f)?;
        f.write_str(")")
    }
}

/// Orders by value, ignoring gradients (as [`crate::Dual`] orders by its value), so that a
/// condition such as `if x > T::zero()` takes the same branch on `GVar`s as on plain scalars.
impl<T: PartialOrd, G: PartialEq> PartialOrd for GVar<T, G> {
    fn partial_cmp(&self, o: &Self) -> Option<core::cmp::Ordering> {
        self.x.partial_cmp(&o.x)
    }
}

impl<T: Float, G: Grad<T>, F: Unary<T>> Acc1<F> for GVar<T, G> {
    #[inline(always)]
    fn add1(y: &mut Self, x: &mut Self) {
        let (v, d) = F::value_and_derivative(x.x);
        y.x = y.x + v;
        x.g = x.g - y.g * d;
    }
    /// Adjoint rule: y ← y − f(x); x̄ ← x̄ + ȳ f′(x).
    #[inline(always)]
    fn sub1(y: &mut Self, x: &mut Self) {
        let (v, d) = F::value_and_derivative(x.x);
        y.x = y.x - v;
        x.g = x.g + y.g * d;
    }
    /// Adjoint rule with `y = f(x)` known: y ← 0; x̄ ← x̄ + ȳ f′ (f′ from y's value where the
    /// primitive allows, else as [`Acc1::sub1`]).
    #[inline(always)]
    fn sub1_released(y: &mut Self, x: &mut Self) {
        match F::derivative_from_value(y.x) {
            Some(d) => {
                y.x = y.x - y.x;
                x.g = x.g + y.g * d;
            }
            None => <Self as Acc1<F>>::sub1(y, x),
        }
    }
    fn value_is_singular(x: &Self) -> bool {
        x.x.to_f64().is_finite() && !F::value(x.x).to_f64().is_finite()
    }
}

impl<T: Float, G: Grad<T>, F: Binary<T>> Acc2<F> for GVar<T, G> {
    #[inline(always)]
    fn add2(y: &mut Self, a: &mut Self, b: &mut Self) {
        y.x = y.x + F::value(a.x, b.x);
        let (da, db) = F::partials(a.x, b.x);
        a.g = a.g - y.g * da;
        b.g = b.g - y.g * db;
    }
    /// Adjoint rule: y ← y − f(a, b); ā ← ā + ȳ ∂f/∂a; b̄ ← b̄ + ȳ ∂f/∂b.
    #[inline(always)]
    fn sub2(y: &mut Self, a: &mut Self, b: &mut Self) {
        y.x = y.x - F::value(a.x, b.x);
        let (da, db) = F::partials(a.x, b.x);
        a.g = a.g + y.g * da;
        b.g = b.g + y.g * db;
    }
    fn value_is_singular(a: &Self, b: &Self) -> bool {
        let finite = |v: T| v.to_f64().is_finite();
        finite(a.x) && finite(b.x) && !finite(F::value(a.x, b.x))
    }
}

impl<T: Float, G: Grad<T>> Negate for GVar<T, G> {
    /// Adjoint rule: x̄ ← −x̄ (negation is linear and its own inverse).
    #[inline(always)]
    fn negate(&mut self) {
        self.x = -self.x;
        self.g = -self.g;
    }
}

impl<T: Float, G: Grad<T>> Step for GVar<T, G> {
    /// Adding a constant leaves the gradient unchanged.
    #[inline(always)]
    fn inc(&mut self) {
        self.x = self.x + T::f_one();
    }
    #[inline(always)]
    fn dec(&mut self) {
        self.x = self.x - T::f_one();
    }
}

impl<T: Float, G: Grad<T>> Conjugate for GVar<T, G> {
    #[inline(always)]
    fn conjugate(&mut self) {}
}

impl<T: Float, G: Grad<T>> Rotate for GVar<T, G> {
    /// Rotates values and gradients by θ; θ̄ ← θ̄ − (a′ b̄′ − b′ ā′) with the rotated values
    /// (the inverse of the rule in `irot`).
    #[inline(always)]
    fn rot(a: &mut Self, b: &mut Self, theta: &mut Self) {
        let (s, c) = (theta.x.sin(), theta.x.cos());
        let (x, y) = (a.x, b.x);
        a.x = x * c - y * s;
        b.x = y * c + x * s;
        let (gx, gy) = (a.g, b.g);
        a.g = gx * c - gy * s;
        b.g = gy * c + gx * s;
        theta.g = theta.g - (b.g * a.x - a.g * b.x);
    }
    /// Adjoint rule (the papers' Eq. 9): with the rotated values a′, b′ and their gradients,
    /// θ̄ ← θ̄ + a′ b̄′ − b′ ā′; then values and gradients rotate back by −θ.
    #[inline(always)]
    fn irot(a: &mut Self, b: &mut Self, theta: &mut Self) {
        theta.g = theta.g + (b.g * a.x - a.g * b.x);
        let (s, c) = (theta.x.sin(), theta.x.cos());
        let (x, y) = (a.x, b.x);
        a.x = x * c + y * s;
        b.x = y * c - x * s;
        let (gx, gy) = (a.g, b.g);
        a.g = gx * c + gy * s;
        b.g = gy * c - gx * s;
    }
}

impl<T: Float, G: Grad<T>> Invert for GVar<T, G> {
    /// Adjoint rule (`inv` is its own inverse): with the output `y = 1/x` and its gradient,
    /// `x̄ = ȳ · d(1/x)/dx = −ȳ y²`, so the value is inverted and `ḡ ← −ḡ · v²` with `v` the
    /// value before. Run twice, it gives the gradient back: `−(−ḡ y²) x² = ḡ`.
    #[inline(always)]
    fn invert(&mut self) {
        let v = self.x;
        self.x = T::f_one() / v;
        self.g = -(self.g * (v * v));
    }
}

impl<T: Float, G: Grad<T>> InvertComplex for GVar<T, G> {
    /// Adjoint rule of `inv(z)` on complex numbers (its own inverse): `z ↦ 1/z` is
    /// holomorphic, so with the gradient `ḡ = ∂L/∂re + i ∂L/∂im` of the output `w = 1/z`,
    /// the input's gradient is `ḡ · conj(f′(z))`, `f′(z) = −1/z²`. Run in the adjoint program
    /// on `(w, ḡ)`, the value is inverted back to `z` and the gradient becomes
    /// `ḡ · conj(f′(z))` at that recovered `z` (`prims::complex_recip_derivative`); run twice
    /// it gives the gradient back: `conj(f′(z) f′(1/z)) = 1`.
    #[inline(always)]
    fn invert_complex(re: &mut Self, im: &mut Self) {
        let (zr, zi) = crate::prims::complex_recip(re.x, im.x);
        let (a, b) = crate::prims::complex_recip_derivative(zr, zi);
        let (gr, gi) = (re.g, im.g);
        *re = GVar {
            x: zr,
            g: gr * a + gi * b,
        };
        *im = GVar {
            x: zi,
            g: gi * a - gr * b,
        };
    }
}

impl<T: Float, G: Grad<T>> Hadamard for GVar<T, G> {
    /// Adjoint rule: the transform is linear, symmetric and orthogonal, so the gradients
    /// transform with the same matrix as the values.
    #[inline(always)]
    fn hadamard(a: &mut Self, b: &mut Self) {
        T::hadamard(&mut a.x, &mut b.x);
        let s = T::from_f64(core::f64::consts::FRAC_1_SQRT_2);
        let (ga, gb) = (a.g, b.g);
        a.g = (ga + gb) * s;
        b.g = (ga - gb) * s;
    }
}

impl<T: Float, G: Grad<T>> Zeroable for GVar<T, G> {
    fn zero_like(&self) -> Self {
        GVar {
            x: T::f_zero(),
            g: G::zero(),
        }
    }
    fn is_zero(&self) -> bool {
        self.x.to_f64() == 0.0
    }
    fn additive_zero(&self) -> Self {
        GVar {
            x: self.x.additive_zero(),
            g: G::zero(),
        }
    }
}

impl<T: Float, G: Grad<T>> Accepts<GVar<T, G>> for GVar<T, G> {
    #[inline(always)]
    fn load(x: &GVar<T, G>) -> Self {
        *x
    }
    #[inline(always)]
    fn store(x: &mut GVar<T, G>, v: Self) {
        *x = v;
    }
}

macro_rules! gvar_accepts_constant {
    ($($from:ty),*) => {$(
        impl<T: Float, G: Grad<T>> Accepts<$from> for GVar<T, G> {
            /// A constant operand: its gradient is not kept.
            #[inline(always)]
            fn load(x: &$from) -> Self { GVar { x: T::from_f64(*x as f64), g: G::zero() } }
            #[inline(always)]
            fn store(_: &mut $from, _: Self) {}
        }
    )*};
}

gvar_accepts_constant!(f64, f32, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
