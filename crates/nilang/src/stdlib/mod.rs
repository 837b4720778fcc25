//! The reversible standard library: functions written in the language itself (`#[i]`), so
//! each comes with its inverse (`f_inv`) and, through the instructions' adjoint rules, its
//! gradient functions (`f_vjp`, `f_grad`, …). None has a hand-written adjoint.
//!
//! | module | what |
//! |---|---|
//! | [`blas`] | sums, dot products (real and conjugated complex), norms, `axpy`, squared distance, matrix–vector and matrix–matrix products, affine map, unitary matrices, QR |
//! | [`linalg`] | the matrix inverse (Gauss–Jordan elimination with partial pivoting) |
//! | [`stats`] | maximum, LogSumExp, softmax cross-entropy, mean and sum, sample variance, correlation and covariance, the normal log-density |
//! | [`nn`] | the rectifier (`i_relu`) |
//! | [`sorting`] | the ascending sequence of running maxima with their indices (`i_ascending`) |
//! | [`mapreduce`] | `i_filter` |
//! | [`fft`] | the unitary radix-2 fast Fourier transform |
//! | [`special`] | the papers' special functions: dirty multiplier, factorial, `exp` by series, Bessel |
//!
//! Conventions, shared by every module: outputs are accumulated (`y += f(x)`), so the inverse
//! subtracts the same amount back and an output starting at zero holds `f(x)`; inputs are
//! `&mut` (a gradient accumulates there when the adjoint program runs) but left unchanged;
//! matrices are flat row-major slices; scratch space is allocated and uncomputed inside each
//! function. Each function's doc comment gives the cost of its inverse and of its adjoint.
//! The NiLang name of every function and instruction, and ours, are in
//! [`guide::nilang`](crate::guide::nilang).

pub mod blas;
pub mod fft;
pub mod linalg;
pub mod mapreduce;
pub mod nn;
pub mod sorting;
pub mod special;
pub mod stats;
