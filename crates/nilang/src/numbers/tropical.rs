//! `Tropical`: the max-plus semiring, where `*=` and `/=` are reversible away from its zero.
//!
//! Tropical addition is `a ⊕ b = max(a, b)` (zero element −∞) and tropical multiplication is
//! `a ⊗ b = a + b` (unit 0). Multiplying by a non-zero element is invertible, so
//!
//! | statement | meaning on the stored values |
//! |---|---|
//! | `y *= x`, `y /= x` | `y ± = x` |
//! | `y *= a * b`, `y /= a * b` | `y ± = a + b` |
//! | `y *= a + b`, `y /= a + b` | `y ± = max(a, b)` |
//! | `y *= 2.0` (a constant) | `y ± = 2` |
//! | `inv(y)` | `y = −y` |
//!
//! are reversible instructions (exactly for integer and fixed-point contents, up to float
//! round-off for `f64`). Multiplying or dividing by the zero element −∞ would erase `y`:
//! it panics. `y += x` (`y = max(y, x)`) erases information and is a compile error.
//!
//! The non-reversible semiring operations are the operators `+` (⊕) and `*` (⊗) on values.
//!
//! **Gradients.** A function generic over `T: Real + TropicalBase` on `Tropical<T>` gets the
//! gradient functions (`f_vjp`, `f_grad`, `f_jacobian`, `f_hessian`): its adjoint program runs
//! on `Tropical<GVar<T, G>>`, with the rules of the stored values — `y *= x` adds `ȳ` to `x̄`,
//! `y /= x` subtracts it, and `y *= a + b` hands `ȳ` to the larger operand (the first on ties),
//! a subgradient of `max`. The gradient of a max-plus program with respect to its weights thus
//! marks one maximising choice at every `max`: back-tracking by reversal (nilang-apps'
//! `spinglass` reads a spin glass's ground state off it).
//!
//! ```
//! use nilang::i;
//! use nilang::numbers::Tropical;
//!
//! /// The best score of a path: the first edge, then the better of two
//! #[i]
//! fn best(score: &mut Tropical<i64>, first: &mut Tropical<i64>, a: &mut Tropical<i64>, b: &mut Tropical<i64>) {
//!     score *= first; // + first
//!     score *= a + b; // + max(a, b)
//! }
//! let (mut s, mut f, mut a, mut b) = (Tropical::one(), Tropical(2), Tropical(5), Tropical(3));
//! best(&mut s, &mut f, &mut a, &mut b);
//! assert_eq!(s, Tropical(7));
//! best_inv(&mut s, &mut f, &mut a, &mut b);
//! assert_eq!(s, Tropical::one()); // exactly, on integers
//! ```

use crate::check::Check;
use crate::gvar::GVar;
use crate::instr::*;
use crate::prims;
use core::fmt::Debug;
use core::ops::{Add, Mul};

/// The contents of a tropical number: a totally ordered additive group with a bottom element
/// standing for −∞.
///
/// ```
/// use nilang::numbers::{Tropical, TropicalBase};
///
/// // integers are tropical contents too: MIN stands for −∞
/// assert_eq!(<i64 as TropicalBase>::neg_inf(), i64::MIN);
/// assert_eq!(Tropical(3i64) * Tropical(4), Tropical(7));
/// assert!(Tropical::<i64>::zero().is_zero());
/// ```
pub trait TropicalBase: Copy + Debug {
    /// The bottom element (−∞; `MIN` for integers).
    fn neg_inf() -> Self;
    /// Zero.
    fn zero() -> Self;
    /// Whether `self` is the bottom element.
    fn is_neg_inf(&self) -> bool;
    /// `a ≥ b` on the values.
    fn geq(&self, other: &Self) -> bool;
    /// `a + b` (tropical product; −∞ absorbs).
    fn plus(self, other: Self) -> Self;
}

macro_rules! tropical_float {
    ($($t:ty),*) => {$(
        impl TropicalBase for $t {
            fn neg_inf() -> Self { <$t>::NEG_INFINITY }
            fn zero() -> Self { 0.0 }
            fn is_neg_inf(&self) -> bool { *self == <$t>::NEG_INFINITY }
            fn geq(&self, other: &Self) -> bool { self >= other }
            fn plus(self, other: Self) -> Self { self + other }
        }
    )*};
}
tropical_float!(f64, f32);

macro_rules! tropical_int {
    ($($t:ty),*) => {$(
        impl TropicalBase for $t {
            fn neg_inf() -> Self { <$t>::MIN }
            fn zero() -> Self { 0 }
            fn is_neg_inf(&self) -> bool { *self == <$t>::MIN }
            fn geq(&self, other: &Self) -> bool { self >= other }
            fn plus(self, other: Self) -> Self {
                if self.is_neg_inf() || other.is_neg_inf() { <$t>::MIN } else { self.wrapping_add(other) }
            }
        }
    )*};
}
tropical_int!(i32, i64);

/// A tropical number's contents paired with a gradient (of one loss, or of several:
/// [`Lanes`](crate::Lanes)), what the adjoint programs of a function on `Tropical<T>` run on.
/// The order and the bottom element are the value's; `plus` (the non-reversible `⊗` on
/// values) keeps no gradient.
impl<T: crate::Float + TropicalBase, G: crate::Grad<T>> TropicalBase for GVar<T, G> {
    fn neg_inf() -> Self {
        GVar {
            x: T::neg_inf(),
            g: G::zero(),
        }
    }
    fn zero() -> Self {
        GVar {
            x: <T as TropicalBase>::zero(),
            g: G::zero(),
        }
    }
    fn is_neg_inf(&self) -> bool {
        self.x.is_neg_inf()
    }
    fn geq(&self, other: &Self) -> bool {
        self.x.geq(&other.x)
    }
    fn plus(self, other: Self) -> Self {
        GVar {
            x: self.x.plus(other.x),
            g: G::zero(),
        }
    }
}

/// A tropical number's contents as a dual number (what `f_hessian` runs the gradient program
/// on): ordered by the value; `plus` adds values and tangents.
impl<T: crate::Float + TropicalBase> TropicalBase for crate::Dual<T> {
    fn neg_inf() -> Self {
        crate::Dual {
            re: T::neg_inf(),
            eps: <T as TropicalBase>::zero(),
        }
    }
    fn zero() -> Self {
        crate::Dual {
            re: <T as TropicalBase>::zero(),
            eps: <T as TropicalBase>::zero(),
        }
    }
    fn is_neg_inf(&self) -> bool {
        self.re.is_neg_inf()
    }
    fn geq(&self, other: &Self) -> bool {
        self.re.geq(&other.re)
    }
    fn plus(self, other: Self) -> Self {
        crate::Dual {
            re: self.re.plus(other.re),
            eps: self.eps.plus(other.eps),
        }
    }
}

/// A number of the max-plus semiring.
///
/// ```
/// use nilang::numbers::Tropical;
///
/// // ⊕ is max, ⊗ is +
/// let (a, b) = (Tropical(2.0), Tropical(5.0));
/// assert_eq!(a + b, Tropical(5.0));
/// assert_eq!(a * b, Tropical(7.0));
/// assert_eq!(a + Tropical::zero(), a);
/// assert_eq!(a * Tropical::one(), a);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tropical<T>(pub T);

impl<T: TropicalBase> Tropical<T> {
    /// The tropical zero, −∞ (neutral for ⊕, absorbing for ⊗).
    ///
    /// ```
    /// use nilang::numbers::Tropical;
    /// assert_eq!(Tropical::<f64>::zero(), Tropical(f64::NEG_INFINITY));
    /// ```
    pub fn zero() -> Self {
        Tropical(T::neg_inf())
    }
    /// The tropical one, 0 (neutral for ⊗).
    ///
    /// ```
    /// use nilang::numbers::Tropical;
    /// assert_eq!(Tropical::<f64>::one(), Tropical(0.0));
    /// ```
    pub fn one() -> Self {
        Tropical(T::zero())
    }
    /// Whether this is the tropical zero.
    ///
    /// ```
    /// use nilang::numbers::Tropical;
    /// assert!(Tropical::<f64>::zero().is_zero() && !Tropical(1.0).is_zero());
    /// ```
    pub fn is_zero(&self) -> bool {
        self.0.is_neg_inf()
    }
}

impl<T: TropicalBase> Add for Tropical<T> {
    type Output = Self;
    /// `a ⊕ b = max(a, b)`
    fn add(self, other: Self) -> Self {
        if self.0.geq(&other.0) {
            self
        } else {
            other
        }
    }
}

impl<T: TropicalBase> Mul for Tropical<T> {
    type Output = Self;
    /// `a ⊗ b = a + b`
    fn mul(self, other: Self) -> Self {
        Tropical(self.0.plus(other.0))
    }
}

#[cold]
#[inline(never)]
fn zero_operand(op: &str) -> ! {
    panic!("tropical `{op}` by the zero element (−∞) is not reversible: it would erase the target")
}

impl<T: TropicalBase + Negate> Invert for Tropical<T> {
    /// `inv(x)`: the tropical reciprocal `x⁻¹` (`x ⊗ x⁻¹ = 0`, the unit) is the negated
    /// value, exact; the zero element −∞ has none (panics).
    #[inline]
    fn invert(&mut self) {
        assert!(
            !self.0.is_neg_inf(),
            "tropical `inv` of the zero element (−∞): it has no reciprocal"
        );
        self.0.negate();
    }
}

impl<T: TropicalBase + Acc1<prims::Identity>> Scale1<prims::Identity> for Tropical<T> {
    /// `y += x`
    #[inline]
    fn mul1(y: &mut Self, x: &mut Self) {
        if x.0.is_neg_inf() {
            zero_operand("*=");
        }
        T::add1(&mut y.0, &mut x.0);
    }
    /// `y -= x`
    #[inline]
    fn div1(y: &mut Self, x: &mut Self) {
        if x.0.is_neg_inf() {
            zero_operand("/=");
        }
        T::sub1(&mut y.0, &mut x.0);
    }
}

impl<T: TropicalBase + Acc2<prims::Add>> Scale2<prims::Mul> for Tropical<T> {
    type Second = Self;
    #[inline(always)]
    fn second_like(y: &Self) -> Self {
        *y
    }
    /// `y += a + b`
    #[inline]
    fn mul2(y: &mut Self, a: &mut Self, b: &mut Self) {
        if a.0.is_neg_inf() || b.0.is_neg_inf() {
            zero_operand("*=");
        }
        <T as Acc2<prims::Add>>::add2(&mut y.0, &mut a.0, &mut b.0);
    }
    /// `y -= a + b`
    #[inline]
    fn div2(y: &mut Self, a: &mut Self, b: &mut Self) {
        if a.0.is_neg_inf() || b.0.is_neg_inf() {
            zero_operand("/=");
        }
        <T as Acc2<prims::Add>>::sub2(&mut y.0, &mut a.0, &mut b.0);
    }
}

impl<T: TropicalBase + Acc1<prims::Identity>> Scale2<prims::Add> for Tropical<T> {
    type Second = Self;
    #[inline(always)]
    fn second_like(y: &Self) -> Self {
        *y
    }
    /// `y += max(a, b)` (the gradient goes to the larger operand, `a` on ties).
    #[inline]
    fn mul2(y: &mut Self, a: &mut Self, b: &mut Self) {
        let m = if a.0.geq(&b.0) { &mut a.0 } else { &mut b.0 };
        if m.is_neg_inf() {
            zero_operand("*=");
        }
        T::add1(&mut y.0, m);
    }
    /// `y -= max(a, b)`
    #[inline]
    fn div2(y: &mut Self, a: &mut Self, b: &mut Self) {
        let m = if a.0.geq(&b.0) { &mut a.0 } else { &mut b.0 };
        if m.is_neg_inf() {
            zero_operand("/=");
        }
        T::sub1(&mut y.0, m);
    }
}

impl<T: Check> Check for Tropical<T> {
    fn check_eq(&self, other: &Self, tol: f64) -> bool {
        self.0.check_eq(&other.0, tol)
    }
    fn absorb_copy_gradient(&mut self, copy: &Self) {
        self.0.absorb_copy_gradient(&copy.0);
    }
}

impl<T: TropicalBase> Zeroable for Tropical<T> {
    /// The cleared state of a tropical number is its one (0), the neutral element of its
    /// reversible instructions.
    fn zero_like(&self) -> Self {
        Tropical::one()
    }
    fn is_zero(&self) -> bool {
        // one = 0 in the stored value: compare through ⊕ symmetry
        let z = T::zero();
        self.0.geq(&z) && z.geq(&self.0)
    }
}

impl<T: Copy> Accepts<Tropical<T>> for Tropical<T> {
    #[inline(always)]
    fn load(x: &Tropical<T>) -> Self {
        *x
    }
    #[inline(always)]
    fn store(x: &mut Tropical<T>, v: Self) {
        *x = v;
    }
}

macro_rules! tropical_accepts_constant {
    ($($from:ty),*) => {$(
        impl<T: TropicalBase + Accepts<$from>> Accepts<$from> for Tropical<T> {
            /// A constant operand: the tropical number holding `x`.
            #[inline]
            fn load(x: &$from) -> Self { Tropical(T::load(x)) }
            #[inline(always)]
            fn store(_: &mut $from, _: Self) {}
        }
    )*};
}

tropical_accepts_constant!(f64, i32, i64, usize);

impl<T: crate::Float> crate::ad::Scalars<T> for Tropical<T> {
    type Map<U: Copy> = Tropical<U>;
    /// One differentiable scalar: the stored value.
    fn count(&self) -> usize {
        1
    }
    fn map<U: Copy>(&self, f: &mut dyn FnMut(usize, T) -> U) -> Tropical<U> {
        Tropical(f(0, self.0))
    }
    fn get_mapped<U: Copy>(m: &Tropical<U>, _: usize) -> U {
        m.0
    }
    fn set_mapped<U: Copy>(m: &mut Tropical<U>, _: usize, v: U) {
        m.0 = v;
    }
    fn count_mapped<U: Copy>(_: &Tropical<U>) -> usize {
        1
    }
    fn as_value_mut(m: &mut Tropical<T>) -> &mut Tropical<T> {
        m
    }
}

impl<T: crate::Float, L: crate::Grad<T>> crate::__private::Shadow<L> for Tropical<T> {
    type Grad = Tropical<L>;
    type Pair = Tropical<crate::GVar<T, L>>;
    #[inline(always)]
    fn join(x: Self, g: Tropical<L>) -> Self::Pair {
        Tropical(crate::GVar { x: x.0, g: g.0 })
    }
    #[inline(always)]
    fn split(p: Self::Pair) -> (Self, Tropical<L>) {
        (Tropical(p.0.x), Tropical(p.0.g))
    }
    #[inline(always)]
    fn zero_grad(&self) -> Tropical<L> {
        Tropical(L::zero())
    }
    fn grad_is_zero(g: &Tropical<L>) -> bool {
        g.0.is_zero()
    }
    #[inline(always)]
    fn add_grad(g: &mut Tropical<L>, d: Tropical<L>) {
        g.0 = g.0 + d.0;
    }
}
