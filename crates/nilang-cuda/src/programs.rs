//! Kernels of the ADBench problems written in the reversible language. The same source is
//! compiled as Rust by `#[i]` and translated to C++/CUDA by `nilang-cgen` ([`SOURCE`] is this
//! file's text), so both run exactly one program.

use nilang::{i, Real};

/// This file's source text: what `nilang_cgen` translates (with kernel specs of one's own,
/// e.g. shared parameters). `#[i(cuda)]` also gives each function's text as a constant:
/// [`BA_RESIDUAL_CUDA`], [`GMM_POINT_CUDA`].
pub const SOURCE: &str = include_str!("programs.rs");

/// The ADBench bundle-adjustment reprojection residual of one observation:
/// `err += w · (proj(cam, x) − feat)`, with `cam` the 11 camera parameters (angle-axis rotation
/// r(3), centre C(3), focal length f, principal point x0(2), radial distortion k(2)), `x` the
/// 3D point, `w` the weight and `feat` the observed feature (2).
///
/// `proj`: the point in camera coordinates `R(r)·(x − C)` (Rodrigues' formula, or its
/// first-order form `p + r × p` for r = 0), divided by its depth, distorted by
/// `1 + k₁ρ² + k₂ρ⁴`, scaled by f and shifted by x0. Every intermediate lives in an ancilla
/// that is uncomputed at the end (`routine!`/`uncompute!`): no allocation, so it runs as a GPU
/// kernel. Its gradient with respect to (cam, x, w), per output, is a row of the 2×15 Jacobian
/// block of the observation.
#[i(cuda)]
pub fn ba_residual<T: Real>(err: &mut [T], cam: &mut [T], x: &mut [T], w: &mut T, feat: &[f64]) {
    let (p0, p1, p2) = (T::zero(), T::zero(), T::zero());
    let (sqtheta, theta, ct, st, itheta) = (T::zero(), T::zero(), T::zero(), T::zero(), T::zero());
    let (w0, w1, w2) = (T::zero(), T::zero(), T::zero());
    let (c0, c1, c2) = (T::zero(), T::zero(), T::zero());
    let (dot, omc, tmp) = (T::zero(), T::zero(), T::zero());
    let (r0, r1, r2) = (T::zero(), T::zero(), T::zero());
    let (q0, q1, rsq, rsq2, l) = (T::zero(), T::zero(), T::zero(), T::zero(), T::zero());
    let (d0, d1, e0, e1) = (T::zero(), T::zero(), T::zero(), T::zero());
    routine! {
        p0 += x[0] - cam[3];
        p1 += x[1] - cam[4];
        p2 += x[2] - cam[5];
        sqtheta += square(cam[0]);
        sqtheta += square(cam[1]);
        sqtheta += square(cam[2]);
        if sqtheta.val() != 0.0 {
            theta += sqrt(sqtheta);
            ct += cos(theta);
            st += sin(theta);
            itheta += 1.0 / theta;
            w0 += cam[0] * itheta;
            w1 += cam[1] * itheta;
            w2 += cam[2] * itheta;
            c0 += w1 * p2;
            c0 -= w2 * p1;
            c1 += w2 * p0;
            c1 -= w0 * p2;
            c2 += w0 * p1;
            c2 -= w1 * p0;
            dot += w0 * p0;
            dot += w1 * p1;
            dot += w2 * p2;
            omc += identity(1.0);
            omc -= identity(ct);
            tmp += dot * omc;
            r0 += p0 * ct;
            r0 += c0 * st;
            r0 += w0 * tmp;
            r1 += p1 * ct;
            r1 += c1 * st;
            r1 += w1 * tmp;
            r2 += p2 * ct;
            r2 += c2 * st;
            r2 += w2 * tmp;
        } else {
            r0 += identity(p0);
            r0 += cam[1] * p2;
            r0 -= cam[2] * p1;
            r1 += identity(p1);
            r1 += cam[2] * p0;
            r1 -= cam[0] * p2;
            r2 += identity(p2);
            r2 += cam[0] * p1;
            r2 -= cam[1] * p0;
        }
        q0 += r0 / r2;
        q1 += r1 / r2;
        rsq += square(q0);
        rsq += square(q1);
        rsq2 += square(rsq);
        l += identity(1.0);
        l += cam[9] * rsq;
        l += cam[10] * rsq2;
        d0 += q0 * l;
        d1 += q1 * l;
        e0 += d0 * cam[6];
        e0 += identity(cam[7]);
        e0 -= identity(feat[0]);
        e1 += d1 * cam[6];
        e1 += identity(cam[8]);
        e1 -= identity(feat[1]);
    }
    err[0] += w * e0;
    err[1] += w * e1;
    uncompute!();
    dealloc!(p0 = T::zero(), p1 = T::zero(), p2 = T::zero());
    dealloc!(
        sqtheta = T::zero(),
        theta = T::zero(),
        ct = T::zero(),
        st = T::zero(),
        itheta = T::zero()
    );
    dealloc!(w0 = T::zero(), w1 = T::zero(), w2 = T::zero());
    dealloc!(c0 = T::zero(), c1 = T::zero(), c2 = T::zero());
    dealloc!(dot = T::zero(), omc = T::zero(), tmp = T::zero());
    dealloc!(r0 = T::zero(), r1 = T::zero(), r2 = T::zero());
    dealloc!(
        q0 = T::zero(),
        q1 = T::zero(),
        rsq = T::zero(),
        rsq2 = T::zero(),
        l = T::zero()
    );
    dealloc!(
        d0 = T::zero(),
        d1 = T::zero(),
        e0 = T::zero(),
        e1 = T::zero()
    );
}

/// The per-point term of the ADBench Gaussian mixture model objective:
/// `out += log Σ_c exp(α_c + Σ_i q_ci − ½‖Q_c (x − μ_c)‖²)`, where `Q_c` is lower triangular
/// with diagonal `exp(q_c)` and strictly-lower part `l_c` (column-major, ADBench's layout).
/// `x` is the point (d), `alphas` (k), `means` (k·d), `qs` (k·d) and `ls` (k·d(d−1)/2) the
/// mixture's parameters, shared by every point of a batch. (No max-shift in the log-sum-exp:
/// a small, well-scaled term.)
#[i(cuda)]
pub fn gmm_point<T: Real>(
    out: &mut T,
    x: &[f64],
    alphas: &mut [T],
    means: &mut [T],
    qs: &mut [T],
    ls: &mut [T],
    d: usize,
    k: usize,
) {
    let sumexp = T::zero();
    routine! {
        for c in 0..k {
            let main = T::zero();
            let sq = T::zero();
            let sumq = T::zero();
            routine! {
                for i in 0..d {
                    sumq += identity(qs[c * d + i]);
                    let z = T::zero();
                    routine! {
                        let e = T::zero();
                        let v = T::zero();
                        e += exp(qs[c * d + i]);
                        v += identity(x[i]);
                        v -= identity(means[c * d + i]);
                        z += e * v;
                        v += identity(means[c * d + i]);
                        v -= identity(x[i]);
                        e -= exp(qs[c * d + i]);
                        dealloc!(e = T::zero(), v = T::zero());
                        for j in 0..i {
                            let u = T::zero();
                            u += identity(x[j]);
                            u -= identity(means[c * d + j]);
                            z += ls[c * (d * (d - 1) / 2) + j * d - j * (j + 1) / 2 + i - j - 1] * u;
                            u += identity(means[c * d + j]);
                            u -= identity(x[j]);
                            dealloc!(u = T::zero());
                        }
                    }
                    sq += square(z);
                    uncompute!();
                    dealloc!(z = T::zero());
                }
                main += identity(alphas[c]);
                main += identity(sumq);
                main -= 0.5 * sq;
            }
            sumexp += exp(main);
            uncompute!();
            dealloc!(main = T::zero(), sq = T::zero(), sumq = T::zero());
        }
    }
    out += log(sumexp);
    uncompute!();
    dealloc!(sumexp = T::zero());
}
