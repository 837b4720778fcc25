//! Passing reversible functions as values: the [`Reversible`] trait.
//!
//! `#[i] fn f(…)` generates the functions `f` and `f_inv`; [`rev!`](macro@crate::rev) pairs them
//! into a [`Rev`] value that generic code (schedulers, gradient helpers, batch runners) can
//! call in either direction. The arguments are a tuple, e.g. `(&mut f64, &mut f64)`.
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
pub trait Reversible<A> {
    /// Runs the forward program.
    fn call(&self, args: A);
    /// Runs the inverse program.
    fn uncall(&self, args: A);
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
/// let r = Rev::new(add::<f64>, add_inv::<f64>); // what rev!(add::<f64>) writes
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
    /// use nilang::{i, rev, Reversible};
    ///
    /// #[i]
    /// fn add<T: nilang::Real>(y: &mut T, x: &mut T) {
    ///     y += identity(x);
    /// }
    /// let sub = rev!(add::<f64>).inverted(); // ~add: calling it subtracts
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
