#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod arg;
mod batch;
#[cfg(feature = "cuda")]
mod cuda;
mod host;
pub mod nvrtc;
pub mod par;
#[cfg(feature = "cuda")]
mod par_cuda;
pub mod programs;
mod rust;
mod views;

pub use arg::{Arg, ArgKind};
pub use batch::{Batch, Layout, LayoutParam};
#[cfg(feature = "cuda")]
pub use cuda::CudaKernel;
pub use host::{HostKernel, HostModule};
pub use par::{HostParKernel, ParLayout};
#[cfg(feature = "cuda")]
pub use par_cuda::CudaParKernel;
pub use rust::{RustKernel, Threads};

/// What went wrong in a batched run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(pub String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl From<nilang_cgen::CgenError> for Error {
    fn from(e: nilang_cgen::CgenError) -> Self {
        Error(e.to_string())
    }
}

/// Runs a reversible function over every instance of a batch.
pub trait Backend {
    /// The forward program: outputs are written into the batch's values.
    fn forward(&self, batch: &mut Batch) -> Result<(), Error>;
    /// The inverse program: undoes [`Backend::forward`].
    fn inverse(&self, batch: &mut Batch) -> Result<(), Error>;
    /// The gradient sweep: the inverse program on value+gradient pairs. Call it after
    /// [`Backend::forward`], with the gradients of the outputs (the seeds) in the batch's
    /// gradients and zeros elsewhere; afterwards the values are the inputs again and the
    /// gradients hold ∂(Σ seeds·outputs)/∂inputs, summed over instances for shared parameters.
    fn gradient(&self, batch: &mut Batch) -> Result<(), Error>;
    /// A short description (`host C++`, `rust (rayon)`, `cuda (device 0)`).
    fn describe(&self) -> String;
    /// Seconds the last call spent in its kernel alone, launch to completion, where the
    /// backend runs it apart from copying the batch (a GPU); `None` where there is no such
    /// part (the CPU backends compute in place).
    fn last_kernel_seconds(&self) -> Option<f64> {
        None
    }
}

/// Whether CUDA can be used: `Ok(())`, or why not (the `cuda` feature is off, no driver, no
/// device, no NVRTC).
pub fn is_available() -> Result<(), String> {
    #[cfg(feature = "cuda")]
    {
        cuda::available()
    }
    #[cfg(not(feature = "cuda"))]
    {
        Err(
            "nilang-cuda was built without the `cuda` feature (cargo build --features cuda)"
                .to_string(),
        )
    }
}
