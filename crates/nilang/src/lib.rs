#![doc = include_str!("../README.md")]
//!
//! ## Where to go next
//!
//! - [`guide::ordinary`]: an ordinary Rust function and its gradient (`#[differentiable]`).
//! - [`guide::tutorial`]: a first reversible function → a gradient → Jacobians and Hessians →
//!   a primitive of your own → number systems → schedulers → batched kernels.
//! - [`guide::language`]: the statements of the language and their inverses.
//! - [`guide::differentiation`]: the generated gradient functions and their conventions.
//! - [`guide::nilang`]: every NiLang.jl instruction and library function, and its name here;
//!   the library itself is [`stdlib`].
//! - [`ad`]: [`Loss`], [`Matrix`], [`ad::gradient`], [`ad::hessian_vector_product`],
//!   [`ad::check_gradient`]; [`GVar`], [`Dual`], [`Lanes`]: the number types of derivatives.
//!
//! `ARCHITECTURE.md` in the repository describes how the crates fit together.
#![warn(missing_docs)]

extern crate self as nilang;

pub mod ad;
pub mod check;
pub mod checkpoint;
pub mod complex;
pub mod consistency;
pub mod dual;
pub mod float;
pub mod guide;
pub mod gvar;
pub mod instr;
pub mod lanes;
pub mod leapfrog;
#[cfg(feature = "linalg")]
pub mod linalg;
pub mod numbers;
pub mod parallel;
pub mod prims;
pub mod real;
pub mod rev;
pub mod schedule;
pub mod stack;
pub mod stdlib;
pub mod treeverse;

pub use stdlib::{blas, special, stats};

#[doc(hidden)]
#[path = "private/mod.rs"]
pub mod __private;

pub use ad::{GradError, Loss, Matrix, NoGrad, Scalars};
pub use check::{
    catch, check_inv, set_tolerance, tolerance, with_tolerance, CheckKind, InverseMismatch,
    ReversibilityError,
};
pub use dual::{Dual, DualN};
pub use float::Float;
pub use gvar::GVar;
pub use instr::{
    Acc1, Acc2, Accepts, Conjugate, Flip, Hadamard, Invert, InvertComplex, Negate, Rotate, Scale1,
    Scale2, Step, Zeroable,
};
pub use lanes::{Grad, Lanes};
/// # Example
///
/// ```
/// use nilang::differentiable;
///
/// /// x_T² after T explicit Euler steps of x' = −a x + sin x, the steps kept in
/// /// √T chunk starts instead of every one (`#[checkpoint]`)
/// #[differentiable]
/// fn decay(x0: f64, a: f64, steps: usize) -> f64 {
///     let mut x = x0;
///     #[checkpoint]
///     for _ in 0..steps {
///         x += 0.01 * (x.sin() - a * x);
///     }
///     x * x
/// }
/// let (value, (dx0, da)) = decay_gradient(0.5, 2.0, 1000);
/// assert_eq!(value, decay(0.5, 2.0, 1000)); // the plain function's value, bit for bit
/// let e = 1e-6;
/// let fd = (decay(0.5, 2.0 + e, 1000) - decay(0.5, 2.0 - e, 1000)) / (2.0 * e);
/// assert!((da - fd).abs() < 1e-8 && dx0 > 0.0);
/// ```
///
/// The accepted Rust, the options and how the program is built: [`guide::ordinary`].
pub use nilang_macros::differentiable;
/// # Example
///
/// ```
/// use nilang::{i, Loss, Real};
///
/// /// y += x² + sin x (the doc comment stays on the forward function)
/// #[i]
/// fn f<T: Real>(y: &mut T, x: &mut T) {
///     y += square(x);
///     y += sin(x);
/// }
/// let (mut y, mut x) = (0.0, 1.0);
/// f(&mut y, &mut x);
/// f_inv(&mut y, &mut x);
/// assert_eq!((y, x), (0.0, 1.0));
/// let (_, dx) = f_grad(Loss::arg(0), &mut 0.0, &mut 1.0).unwrap();
/// assert_eq!(dx.g, 2.0 + 1f64.cos());
/// ```
///
/// The whole language is in [`guide::language`], the generated gradient functions in
/// [`guide::differentiation`].
pub use nilang_macros::i;
/// # Example
///
/// A plain Rust function over `f64` with a hand-written inverse and adjoint becomes an
/// instruction that `#[i]` code calls, uncalls and differentiates (the rules:
/// [`guide::differentiation`]):
///
/// ```
/// use nilang::{i, instruction, Loss, Real};
///
/// /// out += Σ aₖ² (an opaque kernel: any Rust code over f64)
/// #[instruction(inverse = sumsq_sub, adjoint = sumsq_adjoint, adjoint_inv = sumsq_adjoint_inv)]
/// fn sumsq(out: &mut f64, a: &mut [f64]) {
///     *out += a.iter().map(|x| x * x).sum::<f64>();
/// }
/// fn sumsq_sub(out: &mut f64, a: &mut [f64]) {
///     *out -= a.iter().map(|x| x * x).sum::<f64>();
/// }
/// // the adjoint: undo the forward on values, pull the output's gradient back to a
/// fn sumsq_adjoint(out: &mut f64, out_g: &mut f64, a: &mut [f64], a_g: &mut [f64]) {
///     sumsq_sub(out, a);
///     a_g.iter_mut().zip(a.iter()).for_each(|(g, x)| *g += 2.0 * x * *out_g);
/// }
/// // its inverse: redo the forward, take the pullback off again
/// fn sumsq_adjoint_inv(out: &mut f64, out_g: &mut f64, a: &mut [f64], a_g: &mut [f64]) {
///     sumsq(out, a);
///     a_g.iter_mut().zip(a.iter()).for_each(|(g, x)| *g -= 2.0 * x * *out_g);
/// }
///
/// #[i]
/// fn energy<T: Real>(e: &mut T, a: &mut [T]) {
///     sumsq(e, a);
/// }
/// let (_, ga) = energy_grad(Loss::arg(0), &mut 0.0, &mut vec![1.0, -2.0]).unwrap();
/// assert_eq!((ga[0].g, ga[1].g), (2.0, -4.0));
/// ```
pub use nilang_macros::instruction;
/// # Example
///
/// A reversible function as a value, for code that runs it either way (schedulers such as
/// [`schedule::Bennett`], [`Reversible`] generic code). The function may be a path, and the
/// arguments are a tuple:
///
/// ```
/// use nilang::{rev, Reversible};
///
/// let times = rev!(nilang::special::imul); // imul and imul_inv, at the arguments' types
/// let (mut out, mut x, mut anc) = (3.0, 0.5, 0.0);
/// times.call((&mut out, &mut x, &mut anc));
/// assert_eq!(out, 1.5);
/// times.uncall((&mut out, &mut x, &mut anc));
/// assert_eq!((out, anc), (3.0, 0.0));
/// ```
pub use nilang_macros::rev;
/// # Example
///
/// ```
/// use nilang::{i, Loss, Real, Scalars};
///
/// #[derive(Clone, Copy, Debug, Scalars)]
/// struct Affine<T> {
///     scale: T,
///     shift: [T; 2],
/// }
///
/// #[i(expand)]
/// fn apply<T: Real>(y: &mut [T], p: &mut Affine<T>) {
///     y[0] += p.scale * p.shift[0];
///     y[1] += p.scale * p.shift[1];
/// }
/// let mut p = Affine { scale: 2.0, shift: [1.0, 3.0] };
/// assert_eq!(p.count(), 3); // scale, shift[0], shift[1]: the flat order
/// let (_, gp) = apply_grad(Loss::elem(0, 1), &mut vec![0.0, 0.0], &mut p).unwrap();
/// assert_eq!((gp.scale.g, gp.shift[0].g, gp.shift[1].g), (3.0, 0.0, 2.0));
/// ```
pub use nilang_macros::Scalars;
pub use prims::{Binary, Unary};
pub use real::{Base, Int, Primitives, Real};
pub use rev::{Adjoint, AdjointOf, Inverted, Rev, Reversible};
pub use stack::Stack;
