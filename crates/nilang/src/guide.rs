//! The guide: a tutorial, the language reference and the automatic-differentiation guide.
//! These modules hold documentation only; every example in them is a test
//! (`cargo test --doc -p nilang`).
//!
//! - [`ordinary`]: start here — an ordinary Rust function and its gradient
//!   (`#[differentiable]`), what the front end keeps and why, and the accepted subset of Rust.
//! - [`tutorial`]: from a first reversible function to gradients, Jacobians and Hessians, a
//!   primitive of your own, number systems, schedulers and batched kernels.
//! - [`language`]: every statement of the reversible language, its inverse, conditions,
//!   errors, parallel loops.
//! - [`differentiation`]: the generated gradient functions (`f_adjoint`, `f_vjp`, `f_grad`,
//!   `f_jacobian`, `f_hessian`), their conventions and the helpers of [`crate::ad`].
//! - [`nilang`]: NiLang.jl's instructions and standard library, name by name, and ours.
//! - [`examples`]: three worked examples written as the guide teaches (a Gaussian mixture
//!   model, RK4 over a long trajectory, a perceptron on one flat parameter vector) and what
//!   their gradients cost against plain Rust.
//!
//! The guide in one example: a reversible function that calls the library, its generated
//! inverse and its gradient.
//!
//! ```
//! use nilang::blas::idot; // the reversible library (`nilang`)
//! use nilang::{i, Loss, Real};
//!
//! // compute, copy, uncompute: an ancilla `s` comes back to zero (`tutorial`, `language`)
//! #[i]
//! fn log_dot<T: Real>(out: &mut T, x: &mut [T], y: &mut [T]) {
//!     let s = T::zero();
//!     routine! { idot(s, x, y); }
//!     out += log(s);
//!     uncompute!();
//!     dealloc!(s = T::zero());
//! }
//!
//! let (mut out, mut x, mut y) = (0.0, vec![1.0, 2.0], vec![3.0, 4.0]);
//! log_dot(&mut out, &mut x, &mut y);
//! assert_eq!(out, 11f64.ln());
//! log_dot_inv(&mut out, &mut x, &mut y); // the generated inverse undoes it
//! assert_eq!(out, 0.0);
//!
//! // ∂ log(x·y) / ∂x = y / (x·y), from the generated gradient function (`differentiation`)
//! let (_, gx, _) = log_dot_grad(Loss::arg(0), &mut 0.0, &mut x, &mut y).unwrap();
//! assert!((gx[0].g - 3.0 / 11.0).abs() < 1e-16 && (gx[1].g - 4.0 / 11.0).abs() < 1e-16);
//! ```

#[doc = include_str!("../doc/ordinary.md")]
pub mod ordinary {}

#[doc = include_str!("../doc/tutorial.md")]
pub mod tutorial {}

#[doc = include_str!("../doc/language.md")]
pub mod language {}

#[doc = include_str!("../doc/differentiation.md")]
pub mod differentiation {}

#[doc = include_str!("../doc/nilang.md")]
pub mod nilang {}

#[doc = include_str!("../doc/examples.md")]
pub mod examples {}
