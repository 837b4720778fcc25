//! Number systems in which reversible arithmetic is exact (the papers' §3.1 and the arXiv
//! paper's number-system discussion).
//!
//! Floating-point `+=` and `-=` are reversible only up to round-off: `(y + x) − x` need not
//! give `y` back bit for bit. Other number systems make some instructions rigorously
//! reversible:
//!
//! | type | exact instructions | module |
//! |---|---|---|
//! | fixed-point ([`fixed::FixedI64`], e.g. [`I21F43`]) | `+=`, `-=` of identity, neg, `a + b`, `a − b`, `a * b`, `a / b`; `neg`, `inc`, `dec`; gradient accumulation on `GVar` over them | [`fixedpoint`]; gradients [`fixed_gvar`]; `exp`, `log`, `sin`, `cos` by reversible series [`fixed_math`] |
//! | [`ULog`] (positive number stored as its logarithm) | `*=`, `/=` of `x`, `a * b`, `a / b`, `a + b`, `a − b` (the sum and difference rounded to the grid); `inv` | [`ulog`] |
//! | [`Tropical`] (max-plus semiring) | `*=`, `/=` of `x`, `a * b` (= `a + b`), `a + b` (= `max(a, b)`), `inv` (= negation) away from the zero element −∞ | [`tropical`] |
//! | complex numbers | as their real parts | [`crate::complex`] |
//!
//! Write generic reversible functions over fixed-point numbers (feature `fixed`, on by
//! default) with the [`FixedPoint`] bound (their gradients: the inverse run on
//! `GVar<I21F43>`, [`fixed_gvar`]), over logarithmic numbers as `ULog<T>` with `T: Real` (gradients then flow through the
//! logarithm), and over tropical numbers as `Tropical<T>`. An instruction with no reversible
//! meaning for a type is a compile error naming the type and the instruction: `y *= x` on
//! `f64` ("`*=` and `/=` are not reversible on `f64`"), `y += x` on a `ULog`, `y *= x` on a
//! fixed-point number.
//!
//! [`double_double`] is a higher-precision float (about 106 bits) used as the reference of
//! the round-off study ([`crate::leapfrog`]).
//!
//! ```
//! use nilang::numbers::ULog;
//! use nilang::{i, Real};
//!
//! #[i]
//! fn shift<T: Real>(y: &mut T, x: &mut T) {
//!     y += identity(x);
//! }
//! let (mut y, mut x) = (1e-17, 1.0);
//! shift(&mut y, &mut x);
//! shift_inv(&mut y, &mut x);
//! assert_eq!(y, 0.0); // not 1e-17: 1 + 1e-17 rounded to 1
//!
//! #[i]
//! fn scale(y: &mut ULog<f64>, x: &mut ULog<f64>) {
//!     y *= x;
//! }
//! let (mut y, mut x) = (ULog::new(1e-17), ULog::new(1e300));
//! let y0 = y;
//! scale(&mut y, &mut x);
//! scale_inv(&mut y, &mut x);
//! assert_eq!(y, y0); // exact
//! ```

pub mod double_double;
#[cfg(feature = "fixed")]
pub mod fixed_gvar;
#[cfg(feature = "fixed")]
pub mod fixed_math;
#[cfg(feature = "fixed")]
pub mod fixedpoint;
pub mod tropical;
pub mod ulog;

pub use double_double::DoubleDouble;
/// The papers' 64-bit fixed-point number: 21 integer bits (sign included) and 43 fractional
/// bits, the `fixed` crate's type. `+=` and `-=` on it are exact, so a reversible program
/// over it restores its inputs bit for bit, however long it runs (feature `fixed`).
///
/// ```
/// use nilang::i;
/// use nilang::numbers::{FixedPoint, I21F43};
///
/// #[i]
/// fn spin<T: FixedPoint>(y: &mut T, x: &mut T, c: &mut T) {
///     for _k in 0..1000 {
///         y += x * c;
///         x -= y / c;
///     }
/// }
/// let c = I21F43::from_num(1.7);
/// let (mut y, mut x) = (I21F43::from_num(0.3), I21F43::from_num(-2.1));
/// let start = (y, x);
/// spin(&mut y, &mut x, &mut c.clone());
/// assert_ne!((y, x), start);
/// spin_inv(&mut y, &mut x, &mut c.clone());
/// assert_eq!((y, x), start); // the same bits back: no round-off to undo
/// ```
#[cfg(feature = "fixed")]
pub use fixed::types::I21F43;
#[cfg(feature = "fixed")]
pub use fixedpoint::FixedPoint;
pub use tropical::{Tropical, TropicalBase};
pub use ulog::{mypower, mypower_grad, mypower_inv, QLog, QLogAddExp, QLogPow, QLogSubExp, ULog};
