//! `ht` in plain Rust, the way ADBench's reference computes it: the residuals
//! ([`Problem::reference`]) and the two rotations.

use super::{Problem, NTHETA};

impl Problem {
    /// Plain Rust residuals at `theta` and `us` (the reference for tests), computed the way
    /// ADBench's reference does: posed relatives, absolutes, transforms, every vertex skinned,
    /// mirrored and globally transformed, then the residuals.
    pub fn reference(&self, theta: &[f64], us: &[f64]) -> Vec<f64> {
        let m = &self.model;
        let mut pp = vec![0.0; 3 * (m.nb + 3)];
        for k in 6..NTHETA {
            pp[m.theta_map[k - 6]] = theta[k];
        }
        let mul4 = |a: &[f64; 16], b: &[f64; 16]| {
            let mut c = [0.0; 16];
            for i in 0..4 {
                for j in 0..4 {
                    c[4 * i + j] = (0..4).map(|k| a[4 * i + k] * b[4 * k + j]).sum();
                }
            }
            c
        };
        let mut abs: Vec<[f64; 16]> = Vec::with_capacity(m.nb);
        for b in 0..m.nb {
            let c = 3 * (b + 3);
            let r = reference_euler(&[pp[c], pp[c + 1], pp[c + 2]]);
            let mut t = [0.0; 16];
            for i in 0..3 {
                for j in 0..3 {
                    t[4 * i + j] = r[3 * i + j];
                }
            }
            t[15] = 1.0;
            let rel = mul4(&m.base_relatives[b], &t);
            let a = if m.parents[b] < 0 {
                rel
            } else {
                mul4(&abs[m.parents[b] as usize], &rel)
            };
            abs.push(a);
        }
        let tr: Vec<[f64; 16]> = (0..m.nb)
            .map(|b| mul4(&abs[b], &m.inverse_base_absolutes[b]))
            .collect();
        let rg = reference_angle_axis(&[theta[0], theta[1], theta[2]]);
        let verts: Vec<[f64; 3]> = (0..m.base_positions.len())
            .map(|v| {
                let mut s = [0.0; 3];
                for &(b, w) in &m.influences[v] {
                    for (j, sj) in s.iter_mut().enumerate() {
                        let p = &m.base_positions[v];
                        *sj += w * (0..4).map(|k| tr[b][4 * j + k] * p[k]).sum::<f64>();
                    }
                }
                if m.is_mirrored {
                    s[0] = -s[0];
                }
                [0, 1, 2].map(|j| (0..3).map(|k| rg[3 * j + k] * s[k]).sum::<f64>() + theta[3 + j])
            })
            .collect();
        let mut err = Vec::with_capacity(3 * m.correspondences.len());
        for (i, &c) in m.correspondences.iter().enumerate() {
            let q = if us.is_empty() {
                verts[c]
            } else {
                let t = m.triangles[c];
                let (u0, u1) = (us[2 * i], us[2 * i + 1]);
                [0, 1, 2].map(|j| {
                    u0 * verts[t[0]][j] + u1 * verts[t[1]][j] + (1.0 - u0 - u1) * verts[t[2]][j]
                })
            };
            err.extend(m.points[i].iter().zip(q).map(|(pt, qj)| pt - qj));
        }
        err
    }
}

/// Plain Rust `Rz·Ry·Rx` (row-major) of Euler angles `[x, z, y]`.
pub fn reference_euler(xzy: &[f64; 3]) -> [f64; 9] {
    let (tx, tz, ty) = (xzy[0], xzy[1], xzy[2]);
    let rx = [
        1.0,
        0.0,
        0.0,
        0.0,
        tx.cos(),
        -tx.sin(),
        0.0,
        tx.sin(),
        tx.cos(),
    ];
    let ry = [
        ty.cos(),
        0.0,
        ty.sin(),
        0.0,
        1.0,
        0.0,
        -ty.sin(),
        0.0,
        ty.cos(),
    ];
    let rz = [
        tz.cos(),
        -tz.sin(),
        0.0,
        tz.sin(),
        tz.cos(),
        0.0,
        0.0,
        0.0,
        1.0,
    ];
    let mul3 = |a: &[f64; 9], b: &[f64; 9]| {
        let mut c = [0.0; 9];
        for i in 0..3 {
            for j in 0..3 {
                c[3 * i + j] = (0..3).map(|k| a[3 * i + k] * b[3 * k + j]).sum();
            }
        }
        c
    };
    mul3(&mul3(&rz, &ry), &rx)
}

/// Plain Rust angle-axis rotation matrix (row-major), identity below norm `1e-4`.
pub fn reference_angle_axis(a: &[f64; 3]) -> [f64; 9] {
    let norm = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    if norm < 1e-4 {
        return [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    }
    let (x, y, z) = (a[0] / norm, a[1] / norm, a[2] / norm);
    let (s, c) = (norm.sin(), norm.cos());
    [
        x * x + (1.0 - x * x) * c,
        x * y * (1.0 - c) - z * s,
        x * z * (1.0 - c) + y * s,
        x * y * (1.0 - c) + z * s,
        y * y + (1.0 - y * y) * c,
        y * z * (1.0 - c) - x * s,
        x * z * (1.0 - c) - y * s,
        z * y * (1.0 - c) + x * s,
        z * z + (1.0 - z * z) * c,
    ]
}
