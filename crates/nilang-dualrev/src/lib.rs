#![doc = include_str!("../README.md")]
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
pub use tape::{release_pooled_tape, ResolveStats};
