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
use crate::gvar::GVar;
use core::fmt;

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

/// A dense row-major matrix (Jacobians and Hessians). Entry `(i, j)` is `m[(i, j)]`; rows are
/// numbered by the outputs (of a Jacobian) and columns by the flat list of differentiable
/// scalars, arguments in signature order (see the module documentation).
///
/// ```
/// use nilang::Matrix;
///
/// let mut m = Matrix::filled(2, 3, 0.0);
/// m[(0, 1)] = 2.5;
/// m[(1, 2)] = -1.0;
/// assert_eq!(m[(0, 1)], 2.5);
/// assert_eq!(m.to_string(), "[0  2.5   0]\n[0    0  -1]\n");
/// assert_eq!(format!("{m:.1}"), "[0.0  2.5   0.0]\n[0.0  0.0  -1.0]\n");
/// ```
///
/// # Labels
///
/// The matrices of the generated `f_jacobian`, `f_jacobian_of` and `f_hessian` carry a label
/// for every row and column, built from the parameter names: `x` for a scalar parameter,
/// `x[k]` for scalar `k` of any other one (its flat index in [`Scalars`] order). `{}` prints
/// them as a header row and row labels; [`Matrix::row_labels`], [`Matrix::col_labels`],
/// [`Matrix::row_index`], [`Matrix::col_index`] and [`Matrix::at`] read them.
///
/// ```
/// use nilang::{i, Loss, Real};
///
/// #[i]
/// fn mix<T: Real>(out: &mut T, y: &mut [T], x: &mut [T], w: &mut T) {
///     out += x[0] * w;
///     y[0] += x[1] * w;
///     y[1] += x[0] * x[1];
/// }
/// let (mut out, mut y, mut x, mut w) = (0.0, vec![0.0; 2], vec![2.0, 3.0], 0.5);
/// let j = mix_jacobian_of(
///     &[Loss::arg(0), Loss::elem(1, 0), Loss::elem(1, 1)],
///     &mut out, &mut y, &mut x, &mut w,
/// )
/// .unwrap();
/// assert_eq!(j.row_labels(), ["out", "y[0]", "y[1]"]);
/// assert_eq!(j.col_labels(), ["out", "y[0]", "y[1]", "x[0]", "x[1]", "w"]);
/// assert_eq!(j.at("y[1]", "x[0]"), Some(3.0)); // ∂y₁/∂x₀ = x₁
/// assert_eq!(j.col_index("w"), Some(5));
/// print!("{j}");
/// assert_eq!(
///     j.to_string(),
///     "      out  y[0]  y[1]  x[0]  x[1]  w\n\
///      out  [  1     0     0   0.5     0  2]\n\
///      y[0] [  0     1     0     0   0.5  3]\n\
///      y[1] [  0     0     1     3     2  0]\n"
/// );
/// ```
///
/// Equality (`==`) compares the shape and the entries only: a labelled Jacobian equals an
/// unlabelled matrix of the same numbers, and the labels are compared with
/// `a.row_labels() == b.row_labels()` where that matters. `{:?}` shows the labels.
#[derive(Clone)]
pub struct Matrix<T> {
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// Entries, row after row.
    pub data: Vec<T>,
    /// One label per row, or none (an unlabelled matrix).
    row_labels: Vec<String>,
    /// One label per column, or none.
    col_labels: Vec<String>,
}

impl<T: Copy> Matrix<T> {
    /// A matrix filled with `value`, without labels.
    ///
    /// ```
    /// let m = nilang::Matrix::filled(2, 3, 1.0);
    /// assert_eq!((m.rows, m.cols, m.data.len()), (2, 3, 6));
    /// ```
    pub fn filled(rows: usize, cols: usize, value: T) -> Self {
        Matrix::from_data(rows, cols, vec![value; rows * cols])
    }

    /// Entry `(i, j)`.
    ///
    /// ```
    /// let m = nilang::Matrix::from_data(2, 2, vec![1.0, 2.0, 3.0, 4.0]);
    /// assert_eq!(m.get(0, 1), 2.0);
    /// ```
    pub fn get(&self, i: usize, j: usize) -> T {
        self.data[i * self.cols + j]
    }

    /// Sets entry `(i, j)`.
    ///
    /// ```
    /// let mut m = nilang::Matrix::filled(2, 2, 0.0);
    /// m.set(1, 0, 5.0);
    /// assert_eq!(m[(1, 0)], 5.0);
    /// ```
    pub fn set(&mut self, i: usize, j: usize, v: T) {
        self.data[i * self.cols + j] = v;
    }

    /// Row `i`.
    ///
    /// ```
    /// let m = nilang::Matrix::from_data(2, 2, vec![1.0, 2.0, 3.0, 4.0]);
    /// assert_eq!(m.row(1), [3.0, 4.0]);
    /// ```
    pub fn row(&self, i: usize) -> &[T] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// The rows as vectors.
    ///
    /// ```
    /// let m = nilang::Matrix::from_data(2, 2, vec![1.0, 2.0, 3.0, 4.0]);
    /// assert_eq!(m.to_rows(), vec![vec![1.0, 2.0], vec![3.0, 4.0]]);
    /// ```
    pub fn to_rows(&self) -> Vec<Vec<T>> {
        (0..self.rows).map(|i| self.row(i).to_vec()).collect()
    }

    /// The entry in the row labelled `row` and the column labelled `col`; `None` when either
    /// label is not there.
    ///
    /// ```
    /// use nilang::{i, Loss, Real};
    ///
    /// #[i]
    /// fn f<T: Real>(out: &mut T, x: &mut [T]) {
    ///     out += x[0] * x[1];
    /// }
    /// let h = f_hessian(Loss::arg(0), &mut 0.0, &mut vec![2.0, 3.0]).unwrap();
    /// assert_eq!(h.at("x[0]", "x[1]"), Some(1.0));
    /// assert_eq!(h.at("x[0]", "x[2]"), None);
    /// ```
    pub fn at(&self, row: &str, col: &str) -> Option<T> {
        Some(self.get(self.row_index(row)?, self.col_index(col)?))
    }
}

impl<T> Matrix<T> {
    /// A `rows × cols` matrix of the entries `data`, row after row, without labels.
    ///
    /// ```
    /// use nilang::Matrix;
    ///
    /// let m = Matrix::from_data(2, 2, vec![1.0, 2.0, 3.0, 4.0]);
    /// assert_eq!(m[(1, 0)], 3.0);
    /// ```
    ///
    /// # Panics
    ///
    /// When `data` does not hold `rows · cols` entries.
    pub fn from_data(rows: usize, cols: usize, data: Vec<T>) -> Self {
        assert_eq!(
            data.len(),
            rows * cols,
            "Matrix::from_data: a {rows}×{cols} matrix has {} entries, not {}",
            rows * cols,
            data.len()
        );
        Matrix {
            rows,
            cols,
            data,
            row_labels: Vec::new(),
            col_labels: Vec::new(),
        }
    }

    /// The same matrix with a label for every row and every column.
    ///
    /// ```
    /// use nilang::Matrix;
    ///
    /// let m = Matrix::from_data(1, 2, vec![1.0, -2.0]).with_labels(["loss"], ["a", "b"]);
    /// assert_eq!(m.to_string(), "      a   b\nloss [1  -2]\n");
    /// assert_eq!(m.at("loss", "b"), Some(-2.0));
    /// ```
    ///
    /// # Panics
    ///
    /// When the number of row labels is not `rows` or that of column labels is not `cols`.
    pub fn with_labels<R, C>(
        mut self,
        rows: impl IntoIterator<Item = R>,
        cols: impl IntoIterator<Item = C>,
    ) -> Self
    where
        R: Into<String>,
        C: Into<String>,
    {
        self.row_labels = rows.into_iter().map(Into::into).collect();
        self.col_labels = cols.into_iter().map(Into::into).collect();
        assert!(
            self.row_labels.len() == self.rows && self.col_labels.len() == self.cols,
            "Matrix::with_labels: a {}×{} matrix needs {} row and {} column labels, not {} and {}",
            self.rows,
            self.cols,
            self.rows,
            self.cols,
            self.row_labels.len(),
            self.col_labels.len()
        );
        self
    }

    /// Whether the rows and columns are labelled.
    ///
    /// ```
    /// let m = nilang::Matrix::filled(1, 1, 0.0);
    /// assert!(!m.is_labelled());
    /// assert!(m.with_labels(["y"], ["x"]).is_labelled());
    /// ```
    pub fn is_labelled(&self) -> bool {
        self.row_labels.len() == self.rows
            && self.col_labels.len() == self.cols
            && !(self.row_labels.is_empty() && self.col_labels.is_empty())
    }

    /// The row labels (empty for an unlabelled matrix).
    ///
    /// ```
    /// let m = nilang::Matrix::filled(2, 1, 0.0).with_labels(["a", "b"], ["x"]);
    /// assert_eq!(m.row_labels(), ["a", "b"]);
    /// ```
    pub fn row_labels(&self) -> &[String] {
        &self.row_labels
    }

    /// The column labels (empty for an unlabelled matrix).
    ///
    /// ```
    /// let m = nilang::Matrix::filled(1, 2, 0.0).with_labels(["y"], ["x[0]", "x[1]"]);
    /// assert_eq!(m.col_labels(), ["x[0]", "x[1]"]);
    /// ```
    pub fn col_labels(&self) -> &[String] {
        &self.col_labels
    }

    /// The index of the row labelled `label`.
    ///
    /// ```
    /// let m = nilang::Matrix::filled(2, 1, 0.0).with_labels(["a", "b"], ["x"]);
    /// assert_eq!((m.row_index("b"), m.row_index("c")), (Some(1), None));
    /// ```
    pub fn row_index(&self, label: &str) -> Option<usize> {
        self.row_labels.iter().position(|l| l == label)
    }

    /// The index of the column labelled `label`.
    ///
    /// ```
    /// let m = nilang::Matrix::filled(1, 2, 0.0).with_labels(["y"], ["x[0]", "x[1]"]);
    /// assert_eq!(m.col_index("x[1]"), Some(1));
    /// ```
    pub fn col_index(&self, label: &str) -> Option<usize> {
        self.col_labels.iter().position(|l| l == label)
    }
}

/// Shape and entries; labels are not compared (see [`Matrix`]).
impl<T: PartialEq> PartialEq for Matrix<T> {
    fn eq(&self, other: &Self) -> bool {
        self.rows == other.rows && self.cols == other.cols && self.data == other.data
    }
}

/// The fields, with the labels when there are any.
impl<T: fmt::Debug> fmt::Debug for Matrix<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("Matrix");
        s.field("rows", &self.rows).field("cols", &self.cols);
        if self.is_labelled() {
            s.field("row_labels", &self.row_labels)
                .field("col_labels", &self.col_labels);
        }
        s.field("data", &self.data).finish()
    }
}

impl<T> core::ops::Index<(usize, usize)> for Matrix<T> {
    type Output = T;
    /// Entry `(i, j)`; panics when `i` or `j` is out of range.
    fn index(&self, (i, j): (usize, usize)) -> &T {
        assert!(
            i < self.rows && j < self.cols,
            "index ({i}, {j}) out of range for a {}×{} matrix",
            self.rows,
            self.cols
        );
        &self.data[i * self.cols + j]
    }
}

impl<T> core::ops::IndexMut<(usize, usize)> for Matrix<T> {
    /// Entry `(i, j)`; panics when `i` or `j` is out of range.
    fn index_mut(&mut self, (i, j): (usize, usize)) -> &mut T {
        assert!(
            i < self.rows && j < self.cols,
            "index ({i}, {j}) out of range for a {}×{} matrix",
            self.rows,
            self.cols
        );
        &mut self.data[i * self.cols + j]
    }
}

/// One row per line, in brackets, each column right-aligned to its widest entry; the
/// formatter's options (precision) apply to every entry. A labelled matrix has a header row
/// of column labels, each right-aligned over its column, and its row labels left-aligned
/// before the brackets.
impl<T: fmt::Display> fmt::Display for Matrix<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cells: Vec<String> = self
            .data
            .iter()
            .map(|v| match f.precision() {
                Some(p) => format!("{v:.p$}"),
                None => format!("{v}"),
            })
            .collect();
        let labelled = self.is_labelled();
        let width_of = |s: &String| s.chars().count();
        let widths: Vec<usize> = (0..self.cols)
            .map(|j| {
                let header = if labelled {
                    width_of(&self.col_labels[j])
                } else {
                    0
                };
                (0..self.rows)
                    .map(|i| width_of(&cells[i * self.cols + j]))
                    .fold(header, usize::max)
            })
            .collect();
        let margin = if labelled {
            self.row_labels.iter().map(width_of).max().unwrap_or(0) + 1
        } else {
            0
        };
        if labelled {
            write!(f, "{:margin$} ", "")?;
            write_cells(f, &self.col_labels, &widths)?;
            f.write_str("\n")?;
        }
        for i in 0..self.rows {
            if labelled {
                write!(f, "{:<margin$}", self.row_labels[i])?;
            }
            f.write_str("[")?;
            write_cells(f, &cells[i * self.cols..(i + 1) * self.cols], &widths)?;
            f.write_str("]\n")?;
        }
        Ok(())
    }
}

/// Cells right-aligned to `widths`, two spaces apart.
fn write_cells(f: &mut fmt::Formatter<'_>, cells: &[String], widths: &[usize]) -> fmt::Result {
    for (j, (cell, width)) in cells.iter().zip(widths).enumerate() {
        let sep = if j == 0 { "" } else { "  " };
        write!(f, "{sep}{cell:>width$}")?;
    }
    Ok(())
}

/// What `f_grad` returns for a differentiable argument of type `X` with scalars `T`: the
/// same shape holding [`GVar`]s (`Vec<GVar<f64>>` for `x: &mut [f64]` or `&mut Vec<f64>`,
/// `GVar<f64>` for `y: &mut f64`, `P<GVar<f64>>` for a `#[derive(Scalars)] struct P<T>`).
///
/// ```
/// use nilang::ad::WithGrad;
/// use nilang::{i, GVar, Loss, Real};
///
/// #[i]
/// fn f<T: Real>(y: &mut T, x: &mut [T]) {
///     y += x[0] * x[1];
/// }
/// // the return type of f_grad, spelled readably
/// let (dy, dx): (WithGrad<f64, f64>, WithGrad<[f64], f64>) =
///     f_grad(Loss::arg(0), &mut 0.0, &mut vec![2.0, 3.0]).unwrap();
/// let _: (GVar<f64>, Vec<GVar<f64>>) = (dy, dx.clone());
/// assert_eq!((dx[0].g, dx[1].g), (3.0, 2.0));
/// ```
pub type WithGrad<X, T> = <X as Scalars<T>>::Map<GVar<T>>;

/// A value made of scalars of type `T`, visited in a fixed flat order: a scalar, a slice, a
/// `Vec`, an array, a complex number, [`NoGrad`], or a user struct with
/// `#[derive(nilang::Scalars)]` (its fields in declaration order).
///
/// `Map<U>` is the same shape with scalars of type `U` (e.g. [`GVar`] for gradients).
///
/// ```
/// use nilang::{GVar, Scalars};
///
/// let x = vec![1.0, 2.0, 3.0];
/// assert_eq!(x.count(), 3);
/// // the same shape holding GVars, e.g. what f_grad returns for a Vec argument
/// let w: Vec<GVar<f64>> = x.map(&mut |i, v| GVar::with_grad(v, i as f64));
/// assert_eq!(w[2].g, 2.0);
/// assert_eq!(<Vec<f64> as Scalars<f64>>::get_mapped(&w, 1).x, 2.0);
/// // an array of complex numbers flattens element by element, real part first
/// let z = [num_complex::Complex::new(1.0, 2.0)];
/// assert_eq!(Scalars::<f64>::count(&z[..]), 2);
/// ```
pub trait Scalars<T> {
    /// The same shape holding `U` instead of `T`.
    type Map<U: Copy>;
    /// Number of differentiable scalars.
    fn count(&self) -> usize;
    /// The same shape with every scalar mapped by `f` (called in flat order with the index).
    fn map<U: Copy>(&self, f: &mut dyn FnMut(usize, T) -> U) -> Self::Map<U>;
    /// Scalar `i` of a mapped value.
    fn get_mapped<U: Copy>(m: &Self::Map<U>, i: usize) -> U;
    /// Replaces scalar `i` of a mapped value.
    fn set_mapped<U: Copy>(m: &mut Self::Map<U>, i: usize, v: U);
    /// Number of scalars of a mapped value (what [`Scalars::count`] is for the original).
    fn count_mapped<U: Copy>(m: &Self::Map<U>) -> usize;
    /// The same shape holding `T` again, seen as the original type: a gradient buffer
    /// (`Vec<T>` for a slice) handed to an adjoint program as `&mut Self`.
    fn as_value_mut(m: &mut Self::Map<T>) -> &mut Self
    where
        T: Copy;
}

impl<T: Float> Scalars<T> for T {
    type Map<U: Copy> = U;
    fn count(&self) -> usize {
        1
    }
    fn map<U: Copy>(&self, f: &mut dyn FnMut(usize, T) -> U) -> U {
        f(0, *self)
    }
    fn get_mapped<U: Copy>(m: &U, _: usize) -> U {
        *m
    }
    fn set_mapped<U: Copy>(m: &mut U, _: usize, v: U) {
        *m = v;
    }
    fn count_mapped<U: Copy>(_: &U) -> usize {
        1
    }
    fn as_value_mut(m: &mut T) -> &mut T {
        m
    }
}

impl<T: Float> Scalars<T> for [T] {
    type Map<U: Copy> = Vec<U>;
    fn count(&self) -> usize {
        self.len()
    }
    fn map<U: Copy>(&self, f: &mut dyn FnMut(usize, T) -> U) -> Vec<U> {
        self.iter().enumerate().map(|(i, &x)| f(i, x)).collect()
    }
    fn get_mapped<U: Copy>(m: &Vec<U>, i: usize) -> U {
        m[i]
    }
    fn set_mapped<U: Copy>(m: &mut Vec<U>, i: usize, v: U) {
        m[i] = v;
    }
    fn count_mapped<U: Copy>(m: &Vec<U>) -> usize {
        m.len()
    }
    fn as_value_mut(m: &mut Vec<T>) -> &mut [T] {
        m.as_mut_slice()
    }
}

impl<T: Float> Scalars<T> for Vec<T> {
    type Map<U: Copy> = Vec<U>;
    fn count(&self) -> usize {
        self.len()
    }
    fn map<U: Copy>(&self, f: &mut dyn FnMut(usize, T) -> U) -> Vec<U> {
        self.as_slice().map(f)
    }
    fn get_mapped<U: Copy>(m: &Vec<U>, i: usize) -> U {
        m[i]
    }
    fn set_mapped<U: Copy>(m: &mut Vec<U>, i: usize, v: U) {
        m[i] = v;
    }
    fn count_mapped<U: Copy>(m: &Vec<U>) -> usize {
        m.len()
    }
    fn as_value_mut(m: &mut Vec<T>) -> &mut Vec<T> {
        m
    }
}

impl<T: Float, const N: usize> Scalars<T> for [T; N] {
    type Map<U: Copy> = [U; N];
    fn count(&self) -> usize {
        N
    }
    fn map<U: Copy>(&self, f: &mut dyn FnMut(usize, T) -> U) -> [U; N] {
        core::array::from_fn(|i| f(i, self[i]))
    }
    fn get_mapped<U: Copy>(m: &[U; N], i: usize) -> U {
        m[i]
    }
    fn set_mapped<U: Copy>(m: &mut [U; N], i: usize, v: U) {
        m[i] = v;
    }
    fn count_mapped<U: Copy>(_: &[U; N]) -> usize {
        N
    }
    fn as_value_mut(m: &mut [T; N]) -> &mut [T; N] {
        m
    }
}

impl<T: Float> Scalars<T> for num_complex::Complex<T> {
    type Map<U: Copy> = num_complex::Complex<U>;
    fn count(&self) -> usize {
        2
    }
    fn map<U: Copy>(&self, f: &mut dyn FnMut(usize, T) -> U) -> num_complex::Complex<U> {
        num_complex::Complex {
            re: f(0, self.re),
            im: f(1, self.im),
        }
    }
    fn get_mapped<U: Copy>(m: &num_complex::Complex<U>, i: usize) -> U {
        if i == 0 {
            m.re
        } else {
            m.im
        }
    }
    fn set_mapped<U: Copy>(m: &mut num_complex::Complex<U>, i: usize, v: U) {
        if i == 0 {
            m.re = v
        } else {
            m.im = v
        }
    }
    fn count_mapped<U: Copy>(_: &num_complex::Complex<U>) -> usize {
        2
    }
    fn as_value_mut(m: &mut num_complex::Complex<T>) -> &mut num_complex::Complex<T> {
        m
    }
}

/// Slices and `Vec`s of elements that each hold a fixed number `WIDTH` of scalars (complex
/// numbers: 2, arrays `[T; N]`: `N`, logarithmic and tropical numbers: 1), flattened element
/// by element in each element's own order (a complex number's real part first).
macro_rules! scalars_of_elements {
    ($([$($g:tt)*] $elem:ty, $width:expr;)*) => {$(
        impl<$($g)*> Scalars<T> for [$elem] {
            type Map<U: Copy> = Vec<<$elem as Scalars<T>>::Map<U>>;
            fn count(&self) -> usize {
                $width * self.len()
            }
            fn map<U: Copy>(&self, f: &mut dyn FnMut(usize, T) -> U) -> Self::Map<U> {
                self.iter()
                    .enumerate()
                    .map(|(i, e)| e.map(&mut |j, x| f($width * i + j, x)))
                    .collect()
            }
            fn get_mapped<U: Copy>(m: &Self::Map<U>, i: usize) -> U {
                <$elem as Scalars<T>>::get_mapped(&m[i / $width], i % $width)
            }
            fn set_mapped<U: Copy>(m: &mut Self::Map<U>, i: usize, v: U) {
                <$elem as Scalars<T>>::set_mapped(&mut m[i / $width], i % $width, v)
            }
            fn count_mapped<U: Copy>(m: &Self::Map<U>) -> usize {
                $width * m.len()
            }
            fn as_value_mut(m: &mut Self::Map<T>) -> &mut Self {
                m.as_mut_slice()
            }
        }

        impl<$($g)*> Scalars<T> for Vec<$elem> {
            type Map<U: Copy> = Vec<<$elem as Scalars<T>>::Map<U>>;
            fn count(&self) -> usize {
                self.as_slice().count()
            }
            fn map<U: Copy>(&self, f: &mut dyn FnMut(usize, T) -> U) -> Self::Map<U> {
                self.as_slice().map(f)
            }
            fn get_mapped<U: Copy>(m: &Self::Map<U>, i: usize) -> U {
                <[$elem] as Scalars<T>>::get_mapped(m, i)
            }
            fn set_mapped<U: Copy>(m: &mut Self::Map<U>, i: usize, v: U) {
                <[$elem] as Scalars<T>>::set_mapped(m, i, v)
            }
            fn count_mapped<U: Copy>(m: &Self::Map<U>) -> usize {
                <[$elem] as Scalars<T>>::count_mapped(m)
            }
            fn as_value_mut(m: &mut Self::Map<T>) -> &mut Self {
                m
            }
        }
    )*};
}

scalars_of_elements! {
    [T: Float] num_complex::Complex<T>, 2;
    [T: Float, const N: usize] [T; N], N;
    [T: Float] crate::numbers::ULog<T>, 1;
    [T: Float] crate::numbers::Tropical<T>, 1;
}

/// An argument excluded from differentiation: its scalars are carried through the gradient
/// program (as values of the gradient type) but no gradient is reported for them, and they
/// are not rows or columns of Jacobians and Hessians.
///
/// ```
/// use nilang::{i, Loss, NoGrad, Real};
///
/// #[i]
/// fn weighted<T: Real>(y: &mut T, x: &mut T, w: &mut NoGrad<T>) {
///     y += x * w.0;
/// }
/// let j = weighted_jacobian(&mut 0.0, &mut 2.0, &mut NoGrad(3.0)).unwrap();
/// assert_eq!((j.rows, j.cols), (2, 2)); // y and x only
/// assert_eq!(j[(0, 1)], 3.0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NoGrad<X>(pub X);

impl<T: Float, X: Scalars<T, Map<T> = X>> Scalars<T> for NoGrad<X> {
    type Map<U: Copy> = NoGrad<X::Map<U>>;
    fn count(&self) -> usize {
        0
    }
    fn map<U: Copy>(&self, f: &mut dyn FnMut(usize, T) -> U) -> NoGrad<X::Map<U>> {
        NoGrad(self.0.map(f))
    }
    fn get_mapped<U: Copy>(m: &Self::Map<U>, i: usize) -> U {
        X::get_mapped(&m.0, i)
    }
    fn set_mapped<U: Copy>(m: &mut Self::Map<U>, i: usize, v: U) {
        X::set_mapped(&mut m.0, i, v)
    }
    fn count_mapped<U: Copy>(_: &Self::Map<U>) -> usize {
        0
    }
    fn as_value_mut(m: &mut NoGrad<X>) -> &mut NoGrad<X> {
        m
    }
}

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
