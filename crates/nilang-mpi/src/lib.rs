#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod ba;
mod collective;
mod comm;
mod gmm;
mod halo;
mod mpi_comm;
mod shard;
mod threads;

pub use ba::*;
pub use collective::*;
pub use comm::*;
pub use gmm::*;
pub use halo::*;
pub use mpi_comm::*;
pub use shard::*;
pub use threads::*;
