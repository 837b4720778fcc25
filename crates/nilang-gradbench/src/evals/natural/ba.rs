//! `ba` as a natural program: ADBench's reprojection residual (GradBench's `ba.hpp`: Rodrigues
//! rotation, projection, radial distortion) and weight residual as plain Rust; the sparse
//! Jacobian from the reprojection's Jacobian (`reprojection_jacobian`, both rows at once) and
//! the weight residual's gradient, in the expert program's layout ([`Csr`]).

use crate::evals::ba::{Csr, Problem, Residuals, NCAM};
use nilang::differentiable;

/// The weighted reprojection error `err` (2) of the point `x` (3) seen by the camera `cam`
/// (rotation 3, center 3, focal 1, principal point 2, distortion 2) against the feature `feat`
/// (2).
#[differentiable(wrt(cam, x, w))]
#[allow(unused_assignments)]
pub fn reprojection(cam: &[f64], x: &[f64], w: f64, feat: &[f64], err: &mut [f64]) {
    let (x0, x1, x2) = (x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]);
    let sq = cam[0] * cam[0] + cam[1] * cam[1] + cam[2] * cam[2];
    let (mut p0, mut p1, mut p2) = (0.0, 0.0, 0.0);
    if sq != 0.0 {
        let theta = sq.sqrt();
        let (c, s) = (theta.cos(), theta.sin());
        let (w0, w1, w2) = (cam[0] / theta, cam[1] / theta, cam[2] / theta);
        let tmp = (w0 * x0 + w1 * x1 + w2 * x2) * (1.0 - c);
        p0 = x0 * c + (w1 * x2 - w2 * x1) * s + w0 * tmp;
        p1 = x1 * c + (w2 * x0 - w0 * x2) * s + w1 * tmp;
        p2 = x2 * c + (w0 * x1 - w1 * x0) * s + w2 * tmp;
    } else {
        p0 = x0 + cam[1] * x2 - cam[2] * x1;
        p1 = x1 + cam[2] * x0 - cam[0] * x2;
        p2 = x2 + cam[0] * x1 - cam[1] * x0;
    }
    let (u, v) = (p0 / p2, p1 / p2);
    let rsq = u * u + v * v;
    let l = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    err[0] = w * (u * l * cam[6] + cam[7] - feat[0]);
    err[1] = w * (v * l * cam[6] + cam[8] - feat[1]);
}

/// The weight residual `1 − w²`.
#[differentiable]
pub fn weight_residual(w: f64) -> f64 {
    1.0 - w * w
}

impl Problem {
    /// The residuals, by the plain functions.
    pub fn natural_objective(&self) -> Residuals {
        let mut r = Residuals::default();
        self.natural_objective_into(&mut r);
        r
    }

    /// [`Problem::natural_objective`] into `r`, whose buffers are emptied and refilled: a
    /// second run allocates nothing (as the expert program's `objective_into`).
    pub fn natural_objective_into(&self, r: &mut Residuals) {
        r.reproj.clear();
        r.w_err.clear();
        for (k, &(c, pt)) in self.obs.iter().enumerate() {
            let (cam, x, w, f) = (&self.cams[c], &self.x[pt], self.w[k], &self.feats[k]);
            let mut err = [0.0; 2];
            reprojection(cam, x, w, f, &mut err);
            r.reproj.push(err);
            r.w_err.push(weight_residual(w));
        }
    }

    /// The Jacobian with respect to (cameras, points, weights): each observation's two rows by
    /// `reprojection_jacobian`, each weight row by `weight_residual_gradient`, in the expert's
    /// layout.
    pub fn natural_jacobian(&self) -> Csr {
        let mut j = Csr::default();
        self.natural_jacobian_into(&mut j);
        j
    }

    /// [`Problem::natural_jacobian`] into `j`, whose buffers are emptied and refilled: a second
    /// run allocates nothing (as the expert program's `jacobian_into`).
    pub fn natural_jacobian_into(&self, j: &mut Csr) {
        const ROW: usize = NCAM + 4;
        let (n, m, p) = (self.cams.len(), self.x.len(), self.obs.len());
        let w_col = NCAM * n + 3 * m;
        j.ncols = w_col + p;
        j.rows.clear();
        j.cols.clear();
        j.vals.clear();
        // room for every entry at once (a no-op from the second run on), not by doubling
        j.rows.reserve(3 * p + 1);
        j.cols.reserve(2 * p * ROW + p);
        j.vals.reserve(2 * p * ROW + p);
        j.rows.push(0);
        for (k, &(c, pt)) in self.obs.iter().enumerate() {
            let (cam, x, w, f) = (&self.cams[c], &self.x[pt], self.w[k], &self.feats[k]);
            let (mut err, mut rows) = ([0.0; 2], [0.0; 2 * ROW]);
            reprojection_jacobian(cam, x, w, f, &mut err, &mut rows);
            for row in rows.chunks_exact(ROW) {
                j.cols.extend((0..NCAM).map(|i| NCAM * c + i));
                j.cols.extend((0..3).map(|i| NCAM * n + 3 * pt + i));
                j.cols.push(w_col + k);
                j.vals.extend_from_slice(row);
                j.rows.push(j.cols.len());
            }
        }
        for k in 0..p {
            j.cols.push(w_col + k);
            j.vals.push(weight_residual_gradient(self.w[k]).1);
            j.rows.push(j.cols.len());
        }
        debug_assert!(j
            .rows
            .iter()
            .skip(1)
            .step_by(2)
            .take(p)
            .all(|r| r % ROW == 0));
    }
}
