//! The guide: a tutorial, the language reference and the automatic-differentiation guide.
//! These modules hold documentation only; every example in them is a test
//! (`cargo test --doc -p nilang`).
//!
//! - [`tutorial`]: from a first reversible function to gradients, Jacobians and Hessians, a
//!   primitive of your own, number systems, schedulers and batched kernels.
//! - [`language`]: every statement of the reversible language, its inverse, conditions,
//!   errors, parallel loops.
//! - [`differentiation`]: the generated gradient functions (`f_adjoint`, `f_vjp`, `f_grad`,
//!   `f_jacobian`, `f_hessian`), their conventions and the helpers of [`crate::ad`].
//! - [`nilang`]: NiLang.jl's instructions and standard library, name by name, and ours.

#[doc = include_str!("../doc/tutorial.md")]
pub mod tutorial {}

#[doc = include_str!("../doc/language.md")]
pub mod language {}

#[doc = include_str!("../doc/differentiation.md")]
pub mod differentiation {}

#[doc = include_str!("../doc/nilang.md")]
pub mod nilang {}
