//! Dense matrices for Jacobians and Hessians, labelled by parameter names.

use core::fmt;

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
/// `x[k]` for scalar `k` of any other one (its flat index in [`Scalars`](super::Scalars) order). `{}` prints
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
