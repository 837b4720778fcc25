//! `ht` as a natural program: the hand tracking residuals as plain Rust (the functions of
//! GradBench's `ht.hpp`: Euler and angle-axis rotations, posed relatives, absolutes along the
//! bone tree, skinning with the bones of zero weight skipped, the global transform), its
//! helpers writing into output slices; the Jacobian by forward mode, the front end's taped
//! program run once on [`nilang::DualN`] with one tangent per column (26 pose angles, and in
//! the complicated variant two more: every `u₀`, every `u₁`, since a residual reads only its
//! own).

use crate::evals::ht::{Problem, RowMajor, NTHETA};
use nilang::{differentiable, DualN};

/// `c = a b` for `n × n` row-major matrices.
#[differentiable]
fn mat_mul(a: &[f64], b: &[f64], n: usize, c: &mut [f64]) {
    for i in 0..n {
        for j in 0..n {
            let mut s = 0.0;
            for k in 0..n {
                s += a[i * n + k] * b[k * n + j];
            }
            c[i * n + j] = s;
        }
    }
}

/// `r = Rz Ry Rx` (row-major) of the Euler angles `a = [x, z, y]`.
#[differentiable]
fn euler_to_matrix(a: &[f64], r: &mut [f64]) {
    let (cx, sx) = (a[0].cos(), a[0].sin());
    let (cz, sz) = (a[1].cos(), a[1].sin());
    let (cy, sy) = (a[2].cos(), a[2].sin());
    let rx = [1.0, 0.0, 0.0, 0.0, cx, -sx, 0.0, sx, cx];
    let ry = [cy, 0.0, sy, 0.0, 1.0, 0.0, -sy, 0.0, cy];
    let rz = [cz, -sz, 0.0, sz, cz, 0.0, 0.0, 0.0, 1.0];
    let mut zy = vec![0.0; 9];
    mat_mul(&rz, &ry, 3, &mut zy);
    mat_mul(&zy, &rx, 3, r);
}

/// `r`: the rotation (row-major) of the angle-axis vector `a`; the identity below norm 1e-4.
#[differentiable]
fn angle_axis_to_matrix(a: &[f64], r: &mut [f64]) {
    let norm = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    if norm < 1e-4 {
        for i in 0..3 {
            for j in 0..3 {
                r[3 * i + j] = if i == j { 1.0 } else { 0.0 };
            }
        }
    } else {
        let (x, y, z) = (a[0] / norm, a[1] / norm, a[2] / norm);
        let (s, c) = (norm.sin(), norm.cos());
        r[0] = x * x + (1.0 - x * x) * c;
        r[1] = x * y * (1.0 - c) - z * s;
        r[2] = x * z * (1.0 - c) + y * s;
        r[3] = x * y * (1.0 - c) + z * s;
        r[4] = y * y + (1.0 - y * y) * c;
        r[5] = y * z * (1.0 - c) - x * s;
        r[6] = x * z * (1.0 - c) - y * s;
        r[7] = z * y * (1.0 - c) + x * s;
        r[8] = z * z + (1.0 - z * z) * c;
    }
}

/// The residuals `err` (`3n`) at the pose `theta` (26) and, when non-empty, the barycentric
/// coordinates `us` (`2n`). The model: `parents` (−1 for a root, parents first), per bone a
/// 4 × 4 base relative and inverse base absolute (`16·bones`, row-major), homogeneous vertex
/// positions (`4·vertices`), dense weights (`vertices × bones`), triangles (`3·triangles`),
/// the measured points (`3n`) and their correspondences, and where `theta[6..]` goes in the
/// pose parameters (`theta_map`).
// (the base transforms are differentiated too: a slice of data cannot yet be passed to a
// differentiable parameter of a callee, here `mat_mul`'s)
#[differentiable(wrt(theta, us, base_relatives, inverse_base_absolutes))]
#[allow(clippy::too_many_arguments)]
pub fn residuals(
    theta: &[f64],
    us: &[f64],
    parents: &[i64],
    base_relatives: &[f64],
    inverse_base_absolutes: &[f64],
    base_positions: &[f64],
    weights: &[f64],
    triangles: &[usize],
    correspondences: &[usize],
    points: &[f64],
    theta_map: &[usize],
    mirrored: bool,
    err: &mut [f64],
) {
    let nb = parents.len();
    let nv = base_positions.len() / 4;
    let mut pose = vec![0.0; 3 * (nb + 3)];
    for k in 6..theta.len() {
        pose[theta_map[k - 6]] = theta[k];
    }
    // posed relatives, absolutes along the tree, skinning transforms
    let mut absolutes = vec![0.0; 16 * nb];
    let mut transforms = vec![0.0; 16 * nb];
    let mut rotation = vec![0.0; 9];
    let mut posed = vec![0.0; 16];
    let mut relative = vec![0.0; 16];
    let mut parent = vec![0.0; 16];
    for b in 0..nb {
        euler_to_matrix(&pose[3 * (b + 3)..3 * (b + 3) + 3], &mut rotation);
        for i in 0..3 {
            for j in 0..3 {
                posed[4 * i + j] = rotation[3 * i + j];
            }
        }
        posed[15] = 1.0;
        mat_mul(
            &base_relatives[16 * b..16 * b + 16],
            &posed,
            4,
            &mut relative,
        );
        if parents[b] < 0 {
            for i in 0..16 {
                absolutes[16 * b + i] = relative[i];
            }
        } else {
            let p = parents[b] as usize;
            for i in 0..16 {
                parent[i] = absolutes[16 * p + i];
            }
            mat_mul(&parent, &relative, 4, &mut absolutes[16 * b..16 * b + 16]);
        }
        mat_mul(
            &absolutes[16 * b..16 * b + 16],
            &inverse_base_absolutes[16 * b..16 * b + 16],
            4,
            &mut transforms[16 * b..16 * b + 16],
        );
    }
    // every vertex skinned, mirrored, globally rotated and translated
    let mut global = vec![0.0; 9];
    angle_axis_to_matrix(&theta[0..3], &mut global);
    let mut vertices = vec![0.0; 3 * nv];
    let mut skinned = vec![0.0; 3];
    for v in 0..nv {
        for j in 0..3 {
            skinned[j] = 0.0;
        }
        for b in 0..nb {
            let w = weights[v * nb + b];
            if w != 0.0 {
                for j in 0..3 {
                    let mut s = 0.0;
                    for k in 0..4 {
                        s += transforms[16 * b + 4 * j + k] * base_positions[4 * v + k];
                    }
                    skinned[j] += w * s;
                }
            }
        }
        if mirrored {
            skinned[0] = -skinned[0];
        }
        for j in 0..3 {
            let mut s = theta[3 + j];
            for k in 0..3 {
                s += global[3 * j + k] * skinned[k];
            }
            vertices[3 * v + j] = s;
        }
    }
    for i in 0..correspondences.len() {
        let c = correspondences[i];
        for j in 0..3 {
            if us.len() == 0 {
                err[3 * i + j] = points[3 * i + j] - vertices[3 * c + j];
            } else {
                let (u0, u1) = (us[2 * i], us[2 * i + 1]);
                let (t0, t1, t2) = (triangles[3 * c], triangles[3 * c + 1], triangles[3 * c + 2]);
                let q = u0 * vertices[3 * t0 + j]
                    + u1 * vertices[3 * t1 + j]
                    + (1.0 - u0 - u1) * vertices[3 * t2 + j];
                err[3 * i + j] = points[3 * i + j] - q;
            }
        }
    }
}

/// The model's arrays in the layout [`residuals`] reads.
struct Flat {
    parents: Vec<i64>,
    base_relatives: Vec<f64>,
    inverse_base_absolutes: Vec<f64>,
    base_positions: Vec<f64>,
    weights: Vec<f64>,
    triangles: Vec<usize>,
    points: Vec<f64>,
}

impl Problem {
    fn flat(&self) -> Flat {
        let m = &self.model;
        let nv = m.base_positions.len();
        let mut weights = vec![0.0; nv * m.nb];
        for (v, influences) in m.influences.iter().enumerate() {
            for &(b, w) in influences {
                weights[v * m.nb + b] = w;
            }
        }
        Flat {
            parents: m.parents.clone(),
            base_relatives: m.base_relatives.concat(),
            inverse_base_absolutes: m.inverse_base_absolutes.concat(),
            base_positions: m.base_positions.concat(),
            weights,
            triangles: m.triangles.concat(),
            points: m.points.concat(),
        }
    }

    /// The residuals by the natural program (plain Rust).
    pub fn natural_objective(&self) -> Vec<f64> {
        let (m, f) = (&self.model, self.flat());
        let mut err = vec![0.0; 3 * m.correspondences.len()];
        residuals(
            &self.theta,
            &self.us,
            &f.parents,
            &f.base_relatives,
            &f.inverse_base_absolutes,
            &f.base_positions,
            &f.weights,
            &f.triangles,
            &m.correspondences,
            &f.points,
            &m.theta_map,
            m.is_mirrored,
            &mut err,
        );
        err
    }

    /// The Jacobian by the natural program: its taped program `residuals_rev_taped` run
    /// forward once on dual numbers with `2 + 26` tangents (every `u₀`, every `u₁`, then `theta`); the simple variant's
    /// rows are the last 26, the complicated variant's all 28 (as GradBench's reference).
    pub fn natural_jacobian(&self) -> RowMajor {
        type D = DualN<f64, { 2 + NTHETA }>;
        let (m, f) = (&self.model, self.flat());
        let constants = |x: &[f64]| x.iter().map(|&v| D::constant(v)).collect::<Vec<D>>();
        let mut theta: Vec<D> = (0..NTHETA)
            .map(|k| D::seeded(self.theta[k], 2 + k))
            .collect();
        let mut us: Vec<D> = (0..self.us.len())
            .map(|k| D::seeded(self.us[k], k % 2))
            .collect();
        let mut err = vec![D::constant(0.0); 3 * m.correspondences.len()];
        // forward mode needs the computation only: the taped program runs it once and leaves
        // what it overwrote on a tape, dropped here (`residuals_rev` would undo it again). The
        // tape is a pooled `Tape`: its megabytes of dual numbers, grown afresh on every call,
        // cost page faults that took 30 ms of a 35 ms Jacobian under GradBench's CLI
        let (mut tape, mut decisions) =
            (nilang::stack::Tape::new(), nilang::stack::Decisions::new());
        residuals_rev_taped(
            &mut tape,
            &mut decisions,
            &mut theta,
            &mut us,
            &f.parents,
            &mut constants(&f.base_relatives),
            &mut constants(&f.inverse_base_absolutes),
            &f.base_positions,
            &f.weights,
            &f.triangles,
            &m.correspondences,
            &f.points,
            &m.theta_map,
            m.is_mirrored,
            &mut err,
        );
        let skip = if self.complicated() { 0 } else { 2 };
        RowMajor {
            cols: 2 + NTHETA - skip,
            data: err.iter().flat_map(|e| e.eps[skip..].to_vec()).collect(),
        }
    }
}
