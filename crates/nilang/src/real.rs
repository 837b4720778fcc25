//! `Real`: the bound a reversible function puts on its scalar type parameter.
//!
//! `fn f<T: Real>(y: &mut T, x: &mut T)` runs on `f64`, `f32`, [`crate::GVar`] (gradients),
//! `GVar` of dual numbers (Hessians), and any other type implementing the instruction traits.
//!
//! ```
//! use nilang::{i, GVar, Loss, Real};
//!
//! #[i]
//! fn relu<T: Real>(y: &mut T, x: &mut T) {
//!     if x.val() > 0.0 {
//!         y += identity(x);
//!     }
//! }
//! let (mut y32, mut x32) = (0.0f32, 2.5f32);
//! relu(&mut y32, &mut x32); // f32
//! let (mut y, mut x) = (GVar::new(0.0), GVar::new(-1.0));
//! relu(&mut y, &mut x); // GVar<f64>: a value with a gradient
//! let (_, gx) = relu_grad(Loss::arg(0), &mut 0.0, &mut 2.5).unwrap(); // f64
//! assert_eq!((y32, y.x, gx.g), (2.5, 0.0, 1.0));
//! ```

use crate::check::Check;
use crate::float::Float;
use crate::gvar::GVar;
use crate::instr::*;
use crate::prims::*;
use core::fmt::Debug;

/// The accumulations of the primitive table (`nilang_prims::primitives!`) on a type:
/// `Primitives` and its blanket impl, one bound per row.
macro_rules! primitives_trait {
    ([] unary { $(($ty:ident $($unary:tt)*))* } binary { $(($bty:ident $($binary:tt)*))* }) => {
        /// Every instruction `y += f(x)` and `y += f(a, b)` of the language's primitives on a
        /// type (`Acc1<Exp>`, `Acc2<Mul>`, …, one bound per primitive of the table): a bound
        /// of [`Real`], implemented for every type that has them all.
        ///
        /// ```
        /// use nilang::prims::Exp;
        /// use nilang::{Acc1, GVar, Primitives};
        ///
        /// /// `y += exp(x)` on any type that has the language's primitives.
        /// fn exp_into<T: Primitives>(y: &mut T, x: &mut T) {
        ///     <T as Acc1<Exp>>::add1(y, x);
        /// }
        /// let (mut y, mut x) = (1.0f64, 0.0);
        /// exp_into(&mut y, &mut x);
        /// assert_eq!(y, 2.0);
        /// let (mut gy, mut gx) = (GVar::new(0.0), GVar::new(0.0));
        /// exp_into(&mut gy, &mut gx);
        /// assert_eq!(gy.x, 1.0);
        /// ```
        pub trait Primitives: $(Acc1<$ty> +)* $(Acc2<$bty> +)* Sized {}
        impl<T: $(Acc1<$ty> +)* $(Acc2<$bty> +)* Sized> Primitives for T {}
    };
}
nilang_prims::primitives!(primitives_trait);

/// A real scalar of reversible programs: every instruction of the language on it, constants,
/// and its primal value for conditions.
///
/// Values of the same `Real` type compare by value (a [`GVar`] ignores its gradient, a
/// [`crate::Dual`] its tangent), so conditions read as on `f64`; a constant on the other side
/// is written `T::zero()`, `T::one()` or `T::lit(c)`, or both sides are compared as `f64`
/// with [`Real::val`]:
///
/// ```
/// use nilang::{i, Loss, Real};
///
/// #[i]
/// fn relu<T: Real>(y: &mut T, x: &mut T) {
///     if *x > T::zero() {
///         y += identity(x);
///     }
/// }
/// let (mut y, mut x) = (0.0, 2.0);
/// relu(&mut y, &mut x);
/// assert_eq!(y, 2.0);
/// let (_, dx) = relu_grad(Loss::arg(0), &mut 0.0, &mut -1.0).unwrap();
/// assert_eq!(dx.g, 0.0); // the other branch: y does not depend on x
/// ```
pub trait Real:
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
    + Primitives
    + Negate
    + Step
    + Conjugate
    + Rotate
    + Invert
    + InvertComplex
    + Hadamard
    + Send
    + Sync
    + 'static
{
    /// Whether the parallel loops (`for i in (a..b).par()`) of a program on this type run on
    /// several threads. `false` on [`GVar`] (the generic inverse accumulates every operand's
    /// gradient in place, so iterations reading a shared value would race on its gradient,
    /// and a reduction's partials would not carry its gradient) and on types that are not
    /// [`Float::PARALLEL_SAFE`]: their parallel loops run sequentially, with the same results.
    const PARALLEL_LOOPS: bool = true;
    /// The primal value as `f64` (what conditions and comparisons look at).
    fn val(&self) -> f64;
    /// Whether values of this type carry gradients (`GVar`), so that running a program on
    /// them moves gradients: generated code then never skips an uncomputation, which it may
    /// skip on plain values when unchecked.
    const CARRIES_GRADIENT: bool = false;
    /// A constant.
    fn lit(v: f64) -> Self;
    /// Zero.
    fn zero() -> Self {
        Self::lit(0.0)
    }
    /// One.
    fn one() -> Self {
        Self::lit(1.0)
    }
}

impl<
        T: Float
            + Check
            + Accepts<T>
            + Accepts<f64>
            + Accepts<f32>
            + Accepts<i32>
            + Accepts<i64>
            + Accepts<usize>,
    > Real for T
{
    const PARALLEL_LOOPS: bool = <T as Float>::PARALLEL_SAFE;
    #[inline(always)]
    fn val(&self) -> f64 {
        self.to_f64()
    }
    #[inline(always)]
    fn lit(v: f64) -> Self {
        T::from_f64(v)
    }
}

impl<T: Float + Check, G: crate::Grad<T>> Real for GVar<T, G> {
    const CARRIES_GRADIENT: bool = true;
    const PARALLEL_LOOPS: bool = false;
    #[inline(always)]
    fn val(&self) -> f64 {
        self.x.to_f64()
    }
    #[inline(always)]
    fn lit(v: f64) -> Self {
        GVar {
            x: T::from_f64(v),
            g: G::zero(),
        }
    }
}

/// Integer scalars of reversible programs (exact, wrapping arithmetic).
///
/// ```
/// use nilang::{i, Int};
///
/// #[i]
/// fn count_up<N: Int>(n: &mut N, steps: i64) {
///     for _k in 0..steps {
///         inc(n);
///     }
/// }
/// let mut n = 3i32;
/// count_up(&mut n, 4);
/// assert_eq!(n, 7);
/// count_up_inv(&mut n, 4);
/// assert_eq!(n, 3);
/// ```
pub trait Int:
    Copy
    + Debug
    + Check
    + Zeroable
    + Accepts<Self>
    + Accepts<i32>
    + Accepts<i64>
    + Accepts<usize>
    + Acc1<Identity>
    + Acc1<Neg>
    + Acc2<Add>
    + Acc2<Sub>
    + Acc2<Mul>
    + Acc2<Div>
    + Negate
    + Step
    + PartialOrd
    + 'static
{
}

impl<T> Int for T where
    T: Copy
        + Debug
        + Check
        + Zeroable
        + Accepts<T>
        + Accepts<i32>
        + Accepts<i64>
        + Accepts<usize>
        + Acc1<Identity>
        + Acc1<Neg>
        + Acc2<Add>
        + Acc2<Sub>
        + Acc2<Mul>
        + Acc2<Div>
        + Negate
        + Step
        + PartialOrd
        + num_traits::PrimInt
        + 'static
{
}

/// The scalar types that gradient programs are generated for: a [`Float`] on which both the
/// program (`T: Real`) and its gradient program (`GVar<T>: Real`) run. `f64`, `f32`,
/// [`crate::Dual`] and [`crate::DualN`] are `Base`.
///
/// ```
/// use nilang::{Base, Dual, DualN};
///
/// fn gradient_ready<T: Base>() {}
/// gradient_ready::<f64>();
/// gradient_ready::<f32>();
/// gradient_ready::<Dual<f64>>();
/// gradient_ready::<DualN<f64, 4>>();
/// ```
pub trait Base: Float + Check + Real {}

impl<T: Float + Check + Real> Base for T {}
