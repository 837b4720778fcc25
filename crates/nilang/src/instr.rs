//! Instruction traits: what the generated code calls for each statement of the language.
//!
//! The generated code loads every operand into a local of the target's type (through
//! [`Accepts`]), runs the instruction on the locals, and stores the target and the operands
//! back. Each instruction is a trait implemented by the scalar types:
//!
//! | statement | trait |
//! |---|---|
//! | `y += f(x)`, `y -= f(x)` | [`Acc1`] |
//! | `y += f(a, b)`, `y -= f(a, b)` | [`Acc2`] |
//! | `y *= f(x)`, `y /= f(x)` | [`Scale1`] (multiplicative number systems only) |
//! | `neg(x)` | [`Negate`] |
//! | `inc(x)`, `dec(x)` | [`Step`] |
//! | `conj(x)` | [`Conjugate`] |
//! | `rot(a, b, θ)`, `irot(a, b, θ)` | [`Rotate`] |
//! | `flip(b)` | [`Flip`] |
//! | `inv(x)` | [`Invert`] |
//! | `hadamard(a, b)` | [`Hadamard`] |
//!
//! Plain floats get every instruction from the primitives' values ([`crate::prims`]);
//! [`crate::GVar`] implements the same traits with the adjoint rules; integers implement the
//! exact (wrapping) integer instructions.
//!
//! A function's statements are these calls, and its inverse the opposite calls in reverse
//! order, which hand-written code (or a scalar type of one's own) can use directly:
//!
//! ```
//! use nilang::prims::{Mul, Sin};
//! use nilang::{i, Acc1, Acc2, Real};
//!
//! #[i]
//! fn f<T: Real>(y: &mut T, a: &mut T, b: &mut T) {
//!     y += a * b;
//!     y += sin(a);
//! }
//! let (mut y, mut a, mut b) = (0.0f64, 0.5, 3.0);
//! <f64 as Acc2<Mul>>::add2(&mut y, &mut a, &mut b);
//! <f64 as Acc1<Sin>>::add1(&mut y, &mut a);
//! let mut generated = 0.0;
//! f(&mut generated, &mut 0.5, &mut 3.0);
//! assert_eq!(y, generated);
//! <f64 as Acc1<Sin>>::sub1(&mut y, &mut a);
//! <f64 as Acc2<Mul>>::sub2(&mut y, &mut a, &mut b);
//! assert!(y.abs() < 1e-15); // undone, to round-off
//! ```

use crate::float::Float;
use crate::prims::{self, Binary, Unary};

/// `y += f(x)` and `y -= f(x)` for a primitive `F`, with an operand of type `X`: the
/// target's own type but for `abs`, `abs2` and `angle` of a complex operand into a real
/// target (`X = Complex<Self>`, [`crate::complex`]).
///
/// ```
/// use nilang::prims::Sin;
/// use nilang::{Acc1, GVar};
///
/// // what `y += sin(x)` and `y -= sin(x)` run
/// let (mut y, mut x) = (1.0, 0.5);
/// <f64 as Acc1<Sin>>::add1(&mut y, &mut x);
/// assert_eq!(y, 1.0 + 0.5f64.sin());
/// // on a GVar, the inverse instruction also moves the gradient: x̄ += ȳ cos x
/// let (mut y, mut x) = (GVar::with_grad(y, 1.0), GVar::new(0.5));
/// <GVar<f64> as Acc1<Sin>>::sub1(&mut y, &mut x);
/// assert_eq!((y.x, x.g), (1.0, 0.5f64.cos()));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no instruction `y += {F}(x)`",
    note = "integers support identity, neg, add, sub, mul and div; floats, `GVar` and complex numbers support every primitive",
    note = "a primitive of your own is `impl<T: nilang::Float> nilang::Unary<T> for {F}`: for every float type, so that its gradient (on `GVar`) and Hessian (on `Dual`) exist too"
)]
pub trait Acc1<F, X = Self>: Sized {
    /// `y += f(x)`
    fn add1(y: &mut Self, x: &mut X);
    /// `y -= f(x)`
    fn sub1(y: &mut Self, x: &mut X);
    /// `y -= f(x)` where `y` holds exactly `f(x)` (an ancilla deallocated as zero right
    /// after, in unchecked code): a value–gradient pair may take `f(x)` from `y` instead of
    /// evaluating `f` (`Unary::derivative_from_value`). By default, [`Acc1::sub1`].
    #[inline(always)]
    fn sub1_released(y: &mut Self, x: &mut X) {
        Self::sub1(y, x)
    }
    /// Whether `f(x)` is not finite although `x` is: a singular point of the primitive (see
    /// the policy in `nilang::prims`), reported by checked adjoint programs. By default,
    /// `false` (types that cannot tell).
    #[inline(always)]
    fn value_is_singular(x: &X) -> bool {
        let _ = x;
        false
    }
}

/// `y += f(a, b)` and `y -= f(a, b)` for a primitive `F`.
///
/// ```
/// use nilang::prims::Mul;
/// use nilang::Acc2;
///
/// // what `y += a * b` runs
/// let (mut y, mut a, mut b) = (1.0, 2.0, 3.0);
/// <f64 as Acc2<Mul>>::add2(&mut y, &mut a, &mut b);
/// assert_eq!(y, 7.0);
/// <f64 as Acc2<Mul>>::sub2(&mut y, &mut a, &mut b);
/// assert_eq!(y, 1.0);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no instruction `y += {F}(a, b)`",
    note = "a primitive of your own is `impl<T: nilang::Float> nilang::Binary<T> for {F}`: for every float type, so that its gradient (on `GVar`) and Hessian (on `Dual`) exist too"
)]
pub trait Acc2<F>: Sized {
    /// `y += f(a, b)`
    fn add2(y: &mut Self, a: &mut Self, b: &mut Self);
    /// `y -= f(a, b)`
    fn sub2(y: &mut Self, a: &mut Self, b: &mut Self);
    /// Whether `f(a, b)` is not finite although `a` and `b` are (see
    /// [`Acc1::value_is_singular`]). By default, `false`.
    #[inline(always)]
    fn value_is_singular(a: &Self, b: &Self) -> bool {
        let _ = (a, b);
        false
    }
}

/// `y *= f(x)` and `y /= f(x)`: reversible only in multiplicative number systems.
///
/// ```
/// use nilang::i;
/// use nilang::numbers::ULog;
///
/// // `y *= x` is an instruction of logarithmic numbers, not of floats
/// #[i]
/// fn scale(y: &mut ULog<f64>, x: &mut ULog<f64>) {
///     y *= x;
///     y /= x;
///     y *= x;
/// }
/// let (mut y, mut x) = (ULog::new(2.0), ULog::new(4.0));
/// scale(&mut y, &mut x);
/// assert!((y.to_f64() - 8.0).abs() < 1e-12);
/// ```
#[diagnostic::on_unimplemented(
    message = "`*=` and `/=` are not reversible on `{Self}`",
    note = "use a multiplicative number system (`nilang::numbers::ULog`, `nilang::numbers::Tropical`), or `+=` on an ancilla"
)]
pub trait Scale1<F>: Sized {
    /// `y *= f(x)`
    fn mul1(y: &mut Self, x: &mut Self);
    /// `y /= f(x)`
    fn div1(y: &mut Self, x: &mut Self);
}

/// `y *= f(a, b)` and `y /= f(a, b)` in multiplicative number systems.
///
/// ```
/// use nilang::i;
/// use nilang::numbers::ULog;
///
/// #[i]
/// fn scale(y: &mut ULog<f64>, a: &mut ULog<f64>, b: &mut ULog<f64>) {
///     y *= a * b; // ln y += ln a + ln b
/// }
/// let (mut y, mut a, mut b) = (ULog::one(), ULog::new(2.0), ULog::new(3.0));
/// scale(&mut y, &mut a, &mut b);
/// assert!((y.to_f64() - 6.0).abs() < 1e-12);
/// ```
#[diagnostic::on_unimplemented(
    message = "`*=` and `/=` by `{F}` of two operands are not instructions on `{Self}`",
    note = "on `ULog`: `y *= a * b`, `a / b`, `a + b`, `a - b` and `pow(a, r)` (a real `r`); on `Tropical`: `a * b` and `a + b`; floats have no reversible `*=` (accumulate with `+=` into an ancilla)"
)]
pub trait Scale2<F>: Sized {
    /// The type the second operand is loaded as: `Self` for sums, products and quotients, the
    /// real exponent `T` for `y *= pow(a, r)` on `ULog<T>`.
    type Second;
    /// `y *= f(a, b)`
    fn mul2(y: &mut Self, a: &mut Self, b: &mut Self::Second);
    /// `y /= f(a, b)`
    fn div2(y: &mut Self, a: &mut Self, b: &mut Self::Second);
    /// A value of the second operand's type, which generated code loads the operand like
    /// ([`Accepts::load_like`]); only its type matters.
    fn second_like(y: &Self) -> Self::Second;
}

/// How an operand of type `X` enters an instruction whose target has type `Self`.
///
/// For `X = Self` the operand is the variable itself: it is loaded, and stored back after
/// the instruction when the instruction may have changed it (a gradient accumulated into a
/// `GVar`); plain numbers are never changed by being an operand, so their store does nothing.
/// Any other `X` is a constant: converted on load, never stored.
///
/// ```
/// use nilang::{Accepts, GVar};
///
/// // a constant f64 operand of an instruction on GVars: converted, never written back
/// let c: GVar<f64> = <GVar<f64> as Accepts<f64>>::load(&2.5);
/// assert_eq!((c.x, c.g), (2.5, 0.0));
/// ```
#[diagnostic::on_unimplemented(
    message = "an operand of type `{X}` cannot be used in an instruction on `{Self}`",
    note = "operands must have the target's type, or be integer or float constants"
)]
pub trait Accepts<X>: Sized {
    /// The operand as a value of the target's type.
    fn load(x: &X) -> Self;
    /// Writes the operand back after the instruction.
    fn store(x: &mut X, v: Self);
    /// [`load`](Accepts::load) as a value of the type of `target`: what generated code calls,
    /// so that an operand of a type the target does not accept is an error naming this trait
    /// and the two types.
    #[inline(always)]
    fn load_like(target: &Self, x: &X) -> Self {
        let _ = target;
        Self::load(x)
    }
}

/// `neg(x)`: x ← −x (its own inverse).
///
/// ```
/// use nilang::{i, Negate, Real};
///
/// let mut x = 2.0;
/// x.negate();
/// assert_eq!(x, -2.0);
/// #[i]
/// fn flip_sign<T: Real>(x: &mut T) {
///     neg(x);
/// }
/// flip_sign(&mut x);
/// assert_eq!(x, 2.0);
/// ```
pub trait Negate {
    /// x ← −x
    fn negate(&mut self);
}

/// `inc(x)` and `dec(x)`: x ← x ± 1.
///
/// ```
/// use nilang::Step;
///
/// let mut n = 5i64;
/// n.inc();
/// n.inc();
/// n.dec();
/// assert_eq!(n, 6);
/// ```
pub trait Step {
    /// x ← x + 1
    fn inc(&mut self);
    /// x ← x − 1
    fn dec(&mut self);
}

/// `conj(x)`: complex conjugation (the identity on real numbers).
///
/// ```
/// use nilang::Conjugate;
/// use num_complex::Complex;
///
/// let mut z = Complex::new(1.0, 2.0);
/// z.conjugate();
/// assert_eq!(z, Complex::new(1.0, -2.0));
/// let mut r = 3.0;
/// r.conjugate();
/// assert_eq!(r, 3.0);
/// ```
pub trait Conjugate {
    /// x ← x̄
    fn conjugate(&mut self);
}

/// `rot(a, b, θ)`: (a, b) ← (a cos θ − b sin θ, b cos θ + a sin θ), and its inverse `irot`.
///
/// ```
/// use nilang::Rotate;
///
/// let (mut a, mut b, mut theta) = (1.0f64, 0.0f64, std::f64::consts::FRAC_PI_2);
/// f64::rot(&mut a, &mut b, &mut theta);
/// assert!(a.abs() < 1e-15 && (b - 1.0).abs() < 1e-15); // (1, 0) turned by 90°
/// f64::irot(&mut a, &mut b, &mut theta);
/// assert!((a - 1.0).abs() < 1e-15 && b.abs() < 1e-15);
/// ```
pub trait Rotate: Sized {
    /// `rot(a, b, θ)`
    fn rot(a: &mut Self, b: &mut Self, theta: &mut Self);
    /// `irot(a, b, θ)`
    fn irot(a: &mut Self, b: &mut Self, theta: &mut Self);
}

/// `flip(b)`: b ← ¬b (its own inverse), on booleans.
///
/// ```
/// use nilang::Flip;
///
/// let mut b = false;
/// b.flip();
/// assert!(b);
/// ```
#[diagnostic::on_unimplemented(
    message = "`flip` is an instruction on `bool`, not on `{Self}`",
    note = "on integers, `x ^= mask` flips bits"
)]
pub trait Flip {
    /// b ← ¬b
    fn flip(&mut self);
}

/// `inv(x)`: x ← 1/x (its own inverse). Exact in the multiplicative number systems
/// ([`crate::numbers::ULog`]: the logarithm is negated; [`crate::numbers::Tropical`]: the
/// stored value is negated); on floats `1/(1/x)` is `x` up to one rounding each way.
///
/// ```
/// use nilang::Invert;
///
/// let mut x = 4.0;
/// x.invert();
/// assert_eq!(x, 0.25);
/// ```
#[diagnostic::on_unimplemented(
    message = "`inv` (x ← 1/x) is not an instruction on `{Self}`",
    note = "it is defined on floats, `GVar`, `Dual`, `ULog`, `Tropical` and complex numbers; integers have no reciprocal"
)]
pub trait Invert {
    /// x ← 1/x
    fn invert(&mut self);
}

/// `inv(z)` on a complex number whose fields are of this type: `(re, im)` ← the fields of
/// `1/z`. Each scalar type has its rule — plain floats compute [`prims::complex_recip`],
/// [`crate::GVar`] its adjoint rule (in `gvar.rs`) — so that `Complex<T>: Invert` holds for
/// every [`crate::Real`] `T`; [`crate::Real`] requires it. Its own inverse, up to rounding.
///
/// Users write `inv(z)`; a scalar type of one's own that is to be [`crate::Real`] implements
/// this (every [`crate::Float`] has it already).
///
/// ```
/// use nilang::{i, InvertComplex, Loss, Real};
/// use num_complex::Complex;
///
/// let (mut re, mut im) = (3.0f64, 4.0);
/// f64::invert_complex(&mut re, &mut im); // 1/(3 + 4i) = (3 − 4i)/25
/// assert_eq!((re, im), (0.12, -0.16));
///
/// /// out += Re(1/z); z is left holding 1/z
/// #[i]
/// fn recip_re<T: Real>(out: &mut T, z: &mut Complex<T>) {
///     inv(z);
///     out += identity(z.re);
/// }
/// let mut z = Complex::new(3.0f64, 4.0);
/// let (_, gz) = recip_re_grad(Loss::arg(0), &mut 0.0, &mut z).unwrap();
/// // ∂Re(1/z)/∂re = (im² − re²)/|z|⁴ = 7/625, ∂/∂im = −2·re·im/|z|⁴ = −24/625
/// assert!((gz.re.g - 7.0 / 625.0).abs() < 1e-15 && (gz.im.g + 24.0 / 625.0).abs() < 1e-15);
/// ```
pub trait InvertComplex: Sized {
    /// `(re, im)` ← the fields of `1/(re + i·im)`.
    fn invert_complex(re: &mut Self, im: &mut Self);
}

/// `hadamard(a, b)`: (a, b) ← ((a + b)/√2, (a − b)/√2), the Hadamard transform of a pair
/// (its own inverse: the matrix is symmetric and orthogonal).
///
/// ```
/// use nilang::Hadamard;
///
/// let (mut a, mut b) = (1.0f64, 1.0f64);
/// f64::hadamard(&mut a, &mut b);
/// assert!((a - 2f64.sqrt()).abs() < 1e-15 && b == 0.0);
/// f64::hadamard(&mut a, &mut b); // its own inverse
/// assert!((a - 1.0).abs() < 1e-15 && (b - 1.0).abs() < 1e-15);
/// ```
#[diagnostic::on_unimplemented(
    message = "`hadamard` is not an instruction on `{Self}`",
    note = "it is defined on floats, `GVar`, `Dual` and complex numbers (not on integers: √2)"
)]
pub trait Hadamard: Sized {
    /// (a, b) ← ((a + b)/√2, (a − b)/√2)
    fn hadamard(a: &mut Self, b: &mut Self);
}

/// Values that have a zero of their own shape (for stacks and generated ancillas).
///
/// ```
/// use nilang::Zeroable;
///
/// let x = vec![1.0, 2.0];
/// assert_eq!(x.zero_like(), vec![0.0, 0.0]);
/// assert!(!x.is_zero() && x.zero_like().is_zero());
/// ```
pub trait Zeroable {
    /// A zero of the same type (and shape) as `self`.
    fn zero_like(&self) -> Self;
    /// Whether `self` is zero.
    fn is_zero(&self) -> bool;
    /// The zero an ancilla computed by `+=` starts from (what `expand!` allocates): the
    /// additive identity, `−0` for floats (`−0 + e` is `e` to the bit, where `+0 + e` turns
    /// `e = −0` into `+0`; so the compiler drops that first addition, which it must keep for
    /// `+0`). [`Zeroable::zero_like`] for every other type.
    ///
    /// ```
    /// use nilang::Zeroable;
    ///
    /// let start = 3.0f64.additive_zero();
    /// assert!(start.is_zero() && start.is_sign_negative());
    /// assert_eq!((start + -0.0f64).to_bits(), (-0.0f64).to_bits());
    /// ```
    fn additive_zero(&self) -> Self
    where
        Self: Sized,
    {
        self.zero_like()
    }
}

// ---------------------------------------------------------------------------------------
// floats (and every `Float`): the instruction computes the primitive's value.

impl<T: Float, F: Unary<T>> Acc1<F> for T {
    #[inline(always)]
    fn add1(y: &mut T, x: &mut T) {
        *y = *y + F::value(*x);
    }
    #[inline(always)]
    fn sub1(y: &mut T, x: &mut T) {
        *y = *y - F::value(*x);
    }
}

impl<T: Float, F: Binary<T>> Acc2<F> for T {
    #[inline(always)]
    fn add2(y: &mut T, a: &mut T, b: &mut T) {
        *y = *y + F::value(*a, *b);
    }
    #[inline(always)]
    fn sub2(y: &mut T, a: &mut T, b: &mut T) {
        *y = *y - F::value(*a, *b);
    }
}

impl<T: Float> Negate for T {
    #[inline(always)]
    fn negate(&mut self) {
        *self = -*self;
    }
}

impl<T: Float> Step for T {
    #[inline(always)]
    fn inc(&mut self) {
        *self = *self + T::f_one();
    }
    #[inline(always)]
    fn dec(&mut self) {
        *self = *self - T::f_one();
    }
}

impl<T: Float> Conjugate for T {
    #[inline(always)]
    fn conjugate(&mut self) {}
}

impl<T: Float> Rotate for T {
    #[inline(always)]
    fn rot(a: &mut T, b: &mut T, theta: &mut T) {
        let (s, c) = (theta.sin(), theta.cos());
        let (x, y) = (*a, *b);
        *a = x * c - y * s;
        *b = y * c + x * s;
    }
    #[inline(always)]
    fn irot(a: &mut T, b: &mut T, theta: &mut T) {
        let (s, c) = (theta.sin(), theta.cos());
        let (x, y) = (*a, *b);
        *a = x * c + y * s;
        *b = y * c - x * s;
    }
}

impl<T: Float> Invert for T {
    #[inline(always)]
    fn invert(&mut self) {
        *self = T::f_one() / *self;
    }
}

impl<T: Float> InvertComplex for T {
    #[inline(always)]
    fn invert_complex(re: &mut T, im: &mut T) {
        (*re, *im) = prims::complex_recip(*re, *im);
    }
}

impl<T: Float> Hadamard for T {
    #[inline(always)]
    fn hadamard(a: &mut T, b: &mut T) {
        let s = T::from_f64(core::f64::consts::FRAC_1_SQRT_2);
        let (x, y) = (*a, *b);
        *a = (x + y) * s;
        *b = (x - y) * s;
    }
}

impl Flip for bool {
    #[inline(always)]
    fn flip(&mut self) {
        *self = !*self;
    }
}

impl<T: Float> Zeroable for T {
    #[inline(always)]
    fn zero_like(&self) -> T {
        T::f_zero()
    }
    #[inline(always)]
    fn additive_zero(&self) -> T {
        T::from_f64(-0.0)
    }
    #[inline(always)]
    fn is_zero(&self) -> bool {
        self.to_f64() == 0.0
    }
}

macro_rules! float_accepts {
    ($t:ty: $($from:ty),*) => {
        impl Accepts<$t> for $t {
            #[inline(always)]
            fn load(x: &$t) -> $t { *x }
            /// An operand of a plain-number instruction is unchanged: nothing to store.
            #[inline(always)]
            fn store(_: &mut $t, _: $t) {}
        }
        $(impl Accepts<$from> for $t {
            #[inline(always)]
            fn load(x: &$from) -> $t { *x as $t }
            #[inline(always)]
            fn store(_: &mut $from, _: $t) {}
        })*
    };
}

float_accepts!(f64: f32, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
float_accepts!(f32: f64, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

// ---------------------------------------------------------------------------------------
// integers: exact, wrapping arithmetic (so that `+=` and `-=` undo each other bit for bit).

macro_rules! int_instructions {
    ($($t:ty),*) => {$(
        impl Acc1<prims::Identity> for $t {
            #[inline(always)]
            fn add1(y: &mut $t, x: &mut $t) { *y = y.wrapping_add(*x); }
            #[inline(always)]
            fn sub1(y: &mut $t, x: &mut $t) { *y = y.wrapping_sub(*x); }
        }
        impl Acc1<prims::Neg> for $t {
            #[inline(always)]
            fn add1(y: &mut $t, x: &mut $t) { *y = y.wrapping_sub(*x); }
            #[inline(always)]
            fn sub1(y: &mut $t, x: &mut $t) { *y = y.wrapping_add(*x); }
        }
        impl Acc1<prims::Abs> for $t {
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn add1(y: &mut $t, x: &mut $t) { let a = if *x < 0 as $t { x.wrapping_neg() } else { *x }; *y = y.wrapping_add(a); }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn sub1(y: &mut $t, x: &mut $t) { let a = if *x < 0 as $t { x.wrapping_neg() } else { *x }; *y = y.wrapping_sub(a); }
        }
        impl Acc2<prims::Add> for $t {
            #[inline(always)]
            fn add2(y: &mut $t, a: &mut $t, b: &mut $t) { *y = y.wrapping_add(a.wrapping_add(*b)); }
            #[inline(always)]
            fn sub2(y: &mut $t, a: &mut $t, b: &mut $t) { *y = y.wrapping_sub(a.wrapping_add(*b)); }
        }
        impl Acc2<prims::Sub> for $t {
            #[inline(always)]
            fn add2(y: &mut $t, a: &mut $t, b: &mut $t) { *y = y.wrapping_add(a.wrapping_sub(*b)); }
            #[inline(always)]
            fn sub2(y: &mut $t, a: &mut $t, b: &mut $t) { *y = y.wrapping_sub(a.wrapping_sub(*b)); }
        }
        impl Acc2<prims::Mul> for $t {
            #[inline(always)]
            fn add2(y: &mut $t, a: &mut $t, b: &mut $t) { *y = y.wrapping_add(a.wrapping_mul(*b)); }
            #[inline(always)]
            fn sub2(y: &mut $t, a: &mut $t, b: &mut $t) { *y = y.wrapping_sub(a.wrapping_mul(*b)); }
        }
        impl Acc2<prims::Div> for $t {
            /// Integer (truncating) division.
            #[inline(always)]
            fn add2(y: &mut $t, a: &mut $t, b: &mut $t) { *y = y.wrapping_add(*a / *b); }
            #[inline(always)]
            fn sub2(y: &mut $t, a: &mut $t, b: &mut $t) { *y = y.wrapping_sub(*a / *b); }
        }
        impl Acc2<prims::Pow> for $t {
            #[inline(always)]
            fn add2(y: &mut $t, a: &mut $t, b: &mut $t) { *y = y.wrapping_add(a.wrapping_pow(*b as u32)); }
            #[inline(always)]
            fn sub2(y: &mut $t, a: &mut $t, b: &mut $t) { *y = y.wrapping_sub(a.wrapping_pow(*b as u32)); }
        }
        impl Negate for $t {
            #[inline(always)]
            fn negate(&mut self) { *self = self.wrapping_neg(); }
        }
        impl Step for $t {
            #[inline(always)]
            fn inc(&mut self) { *self = self.wrapping_add(1); }
            #[inline(always)]
            fn dec(&mut self) { *self = self.wrapping_sub(1); }
        }
        impl Conjugate for $t {
            #[inline(always)]
            fn conjugate(&mut self) {}
        }
        impl Zeroable for $t {
            #[inline(always)]
            fn zero_like(&self) -> $t { 0 }
            #[inline(always)]
            fn is_zero(&self) -> bool { *self == 0 }
        }
        int_accepts!($t: i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
    )*};
}

macro_rules! int_accepts {
    ($t:ty: $($from:ty),*) => {$(
        impl Accepts<$from> for $t {
            #[inline(always)]
            #[allow(clippy::unnecessary_cast)]
            fn load(x: &$from) -> $t { *x as $t }
            #[inline(always)]
            fn store(_: &mut $from, _: $t) {}
        }
    )*};
}

int_instructions!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

impl Zeroable for bool {
    fn zero_like(&self) -> bool {
        false
    }
    fn is_zero(&self) -> bool {
        !*self
    }
}

impl<X: Zeroable, const N: usize> Zeroable for [X; N] {
    fn zero_like(&self) -> [X; N] {
        core::array::from_fn(|i| self[i].zero_like())
    }
    fn is_zero(&self) -> bool {
        self.iter().all(Zeroable::is_zero)
    }
}

impl<T: Zeroable> Zeroable for Vec<T> {
    fn zero_like(&self) -> Vec<T> {
        self.iter().map(Zeroable::zero_like).collect()
    }
    fn is_zero(&self) -> bool {
        self.iter().all(Zeroable::is_zero)
    }
}
