//! The primitives of the instruction table: each one's value and derivative, written once.
//!
//! A primitive is a zero-sized type implementing [`Unary`] or [`Binary`]. The instruction
//! `y += f(x)` on any scalar, and its adjoint on [`crate::GVar`], are derived from these two
//! functions alone. Users add their own primitive (a special function, a library call with a
//! known derivative) by implementing one of the traits for a type of theirs and writing
//! `y += MyPrim(x)` in a reversible function. The built-in ones are named as types where a
//! primitive is passed by type (`i_mapfoldl::<T, Square, Identity>` in
//! [`crate::stdlib::mapreduce`]) or appears in a bound (`T: Acc1<Sin>`), and their value and
//! derivative can be called directly (`Sigmoid::value(x)` inside a primitive of one's own).
//!
//! # Singular points
//!
//! Where a primitive has no finite value or derivative, one policy holds, applied in one
//! place — the instruction checks of checked adjoint programs (`__private::check_finite` and
//! `check_singular_value`, fed by [`crate::__private::Acc1::value_is_singular`]), which see
//! every primitive, users' own included:
//!
//! - **A defined value** where the function is finite and continuous but not differentiable:
//!   `abs′(0) = 0` (the subgradient of least magnitude; `signum` would give ±1 by the sign of
//!   the zero); `pow(a, 0)` has `∂/∂a = 0`, and `∂/∂b aᵇ = 0` where `aᵇ = 0`.
//! - **A named error** where the value or the derivative is infinite or undefined: `sqrt` at 0
//!   (∞ derivative) and below 0, `log` at 0 and below, `log1p` at −1 and below, `a / b` at
//!   `b = 0`, `asin`/`acos` at ±1 (∞ derivative) and beyond, `atan2` at the origin (0/0),
//!   `pow(0, b)` for `b < 1` (∞ derivative in `a`), `pow` of a negative base differentiated in
//!   `b` (`ln` of a negative number), `tan` at its poles, and any overflow (`exp` of a large
//!   argument). In a checked gradient (the default; not under `#[i(nocheck)]`) the
//!   instruction whose primitive has no finite value at its operands, or whose adjoint turns
//!   a finite value or gradient into a NaN or an infinity, fails with
//!   [`crate::CheckKind::NonFinite`], naming the function, the statement and the variables —
//!   also when the gradient arriving there is zero (`0 · ∞` is NaN: we report the point
//!   rather than guess a limit). A constant operand's gradient is not kept, so `pow(x, 2.0)`
//!   at `x < 0` is fine. Unchecked programs give IEEE results (∞ or NaN) at no extra cost;
//!   run a checked gradient to find where they come from.
//!
//! ```
//! use nilang::prims::Sigmoid;
//! use nilang::{i, Float, Loss, Real, Unary};
//!
//! /// swish(x) = x·σ(x), written with the built-in sigmoid's value
//! struct Swish;
//!
//! impl<T: Float> Unary<T> for Swish {
//!     fn value(x: T) -> T {
//!         x * Sigmoid::value(x)
//!     }
//!     fn derivative(x: T) -> T {
//!         let s = Sigmoid::value(x);
//!         s + x * s * (T::f_one() - s)
//!     }
//! }
//!
//! #[i]
//! fn layer<T: Real>(y: &mut T, x: &mut T) {
//!     y += Swish(x);
//! }
//! let (_, gx) = layer_grad(Loss::arg(0), &mut 0.0, &mut 0.0).unwrap();
//! assert_eq!(gx.g, 0.5); // σ(0)
//! ```

use crate::float::Float;

/// A primitive of one operand: its value and its derivative.
///
/// Implement it for every [`Float`] (so that gradients, on [`crate::GVar`], and Hessians, on
/// [`crate::Dual`], exist too) and write `y += MyPrim(x)` in a reversible function; the macro
/// adds the bound `T: nilang::Acc1<MyPrim>` to the function itself. Constants are
/// `T::f_one()`, `T::f_zero()` and `T::from_f64(c)`.
///
/// ```
/// use nilang::{i, Float, Loss, Real, Unary};
///
/// /// softplus(x) = ln(1 + eˣ), softplus′(x) = 1 / (1 + e⁻ˣ)
/// struct Softplus;
///
/// impl<T: Float> Unary<T> for Softplus {
///     fn value(x: T) -> T {
///         x.exp().ln_1p()
///     }
///     fn derivative(x: T) -> T {
///         T::f_one() / (T::f_one() + (-x).exp())
///     }
/// }
///
/// #[i]
/// fn layer<T: Real>(y: &mut [T], x: &mut [T]) {
///     for k in 0..x.len() {
///         y[k] += Softplus(x[k]);
///     }
/// }
/// let (_, gx) = layer_grad(Loss::elem(0, 1), &mut vec![0.0; 2], &mut vec![0.0, 0.0]).unwrap();
/// assert_eq!((gx[0].g, gx[1].g), (0.0, 0.5));
/// ```
pub trait Unary<T: Copy> {
    /// f(x)
    fn value(x: T) -> T;
    /// f′(x)
    fn derivative(x: T) -> T;
    /// `(f(x), f′(x))` together, for adjoint rules; primitives whose derivative follows from
    /// their value (`exp`, `sqrt`, `tanh`, `sigmoid`) compute the function once.
    #[inline(always)]
    fn value_and_derivative(x: T) -> (T, T) {
        (Self::value(x), Self::derivative(x))
    }
    /// `f′(x)` from `v = f(x)` alone, for primitives whose derivative follows from their
    /// value (`exp`, `sqrt`, `tanh`, `sigmoid`); `None` for the others. An adjoint that holds
    /// `f(x)` already (a deallocated ancilla, see `Acc1::sub1_released`) skips evaluating `f`.
    #[inline(always)]
    fn derivative_from_value(v: T) -> Option<T> {
        let _ = v;
        None
    }
}

/// A primitive of two operands: its value and its partial derivatives.
///
/// As for [`Unary`], implement it for every [`Float`] and write `y += MyPrim(a, b)`:
///
/// ```
/// use nilang::{i, Binary, Float, Loss, Real};
///
/// /// (a − b)², with partials (2(a − b), −2(a − b))
/// struct SquaredDifference;
///
/// impl<T: Float> Binary<T> for SquaredDifference {
///     fn value(a: T, b: T) -> T {
///         (a - b) * (a - b)
///     }
///     fn partials(a: T, b: T) -> (T, T) {
///         let d = T::from_f64(2.0) * (a - b);
///         (d, -d)
///     }
/// }
///
/// #[i]
/// fn distance2<T: Real>(out: &mut T, a: &mut T, b: &mut T) {
///     out += SquaredDifference(a, b);
/// }
/// let (_, ga, gb) = distance2_grad(Loss::arg(0), &mut 0.0, &mut 3.0, &mut 1.0).unwrap();
/// assert_eq!((ga.g, gb.g), (4.0, -4.0));
/// ```
pub trait Binary<T> {
    /// f(a, b)
    fn value(a: T, b: T) -> T;
    /// (∂f/∂a, ∂f/∂b)
    fn partials(a: T, b: T) -> (T, T);
}

macro_rules! unary {
    ($(#[$doc:meta] $name:ident: |$x:ident| $value:expr, $deriv:expr $(, from value |$v:ident| $from:expr)?;)*) => {$(
        #[$doc]
        ///
        /// Its value and derivative, the derivative against a central difference:
        ///
        #[doc = concat!("```
use nilang::prims::", stringify!($name), ";
use nilang::Unary;

let (x, h) = (0.3f64, 1e-6);
let (f, df) = ", stringify!($name), "::value_and_derivative(x);
assert_eq!(f, ", stringify!($name), "::value(x));
let central = (", stringify!($name), "::value(x + h) - ", stringify!($name), "::value(x - h)) / (2.0 * h);
assert!((df - central).abs() < 1e-8 * (1.0 + df.abs()));
```")]
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name;
        impl<T: Float> Unary<T> for $name {
            #[inline(always)]
            fn value($x: T) -> T { $value }
            #[inline(always)]
            #[allow(unused_variables)]
            fn derivative($x: T) -> T { $deriv }
            $(
                #[inline(always)]
                fn value_and_derivative($x: T) -> (T, T) {
                    let $v = $value;
                    ($v, $from)
                }
                #[inline(always)]
                fn derivative_from_value($v: T) -> Option<T> {
                    Some($from)
                }
            )?
        }
    )*};
}

unary! {
    /// `identity(x) = x`
    Identity: |x| x, T::f_one();
    /// `neg(x) = −x`
    Neg: |x| -x, -T::f_one();
    /// `exp(x)`
    Exp: |x| x.exp(), x.exp(), from value |v| v;
    /// `log(x)` (natural)
    Log: |x| x.ln(), T::f_one() / x;
    /// `log1p(x) = ln(1 + x)`
    Log1p: |x| x.ln_1p(), T::f_one() / (T::f_one() + x);
    /// `expm1(x) = eˣ − 1`
    Expm1: |x| x.exp_m1(), x.exp();
    /// `sin(x)`
    Sin: |x| x.sin(), x.cos();
    /// `cos(x)`
    Cos: |x| x.cos(), -x.sin();
    /// `tan(x)`
    Tan: |x| x.tan(), { let c = x.cos(); T::f_one() / (c * c) };
    /// `asin(x)`
    Asin: |x| x.asin(), T::f_one() / (T::f_one() - x * x).sqrt();
    /// `acos(x)`
    Acos: |x| x.acos(), -T::f_one() / (T::f_one() - x * x).sqrt();
    /// `atan(x)`
    Atan: |x| x.atan(), T::f_one() / (T::f_one() + x * x);
    /// `sinh(x)`
    Sinh: |x| x.sinh(), x.cosh();
    /// `cosh(x)`
    Cosh: |x| x.cosh(), x.sinh();
    /// `tanh(x)`
    Tanh: |x| x.tanh(), { let t = x.tanh(); T::f_one() - t * t }, from value |v| T::f_one() - v * v;
    /// `sqrt(x)`
    Sqrt: |x| x.sqrt(), T::from_f64(0.5) / x.sqrt(), from value |v| T::from_f64(0.5) / v;
    /// `abs(x)` (derivative: the sign of x, and 0 at 0: see the singular-point policy)
    Abs: |x| x.abs(), if x.to_f64() == 0.0 { T::f_zero() } else { x.signum() };
    /// `square(x) = x²`
    Square: |x| x * x, T::from_f64(2.0) * x;
    /// `sigmoid(x) = 1 / (1 + e⁻ˣ)`
    Sigmoid: |x| T::f_one() / (T::f_one() + (-x).exp()), {
        let s = T::f_one() / (T::f_one() + (-x).exp());
        s * (T::f_one() - s)
    }, from value |v| v * (T::f_one() - v);
}

macro_rules! binary {
    ($(#[$doc:meta] $name:ident: |$a:ident, $b:ident| $value:expr, $partials:expr;)*) => {$(
        #[$doc]
        ///
        /// Its partial derivatives, against central differences in each operand:
        ///
        #[doc = concat!("```
use nilang::prims::", stringify!($name), ";
use nilang::Binary;

let (a, b, h) = (0.7f64, 0.4, 1e-6);
let (da, db) = ", stringify!($name), "::partials(a, b);
let f = |a: f64, b: f64| ", stringify!($name), "::value(a, b);
let central = ((f(a + h, b) - f(a - h, b)) / (2.0 * h), (f(a, b + h) - f(a, b - h)) / (2.0 * h));
assert!((da - central.0).abs() < 1e-8 * (1.0 + da.abs()));
assert!((db - central.1).abs() < 1e-8 * (1.0 + db.abs()));
```")]
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name;
        impl<T: Float> Binary<T> for $name {
            #[inline(always)]
            fn value($a: T, $b: T) -> T { $value }
            #[inline(always)]
            fn partials($a: T, $b: T) -> (T, T) { $partials }
        }
    )*};
}

binary! {
    /// `a + b`
    Add: |a, b| a + b, { let _ = (a, b); (T::f_one(), T::f_one()) };
    /// `a − b`
    Sub: |a, b| a - b, { let _ = (a, b); (T::f_one(), -T::f_one()) };
    /// `a * b`
    Mul: |a, b| a * b, (b, a);
    /// `a / b`
    Div: |a, b| a / b, { let inv = T::f_one() / b; (inv, -a * inv * inv) };
    /// `pow(a, b) = aᵇ` (an integer-valued `b` is computed exactly by repeated multiplication)
    Pow: |a, b| pow_value(a, b), pow_partials(a, b);
    /// `atan2(a, b)`: the angle of the point (b, a)
    Atan2: |a, b| a.atan2(b), { let r2 = a * a + b * b; (b / r2, -a / r2) };
    /// `hypot(a, b) = √(a² + b²)`
    Hypot: |a, b| (a * a + b * b).sqrt(), { let h = (a * a + b * b).sqrt(); (a / h, b / h) };
}

/// The exponent as an integer when it is an integer value, for the exact `powi` path. An
/// exponent with a tangent (a dual number differentiated with respect to `b`) on a positive base
/// takes the `powf` path even at integer values: `powi` would drop its tangent, and with it
/// `∂aᵇ/∂b = aᵇ ln a` in forward mode (and in Hessians). For `a ≤ 0`, `aᵇ` has no derivative in
/// `b` and the integer path is kept.
fn integer_exponent<T: Float>(a: T, b: T) -> Option<i32> {
    if b.has_tangent() && a.to_f64() > 0.0 {
        return None;
    }
    let v = b.to_f64();
    (v.fract() == 0.0 && v.abs() < 1024.0).then_some(v as i32)
}

#[inline(always)]
fn pow_value<T: Float>(a: T, b: T) -> T {
    match integer_exponent(a, b) {
        Some(n) => a.powi(n),
        None => a.powf(b),
    }
}

#[inline(always)]
fn pow_partials<T: Float>(a: T, b: T) -> (T, T) {
    let da = match integer_exponent(a, b) {
        Some(0) => T::f_zero(),
        Some(n) => T::from_f64(n as f64) * a.powi(n - 1),
        None => b * a.powf(b - T::f_one()),
    };
    let value = pow_value(a, b);
    // ∂/∂b aᵇ = aᵇ ln a; zero where aᵇ is zero (the limit), undefined for a < 0.
    let db = if value.to_f64() == 0.0 {
        T::f_zero()
    } else {
        value * a.ln()
    };
    (da, db)
}

/// The complex reciprocal on the fields, `1/z = (re − i·im)/(re² + im²)`: the math of `inv(z)`
/// on complex numbers (`Complex<T>: Invert`). Infinite or NaN at `z = 0`, like `1/x` on floats.
/// For a scalar type of one's own, [`crate::InvertComplex`] is this on its fields.
///
/// ```
/// use nilang::prims::complex_recip;
/// use num_complex::Complex;
///
/// let w = Complex::new(3.0, 4.0).inv();
/// assert_eq!(complex_recip(3.0, 4.0), (w.re, w.im)); // (0.12, −0.16)
/// ```
#[inline(always)]
pub fn complex_recip<T: Float>(re: T, im: T) -> (T, T) {
    let d = re * re + im * im;
    (re / d, -im / d)
}

/// The derivative of `z ↦ 1/z` (holomorphic): `−1/z²` on the fields, `−(re² − im² −
/// 2i·re·im)/(re² + im²)²`. The adjoint rule of `inv(z)` multiplies the gradient by its
/// conjugate.
///
/// ```
/// use nilang::prims::{complex_recip, complex_recip_derivative};
///
/// // −1/z² at z = 3 + 4i, against a central difference along the real axis
/// let (d, h) = (complex_recip_derivative(3.0f64, 4.0), 1e-6);
/// let (up, down) = (complex_recip(3.0 + h, 4.0), complex_recip(3.0 - h, 4.0));
/// let central = ((up.0 - down.0) / (2.0 * h), (up.1 - down.1) / (2.0 * h));
/// assert!((d.0 - central.0).abs() < 1e-9 && (d.1 - central.1).abs() < 1e-9);
/// assert!((d.0 - 0.0112).abs() < 1e-15 && (d.1 - 0.0384).abs() < 1e-15); // (7 + 24i)/625
/// ```
#[inline(always)]
pub fn complex_recip_derivative<T: Float>(re: T, im: T) -> (T, T) {
    let (wr, wi) = complex_recip(re, im);
    // −w² for w = 1/z
    (wi * wi - wr * wr, -(T::from_f64(2.0) * wr * wi))
}
