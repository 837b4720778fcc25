//! Dual-numbers reverse-mode automatic differentiation for ordinary generic
//! Rust code, following Smeding & Vákár, *Efficient Dual-Numbers Reverse AD
//! via Well-Known Program Transformations* (POPL 2023).
//!
//! Write your function once, generic over [`Scalar`]; run it on `f64` for
//! plain values, or hand it to [`grad`], [`jacobian`], [`vjp`] or [`record`]
//! to differentiate it. Closures, iterator chains, recursion, `Option`,
//! `Result`, and your own structs and enums all work, because only the scalar
//! type changes.
//!
//! ```
//! use nilang_dualrev::{grad, jacobian, vjp, Scalar};
//!
//! // Any generic code over `Scalar`.
//! fn energy<S: Scalar>(x: &[S]) -> S {
//!     x.iter().zip(x.iter().skip(1)).map(|(&a, &b)| (a - b).powi(2) + a.sin()).sum()
//! }
//! fn polar<S: Scalar>(p: &[S]) -> (S, S) {
//!     (p[0] * p[1].cos(), p[0] * p[1].sin())
//! }
//!
//! let x = [0.3, -1.2, 2.0];
//! let (value, gradient) = grad(|x| energy(x), &x).unwrap();
//! assert_eq!(value, energy(&x)); // same code on plain f64
//! assert_eq!(gradient.len(), 3);
//!
//! // Jacobian of a vector-valued function: J[i][j] = d out_i / d in_j.
//! let (out, j) = jacobian(|p| polar(p), &[2.0, 0.5]).unwrap();
//! assert_eq!(out.len(), 2);
//! assert!((j[1][0] - 0.5f64.sin()).abs() < 1e-15);
//!
//! // Vector-Jacobian product with a given output cotangent.
//! let (_, vj) = vjp(|p| polar(p), &[2.0, 0.5], &[1.0, 0.0]).unwrap();
//! assert_eq!(vj, j[0]);
//! // A cotangent of the wrong length is an error, not a panic.
//! assert!(vjp(|p| polar(p), &[2.0, 0.5], &[1.0]).is_err());
//! ```
//!
//! With the feature `reversible`, [`DualRev`] is also a number type of nilang's reversible
//! programs (module `reversible`): reverse mode through ordinary code that calls `#[i]`
//! functions and their reversal gradients.
//!
//! # The algorithm
//!
//! The engine is the final algorithm of the paper's §7 with the refinements
//! of §8.1 and §8.2; the module docs of [`tape`] walk through the derivation.
//! In short:
//!
//! * every scalar of a differentiation gets an ID in creation order
//!   (inputs first);
//! * each ID owns a *Contrib list* of `(parent ID, local partial derivative)`
//!   pairs, written while the primal program runs (the defunctionalised
//!   backpropagator of §8.2);
//! * the reverse pass seeds a *staging array* holding one cotangent per ID
//!   and resolves it from the highest ID to the lowest, invoking each
//!   backpropagator at most once; the input cotangents are then read straight
//!   from the staging array (§8.1).
//!
//! Gradient time is therefore a constant factor times the primal time, and
//! memory is linear in the number of primitive operations executed. The tape
//! is one contiguous `Vec` (24 bytes per operation) and the staging array one
//! `Vec<f64>`; both are reused across calls on a thread, so steady-state
//! differentiation performs no allocation besides amortised growth and the
//! returned gradient vector.
//!
//! The naive transformation of §3, whose cost explodes with sharing, is kept
//! in [`naive`] as a reference implementation for tests.
//!
//! # Threads and nesting
//!
//! The tape under construction is found through a thread-local pointer that
//! the API functions set for the duration of the call, and every [`DualRev`]
//! carries a tag identifying its differentiation session. Differentiations on
//! different threads are therefore fully independent, and a differentiation
//! nested inside another one on the same thread records onto its own tape;
//! scalars belonging to another session (or to none) are treated as
//! constants. Nesting thus gives first-order derivatives of the inner
//! function; it does not compute higher-order derivatives.
//!
//! # Writing generic code
//!
//! [`Scalar`] provides `+ - * /`, negation, compound assignment, `Sum` and
//! `Product`, comparisons by value, `From<f64>` and [`Scalar::cst`] for
//! constants, [`Scalar::value`] for the primal value, and the usual
//! elementary functions (`exp ln log10 sqrt cbrt sin cos tan asin acos atan
//! sinh cosh tanh abs recip powi powf atan2 hypot max min`). An `f64` may
//! appear on the right of an operator (`x * 2.0`); on the left it works for
//! the concrete types but not in generic code (write `S::cst(2.0) * x`).
#![warn(missing_docs)]

mod api;
mod dual;
pub mod naive;
#[cfg(feature = "reversible")]
pub mod reversible;
mod scalar;
pub mod tape;

pub use api::{grad, jacobian, record, vjp, Deinterleave, Error, Pullback};
pub use dual::DualRev;
pub use scalar::Scalar;
pub use tape::ResolveStats;
