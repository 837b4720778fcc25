//! `ba`'s sparse Jacobian ([`Csr`]), row by row by reversal: two reprojection rows per
//! observation from one adjoint sweep ([`reproj_rows`]), one weight row.

use super::{ba_reproj_vjp, ba_weight_vjp, Problem, NCAM};
use crate::evals::par_blocks2;
use nilang::Lanes;

/// The work of one observation's two Jacobian rows (one adjoint sweep, [`Problem::jacobian`])
/// in units of `(a..b).par().weight(w)` (about a nanosecond of one core's work;
/// [`par_blocks2`] applies them too).
const BLOCK_WEIGHT: usize = 115;

/// The two rows of the Jacobian of one observation's reprojection residual with respect to
/// (camera (`NCAM`), point (3), weight): one forward run of [`ba_reproj`](super::ba_reproj)
/// and one adjoint sweep with both rows' gradients in two lanes (`ba_reproj_vjp` on
/// `Lanes<f64, 2>`, fused: the reprojection is not uncomputed and recomputed). No allocation.
pub fn reproj_rows(
    cam: &[f64; NCAM],
    x: &[f64; 3],
    w: f64,
    feat: &[f64; 2],
) -> [[f64; NCAM + 4]; 2] {
    let (mut e, mut cam, mut x, mut w) = ([0.0; 2], *cam, *x, w);
    let mut e_grad = [Lanes::unit(0, 1.0), Lanes::unit(1, 1.0)];
    let mut cam_grad = [Lanes::<f64, 2>::default(); NCAM];
    let (mut x_grad, mut w_grad) = ([Lanes::default(); 3], Lanes::default());
    ba_reproj_vjp(
        &mut e,
        &mut e_grad,
        &mut cam,
        &mut cam_grad,
        &mut x,
        &mut x_grad,
        &mut w,
        &mut w_grad,
        feat,
        (),
    );
    let row = |r: usize| {
        let mut row = [0.0; NCAM + 4];
        for (o, g) in row
            .iter_mut()
            .zip(cam_grad.iter().chain(&x_grad).chain([&w_grad]))
        {
            *o = g.0[r];
        }
        row
    };
    [row(0), row(1)]
}

/// A sparse matrix in compressed sparse rows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Csr {
    /// Number of columns.
    pub ncols: usize,
    /// Row starts into `cols`/`vals` (rows + 1 entries).
    pub rows: Vec<usize>,
    /// Column of each non-zero.
    pub cols: Vec<usize>,
    /// Value of each non-zero.
    pub vals: Vec<f64>,
}

impl Problem {
    /// The Jacobian of the residuals with respect to (cameras, points, weights) by reversal:
    /// per observation the two reprojection rows from one adjoint sweep ([`reproj_rows`]),
    /// and the weight row by `ba_weight_vjp`.
    pub fn jacobian(&self) -> Result<Csr, String> {
        let mut j = Csr::default();
        self.jacobian_into(&mut j);
        Ok(j)
    }

    /// [`Problem::jacobian`] into `j`, whose buffers are reused (resized only when they have
    /// another length), so repeated runs allocate nothing. Every entry is written by its index:
    /// observation `k`'s two rows of `NCAM + 4` entries at `2 (NCAM + 4) k`, the `p` weight
    /// rows after them.
    pub fn jacobian_into(&self, j: &mut Csr) {
        let (n, m, p) = (self.cams.len(), self.x.len(), self.obs.len());
        const ROW: usize = NCAM + 4;
        let nnz = 2 * ROW * p + p;
        j.ncols = NCAM * n + 3 * m + p;
        j.rows.resize(3 * p + 1, 0);
        j.cols.resize(nnz, 0);
        j.vals.resize(nnz, 0.0);
        let w_col = NCAM * n + 3 * m;
        let (reproj_cols, weight_cols) = j.cols.split_at_mut(2 * ROW * p);
        let (reproj_vals, weight_vals) = j.vals.split_at_mut(2 * ROW * p);
        par_blocks2(
            reproj_cols,
            reproj_vals,
            2 * ROW,
            BLOCK_WEIGHT,
            |k0, cols, vals| self.reproj_blocks(k0, cols, vals, w_col),
        );
        par_blocks2(weight_cols, weight_vals, 1, 1, |k0, cols, vals| {
            self.weight_rows(k0, cols, vals, w_col)
        });
        for (r, start) in j.rows.iter_mut().enumerate() {
            // row r < 2p holds ROW entries, each later one 1
            *start = ROW * r.min(2 * p) + r.saturating_sub(2 * p);
        }
    }

    /// The reprojection rows of observations `k0..` (two rows of `NCAM + 4` entries each) into
    /// `cols` and `vals`, as many observations as they hold ([`reproj_rows`]; `w_col`: the
    /// first weight column).
    fn reproj_blocks(&self, k0: usize, cols: &mut [usize], vals: &mut [f64], w_col: usize) {
        const ROW: usize = NCAM + 4;
        let n = self.cams.len();
        let blocks = cols
            .chunks_exact_mut(2 * ROW)
            .zip(vals.chunks_exact_mut(2 * ROW));
        for (k, (cols, vals)) in (k0..).zip(blocks) {
            let (c, pt) = self.obs[k];
            let rows = reproj_rows(&self.cams[c], &self.x[pt], self.w[k], &self.feats[k]);
            for ((cols, vals), row) in cols
                .chunks_exact_mut(ROW)
                .zip(vals.chunks_exact_mut(ROW))
                .zip(&rows)
            {
                row_columns(cols, NCAM * c, NCAM * n + 3 * pt, w_col + k);
                vals.copy_from_slice(row);
            }
        }
    }

    /// The weight rows of observations `k0..` (one entry each) into `cols` and `vals`, by
    /// `ba_weight_vjp`.
    fn weight_rows(&self, k0: usize, cols: &mut [usize], vals: &mut [f64], w_col: usize) {
        for (k, (col, val)) in (k0..).zip(cols.iter_mut().zip(vals)) {
            let (mut e, mut e_grad, mut w, mut w_grad) = (0.0, 1.0, self.w[k], 0.0);
            ba_weight_vjp(&mut e, &mut e_grad, &mut w, &mut w_grad);
            (*col, *val) = (w_col + k, w_grad);
        }
    }
}

/// The columns of one reprojection row: the camera's `NCAM` from `cam`, the point's 3 from
/// `point`, the weight's.
fn row_columns(cols: &mut [usize], cam: usize, point: usize, weight: usize) {
    let (c, rest) = cols.split_at_mut(NCAM);
    let (x, w) = rest.split_at_mut(3);
    for (i, col) in c.iter_mut().enumerate() {
        *col = cam + i;
    }
    for (i, col) in x.iter_mut().enumerate() {
        *col = point + i;
    }
    w[0] = weight;
}
