//! `ht`'s reversible program: the pose from `theta` ([`ht_pose`]), each vertex skinned
//! ([`ht_skin`]), each correspondence's residual ([`ht_residual`]), all residuals
//! ([`ht_residuals`]); and the objective, which runs it forward.

use super::{Model, PoseLayout, Problem, NTHETA};
use nilang::{i, Real};

/// The work of one correspondence of [`ht_residuals`]' parallel loop, in units of
/// `(a..b).par().weight(w)` (about a nanosecond of one core's work).
pub const RESIDUAL_WEIGHT: usize = 20;

/// The working memory of [`Problem::objective_into`], kept across the runs of a message.
#[derive(Clone, Debug)]
pub struct ObjectiveBuffers {
    /// The residuals, `3n`.
    pub err: Vec<f64>,
    theta: Vec<f64>,
    us: Vec<f64>,
}

/// `r[ro..ro + 9] += R(a[0..3])`, the rotation matrix (row-major) of the angle-axis vector
/// `a[0..3]`;
/// the identity when its norm is below `1e-4`, as ADBench.
#[i(expand, nocheck)]
pub fn angle_axis_to_matrix<T: Real>(r: &mut [T], ro: usize, a: &mut [T]) {
    let sq = T::zero();
    routine! {
        sq += square(a[0]);
        sq += square(a[1]);
        sq += square(a[2]);
    }
    if sq.val() < 1e-8 {
        r[ro] += identity(1.0);
        r[ro + 4] += identity(1.0);
        r[ro + 8] += identity(1.0);
    } else {
        let (norm, x, y, z) = (T::zero(), T::zero(), T::zero(), T::zero());
        let (s, c, omc) = (T::zero(), T::zero(), T::zero());
        routine! {
            norm += sqrt(sq);
            x += a[0] / norm;
            y += a[1] / norm;
            z += a[2] / norm;
            s += sin(norm);
            c += cos(norm);
            omc += identity(1.0);
            omc -= c;
        }
        r[ro] += c + square(x) * omc;
        r[ro + 1] += x * y * omc - z * s;
        r[ro + 2] += x * z * omc + y * s;
        r[ro + 3] += x * y * omc + z * s;
        r[ro + 4] += c + square(y) * omc;
        r[ro + 5] += y * z * omc - x * s;
        r[ro + 6] += x * z * omc - y * s;
        r[ro + 7] += z * y * omc + x * s;
        r[ro + 8] += c + square(z) * omc;
        uncompute!();
        dealloc!(
            norm = T::zero(),
            x = T::zero(),
            y = T::zero(),
            z = T::zero()
        );
        dealloc!(s = T::zero(), c = T::zero(), omc = T::zero());
    }
    uncompute!();
    dealloc!(sq = T::zero());
}

/// `r[ro..ro + 9] += Rz·Ry·Rx` (row-major) for the Euler angles `a[ao] = x`, `a[ao + 1] = z`,
/// `a[ao + 2] = y` (ADBench's `xzy` order).
#[i(expand, nocheck)]
pub fn euler_to_matrix<T: Real>(r: &mut [T], ro: usize, a: &mut [T], ao: usize) {
    let (cx, sx, cy, sy, cz, sz) = (
        T::zero(),
        T::zero(),
        T::zero(),
        T::zero(),
        T::zero(),
        T::zero(),
    );
    routine! {
        cx += cos(a[ao]);
        sx += sin(a[ao]);
        cz += cos(a[ao + 1]);
        sz += sin(a[ao + 1]);
        cy += cos(a[ao + 2]);
        sy += sin(a[ao + 2]);
    }
    r[ro] += cz * cy;
    r[ro + 1] += cz * sy * sx - sz * cx;
    r[ro + 2] += sz * sx + cz * sy * cx;
    r[ro + 3] += sz * cy;
    r[ro + 4] += cz * cx + sz * sy * sx;
    r[ro + 5] += sz * sy * cx - cz * sx;
    r[ro + 6] -= identity(sy);
    r[ro + 7] += cy * sx;
    r[ro + 8] += cy * cx;
    uncompute!();
    dealloc!(
        cx = T::zero(),
        sx = T::zero(),
        cy = T::zero(),
        sy = T::zero(),
        cz = T::zero(),
        sz = T::zero()
    );
}

/// `tr += ` the top three rows (row-major 3 × 4 per bone) of every bone's skinning transform
/// `absolute · inverse_base_absolute` for the pose `theta`.
#[i(nocheck)]
pub fn ht_transforms<T: Real>(tr: &mut [T], theta: &mut [T], m: &Model) {
    let pp = vec![T::zero(); 3 * (m.nb + 3)];
    let rot = vec![T::zero(); 9 * m.nb];
    let rel = vec![T::zero(); 16 * m.nb];
    let abs = vec![T::zero(); 16 * m.nb];
    routine! {
        for k in 6..NTHETA {
            pp[m.theta_map[k - 6]] += identity(theta[k]);
        }
        for b in 0..m.nb {
            euler_to_matrix(rot, 9 * b, pp, 3 * (b + 3));
            for i in 0..4 {
                for j in 0..3 {
                    for k in 0..3 {
                        rel[16 * b + 4 * i + j] +=
                            rot[9 * b + 3 * k + j] * T::lit(m.base_relatives[b][4 * i + k]);
                    }
                }
                rel[16 * b + 4 * i + 3] += identity(m.base_relatives[b][4 * i + 3]);
            }
            if m.parents[b] < 0 {
                for e in 0..16 {
                    abs[16 * b + e] += identity(rel[16 * b + e]);
                }
            } else {
                for i in 0..4 {
                    for j in 0..4 {
                        for k in 0..4 {
                            abs[16 * b + 4 * i + j] += abs[16 * (m.parents[b] as usize) + 4 * i + k]
                                * rel[16 * b + 4 * k + j];
                        }
                    }
                }
            }
        }
    }
    for b in 0..m.nb {
        for i in 0..3 {
            for j in 0..4 {
                for k in 0..4 {
                    tr[12 * b + 4 * i + j] +=
                        abs[16 * b + 4 * i + k] * T::lit(m.inverse_base_absolutes[b][4 * k + j]);
                }
            }
        }
    }
    uncompute!();
    dealloc!(pp = vec![T::zero(); 3 * (m.nb + 3)]);
    dealloc!(rot = vec![T::zero(); 9 * m.nb]);
    dealloc!(rel = vec![T::zero(); 16 * m.nb]);
    dealloc!(abs = vec![T::zero(); 16 * m.nb]);
}

/// `s[so..so + 3] += Σ_b w_b (T_b · p)[0..3]`, vertex `v` skinned by the transforms in `tr`
/// (a pose buffer of layout `lay`).
#[i(nocheck)]
pub fn ht_skin<T: Real>(
    s: &mut [T],
    so: usize,
    tr: &mut [T],
    m: &Model,
    lay: &PoseLayout,
    v: usize,
) {
    for q in 0..m.influences[v].len() {
        for j in 0..3 {
            for k in 0..4 {
                s[so + j] += tr[12 * lay.slot[m.influences[v][q].0] + 4 * j + k]
                    * T::lit(m.influences[v][q].1 * m.base_positions[v][k]);
            }
        }
    }
}

/// `s[0..3] += u₀·src[o₀..] + u₁·src[o₁..] + (1 − u₀ − u₁)·src[o₂..]` with `(u₀, u₁)` the
/// pair `us[2k..2k + 2]`: a point of a triangle from its three (skinned) vertices.
#[i(nocheck)]
pub fn ht_blend<T: Real>(s: &mut [T], src: &mut [T], o: [usize; 3], us: &mut [T], k: usize) {
    for j in 0..3 {
        s[j] += us[2 * k] * src[o[0] + j];
        s[j] += us[2 * k + 1] * src[o[1] + j];
        s[j] += identity(src[o[2] + j]);
        s[j] -= us[2 * k] * src[o[2] + j];
        s[j] -= us[2 * k + 1] * src[o[2] + j];
    }
}

/// `pose += ` the skinning transforms of [`ht_transforms`] (12 per bone) followed by the
/// global rotation matrix (9), for the pose `theta`.
#[i(nocheck)]
pub fn ht_pose<T: Real>(pose: &mut [T], theta: &mut [T], m: &Model) {
    ht_transforms(pose, theta, m);
    angle_axis_to_matrix(pose, 12 * m.nb, theta);
}

/// `err[3(i − lo) + j] += points[i][j] − (R_global · mirror(s) + t)[j]` for correspondence
/// `i` and its skinned point `s`, `R_global` read from `pose` (layout `lay`; `t` is
/// `theta[3..6]`).
#[i(nocheck)]
#[allow(clippy::too_many_arguments)]
pub fn ht_place<T: Real>(
    err: &mut [T],
    s: &mut [T],
    pose: &mut [T],
    theta: &mut [T],
    m: &Model,
    lay: &PoseLayout,
    i: usize,
    lo: usize,
) {
    if m.is_mirrored {
        neg(s[0]);
    }
    for j in 0..3 {
        err[3 * (i - lo) + j] += identity(m.points[i][j]);
        err[3 * (i - lo) + j] -= identity(theta[3 + j]);
        for k in 0..3 {
            err[3 * (i - lo) + j] -= pose[lay.global + 3 * j + k] * s[k];
        }
    }
    if m.is_mirrored {
        neg(s[0]);
    }
}

/// `err[0..3] +=` the residual of correspondence `i` from skinned vertices `sk`: its point
/// (the vertex at offset `o[0]`, or, when `us` is not empty, [`ht_blend`] of the triangle's
/// three at offsets `o` with the pair `us[2(i − lo)..]`) computed into `s` (zero on entry;
/// zero to round-off on return), placed ([`ht_place`]) and uncomputed.
#[i(nocheck)]
#[allow(clippy::too_many_arguments)]
pub fn ht_residual<T: Real>(
    err: &mut [T],
    s: &mut [T],
    sk: &mut [T],
    o: [usize; 3],
    pose: &mut [T],
    theta: &mut [T],
    us: &mut [T],
    m: &Model,
    lay: &PoseLayout,
    i: usize,
    lo: usize,
) {
    routine! {
        if us.is_empty() {
            for j in 0..3 {
                s[j] += identity(sk[o[0] + j]);
            }
        } else {
            ht_blend(s, sk, o, us, i - lo);
        }
    }
    ht_place(err, s, pose, theta, m, lay, i, i);
    uncompute!();
}

/// The residuals of correspondences `lo..hi` into `err[3(i − lo)..]`: the pose ([`ht_pose`])
/// and every skinned vertex ([`ht_skin`]) computed once, then the correspondences in a
/// parallel loop (`.par()`), each taking its point from them (its vertex, or [`ht_blend`] of
/// its triangle with its own pair of `us`) in a scratch point of its own and placing it
/// ([`ht_residual`]), then the pose and the vertices uncomputed. `us` is empty (simple) or holds the barycentric coordinates of
/// correspondences `lo..hi` (complicated). Every residual is computed alone, so the result is
/// the same bits for every thread count.
#[i(nocheck)]
pub fn ht_residuals<T: Real>(
    err: &mut [T],
    theta: &mut [T],
    us: &mut [T],
    m: &Model,
    lo: usize,
    hi: usize,
) {
    let pose = vec![T::zero(); 12 * m.nb + 9];
    let sk = vec![T::zero(); 3 * m.base_positions.len()];
    routine! {
        ht_pose(pose, theta, m);
        for v in 0..m.base_positions.len() {
            ht_skin(sk, 3 * v, pose, m, &m.layout, v);
        }
    }
    // each correspondence's pair of `us` (an owned slot, so that no chunk copies all of `us`),
    // empty slots in the simple variant
    let pair = if us.is_empty() { 0 } else { 2 };
    for k in (0..hi - lo).par().weight(RESIDUAL_WEIGHT) {
        let s = [T::zero(); 3];
        ht_residual(
            err[3 * k..3 * k + 3],
            s,
            sk,
            m.point_offsets(lo + k, pair > 0),
            pose,
            theta,
            us[pair * k..pair * k + pair],
            m,
            &m.layout,
            lo + k,
            lo + k,
        );
        dealloc!(s = [T::zero(); 3]);
    }
    dealloc!(pair = if us.is_empty() { 0 } else { 2 });
    uncompute!();
    dealloc!(pose = vec![T::zero(); 12 * m.nb + 9]);
    dealloc!(sk = vec![T::zero(); 3 * m.base_positions.len()]);
}

impl Problem {
    /// The `3n` residuals, by running [`ht_residuals`] forward on all correspondences: its
    /// parallel loop over them runs on the current rayon pool's threads. The same bits for
    /// every thread count.
    pub fn objective(&self) -> Vec<f64> {
        let mut buffers = self.objective_buffers();
        self.objective_into(&mut buffers);
        buffers.err
    }

    /// The buffers of [`Problem::objective_into`]: the residuals, and copies of `θ` and `us`.
    pub fn objective_buffers(&self) -> ObjectiveBuffers {
        ObjectiveBuffers {
            err: vec![0.0; 3 * self.model.correspondences.len()],
            theta: self.theta.clone(),
            us: self.us.clone(),
        }
    }

    /// [`Problem::objective`] into `b`, made by [`Problem::objective_buffers`] and kept across
    /// runs: the residuals are zeroed and recomputed, and the program restores the copies of
    /// `θ` and `us` it runs on, so a run allocates nothing (fresh buffers cost a quarter of the
    /// objective at hand11: the kernel zeroing new pages).
    pub fn objective_into(&self, b: &mut ObjectiveBuffers) {
        let n = self.model.correspondences.len();
        b.err.fill(0.0);
        ht_residuals(&mut b.err, &mut b.theta, &mut b.us, &self.model, 0, n);
    }
}
