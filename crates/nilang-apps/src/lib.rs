#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod adbench;
pub mod bessel;
pub mod boxmuller;
pub mod flow;
pub mod graph;
pub mod guide;
pub mod lax_wendroff;
pub mod plain;
pub mod pyramid;
pub mod quantum;
pub mod realnvp;
pub mod sparse;
pub mod spinglass;
