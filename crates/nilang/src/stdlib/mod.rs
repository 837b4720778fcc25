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
//!
//! Call them from your own reversible functions, and their gradients compose. Call them by
//! their module's path (`blas::idot(…)`) or import them by name (`use nilang::blas::idot;`):
//! either way the generated programs reach the callee's inverse and adjoint programs through
//! its name (`idot::inv`, `idot::adjoint_inv`, carried by the struct `idot` that `#[i]`
//! defines beside the function).
//!
//! ```
//! use nilang::{blas, i, stats, Loss, Real};
//!
//! /// out += x·w + log Σ eˣ
//! #[i]
//! fn energy<T: Real>(out: &mut T, x: &mut [T], w: &mut [T]) {
//!     blas::idot(out, x, w);
//!     stats::ilogsumexp(out, x);
//! }
//! let (mut x, mut w) = (vec![0.0f64, 0.0], vec![1.0, -1.0]);
//! let (_, gx, gw) = energy_grad(Loss::arg(0), &mut 0.0, &mut x, &mut w).unwrap();
//! assert_eq!((gx[0].g, gx[1].g), (1.5, -0.5)); // w + softmax(x)
//! assert_eq!((gw[0].g, gw[1].g), (0.0, 0.0)); // x
//! ```

pub mod blas;
pub mod fft;
pub mod linalg;
pub mod mapreduce;
pub mod nn;
pub mod sorting;
pub mod special;
pub mod stats;
