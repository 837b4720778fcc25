//! `ULog`: logarithmic numbers, where `*=` and `/=` are exactly reversible.
//!
//! A positive number `x` is stored as its natural logarithm `ln x` (the `ULogarithmic` type
//! of the papers' Julia implementation), so that multiplication is addition of logarithms.
//! To make that addition exact, logarithms are kept on the grid of multiples of 2⁻⁴³ (the
//! resolution of the papers' 64-bit fixed-point numbers): a sum or difference of two grid
//! values below 2¹⁰ in magnitude is representable exactly in `f64`, so `y *= x` followed by
//! `y /= x` gives `y` back bit for bit. Every `f64` except zero, subnormals and infinities
//! (|ln x| < 745) lies in that range; the relative precision of a `ULog` is 2⁻⁴³ ≈ 1.1·10⁻¹³.
//!
//! The logarithm's type `T` is any [`Real`]: `ULog<f64>` computes, and `ULog<GVar<f64>>`
//! carries the gradient with respect to the logarithm through every `*=` and `/=` by the real
//! adjoint rules of `ln y += ln x`, so a reversible function generic over `T: Real` that uses
//! `ULog<T>` inside (like [`mypower`]) gets its gradient by the usual reversal, with no rule
//! of its own.
//!
//! | statement | meaning on logarithms |
//! |---|---|
//! | `y *= x`, `y /= x` | `ln y ± = ln x` |
//! | `y *= a * b`, `y /= a * b` | `ln y ± = ln a + ln b` |
//! | `y *= a / b`, `y /= a / b` | `ln y ± = ln a − ln b` |
//! | `y *= a + b`, `y /= a + b` | `ln y ± = ln(eᵃ + eᵇ)` (rounded to the grid: [`QLogAddExp`]) |
//! | `y *= a - b`, `y /= a - b` | `ln y ± = ln(eᵃ − eᵇ)` for `a > b` ([`QLogSubExp`]) |
//! | `y *= 2.0` (a constant) | `ln y ± = ln 2` (rounded to the grid) |
//! | `y *= pow(a, r)`, `y /= pow(a, r)` (`r` real) | `ln y ± = r · ln a` (rounded to the grid: [`QLogPow`]) |
//! | `inv(y)` | `ln y = −ln y` |
//!
//! Every one of these is exactly undone by its inverse, because the amount added to `ln y` is
//! a grid value computed from the operands alone. Exactness ends at the value: a sum or
//! difference is rounded to the grid (relative error up to 2⁻⁴⁴), and a difference of nearly
//! equal numbers loses the digits that cancel, as in any floating-point subtraction. A power
//! `y *= pow(a, r)` (NiLang's `x.log += a.log * r`) takes a real exponent `r` — a variable of
//! the logarithm's type `T` or a constant, loaded as `T` rather than as a `ULog`
//! (`Scale2::Second`) — and adds `r · ln a` rounded to the grid ([`QLogPow`]). It is exact as
//! an instruction (`y /= pow(a, r)` subtracts the same grid value and restores `y` bit for bit,
//! while the logarithms stay below 2¹⁰), but not in its value: `aʳ` carries the grid's
//! rounding (relative error up to 2⁻⁴⁴) and the product's (2⁻⁵³ of `|r ln a|`), whereas an
//! integer power by repeated `y *= a` (as in [`mypower`]) is exact in the value too. Using it
//! in a function generic over `T` needs the bound `T: Acc2<QLogPow>` (as `QLog` needs
//! `Acc1<QLog>`).
//!
//! `y += x` has no reversible meaning on a `ULog` (it is a compile error): add in the linear
//! domain instead, e.g. `out += exp(y.ln)` on a real `out`, as [`mypower`] does.
//!
//! ```
//! use nilang::i;
//! use nilang::numbers::ULog;
//!
//! #[i]
//! fn product(y: &mut ULog<f64>, x: &mut [ULog<f64>]) {
//!     for k in 0..x.len() {
//!         y *= x[k];
//!     }
//! }
//! let mut x: Vec<ULog<f64>> = (1..=50).map(|k| ULog::new(0.37 * k as f64)).collect();
//! let mut y = ULog::one();
//! product(&mut y, &mut x);
//! let plain: f64 = (1..=50).map(|k| 0.37 * k as f64).product();
//! assert!((y.to_f64() / plain - 1.0).abs() < 1e-11);
//! product_inv(&mut y, &mut x);
//! assert_eq!(y, ULog::one()); // 50 divisions undo 50 multiplications bit for bit
//! ```

use crate::check::Check;
use crate::instr::*;
use crate::prims;
use crate::real::Real;
use nilang_macros::i;

/// Number of fractional bits of the logarithm's grid.
///
/// ```
/// use nilang::numbers::ulog::{quantize_ln, LN_FRAC_BITS};
/// let step = 2f64.powi(-LN_FRAC_BITS);
/// assert_eq!(quantize_ln(step * 0.4), 0.0);
/// assert_eq!(quantize_ln(step * 0.6), step);
/// ```
pub const LN_FRAC_BITS: i32 = 43;

const SCALE: f64 = (1u64 << LN_FRAC_BITS) as f64;

/// Rounds a logarithm to the grid of multiples of 2⁻⁴³ (exact scaling by powers of two, then
/// round to nearest).
///
/// ```
/// use nilang::numbers::ulog::quantize_ln;
/// let l = quantize_ln(0.1);
/// assert_eq!(l * 2f64.powi(43), (l * 2f64.powi(43)).round()); // on the grid
/// assert!((l - 0.1).abs() <= 2f64.powi(-44));
/// ```
#[inline]
pub fn quantize_ln(l: f64) -> f64 {
    (l * SCALE).round() / SCALE
}

/// A positive number stored as its logarithm `ln` (on the grid of multiples of 2⁻⁴³).
///
/// ```
/// use nilang::i;
/// use nilang::numbers::ULog;
///
/// #[i]
/// fn scale(y: &mut ULog<f64>, x: &mut ULog<f64>) {
///     y *= x; // ln y += ln x, exactly
/// }
/// let (mut y, mut x) = (ULog::new(3.0), ULog::new(0.7));
/// let before = y;
/// scale(&mut y, &mut x);
/// assert!((y.to_f64() - 2.1).abs() < 1e-12);
/// scale_inv(&mut y, &mut x);
/// assert_eq!(y, before); // bit for bit
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ULog<T = f64> {
    /// The natural logarithm of the number.
    pub ln: T,
}

impl<T: Real> ULog<T> {
    /// The number one (logarithm zero): the cleared state of a `ULog` ancilla.
    ///
    /// ```
    /// assert_eq!(nilang::numbers::ULog::<f64>::one().to_f64(), 1.0);
    /// ```
    #[inline]
    pub fn one() -> Self {
        ULog { ln: T::zero() }
    }

    /// The number `x > 0` (its logarithm rounded to the grid). Panics if `x` is not positive
    /// and finite: zero has no logarithm, and a logarithmic number is positive.
    ///
    /// ```
    /// let y = nilang::numbers::ULog::<f64>::new(2.0);
    /// assert!((y.ln - 2f64.ln()).abs() <= 2f64.powi(-44));
    /// ```
    #[inline]
    pub fn new(x: f64) -> Self {
        assert!(
            x > 0.0 && x.is_finite(),
            "a ULog holds a positive finite number, not {x}"
        );
        ULog::from_ln(x.ln())
    }

    /// The number `e^l` (with `l` rounded to the grid).
    ///
    /// ```
    /// let e = nilang::numbers::ULog::<f64>::from_ln(1.0);
    /// assert!((e.to_f64() - std::f64::consts::E).abs() < 1e-12);
    /// ```
    #[inline]
    pub fn from_ln(l: f64) -> Self {
        ULog {
            ln: T::lit(quantize_ln(l)),
        }
    }

    /// The value as `f64` (`exp(ln)`).
    ///
    /// ```
    /// assert!((nilang::numbers::ULog::<f64>::new(5.0).to_f64() - 5.0).abs() < 1e-12);
    /// ```
    #[inline]
    pub fn to_f64(&self) -> f64 {
        self.ln.val().exp()
    }
}

impl From<f64> for ULog<f64> {
    /// `ULog::new(x)`: panics unless `x` is positive and finite.
    fn from(x: f64) -> Self {
        ULog::new(x)
    }
}

impl From<ULog<f64>> for f64 {
    fn from(x: ULog<f64>) -> f64 {
        x.to_f64()
    }
}

impl<T: Acc1<prims::Identity>> Scale1<prims::Identity> for ULog<T> {
    /// `ln y += ln x`
    #[inline(always)]
    fn mul1(y: &mut Self, x: &mut Self) {
        T::add1(&mut y.ln, &mut x.ln);
    }
    /// `ln y -= ln x`
    #[inline(always)]
    fn div1(y: &mut Self, x: &mut Self) {
        T::sub1(&mut y.ln, &mut x.ln);
    }
}

impl<T: Copy + Acc2<prims::Add>> Scale2<prims::Mul> for ULog<T> {
    type Second = Self;
    #[inline(always)]
    fn second_like(y: &Self) -> Self {
        *y
    }
    /// `ln y += ln a + ln b`
    #[inline(always)]
    fn mul2(y: &mut Self, a: &mut Self, b: &mut Self) {
        <T as Acc2<prims::Add>>::add2(&mut y.ln, &mut a.ln, &mut b.ln);
    }
    /// `ln y -= ln a + ln b`
    #[inline(always)]
    fn div2(y: &mut Self, a: &mut Self, b: &mut Self) {
        <T as Acc2<prims::Add>>::sub2(&mut y.ln, &mut a.ln, &mut b.ln);
    }
}

impl<T: Copy + Acc2<prims::Sub>> Scale2<prims::Div> for ULog<T> {
    type Second = Self;
    #[inline(always)]
    fn second_like(y: &Self) -> Self {
        *y
    }
    /// `ln y += ln a − ln b`
    #[inline(always)]
    fn mul2(y: &mut Self, a: &mut Self, b: &mut Self) {
        <T as Acc2<prims::Sub>>::add2(&mut y.ln, &mut a.ln, &mut b.ln);
    }
    /// `ln y -= ln a − ln b`
    #[inline(always)]
    fn div2(y: &mut Self, a: &mut Self, b: &mut Self) {
        <T as Acc2<prims::Sub>>::sub2(&mut y.ln, &mut a.ln, &mut b.ln);
    }
}

impl<T: Negate> Invert for ULog<T> {
    /// `inv(x)`: `ln x ← −ln x`, exact (the grid is symmetric about zero); on
    /// `ULog<GVar<f64>>` the gradient of the logarithm is negated with it.
    #[inline(always)]
    fn invert(&mut self) {
        self.ln.negate();
    }
}

impl<T: Check> Check for ULog<T> {
    fn check_eq(&self, other: &Self, tol: f64) -> bool {
        self.ln.check_eq(&other.ln, tol)
    }
    fn absorb_copy_gradient(&mut self, copy: &Self) {
        self.ln.absorb_copy_gradient(&copy.ln);
    }
}

impl<T: Real> Zeroable for ULog<T> {
    /// The cleared state of a logarithmic number is one (logarithm zero), the neutral element
    /// of its reversible instructions: stacks leave `ULog::one()` behind.
    fn zero_like(&self) -> Self {
        ULog::one()
    }
    fn is_zero(&self) -> bool {
        self.ln.val() == 0.0
    }
}

impl<T: Copy> Accepts<ULog<T>> for ULog<T> {
    #[inline(always)]
    fn load(x: &ULog<T>) -> Self {
        *x
    }
    #[inline(always)]
    fn store(x: &mut ULog<T>, v: Self) {
        *x = v;
    }
}

macro_rules! ulog_accepts_constant {
    ($($from:ty),*) => {$(
        impl<T: Real> Accepts<$from> for ULog<T> {
            /// A constant operand: the positive number `x` (panics otherwise).
            #[inline]
            fn load(x: &$from) -> Self { ULog::new(*x as f64) }
            #[inline(always)]
            fn store(_: &mut $from, _: Self) {}
        }
    )*};
}

ulog_accepts_constant!(f64, f32, i32, i64, u32, u64, usize);

/// `ln x` rounded to the grid of [`ULog`] logarithms, as a primitive: `lx.ln += QLog(x)`
/// converts a positive real into a logarithmic number. Its derivative is taken as `1/x` (the
/// rounding is below 2⁻⁴⁴, invisible to gradients).
///
/// ```
/// use nilang::numbers::{QLog, ULog};
/// use nilang::{i, Real};
///
/// #[i]
/// fn to_log(lx: &mut ULog<f64>, x: &mut f64) {
///     lx.ln += QLog(x);
/// }
/// let (mut lx, mut x) = (ULog::one(), 5.0);
/// to_log(&mut lx, &mut x);
/// assert!((lx.to_f64() - 5.0).abs() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct QLog;

/// A logarithm rounded to the grid, plus (for dual numbers) the tangent of the unrounded one.
#[inline]
fn on_grid<F: crate::Float>(l: F) -> F {
    F::from_f64(quantize_ln(l.to_f64())) + (l - F::from_f64(l.to_f64()))
}

impl<F: crate::Float> prims::Unary<F> for QLog {
    #[inline]
    fn value(x: F) -> F {
        on_grid(x.ln())
    }
    #[inline]
    fn derivative(x: F) -> F {
        F::f_one() / x
    }
}

/// `ln(eᵃ + eᵇ)` rounded to the grid of [`ULog`] logarithms: the logarithm of the sum of two
/// logarithmic numbers, computed as `max + ln(1 + e^{−|a − b|})`. Partials: the weights
/// `eᵃ/(eᵃ + eᵇ)` and `eᵇ/(eᵃ + eᵇ)` (the rounding, below 2⁻⁴⁴, is invisible to gradients).
/// It is what `y *= a + b` adds to `y.ln`.
///
/// ```
/// use nilang::i;
/// use nilang::numbers::ULog;
///
/// #[i]
/// fn times_sum(y: &mut ULog<f64>, a: &mut ULog<f64>, b: &mut ULog<f64>) {
///     y *= a + b; // y.ln += QLogAddExp(a.ln, b.ln)
/// }
/// let (mut y, mut a, mut b) = (ULog::new(2.0), ULog::new(1.0), ULog::new(3.0));
/// times_sum(&mut y, &mut a, &mut b);
/// assert!((y.to_f64() - 8.0).abs() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct QLogAddExp;

impl<F: crate::Float> prims::Binary<F> for QLogAddExp {
    #[inline]
    fn value(a: F, b: F) -> F {
        let (hi, lo) = if a.to_f64() >= b.to_f64() {
            (a, b)
        } else {
            (b, a)
        };
        on_grid(hi + (lo - hi).exp().ln_1p())
    }
    #[inline]
    fn partials(a: F, b: F) -> (F, F) {
        // e = e^{−|a − b|} ≤ 1: the larger operand's weight is 1/(1 + e)
        let (hi_is_a, e) = if a.to_f64() >= b.to_f64() {
            (true, (b - a).exp())
        } else {
            (false, (a - b).exp())
        };
        let (w_hi, w_lo) = (F::f_one() / (F::f_one() + e), e / (F::f_one() + e));
        if hi_is_a {
            (w_hi, w_lo)
        } else {
            (w_lo, w_hi)
        }
    }
}

/// `ln(eᵃ − eᵇ)` rounded to the grid, for `a > b`: the logarithm of the difference of two
/// logarithmic numbers, `a + ln(−expm1(b − a))`. Partials `eᵃ/(eᵃ − eᵇ)` and
/// `−eᵇ/(eᵃ − eᵇ)`. It is what `y *= a - b` adds to `y.ln`; `a ≤ b` has no logarithm.
///
/// ```
/// use nilang::i;
/// use nilang::numbers::ULog;
///
/// #[i]
/// fn times_difference(y: &mut ULog<f64>, a: &mut ULog<f64>, b: &mut ULog<f64>) {
///     y *= a - b; // y.ln += QLogSubExp(a.ln, b.ln), a > b
/// }
/// let (mut y, mut a, mut b) = (ULog::new(2.0), ULog::new(3.0), ULog::new(1.0));
/// times_difference(&mut y, &mut a, &mut b);
/// assert!((y.to_f64() - 4.0).abs() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct QLogSubExp;

impl<F: crate::Float> prims::Binary<F> for QLogSubExp {
    #[inline]
    fn value(a: F, b: F) -> F {
        on_grid(a + (-(b - a).exp_m1()).ln())
    }
    #[inline]
    fn partials(a: F, b: F) -> (F, F) {
        let m = (b - a).exp_m1(); // e^{b−a} − 1 < 0
        (-F::f_one() / m, (b - a).exp() / m)
    }
}

impl<T: Copy + Acc2<QLogAddExp>> Scale2<prims::Add> for ULog<T> {
    type Second = Self;
    #[inline(always)]
    fn second_like(y: &Self) -> Self {
        *y
    }
    /// `ln y += ln(a + b)`, the sum's logarithm rounded to the grid ([`QLogAddExp`]): exactly
    /// undone by `y /= a + b`.
    #[inline(always)]
    fn mul2(y: &mut Self, a: &mut Self, b: &mut Self) {
        <T as Acc2<QLogAddExp>>::add2(&mut y.ln, &mut a.ln, &mut b.ln);
    }
    /// `ln y -= ln(a + b)`
    #[inline(always)]
    fn div2(y: &mut Self, a: &mut Self, b: &mut Self) {
        <T as Acc2<QLogAddExp>>::sub2(&mut y.ln, &mut a.ln, &mut b.ln);
    }
}

/// Panics unless `a > b`: a logarithmic number is positive, so `a − b` must be.
fn assert_positive_difference<T: Real>(a: &ULog<T>, b: &ULog<T>) {
    assert!(
        a.ln.val() > b.ln.val(),
        "ULog `y *= a - b` needs a > b (a logarithmic number is positive): ln a = {}, ln b = {}",
        a.ln.val(),
        b.ln.val()
    );
}

impl<T: Real + Acc2<QLogSubExp>> Scale2<prims::Sub> for ULog<T> {
    type Second = Self;
    #[inline(always)]
    fn second_like(y: &Self) -> Self {
        *y
    }
    /// `ln y += ln(a − b)` for `a > b` (panics otherwise), rounded to the grid
    /// ([`QLogSubExp`]): exactly undone by `y /= a - b`.
    #[inline(always)]
    fn mul2(y: &mut Self, a: &mut Self, b: &mut Self) {
        assert_positive_difference(a, b);
        <T as Acc2<QLogSubExp>>::add2(&mut y.ln, &mut a.ln, &mut b.ln);
    }
    /// `ln y -= ln(a − b)`
    #[inline(always)]
    fn div2(y: &mut Self, a: &mut Self, b: &mut Self) {
        assert_positive_difference(a, b);
        <T as Acc2<QLogSubExp>>::sub2(&mut y.ln, &mut a.ln, &mut b.ln);
    }
}

/// `r · ln a` rounded to the grid of [`ULog`] logarithms: the logarithm of the power `aʳ` of
/// a logarithmic number `a` (stored as `ln a`) to a real exponent `r`. Partials `r` and
/// `ln a` (the rounding, below 2⁻⁴⁴, is invisible to gradients). It is what `y *= pow(a, r)`
/// adds to `y.ln` (NiLang's `out.log += a.log * r`, here on the grid so that `y /= pow(a, r)`
/// undoes it exactly).
///
/// A function generic over the logarithm's type names it in its bound, `T: Acc2<QLogPow>`:
///
/// ```
/// use nilang::numbers::{QLog, QLogPow, ULog};
/// use nilang::{i, Acc1, Acc2, Loss, Real};
///
/// /// out += xʳ, through logarithmic numbers: ln y = r · ln x
/// #[i]
/// fn power<T: Real + Acc1<QLog> + Acc2<QLogPow>>(out: &mut T, x: &mut T, r: &mut T) {
///     let lx = ULog::<T>::one();
///     let ly = ULog::<T>::one();
///     routine! {
///         lx.ln += QLog(x);
///         ly *= pow(lx, r);
///     }
///     out += exp(ly.ln);
///     uncompute!();
///     dealloc!(ly = ULog::<T>::one(), lx = ULog::<T>::one());
/// }
/// let (_, gx, gr) = power_grad(Loss::arg(0), &mut 0.0, &mut 2.0, &mut 1.5).unwrap();
/// assert!((gx.g - 1.5 * 2f64.sqrt()).abs() < 1e-12); // r·x^(r−1)
/// assert!((gr.g - 2f64.powf(1.5) * 2f64.ln()).abs() < 1e-12); // xʳ·ln x
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct QLogPow;

impl<F: crate::Float> prims::Binary<F> for QLogPow {
    #[inline]
    fn value(la: F, r: F) -> F {
        on_grid(la * r)
    }
    #[inline]
    fn partials(la: F, r: F) -> (F, F) {
        (r, la)
    }
}

impl<T: Copy + Acc2<QLogPow>> Scale2<prims::Pow> for ULog<T> {
    /// The exponent is a real number of the logarithm's type (a variable, or a constant
    /// converted to it), not a logarithmic number.
    type Second = T;
    /// `ln y += r · ln a`, rounded to the grid ([`QLogPow`]): exactly undone by
    /// `y /= pow(a, r)`.
    #[inline(always)]
    fn mul2(y: &mut Self, a: &mut Self, r: &mut T) {
        <T as Acc2<QLogPow>>::add2(&mut y.ln, &mut a.ln, r);
    }
    /// `ln y -= r · ln a`
    #[inline(always)]
    fn div2(y: &mut Self, a: &mut Self, r: &mut T) {
        <T as Acc2<QLogPow>>::sub2(&mut y.ln, &mut a.ln, r);
    }
    #[inline(always)]
    fn second_like(y: &Self) -> T {
        y.ln
    }
}

/// The reversible power of the ICLR paper's Listing 16: `out += xⁿ` for `x > 0`, computed
/// with logarithmic numbers so that the loop `ly *= lx` needs no stack (a fixed-point or
/// float `*=` is not reversible). Both ancillas are uncomputed exactly. For `x ≤ 0` nothing
/// is added (the listing's `if (x != 0, ~)`, restricted to the logarithms' domain).
///
/// `T = f64` computes; `T = GVar<f64>` differentiates (`mypower_grad`):
/// `∂out/∂x = n xⁿ⁻¹`.
///
/// ```
/// use nilang::numbers::{mypower, mypower_grad};
/// use nilang::Loss;
///
/// let mut out = 0.0f64;
/// mypower(&mut out, &mut 2.0, 10);
/// assert!((out - 1024.0).abs() < 1e-9);
/// let (_, dx) = mypower_grad(Loss::arg(0), &mut 0.0f64, &mut 2.0, 10).unwrap();
/// assert!((dx.g - 10.0 * 512.0).abs() < 1e-8); // n xⁿ⁻¹
/// ```
#[i]
pub fn mypower<T: Real>(out: &mut T, x: &mut T, n: usize)
where
    T: Acc1<QLog>,
{
    if x.val() > 0.0 {
        let ly = ULog::<T>::one();
        let lx = ULog::<T>::one();
        routine! {
            lx.ln += QLog(x);
            for _i in 0..n {
                ly *= lx;
            }
        }
        out += exp(ly.ln);
        uncompute!();
        dealloc!(ly = ULog::<T>::one(), lx = ULog::<T>::one());
    }
}

impl<T: crate::Float> crate::ad::Scalars<T> for ULog<T> {
    type Map<U: Copy> = ULog<U>;
    /// One differentiable scalar: the logarithm.
    fn count(&self) -> usize {
        1
    }
    fn map<U: Copy>(&self, f: &mut dyn FnMut(usize, T) -> U) -> ULog<U> {
        ULog { ln: f(0, self.ln) }
    }
    fn get_mapped<U: Copy>(m: &ULog<U>, _: usize) -> U {
        m.ln
    }
    fn set_mapped<U: Copy>(m: &mut ULog<U>, _: usize, v: U) {
        m.ln = v;
    }
    fn count_mapped<U: Copy>(_: &ULog<U>) -> usize {
        1
    }
    fn as_value_mut(m: &mut ULog<T>) -> &mut ULog<T> {
        m
    }
}

impl<T: crate::Float, L: crate::Grad<T>> crate::__private::Shadow<L> for ULog<T> {
    type Grad = ULog<L>;
    type Pair = ULog<crate::GVar<T, L>>;
    #[inline(always)]
    fn join(x: Self, g: ULog<L>) -> Self::Pair {
        ULog {
            ln: crate::GVar { x: x.ln, g: g.ln },
        }
    }
    #[inline(always)]
    fn split(p: Self::Pair) -> (Self, ULog<L>) {
        (ULog { ln: p.ln.x }, ULog { ln: p.ln.g })
    }
    #[inline(always)]
    fn zero_grad(&self) -> ULog<L> {
        ULog { ln: L::zero() }
    }
    fn grad_is_zero(g: &ULog<L>) -> bool {
        g.ln.is_zero()
    }
    #[inline(always)]
    fn add_grad(g: &mut ULog<L>, d: ULog<L>) {
        g.ln = g.ln + d.ln;
    }
}
