//! # nilang: differentiable reversible programming in Rust
//!
//! Write a reversible function once, with the `#[i]` attribute, and get a forward function
//! and its exact inverse, both generic over the scalar type:
//!
//! ```
//! use nilang::{i, Real};
//!
//! #[i]
//! fn multiplier<T: Real>(y: &mut T, a: &mut T, b: &mut T) {
//!     y += a * b;
//! }
//!
//! let (mut y, mut a, mut b) = (2.0, 3.0, 5.0);
//! multiplier(&mut y, &mut a, &mut b);
//! assert_eq!((y, a, b), (17.0, 3.0, 5.0));
//! multiplier_inv(&mut y, &mut a, &mut b);
//! assert_eq!((y, a, b), (2.0, 3.0, 5.0));
//! ```
//!
//! The language (statements, their inverses and dataviews) is described in the README and in
//! the documentation of [`i`]. Gradients come from running the inverse program on [`GVar`]
//! values. See `ARCHITECTURE.md` for how the crates fit together.
#![warn(missing_docs)]

extern crate self as nilang;

pub mod ad;
pub mod blas;
pub mod check;
pub mod complex;
pub mod consistency;
pub mod dual;
pub mod float;
pub mod gvar;
pub mod instr;
pub mod lanes;
pub mod leapfrog;
pub mod numbers;
pub mod parallel;
pub mod prims;
pub mod real;
pub mod rev;
pub mod schedule;
pub mod special;
pub mod stack;
pub mod stats;
pub mod treeverse;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use ad::{GradError, Loss, Matrix, NoGrad, Scalars};
pub use check::{catch, set_tolerance, tolerance, with_tolerance, CheckKind, ReversibilityError};
pub use dual::{Dual, DualN};
pub use float::Float;
pub use gvar::GVar;
pub use instr::{Acc1, Acc2, Accepts, Conjugate, Negate, Rotate, Scale1, Scale2, Step, Zeroable};
pub use lanes::{Grad, Lanes};
pub use nilang_macros::{i, rev, Scalars};
pub use prims::{Binary, Unary};
pub use real::{Base, Int, Real};
pub use rev::{Rev, Reversible};
pub use stack::Stack;
