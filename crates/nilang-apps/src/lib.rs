//! The NiLang papers' applications, written in nilang's reversible language, with the plain-Rust
//! objectives and the peers they are measured against (`nilang bench` prints the tables).
#![warn(missing_docs)]

pub mod adbench;
pub mod bessel;
pub mod flow;
pub mod graph;
pub mod plain;
pub mod sparse;
