//! Whether a program and its inverse give back the state they started from (NiLang's
//! `check_inv`), for any pair of closures over a state made of scalars: a reversible function
//! and its inverse, an adjoint program and its inverse (`f_adjoint`, `f_adjoint_inv`), a
//! [`Reversible`](crate::Reversible) value called both ways, or code of one's own.

use super::{catch, close, ReversibilityError};
use crate::ad::Scalars;
use crate::float::Float;
use core::fmt;

/// How a program and its inverse failed to give back their starting state ([`check_inv`]).
///
/// ```
/// use nilang::check::{check_inv, InverseMismatch};
///
/// let mut x = vec![1.0, 2.0];
/// let err = check_inv(&mut x, |x| x[1] += 0.5, |x| x[1] -= 0.25, 1e-12).unwrap_err();
/// assert_eq!(err, InverseMismatch::Value { index: 1, before: 2.0, after: 2.25 });
/// assert_eq!(
///     err.to_string(),
///     "scalar 1 of the state was 2 before and is 2.25 after the program and its inverse"
/// );
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum InverseMismatch {
    /// The first scalar (in [`Scalars`] order) that is not given back within the tolerance.
    Value {
        /// Its index in the flat list of the state's scalars.
        index: usize,
        /// Its value before the program.
        before: f64,
        /// Its value after the program and its inverse.
        after: f64,
    },
    /// The state holds another number of scalars afterwards (a vector resized).
    Length {
        /// The number of scalars before.
        before: usize,
        /// The number after.
        after: usize,
    },
    /// A runtime reversibility check of the program or of its inverse failed on the way.
    Check(ReversibilityError),
}

impl fmt::Display for InverseMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InverseMismatch::Value {
                index,
                before,
                after,
            } => write!(
                f,
                "scalar {index} of the state was {before} before and is {after} after the \
                 program and its inverse"
            ),
            InverseMismatch::Length { before, after } => write!(
                f,
                "the state held {before} scalars before and holds {after} after the program \
                 and its inverse"
            ),
            InverseMismatch::Check(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for InverseMismatch {}

/// Runs `forward` then `inverse` on `state` and compares every scalar of the state with its
/// value before, within `tol` as the runtime checks compare floats ([`close`]: relative above
/// 1, absolute below; a NaN is given back only as the same NaN). Returns the first scalar that
/// differs, a change in the number of scalars, or a runtime reversibility check that failed on
/// the way ([`catch`]), as an error value; other panics of the closures propagate. The state is
/// left as the inverse left it.
///
/// The state is anything made of scalars ([`Scalars`]: a number, a slice, a `Vec`, an array,
/// a complex number, a `#[derive(Scalars)]` struct); several arguments go in one vector cut
/// with [`split_mut`](crate::ad::split_mut), which also checks gradient functions:
///
/// ```
/// use nilang::ad::split_mut;
/// use nilang::check::{check_inv, InverseMismatch};
/// use nilang::{i, Real};
///
/// #[i]
/// fn step<T: Real>(x: &mut [T]) {
///     x[1] += sin(x[0]);
///     x[0] += x[1] * 0.5;
/// }
/// let mut x = vec![0.3, -1.2];
/// assert_eq!(check_inv(&mut x[..], |x| step(x), |x| step_inv(x), 1e-14), Ok(()));
///
/// // the adjoint program and its inverse, on values and gradients side by side
/// let mut state = vec![0.3, -1.2, 1.0, 0.5];
/// let adjoint = |s: &mut [f64]| {
///     let [x, g] = split_mut(s, [2, 2]);
///     step_adjoint(x, g)
/// };
/// let adjoint_inv = |s: &mut [f64]| {
///     let [x, g] = split_mut(s, [2, 2]);
///     step_adjoint_inv(x, g)
/// };
/// assert_eq!(check_inv(&mut state[..], adjoint, adjoint_inv, 1e-12), Ok(()));
///
/// // an inverse that undoes the statements in the wrong order
/// let wrong = |x: &mut [f64]| {
///     x[1] -= x[0].sin();
///     x[0] -= x[1] * 0.5;
/// };
/// let mut y = vec![0.3, -1.2];
/// match check_inv(&mut y[..], |y| step(y), wrong, 1e-14) {
///     Err(InverseMismatch::Value { index, before, .. }) => assert_eq!((index, before), (0, 0.3)),
///     other => panic!("{other:?}"),
/// }
/// ```
pub fn check_inv<T: Float, S: Scalars<T> + ?Sized>(
    state: &mut S,
    forward: impl FnOnce(&mut S),
    inverse: impl FnOnce(&mut S),
    tol: f64,
) -> Result<(), InverseMismatch> {
    let before = flat(state);
    catch(|| {
        forward(state);
        inverse(state);
    })
    .map_err(InverseMismatch::Check)?;
    let after = flat(state);
    if before.len() != after.len() {
        return Err(InverseMismatch::Length {
            before: before.len(),
            after: after.len(),
        });
    }
    let given_back = |&(b, a): &(f64, f64)| close(b, a, tol) || b.to_bits() == a.to_bits();
    match before
        .into_iter()
        .zip(after)
        .enumerate()
        .find(|(_, p)| !given_back(p))
    {
        Some((index, (before, after))) => Err(InverseMismatch::Value {
            index,
            before,
            after,
        }),
        None => Ok(()),
    }
}

/// The state's scalars as `f64`, in [`Scalars`] order.
fn flat<T: Float, S: Scalars<T> + ?Sized>(s: &S) -> Vec<f64> {
    let mut out = Vec::with_capacity(s.count());
    let _ = s.map(&mut |_, x| out.push(x.to_f64()));
    out
}
