//! The primitives of the instruction table: each one's value and derivative, written once.
//!
//! The built-in ones are generated from the primitive table, `nilang_prims::primitives!`
//! (one row per primitive: name, arity, value, derivative, `Float` method, C++ spelling),
//! which also gives the IR its list, [`crate::Float`] its elementary methods and their
//! dual-number rules, and the C++ header its primitives; a new built-in primitive is a new
//! row there.
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
//!   the zero); `pow(a, 0)` has `∂/∂a = 0`, and `∂/∂b aᵇ = 0` where `aᵇ = 0`; `max(a, b)`
//!   and `min(a, b)` hand the whole gradient to the operand they choose, `a` on a tie (the
//!   subgradient `(1, 0)` at `a = b`), so a program of maxima differentiates to one
//!   maximising choice at each, as a tropical `max` does; `angle` of a real number, a step
//!   from π to 0, has derivative 0 everywhere, 0 included.
//! - **A named error** where the value or the derivative is infinite or undefined: `sqrt` at 0
//!   (∞ derivative) and below 0, `log` at 0 and below, `log1p` at −1 and below, `a / b` at
//!   `b = 0`, `asin`/`acos` at ±1 (∞ derivative) and beyond, `atan2` at the origin (0/0;
//!   so `abs` and `angle` of a complex 0, through `hypot` and `atan2`: [`crate::complex`]),
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

/// The runtime types of the primitive table (`nilang_prims::primitives!`): each row's value and
/// derivative as a [`Unary`] or [`Binary`] impl, with a doctest against central differences.
macro_rules! runtime_types {
    ([] unary { $(($name:ident $lang:ident $doc:literal $x:ident $value:block $deriv:block
        [$($v:ident $from:block)?] $($unary_rest:tt)*))* }
        binary { $(($bname:ident $blang:ident $bdoc:literal $a:ident $b:ident $bvalue:block
        $partials:block $($binary_rest:tt)*))* }) => {
        $(
            #[doc = $doc]
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
        )*
        $(
            #[doc = $bdoc]
            ///
            /// Its partial derivatives, against central differences in each operand:
            ///
            #[doc = concat!("```
use nilang::prims::", stringify!($bname), ";
use nilang::Binary;

let (a, b, h) = (0.7f64, 0.4, 1e-6);
let (da, db) = ", stringify!($bname), "::partials(a, b);
let f = |a: f64, b: f64| ", stringify!($bname), "::value(a, b);
let central = ((f(a + h, b) - f(a - h, b)) / (2.0 * h), (f(a, b + h) - f(a, b - h)) / (2.0 * h));
assert!((da - central.0).abs() < 1e-8 * (1.0 + da.abs()));
assert!((db - central.1).abs() < 1e-8 * (1.0 + db.abs()));
```")]
            #[derive(Clone, Copy, Debug, Default)]
            pub struct $bname;
            impl<T: Float> Binary<T> for $bname {
                #[inline(always)]
                fn value($a: T, $b: T) -> T { $bvalue }
                #[inline(always)]
                fn partials($a: T, $b: T) -> (T, T) { $partials }
            }
        )*
    };
}

nilang_prims::primitives!(runtime_types);

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
