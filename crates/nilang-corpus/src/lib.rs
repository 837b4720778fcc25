#![doc = include_str!("../README.md")]

pub mod adversarial;
pub mod compare;
pub mod generator;
pub mod interpreter;
pub mod ordinary;

pub use generator::{function, program, program_with, Features, Rng, LIBRARY, NN, NQ, NX};
pub use interpreter::input;
