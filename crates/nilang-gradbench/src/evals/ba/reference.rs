//! `ba`'s reprojection residual in plain Rust, for the tests.

use super::NCAM;

/// Plain Rust reprojection residual (the reference for tests).
pub fn reference_reproj(cam: &[f64; NCAM], x: &[f64; 3], w: f64, feat: &[f64; 2]) -> [f64; 2] {
    let xo = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let r = [cam[0], cam[1], cam[2]];
    let sq = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let xc = if sq != 0.0 {
        let theta = sq.sqrt();
        let (c, s) = (theta.cos(), theta.sin());
        let wv = [r[0] / theta, r[1] / theta, r[2] / theta];
        let wx = cross(wv, xo);
        let tmp = (wv[0] * xo[0] + wv[1] * xo[1] + wv[2] * xo[2]) * (1.0 - c);
        [0, 1, 2].map(|i| xo[i] * c + wx[i] * s + wv[i] * tmp)
    } else {
        let rx = cross(r, xo);
        [0, 1, 2].map(|i| xo[i] + rx[i])
    };
    let mut pr = [xc[0] / xc[2], xc[1] / xc[2]];
    let rsq = pr[0] * pr[0] + pr[1] * pr[1];
    let l = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    pr = [pr[0] * l, pr[1] * l];
    [
        w * (pr[0] * cam[6] + cam[7] - feat[0]),
        w * (pr[1] * cam[6] + cam[8] - feat[1]),
    ]
}
