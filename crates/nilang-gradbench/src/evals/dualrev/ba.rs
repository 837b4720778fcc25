//! `ba` over [`Scalar`]: ADBench's reprojection residual (GradBench's `ba.hpp`: Rodrigues
//! rotation, projection, radial distortion) and weight residual; the sparse Jacobian by two
//! reverse sweeps per observation over one recording of its 15 inputs, in the expert
//! program's layout ([`Csr`]).

use crate::evals::ba::{Csr, Problem, Residuals, NCAM};
use nilang_dualrev::{record, Scalar};

/// The point `x` (3) in the frame of the camera `cam` (rotation 3, center 3): the Rodrigues
/// rotation of `x − center`, its first-order form at rotation zero.
fn rotate<S: Scalar>(cam: &[S], x: &[S]) -> [S; 3] {
    let y = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let r = [cam[0], cam[1], cam[2]];
    let cross = |a: [S; 3], b: [S; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let sq = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    if sq == 0.0 {
        let c = cross(r, y);
        return [y[0] + c[0], y[1] + c[1], y[2] + c[2]];
    }
    let theta = sq.sqrt();
    let (c, s) = (theta.cos(), theta.sin());
    let w = r.map(|v| v / theta);
    let wx = cross(w, y);
    let tmp = (w[0] * y[0] + w[1] * y[1] + w[2] * y[2]) * (S::one() - c);
    [0, 1, 2].map(|i| y[i] * c + wx[i] * s + w[i] * tmp)
}

/// The weighted reprojection error (2) of the point `x` (3) seen by the camera `cam` (rotation
/// 3, center 3, focal 1, principal point 2, distortion 2) against the feature `feat` (2).
pub fn reprojection<S: Scalar>(cam: &[S], x: &[S], w: S, feat: &[f64; 2]) -> [S; 2] {
    let p = rotate(cam, x);
    let (u, v) = (p[0] / p[2], p[1] / p[2]);
    let rsq = u * u + v * v;
    let scale = (cam[9] * rsq + cam[10] * rsq * rsq + 1.0) * cam[6];
    [
        w * (u * scale + cam[7] - feat[0]),
        w * (v * scale + cam[8] - feat[1]),
    ]
}

/// The weight residual `1 − w²`.
pub fn weight_residual<S: Scalar>(w: S) -> S {
    S::one() - w * w
}

impl Problem {
    /// The residuals on `f64`.
    pub fn dualrev_objective(&self) -> Residuals {
        let mut r = Residuals::default();
        for (k, &(c, pt)) in self.obs.iter().enumerate() {
            let w = self.w[k];
            r.reproj
                .push(reprojection(&self.cams[c], &self.x[pt], w, &self.feats[k]));
            r.w_err.push(weight_residual(w));
        }
        r
    }

    /// The Jacobian with respect to (cameras, points, weights) in the expert's layout: per
    /// observation one recording of its camera, point and weight, swept back once per residual.
    pub fn dualrev_jacobian(&self) -> Result<Csr, String> {
        const ROW: usize = NCAM + 4;
        let (n, m, p) = (self.cams.len(), self.x.len(), self.obs.len());
        let w_col = NCAM * n + 3 * m;
        let mut j = Csr {
            ncols: w_col + p,
            rows: Vec::with_capacity(3 * p + 1),
            cols: Vec::with_capacity(2 * p * ROW + p),
            vals: Vec::with_capacity(2 * p * ROW + p),
        };
        j.rows.push(0);
        let mut inputs = [0.0; ROW];
        for (k, &(c, pt)) in self.obs.iter().enumerate() {
            inputs[..NCAM].copy_from_slice(&self.cams[c]);
            inputs[NCAM..NCAM + 3].copy_from_slice(&self.x[pt]);
            inputs[NCAM + 3] = self.w[k];
            let feat = &self.feats[k];
            let f = |v: &[_]| reprojection(&v[..NCAM], &v[NCAM..NCAM + 3], v[NCAM + 3], feat);
            let mut pullback = record(f, &inputs).map_err(|e| format!("ba: {e}"))?;
            for row in 0..2 {
                let g = pullback.gradient_of(row).map_err(|e| format!("ba: {e}"))?;
                j.cols.extend((0..NCAM).map(|i| NCAM * c + i));
                j.cols.extend((0..3).map(|i| NCAM * n + 3 * pt + i));
                j.cols.push(w_col + k);
                j.vals.extend(g);
                j.rows.push(j.cols.len());
            }
        }
        for (k, &w) in self.w.iter().enumerate() {
            let g = super::gradient_of(|w| weight_residual(w[0]), &[w])?;
            j.cols.push(w_col + k);
            j.vals.push(g[0]);
            j.rows.push(j.cols.len());
        }
        Ok(j)
    }
}
