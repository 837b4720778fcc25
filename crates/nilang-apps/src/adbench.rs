//! The ADBench objectives as plain (irreversible) Rust, generic over the peers' scalars: the
//! Gaussian mixture model objective and the bundle-adjustment reprojection residual, exactly as
//! ADBench defines them. The reversible programs and their derivatives by reversal live in the
//! `nilang-gradbench` crate (`evals::gmm`, `evals::ba`), which reads the ADBench files.

use crate::plain::Plain;

/// Index of the strictly-lower entry `(b, a)` (`a < b`) in ADBench's column-major packing.
pub fn ltri(a: usize, b: usize, d: usize) -> usize {
    a * (2 * d - a - 1) / 2 + (b - a - 1)
}

/// The shape and data of a GMM problem.
#[derive(Clone, Copy, Debug)]
pub struct GmmData<'a> {
    /// Dimension.
    pub d: usize,
    /// Components.
    pub k: usize,
    /// Points, `n × d` row-major.
    pub x: &'a [f64],
    /// Wishart γ.
    pub gamma: f64,
    /// Wishart m.
    pub m: f64,
    /// The objective's constant term (`−nd/2 log 2π` and the Wishart normaliser).
    pub constant: f64,
}

fn logsumexp<S: Plain>(v: &[S]) -> S {
    let a = v
        .iter()
        .map(|s| s.value())
        .fold(f64::NEG_INFINITY, f64::max);
    let a = S::cst(a);
    let mut sum = S::cst(0.0);
    for &x in v {
        sum = sum + (x - a).exp();
    }
    a + sum.ln()
}

/// The ADBench GMM objective at parameters `p = [α (k), μ (k·d), q (k·d), l (k·d(d−1)/2)]`.
pub fn gmm_objective<S: Plain>(data: &GmmData, p: &[S]) -> S {
    let (d, k) = (data.d, data.k);
    let lsz = d * (d - 1) / 2;
    let (alpha, rest) = p.split_at(k);
    let (mu, rest) = rest.split_at(k * d);
    let (q, l) = rest.split_at(k * d);
    let n = data.x.len() / d;
    let sumq: Vec<S> = (0..k)
        .map(|c| {
            q[c * d..(c + 1) * d]
                .iter()
                .fold(S::cst(0.0), |s, &v| s + v)
        })
        .collect();
    let expq: Vec<S> = q.iter().map(|v| v.exp()).collect();
    let mut total = S::cst(0.0);
    let mut main = vec![S::cst(0.0); k];
    let mut xc = vec![S::cst(0.0); d];
    let mut qx = vec![S::cst(0.0); d];
    for i in 0..n {
        for c in 0..k {
            for j in 0..d {
                xc[j] = S::cst(data.x[i * d + j]) - mu[c * d + j];
                qx[j] = expq[c * d + j] * xc[j];
            }
            for a in 0..d {
                for b in a + 1..d {
                    qx[b] = qx[b] + l[c * lsz + ltri(a, b, d)] * xc[a];
                }
            }
            let mut sq = S::cst(0.0);
            for &v in &qx {
                sq = sq + v * v;
            }
            main[c] = alpha[c] + sumq[c] - S::cst(0.5) * sq;
        }
        total = total + logsumexp(&main);
    }
    total = total - S::cst(n as f64) * logsumexp(alpha);
    let mut frob = S::cst(0.0);
    for &e in &expq {
        frob = frob + e * e;
    }
    for &v in l {
        frob = frob + v * v;
    }
    let all_q = sumq.iter().fold(S::cst(0.0), |s, &v| s + v);
    total + S::cst(0.5 * data.gamma * data.gamma) * frob - S::cst(data.m) * all_q
        + S::cst(data.constant)
}

/// The ADBench reprojection residual `w · (proj(cam, X) − feat)` of one observation: camera
/// `cam` (rotation in angle-axis form, centre, focal length, principal point, two radial
/// distortion coefficients), point `x`, weight `w`.
pub fn ba_residual<S: Plain>(cam: &[S], x: &[S], w: S, feat: [f64; 2]) -> [S; 2] {
    let xo = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let r = [cam[0], cam[1], cam[2]];
    let sq = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    let cross = |a: [S; 3], b: [S; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let xc = if sq.value() != 0.0 {
        let theta = sq.sqrt();
        let (c, s) = (theta.cos(), theta.sin());
        let wv = [r[0] / theta, r[1] / theta, r[2] / theta];
        let wx = cross(wv, xo);
        let tmp = (wv[0] * xo[0] + wv[1] * xo[1] + wv[2] * xo[2]) * (S::cst(1.0) - c);
        [0, 1, 2].map(|i| xo[i] * c + wx[i] * s + wv[i] * tmp)
    } else {
        let rx = cross(r, xo);
        [0, 1, 2].map(|i| xo[i] + rx[i])
    };
    let p = [xc[0] / xc[2], xc[1] / xc[2]];
    let rsq = p[0] * p[0] + p[1] * p[1];
    let dist = S::cst(1.0) + cam[9] * rsq + cam[10] * rsq * rsq;
    [
        w * (p[0] * dist * cam[6] + cam[7] - S::cst(feat[0])),
        w * (p[1] * dist * cam[6] + cam[8] - S::cst(feat[1])),
    ]
}
