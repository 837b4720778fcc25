//! Reverse-mode AD by running the inverse program on values and gradients.
//!
//! For every generic reversible function `#[i] fn f<T: Real>(…)` the macro also generates:
//!
//! * `f_adjoint(x, x_grad, …)`: the **adjoint program** — `f`'s inverse program in which
//!   every `&mut` parameter `x` is followed by a gradient buffer `x_grad` of the same type
//!   (every read-only parameter by `()`), and every instruction also moves gradients by its
//!   adjoint rule (the rules of [`GVar`]'s instructions, applied to values and gradients paired
//!   in registers). Called with the arguments holding `f`'s outputs and each `x_grad` holding
//!   `∂loss/∂output`, it restores the inputs and leaves `∂loss/∂input` in each `x_grad`. It
//!   copies nothing and allocates nothing of its own; `f_adjoint_inv` is its inverse (`f`'s
//!   program on values and gradients).
//! * `f_vjp(x, x_grad, …)`: `f` then `f_adjoint` on the caller's buffers (for the compute–
//!   copy–uncompute shape `L P M ~P D`: `L P M` on the plain scalars and `~M ~P` on values and
//!   gradients, so `P` is not uncomputed and recomputed).
//! * `f_grad(loss, args…) -> Result<(W₁, W₂, …), GradError>`: runs `f` forward on the
//!   arguments, seeds the loss gradient with 1 in gradient buffers of its own and runs the
//!   adjoint on copies of the outputs. Each `Wₖ` is the `k`-th differentiable argument
//!   (a `&mut` parameter whose type mentions `T`) with [`GVar`] scalars: its values are the
//!   inputs (restored by the adjoint), its gradients `∂loss/∂input`. The arguments themselves
//!   are left holding the forward program's outputs. The result is bit for bit the gradient
//!   of the inverse program run on `GVar` values (`f_inv::<GVar<T>>`, tested).
//! * `f_jacobian(args…) -> Result<Matrix<T>, GradError>`: the Jacobian of the outputs with
//!   respect to the inputs, over the flat list of every differentiable scalar (arguments in
//!   order, each flattened by [`Scalars`]). Layout: `J[i][j] = ∂output_i / ∂input_j`, one
//!   adjoint sweep per output `i`.
//! * `f_jacobian_of(&[Loss], args…) -> Result<Matrix<T>, GradError>`: only the rows of the
//!   chosen outputs (e.g. the two residuals of a reprojection), one forward run and one adjoint
//!   sweep per row.
//! * `f_hessian(loss, args…) -> Result<Matrix<T>, GradError>`: the Hessian of the loss, by
//!   forward-mode [`Dual`] numbers through the gradient (one column per pass).
//!   A Hessian–vector product is one call of `f_grad::<Dual<T>>` with the tangents set to the
//!   vector; [`crate::DualN`] carries several tangents per pass.
//!
//! ```
//! use nilang::{i, Real};
//!
//! #[i(nocheck)]
//! fn norm2<T: Real>(out: &mut T, x: &mut [T]) {
//!     for i in 0..x.len() {
//!         out += square(x[i]);
//!     }
//! }
//! let (mut out, mut x) = (0.0, vec![1.0, 2.0, 3.0]);
//! let (mut out_grad, mut x_grad) = (1.0, vec![0.0; 3]); // seed: ∂loss/∂out = 1
//! norm2_vjp(&mut out, &mut out_grad, &mut x, &mut x_grad);
//! assert_eq!(x_grad, vec![2.0, 4.0, 6.0]);
//! assert_eq!((out, x), (0.0, vec![1.0, 2.0, 3.0])); // the inputs again
//! ```
//!
//! The loss is chosen at call time with [`Loss`]; arguments are numbered from 0 in the order of
//! the signature. Arguments that are not differentiable (integers, `&` parameters, by-value
//! parameters, [`NoGrad`]) pass through: no gradient is reported for them.

use crate::dual::Dual;
use crate::float::Float;
#[cfg(doc)]
use crate::gvar::GVar;
use core::fmt;

mod matrix;
mod scalars;

/// Which scalar is the loss: element `index` of argument `arg` (both from 0).
///
/// ```
/// use nilang::{i, Loss, Real};
///
/// #[i]
/// fn split<T: Real>(y: &mut [T], x: &mut T) {
///     y[0] += sin(x);
///     y[1] += cos(x);
/// }
/// // the loss is y[1] (element 1 of argument 0)
/// let (_, dx) = split_grad(Loss::elem(0, 1), &mut vec![0.0, 0.0], &mut 0.5).unwrap();
/// assert_eq!(dx.g, -0.5f64.sin());
/// assert_eq!(Loss::arg(1), Loss::elem(1, 0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loss {
    /// Position of the argument in the signature.
    pub arg: usize,
    /// Position of the scalar inside the argument (0 for a scalar argument).
    pub index: usize,
}

impl Loss {
    /// The scalar argument at position `arg`.
    ///
    /// ```
    /// use nilang::{i, Loss, Real};
    ///
    /// #[i]
    /// fn f<T: Real>(y: &mut T, x: &mut T) {
    ///     y += square(x);
    /// }
    /// let (_, dx) = f_grad(Loss::arg(0), &mut 0.0, &mut 3.0).unwrap(); // the loss is y
    /// assert_eq!(dx.g, 6.0);
    /// ```
    pub fn arg(arg: usize) -> Loss {
        Loss { arg, index: 0 }
    }

    /// Element `index` of the argument at position `arg`.
    ///
    /// ```
    /// use nilang::{i, Loss, Real};
    ///
    /// #[i]
    /// fn f<T: Real>(y: &mut [T], x: &mut T) {
    ///     y[1] += square(x);
    /// }
    /// let (_, dx) = f_grad(Loss::elem(0, 1), &mut vec![0.0; 2], &mut 3.0).unwrap(); // the loss is y[1]
    /// assert_eq!(dx.g, 6.0);
    /// ```
    pub fn elem(arg: usize, index: usize) -> Loss {
        Loss { arg, index }
    }
}

/// Bad input to a gradient function.
///
/// ```
/// use nilang::{i, GradError, Loss, Real};
///
/// #[i]
/// fn scaled<T: Real>(y: &mut T, x: &mut T, n: i64) {
///     y += x * n;
/// }
/// let err = scaled_grad(Loss::arg(2), &mut 0.0, &mut 1.0, 3).unwrap_err();
/// assert_eq!(err, GradError::NotDifferentiable { function: "scaled", arg: 2 });
/// assert!(err.to_string().contains("argument 2 of `scaled` is not differentiable"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GradError {
    /// The loss argument is not differentiable (or does not exist).
    NotDifferentiable {
        /// The function.
        function: &'static str,
        /// The argument position asked for.
        arg: usize,
    },
    /// The loss index is past the end of the argument.
    IndexOutOfRange {
        /// The function.
        function: &'static str,
        /// The argument position.
        arg: usize,
        /// The index asked for.
        index: usize,
        /// The number of scalars in the argument.
        len: usize,
    },
}

impl fmt::Display for GradError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GradError::NotDifferentiable { function, arg } => write!(
                f,
                "argument {arg} of `{function}` is not differentiable: the loss must be a `&mut` \
                 argument whose type holds the scalar type parameter"
            ),
            GradError::IndexOutOfRange {
                function,
                arg,
                index,
                len,
            } => write!(
                f,
                "loss index {index} is out of range for argument {arg} of `{function}`, which \
                 holds {len} scalars"
            ),
        }
    }
}

impl std::error::Error for GradError {}

pub use matrix::Matrix;
pub use scalars::{NoGrad, Scalars, WithGrad};

/// The gradient of a scalar loss of a vector, from the loss's generated vector–Jacobian
/// product: for `#[i] fn f<T: Real>(out: &mut T, x: &mut [T])` (a loss accumulated into
/// `out`, which starts at zero), `gradient(f_vjp, &x)` is `∂out/∂x` at `x`. `vjp` may be the
/// function item `f_vjp` or any closure with its signature (`out, out_grad, x, x_grad`), e.g.
/// one that passes further read-only arguments. Runs `f_vjp` once on copies; `x` is not
/// changed.
///
/// ```
/// use nilang::{i, Real};
///
/// #[i(expand)]
/// fn rosenbrock<T: Real>(out: &mut T, x: &mut [T]) {
///     for k in 0..x.len() - 1 {
///         out += 100.0 * square(x[k + 1] - square(x[k]));
///         out += square(1.0 - x[k]);
///     }
/// }
/// let g = nilang::ad::gradient(rosenbrock_vjp, &[1.0, 2.0]);
/// // ∂/∂x₀ = −400 x₀ (x₁ − x₀²) − 2 (1 − x₀), ∂/∂x₁ = 200 (x₁ − x₀²)
/// assert_eq!(g, vec![-400.0, 200.0]);
/// ```
pub fn gradient<T: Float, F, R>(vjp: F, x: &[T]) -> Vec<T>
where
    F: FnMut(&mut T, &mut T, &mut [T], &mut [T]) -> R,
{
    run_vjp(vjp, x).1
}

/// The value of a scalar loss of a vector and its gradient, from one run of the loss's
/// generated vector–Jacobian product, which returns the loss it computed on the way:
/// `value_and_gradient(f_vjp, &x)` is `(f(x), ∂f/∂x)` for
/// `#[i] fn f<T: Real>(out: &mut T, x: &mut [T])`, at the cost of [`gradient`] alone — no
/// second forward run for the value. `x` is not changed.
///
/// ```
/// use nilang::{i, Real};
///
/// #[i]
/// fn norm2<T: Real>(out: &mut T, x: &mut [T]) {
///     for k in 0..x.len() {
///         out += square(x[k]);
///     }
/// }
/// let (value, g) = nilang::ad::value_and_gradient(norm2_vjp, &[1.0, 2.0]);
/// assert_eq!((value, g), (5.0, vec![2.0, 4.0]));
/// ```
pub fn value_and_gradient<T: Float, F>(vjp: F, x: &[T]) -> (T, Vec<T>)
where
    F: FnMut(&mut T, &mut T, &mut [T], &mut [T]) -> T,
{
    run_vjp(vjp, x)
}

/// `vjp` run once with the loss seeded 1 on a copy of `x`: what it returns and `x`'s gradient.
fn run_vjp<T: Float, F, R>(mut vjp: F, x: &[T]) -> (R, Vec<T>)
where
    F: FnMut(&mut T, &mut T, &mut [T], &mut [T]) -> R,
{
    let (mut out, mut out_grad) = (T::f_zero(), T::f_one());
    let mut x = x.to_vec();
    let mut x_grad = vec![T::f_zero(); x.len()];
    let value = vjp(&mut out, &mut out_grad, &mut x, &mut x_grad);
    (value, x_grad)
}

/// One flat vector cut into consecutive mutable pieces of the given lengths — how a flat
/// parameter vector `θ` (and its gradient buffer) is handed to a generated function that
/// takes the parameters piece by piece: `let [w1, b1, w2] = split_mut(&mut theta, [n * m, m,
/// m]);`. Panics, naming both, when the lengths do not add up to the vector's length.
///
/// ```
/// use nilang::{i, Real};
/// use nilang::ad::split_mut;
///
/// #[i]
/// fn affine<T: Real>(out: &mut T, w: &mut [T], b: &mut [T], x: &[T]) {
///     for k in 0..w.len() {
///         out += w[k] * x[k];
///     }
///     out += identity(b[0]);
/// }
/// // θ = (w₀, w₁, b) in one vector, its gradient in another
/// let (mut theta, mut theta_grad) = (vec![1.0, 2.0, 0.5], vec![0.0; 3]);
/// let x = [3.0, 4.0];
/// let [w, b] = split_mut(&mut theta, [2, 1]);
/// let [w_grad, b_grad] = split_mut(&mut theta_grad, [2, 1]);
/// let value = affine_vjp(&mut 0.0, &mut 1.0, w, w_grad, b, b_grad, &x, ());
/// assert_eq!((value, theta_grad), (11.5, vec![3.0, 4.0, 1.0]));
/// ```
pub fn split_mut<T, const N: usize>(v: &mut [T], lengths: [usize; N]) -> [&mut [T]; N] {
    let total = lengths.iter().try_fold(0usize, |a, &l| a.checked_add(l));
    assert!(
        total == Some(v.len()),
        "split_mut: the pieces' lengths {lengths:?} add up to {}, but the vector has length {}",
        total.map_or("more than usize::MAX".to_string(), |t| t.to_string()),
        v.len()
    );
    let mut rest = v;
    lengths.map(|l| {
        let (piece, tail) = std::mem::take(&mut rest).split_at_mut(l);
        rest = tail;
        piece
    })
}

/// The Hessian–vector product `H v` of a scalar loss of a vector, from the same generated
/// vector–Jacobian product as [`gradient`], run once on [`Dual`] numbers (forward over
/// reverse): `hessian_vector_product(f_vjp, &x, &v)`. Costs about two gradients, whatever
/// the length of `x`.
///
/// ```
/// use nilang::{i, Real};
///
/// #[i]
/// fn cubic<T: Real>(out: &mut T, x: &mut [T]) {
///     out += x[0] * x[1];
///     out += pow(x[1], 3);
/// }
/// // H = [[0, 1], [1, 6 x₁]] at x = (1, 2): H (1, 0) = (0, 1), H (0, 1) = (1, 12)
/// let hv = nilang::ad::hessian_vector_product(cubic_vjp, &[1.0, 2.0], &[0.0, 1.0]);
/// assert_eq!(hv, vec![1.0, 12.0]);
/// ```
///
/// # Panics
///
/// When `x` and `v` differ in length.
pub fn hessian_vector_product<T: Float, F, R>(mut vjp: F, x: &[T], v: &[T]) -> Vec<T>
where
    F: FnMut(&mut Dual<T>, &mut Dual<T>, &mut [Dual<T>], &mut [Dual<T>]) -> R,
{
    assert_eq!(
        x.len(),
        v.len(),
        "hessian_vector_product: the point has {} coordinates but the vector {}",
        x.len(),
        v.len()
    );
    let mut out = Dual::constant(T::f_zero());
    let mut out_grad = Dual::constant(T::f_one());
    let mut xd: Vec<Dual<T>> = x.iter().zip(v).map(|(&a, &t)| Dual::new(a, t)).collect();
    let mut x_grad = vec![Dual::constant(T::f_zero()); x.len()];
    vjp(&mut out, &mut out_grad, &mut xd, &mut x_grad);
    x_grad.iter().map(|g| g.eps).collect()
}

/// The gradient of `f` at `x` by central differences with step `h` (for checking gradients).
///
/// ```
/// let g = nilang::ad::numeric_gradient(|x| x[0] * x[0], &[3.0], 1e-6);
/// assert!((g[0] - 6.0).abs() < 1e-6);
/// ```
pub fn numeric_gradient(f: impl Fn(&[f64]) -> f64, x: &[f64], h: f64) -> Vec<f64> {
    let mut xp = x.to_vec();
    (0..x.len())
        .map(|i| {
            let orig = xp[i];
            xp[i] = orig + h;
            let fp = f(&xp);
            xp[i] = orig - h;
            let fm = f(&xp);
            xp[i] = orig;
            (fp - fm) / (2.0 * h)
        })
        .collect()
}

/// The Hessian of `f` at `x` by central differences with step `h` (for checking Hessians,
/// NiLang's `hessian_numeric`): entry `(i, i)` is `(f(x + h eᵢ) − 2 f(x) + f(x − h eᵢ)) / h²`,
/// entry `(i, j)`, `i ≠ j`, `(f(x + h eᵢ + h eⱼ) − f(x + h eᵢ − h eⱼ) − f(x − h eᵢ + h eⱼ) +
/// f(x − h eᵢ − h eⱼ)) / 4h²`, computed once for `i > j` and mirrored: the result is
/// symmetric. It costs
/// `1 + 2n²` evaluations of `f`. Its error is `O(h²)` truncation plus `O(ε |f| / h²)`
/// round-off: a step around `1e-4` suits smooth `f64` functions.
///
/// ```
/// use nilang::ad::numeric_hessian;
///
/// // f = x₀² x₁ + x₁³: H = [[2x₁, 2x₀], [2x₀, 6x₁]] = [[4, 2], [2, 12]] at (1, 2)
/// let h = numeric_hessian(|x| x[0] * x[0] * x[1] + x[1].powi(3), &[1.0, 2.0], 1e-4);
/// assert_eq!((h.rows, h.cols), (2, 2));
/// assert!((h[(0, 0)] - 4.0).abs() < 1e-6 && (h[(1, 1)] - 12.0).abs() < 1e-6);
/// assert!((h[(0, 1)] - 2.0).abs() < 1e-6);
/// assert_eq!(h[(0, 1)], h[(1, 0)]);
/// ```
pub fn numeric_hessian(f: impl Fn(&[f64]) -> f64, x: &[f64], h: f64) -> Matrix<f64> {
    let n = x.len();
    let mut moved = x.to_vec();
    // f at x moved by `steps` (coordinate, step); `moved` is reset to `x` exactly after
    let mut at = |steps: &[(usize, f64)]| {
        for &(k, d) in steps {
            moved[k] += d;
        }
        let v = f(&moved);
        moved.copy_from_slice(x);
        v
    };
    let centre = at(&[]);
    let mut m = Matrix::filled(n, n, 0.0);
    for i in 0..n {
        m[(i, i)] = (at(&[(i, h)]) - 2.0 * centre + at(&[(i, -h)])) / (h * h);
        for j in 0..i {
            let d = at(&[(i, h), (j, h)]) - at(&[(i, h), (j, -h)]) - at(&[(i, -h), (j, h)])
                + at(&[(i, -h), (j, -h)]);
            m[(i, j)] = d / (4.0 * h * h);
            m[(j, i)] = m[(i, j)];
        }
    }
    m
}

/// A gradient component that disagrees with central differences.
///
/// ```
/// use nilang::ad::check_gradient;
///
/// let err = check_gradient(|x| x[0] * x[0], &[3.0], &[5.0], 1e-6, 1e-6).unwrap_err();
/// assert_eq!(err.index, 0);
/// assert_eq!(err.given, 5.0);
/// assert!((err.numeric - 6.0).abs() < 1e-6);
/// assert!(err.to_string().starts_with("gradient component 0 is 5 but central differences give 6"));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct GradientMismatch {
    /// Component index.
    pub index: usize,
    /// The gradient being checked.
    pub given: f64,
    /// The central-difference estimate.
    pub numeric: f64,
}

impl fmt::Display for GradientMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "gradient component {} is {} but central differences give {}",
            self.index, self.given, self.numeric
        )
    }
}

impl std::error::Error for GradientMismatch {}

/// Checks a gradient against central differences: every component must agree within
/// `tol · max(1, |numeric|)`. Step `h` around `1e-6` suits smooth `f64` functions.
///
/// ```
/// use nilang::ad::check_gradient;
///
/// let f = |x: &[f64]| x[0] * x[1].exp();
/// let x = [2.0, 0.5];
/// let right = [0.5f64.exp(), 2.0 * 0.5f64.exp()];
/// assert!(check_gradient(f, &x, &right, 1e-6, 1e-6).is_ok());
/// let wrong = [0.5f64.exp(), 0.5f64.exp()];
/// assert_eq!(check_gradient(f, &x, &wrong, 1e-6, 1e-6).unwrap_err().index, 1);
/// ```
pub fn check_gradient(
    f: impl Fn(&[f64]) -> f64,
    x: &[f64],
    grad: &[f64],
    h: f64,
    tol: f64,
) -> Result<(), GradientMismatch> {
    let numeric = numeric_gradient(f, x, h);
    for (index, (&given, &numeric)) in grad.iter().zip(&numeric).enumerate() {
        if (given - numeric).abs() > tol * 1f64.max(numeric.abs()) || given.is_nan() {
            return Err(GradientMismatch {
                index,
                given,
                numeric,
            });
        }
    }
    Ok(())
}
