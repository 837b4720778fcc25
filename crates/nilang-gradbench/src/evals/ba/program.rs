//! `ba`'s reversible residuals ([`ba_reproj`], [`ba_weight`], all of them in parallel:
//! [`ba_residuals`]) and the objective that runs them.

use super::{Problem, NCAM};
use crate::evals::{par_fill, Fresh};
use nilang::{i, Real};

/// The work of one observation's residuals ([`ba_residuals`]) in units of
/// `(a..b).par().weight(w)` (about a nanosecond of one core's work).
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
/// allocated first (at [`Fresh::fresh`], negative zero), computed once, and read by the
/// residual `err += w·f`. The unchecked forward stops after the residual; the fused gradient
/// (`ba_reproj_vjp`) runs the computation once on values and its adjoint once, with nothing
/// recomputed. Divisions are two reciprocals (`1/θ`, `1/xc₂`), as the hand-written derivative
/// does.
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

/// The residuals.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Residuals {
    /// Reprojection residuals, `p × 2`.
    pub reproj: Vec<[f64; 2]>,
    /// Weight residuals, `p`.
    pub w_err: Vec<f64>,
}

impl Problem {
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
        par_fill(&mut out.reproj, [-0.0; 2]);
        par_fill(&mut out.w_err, -0.0);
        ba_residuals(out.reproj.as_flattened_mut(), &mut out.w_err, self);
    }
}
