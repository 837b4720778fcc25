//! Complex numbers: their instructions are written reversibly in the language itself, on the
//! real and imaginary fields, so that their gradients follow from the real instructions' adjoint
//! rules with no rule of their own (the papers' "differentiating complex numbers").
//!
//! `Complex<T>` for any `T: Real` supports `y += x`, `y += -x`, `y += a + b`, `y += a - b`,
//! `y += a * b`, `y += a / b`, `y += pow(a, b)`, `y += exp(x)`, `y += log(x)` (the arXiv
//! paper's Listing 5),
//! `neg`, `conj`, `swap`, `hadamard` and `inv` (`z ← 1/z`: the one complex instruction with
//! an adjoint rule of its own, [`InvertComplex`] in `gvar.rs`, since an in-place reciprocal
//! is not a sequence of exact real instructions); real constants convert to complex ones.
//!
//! A complex operand goes into a real target through `r += abs(z)` (`|z|`, by `hypot` of the
//! fields), `r += abs2(z)` (`|z|²`, by `square` of each field) and `r += angle(z)` (`arg z` in
//! `(−π, π]`, by `atan2(z.im, z.re)`), NiLang's `abs`, `abs2` and `angle`: `T` implements
//! [`Acc1`]`<prims::Abs, Complex<T>>` and the others, written in the language like the
//! instructions above, so that their gradients too follow from the real rules (`|z|` is not
//! differentiable at 0, nor `arg z` on the negative real axis). Under `expand`, a nested
//! operand is computed into a complex ancilla: `r += abs(a * b)`.
//!
//! ```
//! use nilang::{i, Loss, Real};
//! use num_complex::Complex;
//!
//! /// r += |y|² after y += a·b
//! #[i]
//! fn product_power<T: Real>(r: &mut T, y: &mut Complex<T>, a: &mut Complex<T>, b: &mut Complex<T>) {
//!     y += a * b;
//!     r += abs2(y);
//! }
//! let (mut a, mut b) = (Complex::new(1.0f64, 2.0), Complex::new(3.0, -1.0));
//! let zero = Complex::new(0.0, 0.0);
//! let (mut r, mut y) = (0.0, zero);
//! product_power(&mut r, &mut y, &mut a, &mut b);
//! assert_eq!((r, y), (50.0, Complex::new(5.0, 5.0))); // |a|²|b|² = 5 · 10
//! let (_, _, ga, _) = product_power_grad(Loss::arg(0), &mut 0.0, &mut zero.clone(), &mut a, &mut b).unwrap();
//! assert_eq!((ga.re.g, ga.im.g), (20.0, 40.0)); // ∂/∂a = 2a|b|²
//!
//! /// r += |a·b| + arg(a·b), the product an ancilla of `expand`
//! #[i(expand)]
//! fn polar<T: Real>(r: &mut T, a: &mut Complex<T>, b: &mut Complex<T>) {
//!     r += abs(a * b);
//!     r += angle(a * b);
//! }
//! let (mut a, mut b) = (Complex::new(0.0f64, 2.0), Complex::new(1.5, 0.0));
//! let mut r = 0.0;
//! polar(&mut r, &mut a, &mut b);
//! assert_eq!(r, 3.0 + std::f64::consts::FRAC_PI_2); // a·b = 3i
//! let (_, ga, _) = polar_grad(Loss::arg(0), &mut 0.0, &mut a, &mut b).unwrap();
//! // ∂|ab|/∂a = b·ab/|ab| = (0, 1.5); ∂arg(ab)/∂a = (−Im a, Re a)/|a|² = (−0.5, 0)
//! assert_eq!((ga.re.g, ga.im.g), (-0.5, 1.5));
//! ```

use crate::instr::*;
use crate::prims;
use crate::real::Real;
use nilang_macros::i;
use num_complex::Complex;

#[i(nograd)]
fn c_identity<T: Real>(y: &mut Complex<T>, x: &mut Complex<T>) {
    y.re += x.re;
    y.im += x.im;
}

#[i(nograd)]
fn c_neg<T: Real>(y: &mut Complex<T>, x: &mut Complex<T>) {
    y.re -= x.re;
    y.im -= x.im;
}

#[i(nograd)]
fn c_add<T: Real>(y: &mut Complex<T>, a: &mut Complex<T>, b: &mut Complex<T>) {
    y.re += a.re + b.re;
    y.im += a.im + b.im;
}

#[i(nograd)]
fn c_sub<T: Real>(y: &mut Complex<T>, a: &mut Complex<T>, b: &mut Complex<T>) {
    y.re += a.re - b.re;
    y.im += a.im - b.im;
}

#[i(nograd)]
fn c_mul<T: Real>(y: &mut Complex<T>, a: &mut Complex<T>, b: &mut Complex<T>) {
    y.re += a.re * b.re;
    y.re -= a.im * b.im;
    y.im += a.re * b.im;
    y.im += a.im * b.re;
}

#[i(nograd)]
fn c_div<T: Real>(y: &mut Complex<T>, a: &mut Complex<T>, b: &mut Complex<T>) {
    let d = T::zero();
    let re = T::zero();
    let im = T::zero();
    routine! {
        d += square(b.re);
        d += square(b.im);
        re += a.re * b.re;
        re += a.im * b.im;
        im += a.im * b.re;
        im -= a.re * b.im;
    }
    y.re += re / d;
    y.im += im / d;
    uncompute!();
    dealloc!(d = T::zero(), re = T::zero(), im = T::zero());
}

#[i(nograd)]
fn c_exp<T: Real>(y: &mut Complex<T>, x: &mut Complex<T>) {
    let r = T::zero();
    let c = T::zero();
    let s = T::zero();
    routine! {
        r += exp(x.re);
        c += cos(x.im);
        s += sin(x.im);
    }
    y.re += r * c;
    y.im += r * s;
    uncompute!();
    dealloc!(r = T::zero(), c = T::zero(), s = T::zero());
}

/// The complex logarithm of the arXiv paper's Listing 5: `y += log(|x|) + i·angle(x)`.
#[i(nograd)]
fn c_log<T: Real>(y: &mut Complex<T>, x: &mut Complex<T>) {
    let n = T::zero();
    routine! {
        n += hypot(x.re, x.im);
    }
    y.re += log(n);
    y.im += atan2(x.im, x.re);
    uncompute!();
    dealloc!(n = T::zero());
}

/// `y += aᵇ = exp(b · log a)` on the principal branch of the logarithm (num-complex's
/// `powc`), for `a ≠ 0`: `log a` and `b · log a` are ancillas, computed, used and uncomputed.
/// A real exponent is a constant operand converted to `b + 0i` (`y += pow(z, 2.5)`).
#[i(nograd)]
fn c_pow<T: Real>(y: &mut Complex<T>, a: &mut Complex<T>, b: &mut Complex<T>) {
    let l = Complex::new(T::zero(), T::zero());
    let p = Complex::new(T::zero(), T::zero());
    routine! {
        l += log(a);
        p += b * l;
    }
    y += exp(p);
    uncompute!();
    dealloc!(
        l = Complex::new(T::zero(), T::zero()),
        p = Complex::new(T::zero(), T::zero())
    );
}

/// `r += |x|`: the modulus, by `hypot` of the fields (its gradient `x/|x|` is undefined at 0).
#[i(nograd)]
fn c_abs<T: Real>(r: &mut T, x: &mut Complex<T>) {
    r += hypot(x.re, x.im);
}

/// `r += |x|²`.
#[i(nograd)]
fn c_abs2<T: Real>(r: &mut T, x: &mut Complex<T>) {
    r += square(x.re);
    r += square(x.im);
}

/// `r += arg x`, in `(−π, π]` (num-complex's `arg`).
#[i(nograd)]
fn c_angle<T: Real>(r: &mut T, x: &mut Complex<T>) {
    r += atan2(x.im, x.re);
}

/// The instructions of a complex operand into a real target, `r += f(z)`.
macro_rules! complex_to_real {
    ($($prim:ident => $f:ident, $finv:ident;)*) => {$(
        impl<T: Real> Acc1<prims::$prim, Complex<T>> for T {
            #[inline]
            fn add1(r: &mut T, x: &mut Complex<T>) { $f(r, x) }
            #[inline]
            fn sub1(r: &mut T, x: &mut Complex<T>) { $finv(r, x) }
        }
    )*};
}

complex_to_real! {
    Abs => c_abs, c_abs_inv;
    Abs2 => c_abs2, c_abs2_inv;
    Angle => c_angle, c_angle_inv;
}

macro_rules! complex_unary {
    ($($prim:ident => $f:ident, $finv:ident;)*) => {$(
        impl<T: Real> Acc1<prims::$prim> for Complex<T> {
            #[inline]
            fn add1(y: &mut Self, x: &mut Self) { $f(y, x) }
            #[inline]
            fn sub1(y: &mut Self, x: &mut Self) { $finv(y, x) }
        }
    )*};
}

macro_rules! complex_binary {
    ($($prim:ident => $f:ident, $finv:ident;)*) => {$(
        impl<T: Real> Acc2<prims::$prim> for Complex<T> {
            #[inline]
            fn add2(y: &mut Self, a: &mut Self, b: &mut Self) { $f(y, a, b) }
            #[inline]
            fn sub2(y: &mut Self, a: &mut Self, b: &mut Self) { $finv(y, a, b) }
        }
    )*};
}

complex_unary! {
    Identity => c_identity, c_identity_inv;
    Neg => c_neg, c_neg_inv;
    Exp => c_exp, c_exp_inv;
    Log => c_log, c_log_inv;
}

complex_binary! {
    Add => c_add, c_add_inv;
    Sub => c_sub, c_sub_inv;
    Mul => c_mul, c_mul_inv;
    Div => c_div, c_div_inv;
    Pow => c_pow, c_pow_inv;
}

impl<T: Real> Negate for Complex<T> {
    #[inline]
    fn negate(&mut self) {
        self.re.negate();
        self.im.negate();
    }
}

impl<T: Real> Conjugate for Complex<T> {
    #[inline]
    fn conjugate(&mut self) {
        self.im.negate();
    }
}

impl<T: Real> Invert for Complex<T> {
    /// `z ← 1/z`: the rule of the field type ([`InvertComplex`]; its adjoint in `gvar.rs`).
    /// Like `inv` on floats it rounds, so it is its own inverse up to rounding.
    #[inline]
    fn invert(&mut self) {
        T::invert_complex(&mut self.re, &mut self.im);
    }
}

impl<T: Real> Hadamard for Complex<T> {
    /// The transform of the real parts, then of the imaginary parts (it is real and linear).
    #[inline]
    fn hadamard(a: &mut Self, b: &mut Self) {
        T::hadamard(&mut a.re, &mut b.re);
        T::hadamard(&mut a.im, &mut b.im);
    }
}

impl<T: Real> Zeroable for Complex<T> {
    fn zero_like(&self) -> Self {
        Complex::new(T::zero(), T::zero())
    }
    fn is_zero(&self) -> bool {
        self.re.val() == 0.0 && self.im.val() == 0.0
    }
}

impl<T: Real> Accepts<Complex<T>> for Complex<T> {
    #[inline(always)]
    fn load(x: &Self) -> Self {
        *x
    }
    #[inline(always)]
    fn store(x: &mut Self, v: Self) {
        *x = v;
    }
}

macro_rules! complex_accepts_real_constant {
    ($($from:ty),*) => {$(
        impl<T: Real> Accepts<$from> for Complex<T> {
            /// A real constant `c` is the complex constant `c + 0i`.
            #[inline(always)]
            fn load(x: &$from) -> Self { Complex::new(T::lit(*x as f64), T::zero()) }
            #[inline(always)]
            fn store(_: &mut $from, _: Self) {}
        }
    )*};
}

complex_accepts_real_constant!(
    f64, f32, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
);
