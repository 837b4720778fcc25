//! Passing reversible functions as values: the [`Reversible`] trait.
//!
//! `#[i] fn f(…)` generates the functions `f` and `f_inv` and its adjoint programs;
//! [`rev!`](macro@crate::rev)`(f)` is a value that implements [`Reversible`] (call and uncall)
//! and [`Adjoint`] (the adjoint programs) for `f`'s arguments, so that generic code —
//! schedulers, gradient helpers, batch runners, and other reversible functions, which take it
//! as a parameter — can run it in either direction and differentiate through it. The
//! arguments are a tuple, e.g. `(&mut f64, &mut f64)`. [`Rev`] pairs any two closures.
//!
//! ```
//! use nilang::{i, rev, Reversible};
//!
//! #[i]
//! fn double<T: nilang::Real>(y: &mut T, x: &mut T) {
//!     y += 2.0 * x;
//! }
//!
//! fn apply_twice<R: for<'a> Reversible<(&'a mut f64, &'a mut f64)>>(r: &R, y: &mut f64, x: &mut f64) {
//!     r.call((&mut *y, &mut *x));
//!     r.call((&mut *y, &mut *x));
//! }
//!
//! let (mut y, mut x) = (0.0, 1.5);
//! apply_twice(&rev!(double::<f64>), &mut y, &mut x);
//! assert_eq!(y, 6.0);
//! rev!(double::<f64>).uncall((&mut y, &mut x));
//! assert_eq!(y, 3.0);
//! ```

/// A reversible function of arguments `A` (a tuple of references), callable both ways.
///
/// ```
/// use nilang::{i, rev, Reversible};
///
/// #[i]
/// fn add<T: nilang::Real>(y: &mut T, x: &mut T) {
///     y += identity(x);
/// }
/// let r = rev!(add::<f64>);
/// let (mut y, mut x) = (1.0, 2.0);
/// r.call((&mut y, &mut x));
/// assert_eq!(y, 3.0);
/// r.uncall((&mut y, &mut x));
/// assert_eq!(y, 1.0);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a reversible function of the arguments `{A}`",
    note = "`rev!(g)` implements it for a free `#[i] fn g` (not a method, no `impl Trait` \
            parameter, every generic parameter named by a parameter's type), at the argument \
            types of `g`'s signature"
)]
pub trait Reversible<A> {
    /// Runs the forward program.
    fn call(&self, args: A);
    /// Runs the inverse program.
    fn uncall(&self, args: A);
}

/// The adjoint programs of a reversible function: `S` is its arguments, each followed by its
/// gradient (`()` for a read-only one), as `f_adjoint` and `f_adjoint_inv` take them.
///
/// Every `#[i]` free function implements it through the value [`rev!`](macro@crate::rev)
/// gives, so that a function passed to another reversible function as a parameter is
/// differentiated through: the caller's adjoint program calls the parameter's (see the
/// language guide, "Reversible functions as parameters").
///
/// ```
/// use nilang::{i, rev, Adjoint};
///
/// #[i]
/// fn add_sin<T: nilang::Real>(y: &mut T, x: &mut T) {
///     y += sin(x);
/// }
/// // y = sin(x) + 1 with ȳ = 1: the adjoint restores y and leaves x̄ = cos(x)
/// let (mut y, mut gy, mut x, mut gx) = (0.5f64.sin() + 1.0, 1.0, 0.5, 0.0);
/// rev!(add_sin).adjoint((&mut y, &mut gy, &mut x, &mut gx));
/// assert!((y - 1.0).abs() < 1e-15);
/// assert_eq!(gx, 0.5f64.cos());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no adjoint programs of the arguments `{S}`",
    note = "`rev!(g)` implements it for a free `#[i] fn g` whose adjoint programs exist (a \
            scalar type `T: Real` and a `&mut` parameter holding it); `Rev::new` pairs call and \
            uncall only"
)]
pub trait Adjoint<S> {
    /// Runs the adjoint program (`f_adjoint`: the inverse program on values and gradients).
    fn adjoint(&self, args: S);
    /// Runs the adjoint program's inverse (`f_adjoint_inv`: the forward program on values and
    /// gradients).
    fn adjoint_inv(&self, args: S);
}

impl<A, R: Reversible<A> + ?Sized> Reversible<A> for &R {
    #[inline(always)]
    fn call(&self, args: A) {
        (**self).call(args)
    }
    #[inline(always)]
    fn uncall(&self, args: A) {
        (**self).uncall(args)
    }
}

impl<S, R: Adjoint<S> + ?Sized> Adjoint<S> for &R {
    #[inline(always)]
    fn adjoint(&self, args: S) {
        (**self).adjoint(args)
    }
    #[inline(always)]
    fn adjoint_inv(&self, args: S) {
        (**self).adjoint_inv(args)
    }
}

/// A reversible function run backwards (the papers' `~f`): calling it uncalls `R`, and its
/// adjoint program is `R`'s adjoint program's inverse.
///
/// ```
/// use nilang::{i, rev, Inverted, Reversible};
///
/// #[i]
/// fn add<T: nilang::Real>(y: &mut T, x: &mut T) {
///     y += identity(x);
/// }
/// let sub = Inverted(rev!(add));
/// let (mut y, mut x) = (1.0, 2.0);
/// sub.call((&mut y, &mut x));
/// assert_eq!(y, -1.0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Inverted<R>(pub R);

impl<A, R: Reversible<A>> Reversible<A> for Inverted<R> {
    #[inline(always)]
    fn call(&self, args: A) {
        self.0.uncall(args)
    }
    #[inline(always)]
    fn uncall(&self, args: A) {
        self.0.call(args)
    }
}

impl<S, R: Adjoint<S>> Adjoint<S> for Inverted<R> {
    #[inline(always)]
    fn adjoint(&self, args: S) {
        self.0.adjoint_inv(args)
    }
    #[inline(always)]
    fn adjoint_inv(&self, args: S) {
        self.0.adjoint(args)
    }
}

/// The adjoint program of a reversible function as a reversible function (NiLang's `Grad(f)`):
/// calling it runs `R`'s adjoint program, uncalling it the adjoint's inverse, on `R`'s
/// arguments each followed by its gradient. Passed to a function parameter of `#[i]` code, it
/// runs a gradient program there and undoes it: a reversible gradient step.
///
/// ```
/// use nilang::{i, rev, AdjointOf, Real, Reversible};
///
/// #[i]
/// fn add_square<T: Real>(y: &mut T, x: &mut T) {
///     y += square(x);
/// }
///
/// /// `x ← x − η ∂y/∂x`, the gradient by `grad` (y and its seed `gy` on entry)
/// #[i]
/// fn descend<T: Real, G>(grad: &G, y: &mut T, gy: &mut T, x: &mut T, gx: &mut T)
/// where
///     G: Reversible<(&mut T, &mut T, &mut T, &mut T)>,
/// {
///     grad(y, gy, x, gx);
///     x -= 0.25 * gx;
/// }
///
/// let grad = AdjointOf(rev!(add_square));
/// let (mut y, mut gy, mut x, mut gx) = (4.0, 1.0, 2.0, 0.0); // y = x²
/// descend(&grad, &mut y, &mut gy, &mut x, &mut gx);
/// assert_eq!((y, gx, x), (0.0, 4.0, 1.0)); // y restored to 0, ∂y/∂x = 4, x − 0.25·4
/// descend_inv(&grad, &mut y, &mut gy, &mut x, &mut gx);
/// assert_eq!((y, gy, x, gx), (4.0, 1.0, 2.0, 0.0));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct AdjointOf<R>(pub R);

impl<S, R: Adjoint<S>> Reversible<S> for AdjointOf<R> {
    #[inline(always)]
    fn call(&self, args: S) {
        self.0.adjoint(args)
    }
    #[inline(always)]
    fn uncall(&self, args: S) {
        self.0.adjoint_inv(args)
    }
}

/// A forward function and its inverse, paired.
///
/// ```
/// use nilang::{i, Rev, Reversible};
///
/// #[i]
/// fn add<T: nilang::Real>(y: &mut T, x: &mut T) {
///     y += identity(x);
/// }
/// let r = Rev::new(add::<f64>, add_inv::<f64>); // call and uncall, no adjoint
/// let mut y = 1.0;
/// r.call((&mut y, &mut 2.0));
/// assert_eq!(y, 3.0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Rev<F, G> {
    /// The forward program.
    pub forward: F,
    /// The inverse program.
    pub inverse: G,
}

impl<F, G> Rev<F, G> {
    /// Pairs a function with its inverse.
    ///
    /// ```
    /// use nilang::{i, Rev, Reversible};
    ///
    /// #[i]
    /// fn add<T: nilang::Real>(y: &mut T, x: &mut T) {
    ///     y += identity(x);
    /// }
    /// let r = Rev::new(add::<f64>, add_inv::<f64>);
    /// let mut y = 1.0;
    /// r.uncall((&mut y, &mut 2.0));
    /// assert_eq!(y, -1.0);
    /// ```
    pub fn new(forward: F, inverse: G) -> Self {
        Rev { forward, inverse }
    }

    /// The same pair with the directions exchanged (the papers' `~f`).
    ///
    /// ```
    /// use nilang::{i, Rev, Reversible};
    ///
    /// #[i]
    /// fn add<T: nilang::Real>(y: &mut T, x: &mut T) {
    ///     y += identity(x);
    /// }
    /// let sub = Rev::new(add::<f64>, add_inv::<f64>).inverted(); // ~add: calling it subtracts
    /// let mut y = 1.0;
    /// sub.call((&mut y, &mut 2.0));
    /// assert_eq!(y, -1.0);
    /// ```
    pub fn inverted(self) -> Rev<G, F> {
        Rev {
            forward: self.inverse,
            inverse: self.forward,
        }
    }
}

macro_rules! reversible_arity {
    ($($a:ident),*) => {
        impl<Fw, Iv, $($a),*> Reversible<($($a,)*)> for Rev<Fw, Iv>
        where
            Fw: Fn($($a),*),
            Iv: Fn($($a),*),
        {
            #[allow(non_snake_case)]
            fn call(&self, ($($a,)*): ($($a,)*)) {
                (self.forward)($($a),*)
            }
            #[allow(non_snake_case)]
            fn uncall(&self, ($($a,)*): ($($a,)*)) {
                (self.inverse)($($a),*)
            }
        }
    };
}

reversible_arity!(A);
reversible_arity!(A, B);
reversible_arity!(A, B, C);
reversible_arity!(A, B, C, D);
reversible_arity!(A, B, C, D, E);
reversible_arity!(A, B, C, D, E, F);
reversible_arity!(A, B, C, D, E, F, G);
reversible_arity!(A, B, C, D, E, F, G, H);
