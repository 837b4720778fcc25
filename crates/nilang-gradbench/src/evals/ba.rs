//! `ba`: bundle adjustment (ADBench): reprojection and weight residuals, and their sparse
//! Jacobian.
//!
//! The input carries one camera (11 values: Rodrigues rotation, centre, focal length,
//! principal point, two radial distortion coefficients), one point, one weight and one feature;
//! like GradBench's reference tool, the problem is `n` copies of the camera, `m` of the point,
//! `p` observations (camera `i mod n`, point `i mod m`) of weight `w` and feature `feat`.
//!
//! Per observation the reprojection residual `w·(proj(cam, X) − feat)` is the reversible
//! [`ba_reproj`] (with Rodrigues' formula for the rotation) and the weight residual `1 − w²` is
//! [`ba_weight`]. The Jacobian is assembled row by row, each row one gradient of one residual
//! by reversal: for every observation two rows of 15 non-zeros (11 camera, 3 point, 1 weight
//! columns) and one row of one non-zero, in compressed sparse rows (CSR) as ADBench does.
//! Both functions write into buffers that the runs of one message share
//! ([`Problem::objective_into`], [`Problem::jacobian_into`]).
//!
//! Output, as GradBench's reference tool encodes it (all observations are copies):
//! `objective` → `{"reproj_error": {"elements": [e₀, e₁], "repeated": p}, "w_err": {"element":
//! e, "repeated": p}}`; `jacobian` → `{"rows", "cols", "vals"}` holding the first 30 entries of
//! the CSR arrays followed by their last entry.

use super::{decode, timed_into_with, unknown_function, Fresh};
use crate::limits::Need;
use crate::runs::Timing;
use nilang::{i, Lanes, Real};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use serde_json::{json, Value};

/// Camera parameters per camera.
pub const NCAM: usize = 11;

/// The work of one observation's two Jacobian rows (one adjoint sweep, [`Problem::jacobian`])
/// in units of `(a..b).par().weight(w)` (about a nanosecond; `super::par_blocks2` applies
/// them too): about 115 ns an observation on one thread (ba10: 65 ms for 563 734).
const BLOCK_WEIGHT: usize = 115;

/// The work of one observation's residuals ([`ba_residuals`]) in the same units: about 85 ns
/// on one thread (ba1: 0.66 ms for 7 776 observations, ba10 12.3 ms for 126 327).
const RESIDUAL_WEIGHT: usize = 85;

/// `err += w·(proj(cam, x) − feat)`: the reprojection residual of one observation.
///
/// The point is moved to the camera's centre, rotated by the angle-axis vector `r = cam[0..3]`
/// and projected with radial distortion. The rotation is Rodrigues' formula written with
/// `θ = |r|` as `xc = xo·cos θ + (r × xo)·(sin θ / θ) + r·(r·xo)·((1 − cos θ) / θ²)`, whose
/// two coefficients are `1` and `0` when `r = 0` (the first-order `xo + r × xo` of ADBench).
/// Only `θ` and those coefficients depend on the branch; `sin θ` and `cos θ` are computed
/// for both (of `θ = 0` when `r = 0`, an ancilla the branch leaves untouched, so no gradient
/// reaches the square root at zero), which lets the adjoint reuse the forward's `sincos`.
///
/// The body is one routine with no nested routine: every intermediate is an ancilla
/// allocated first (at [`Fresh::fresh`](super::Fresh), negative zero), computed once, and read by the residual `err += w·f`. The
/// unchecked forward stops after the residual; the fused gradient (`ba_reproj_vjp`) runs the
/// computation once on values and its adjoint once, with nothing recomputed. Divisions are
/// two reciprocals (`1/θ`, `1/xc₂`), as the hand-written derivative does.
#[i(nocheck)]
pub fn ba_reproj<T: Real>(
    err: &mut [T; 2],
    cam: &mut [T; NCAM],
    x: &mut [T; 3],
    w: &mut T,
    feat: &[f64; 2],
) {
    // the point relative to the camera, and the rotation's coefficients
    let (xo0, xo1, xo2, sqtheta) = (T::fresh(), T::fresh(), T::fresh(), T::fresh());
    let (theta, sint, cost, tinv) = (T::fresh(), T::fresh(), T::fresh(), T::fresh());
    let (omc, tinv2, ks, kc) = (T::fresh(), T::fresh(), T::fresh(), T::fresh());
    // r × xo, r·xo, (r·xo)·kc and the rotated point
    let (cx0, cx1, cx2, rdx, d) = (T::fresh(), T::fresh(), T::fresh(), T::fresh(), T::fresh());
    let (xc0, xc1, xc2) = (T::fresh(), T::fresh(), T::fresh());
    // projection, distortion, the focal length and the residual before weighting
    let (zinv, pr0, pr1, rsq, rsq2) = (T::fresh(), T::fresh(), T::fresh(), T::fresh(), T::fresh());
    let (big_l, fl, f0, f1) = (T::fresh(), T::fresh(), T::fresh(), T::fresh());
    routine! {
        xo0 += x[0] - cam[3];
        xo1 += x[1] - cam[4];
        xo2 += x[2] - cam[5];
        sqtheta += square(cam[0]);
        sqtheta += square(cam[1]);
        sqtheta += square(cam[2]);
        if sqtheta.val() != 0.0 {
            theta += sqrt(sqtheta);
        }
        (sint, cost) += sincos(theta);
        if sqtheta.val() != 0.0 {
            tinv += 1.0 / theta;
            ks += sint * tinv;
            omc += identity(1.0);
            omc -= identity(cost);
            tinv2 += square(tinv);
            kc += omc * tinv2;
        } else {
            ks += identity(1.0);
        }
        cx0 += cam[1] * xo2;
        cx0 -= cam[2] * xo1;
        cx1 += cam[2] * xo0;
        cx1 -= cam[0] * xo2;
        cx2 += cam[0] * xo1;
        cx2 -= cam[1] * xo0;
        rdx += cam[0] * xo0;
        rdx += cam[1] * xo1;
        rdx += cam[2] * xo2;
        d += rdx * kc;
        xc0 += xo0 * cost;
        xc0 += cx0 * ks;
        xc0 += cam[0] * d;
        xc1 += xo1 * cost;
        xc1 += cx1 * ks;
        xc1 += cam[1] * d;
        xc2 += xo2 * cost;
        xc2 += cx2 * ks;
        xc2 += cam[2] * d;
        zinv += 1.0 / xc2;
        pr0 += xc0 * zinv;
        pr1 += xc1 * zinv;
        rsq += square(pr0);
        rsq += square(pr1);
        rsq2 += square(rsq);
        big_l += identity(1.0);
        big_l += cam[9] * rsq;
        big_l += cam[10] * rsq2;
        fl += cam[6] * big_l;
        f0 += pr0 * fl;
        f0 += identity(cam[7]);
        f0 -= identity(feat[0]);
        f1 += pr1 * fl;
        f1 += identity(cam[8]);
        f1 -= identity(feat[1]);
    }
    err[0] += w * f0;
    err[1] += w * f1;
    uncompute!();
    dealloc!(
        xo0 = T::zero(),
        xo1 = T::zero(),
        xo2 = T::zero(),
        sqtheta = T::zero()
    );
    dealloc!(
        theta = T::zero(),
        sint = T::zero(),
        cost = T::zero(),
        tinv = T::zero()
    );
    dealloc!(
        omc = T::zero(),
        tinv2 = T::zero(),
        ks = T::zero(),
        kc = T::zero()
    );
    dealloc!(
        cx0 = T::zero(),
        cx1 = T::zero(),
        cx2 = T::zero(),
        rdx = T::zero(),
        d = T::zero()
    );
    dealloc!(xc0 = T::zero(), xc1 = T::zero(), xc2 = T::zero());
    dealloc!(
        zinv = T::zero(),
        pr0 = T::zero(),
        pr1 = T::zero(),
        rsq = T::zero(),
        rsq2 = T::zero()
    );
    dealloc!(
        big_l = T::zero(),
        fl = T::zero(),
        f0 = T::zero(),
        f1 = T::zero()
    );
}

/// The two rows of the Jacobian of one observation's reprojection residual with respect to
/// (camera (`NCAM`), point (3), weight): one forward run of [`ba_reproj`] and one adjoint sweep
/// with both rows' gradients in two lanes (`ba_reproj_vjp` on `Lanes<f64, 2>`, fused: the
/// reprojection is not uncomputed and recomputed). No allocation.
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

/// `e += 1 − w²`: the weight residual of one observation.
#[i(nocheck)]
pub fn ba_weight<T: Real>(e: &mut T, w: &mut T) {
    e += identity(1.0);
    e -= square(w);
}

/// The residuals of every observation of `p`: the reprojection residual of observation `k`
/// swapped into `reproj[2k..2k + 2]` and its weight residual added to `w_err[k]`, per
/// observation [`ba_reproj`] and [`ba_weight`] on its own copies of its camera, point and
/// weight (ancillas holding constants: the objective needs no gradient), in a parallel loop
/// whose iterations own those places. With `reproj` and `w_err` all `−0` on entry, each
/// residual is computed as in [`Problem::objective_into`] (from `−0`), so the results are its
/// bits, for every thread count.
#[i(nocheck)]
pub fn ba_residuals<T: Real>(reproj: &mut [T], w_err: &mut [T], p: &Problem) {
    for k in (0..w_err.len()).par().weight(RESIDUAL_WEIGHT) {
        let cam = p.cams[p.obs[k].0].map(T::lit);
        let x = p.x[p.obs[k].1].map(T::lit);
        let w = T::lit(p.w[k]);
        let e = [T::fresh(); 2];
        ba_reproj(e, cam, x, w, &p.feats[k]);
        ba_weight(w_err[k], w);
        for j in 0..2 {
            swap(e[j], reproj[2 * k + j]);
        }
        dealloc!(
            cam = p.cams[p.obs[k].0].map(T::lit),
            x = p.x[p.obs[k].1].map(T::lit),
            w = T::lit(p.w[k]),
            e = [T::fresh(); 2]
        );
    }
}

/// The `ba` input (one of each, replicated).
#[derive(Clone, Debug, Deserialize)]
pub struct Input {
    /// Number of cameras.
    pub n: usize,
    /// Number of points.
    pub m: usize,
    /// Number of observations.
    pub p: usize,
    /// The camera (11 values).
    pub cam: Vec<f64>,
    /// The point (3 values).
    pub x: Vec<f64>,
    /// The weight.
    pub w: f64,
    /// The feature (2 values).
    pub feat: Vec<f64>,
}

/// A bundle adjustment problem with every camera, point, weight and feature materialized.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Cameras, `n × 11`.
    pub cams: Vec<[f64; NCAM]>,
    /// Points, `m × 3`.
    pub x: Vec<[f64; 3]>,
    /// Weights, `p`.
    pub w: Vec<f64>,
    /// Observations: (camera, point), `p`.
    pub obs: Vec<(usize, usize)>,
    /// Features, `p × 2`.
    pub feats: Vec<[f64; 2]>,
}

/// The residuals.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Residuals {
    /// Reprojection residuals, `p × 2`.
    pub reproj: Vec<[f64; 2]>,
    /// Weight residuals, `p`.
    pub w_err: Vec<f64>,
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
    /// A random problem of `n_cams` cameras, `n_points` points and `n_obs` observations, for
    /// sizes that have no data file, reproducible from `seed` (ChaCha8). Needs `n_cams` and
    /// `n_points` positive.
    ///
    /// Distributions (all uniform), in this drawing order:
    ///
    /// * each camera: rotation (angle-axis) in `[−0.3, 0.3)³`, centre in `[−1, 1)³`, focal
    ///   length in `[300, 500)`, principal point in `[−10, 10)²`, radial distortion `k₁` in
    ///   `[−0.1, 0.1)` and `k₂` in `[−0.01, 0.01)`;
    /// * each point: `x, y` in `[−1, 1)`, `z` in `[5, 10)`, so that every point lies well in
    ///   front of every camera (depth at least about 2);
    /// * each observation `i`: camera `i mod n_cams`; point `i` for `i < n_points` (every point
    ///   is seen once the observations suffice), else a uniform point; weight in `[0.5, 1.5)`;
    ///   feature = the exact projection of the point plus a pixel noise in `[−1, 1)²`.
    pub fn random(n_cams: usize, n_points: usize, n_obs: usize, seed: u64) -> Problem {
        assert!(
            n_cams > 0 && n_points > 0,
            "ba: a random problem needs a camera and a point"
        );
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut u = |lo: f64, hi: f64| rng.gen_range(lo..hi);
        let cams: Vec<[f64; NCAM]> = (0..n_cams)
            .map(|_| {
                let mut c = [0.0; NCAM];
                for v in &mut c[0..3] {
                    *v = u(-0.3, 0.3);
                }
                for v in &mut c[3..6] {
                    *v = u(-1.0, 1.0);
                }
                c[6] = u(300.0, 500.0);
                c[7] = u(-10.0, 10.0);
                c[8] = u(-10.0, 10.0);
                c[9] = u(-0.1, 0.1);
                c[10] = u(-0.01, 0.01);
                c
            })
            .collect();
        let x: Vec<[f64; 3]> = (0..n_points)
            .map(|_| [u(-1.0, 1.0), u(-1.0, 1.0), u(5.0, 10.0)])
            .collect();
        let (mut w, mut obs, mut feats) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..n_obs {
            let cam = i % n_cams;
            let pt = if i < n_points {
                i
            } else {
                rng.gen_range(0..n_points)
            };
            let mut u = |lo: f64, hi: f64| rng.gen_range(lo..hi);
            w.push(u(0.5, 1.5));
            let proj = reference_reproj(&cams[cam], &x[pt], 1.0, &[0.0, 0.0]);
            feats.push([proj[0] + u(-1.0, 1.0), proj[1] + u(-1.0, 1.0)]);
            obs.push((cam, pt));
        }
        Problem {
            cams,
            x,
            w,
            obs,
            feats,
        }
    }

    /// Replicates the input as GradBench's reference tool does.
    pub fn from_input(i: &Input) -> Result<Problem, String> {
        if i.cam.len() != NCAM || i.x.len() != 3 || i.feat.len() != 2 {
            return Err(format!(
                "bad `ba` input: `cam`, `x`, `feat` must have 11, 3, 2 values, got {}, {}, {}",
                i.cam.len(),
                i.x.len(),
                i.feat.len()
            ));
        }
        if i.n == 0 || i.m == 0 {
            return Err("bad `ba` input: `n` and `m` must be positive".into());
        }
        let cam: [f64; NCAM] = i.cam.clone().try_into().unwrap();
        Ok(Problem {
            cams: vec![cam; i.n],
            x: vec![[i.x[0], i.x[1], i.x[2]]; i.m],
            w: vec![i.w; i.p],
            obs: (0..i.p).map(|k| (k % i.n, k % i.m)).collect(),
            feats: vec![[i.feat[0], i.feat[1]]; i.p],
        })
    }

    /// Reads an ADBench `ba` data file (see `/work/shared/data/adbench/README.md`) as an input.
    pub fn input_from_adbench(text: &str) -> Result<Input, String> {
        let v: Vec<f64> = text
            .split_whitespace()
            .map(|w| w.parse::<f64>().map_err(|e| format!("{w}: {e}")))
            .collect::<Result<_, _>>()?;
        if v.len() < 3 + NCAM + 3 + 1 + 2 {
            return Err("ADBench ba file too short".into());
        }
        Ok(Input {
            n: v[0] as usize,
            m: v[1] as usize,
            p: v[2] as usize,
            cam: v[3..14].to_vec(),
            x: v[14..17].to_vec(),
            w: v[17],
            feat: v[18..20].to_vec(),
        })
    }

    /// The residuals, by running [`ba_reproj`] and [`ba_weight`] forward.
    pub fn objective(&self) -> Residuals {
        let mut r = Residuals::default();
        self.objective_into(&mut r);
        r
    }

    /// [`Problem::objective`] into `out`, whose buffers are reused (resized to `p` entries
    /// only when they have another length), so repeated runs allocate nothing.
    ///
    /// Each residual is accumulated onto a local negative zero, the exact additive identity
    /// (`+0.0 + e` would be an addition that turns `−0.0` into `+0.0`), and then stored.
    ///
    /// On several threads (the current rayon pool's), the residuals come from the parallel
    /// loop of [`ba_residuals`] instead, on the buffers reset to `−0` (same bits).
    pub fn objective_into(&self, out: &mut Residuals) {
        let p = self.obs.len();
        out.reproj.resize(p, [0.0; 2]);
        out.w_err.resize(p, 0.0);
        if nilang::parallel::several_threads() {
            return self.objective_par(out);
        }
        let rows = out.reproj.iter_mut().zip(&mut out.w_err);
        for (k, ((&(c, pt), feat), (reproj, w_err))) in
            self.obs.iter().zip(&self.feats).zip(rows).enumerate()
        {
            let (mut cam, mut x, mut w) = (self.cams[c], self.x[pt], self.w[k]);
            let (mut e, mut ew) = ([-0.0; 2], -0.0);
            ba_reproj(&mut e, &mut cam, &mut x, &mut w, feat);
            ba_weight(&mut ew, &mut w);
            (*reproj, *w_err) = (e, ew);
        }
    }

    /// [`Problem::objective_into`] by [`ba_residuals`] (buffers of `p` entries). A function
    /// of its own, so that the one-thread loop is compiled as before.
    #[inline(never)]
    fn objective_par(&self, out: &mut Residuals) {
        super::par_fill(&mut out.reproj, [-0.0; 2]);
        super::par_fill(&mut out.w_err, -0.0);
        ba_residuals(out.reproj.as_flattened_mut(), &mut out.w_err, self);
    }

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
        super::par_blocks2(
            reproj_cols,
            reproj_vals,
            2 * ROW,
            BLOCK_WEIGHT,
            |k0, cols, vals| self.reproj_blocks(k0, cols, vals, w_col),
        );
        super::par_blocks2(weight_cols, weight_vals, 1, 1, |k0, cols, vals| {
            self.weight_rows(k0, cols, vals, w_col)
        });
        for (r, start) in j.rows.iter_mut().enumerate() {
            // row r < 2p holds ROW entries, each later one 1
            *start = ROW * r.min(2 * p) + r.saturating_sub(2 * p);
        }
    }
}

impl Problem {
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

/// The reference tool's encoding of the residuals (observations are copies).
pub fn encode_objective(r: &Residuals) -> Value {
    let p = r.w_err.len();
    let first = r.reproj.first().copied().unwrap_or([0.0; 2]);
    json!({
        "reproj_error": {"elements": first, "repeated": p},
        "w_err": {"element": r.w_err.first().copied().unwrap_or(0.0), "repeated": p},
    })
}

/// The reference tool's encoding of the Jacobian: the first 30 entries of each CSR array and
/// its last entry.
pub fn encode_jacobian(j: &Csr) -> Value {
    fn cut<X: Copy + serde::Serialize>(v: &[X]) -> Vec<X> {
        let head = 2 * (NCAM + 4);
        if v.len() <= head + 1 {
            return v.to_vec();
        }
        let mut out = v[..head].to_vec();
        out.push(v[v.len() - 1]);
        out
    }
    json!({"rows": cut(&j.rows), "cols": cut(&j.cols), "vals": cut(&j.vals)})
}

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

/// The memory `function` needs on `i` ([`Need`]): the replicated problem
/// ([`Problem::from_input`]: `n` cameras, `m` points, `p` weights, observations and features)
/// and the output buffers (residuals, or the Jacobian's `3p + 1` row starts and `31p` columns
/// and values). The answer is a cut of fixed size.
pub fn need(function: &str, i: &Input) -> Result<(), String> {
    let mut need = Need::new("ba");
    need.add("n", &[i.n, NCAM], 8)?;
    need.add("m", &[i.m, 3], 8)?;
    need.add("p", &[i.p, 1 + 2 + 2], 8)?;
    let row = NCAM + 4;
    match function {
        "jacobian" => need.add("p", &[i.p, 3 + 2 * (2 * row + 1)], 8),
        _ => need.add("p", &[i.p, 3], 8),
    }
}

/// The `ba` functions: `objective` and `jacobian`. The output buffers are allocated once and
/// reused by every run of the message ([`Problem::objective_into`], [`Problem::jacobian_into`]).
/// The sizes are checked first ([`need`]).
pub fn evaluate(function: &str, input: &Value) -> Result<(Value, Vec<Timing>), String> {
    let inp: Input = decode("ba", input)?;
    need(function, &inp)?;
    let problem = Problem::from_input(&inp)?;
    match function {
        "objective" => {
            let mut r = Residuals::default();
            let run = |r: &mut Residuals| {
                problem.objective_into(r);
                Ok(())
            };
            timed_into_with(input, &mut r, run, encode_objective)
        }
        "jacobian" => {
            let mut j = Csr::default();
            let run = |j: &mut Csr| {
                problem.jacobian_into(j);
                Ok(())
            };
            timed_into_with(input, &mut j, run, encode_jacobian)
        }
        _ => Err(unknown_function("ba", function, &["objective", "jacobian"])),
    }
}
