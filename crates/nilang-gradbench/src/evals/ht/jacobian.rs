//! `ht`'s Jacobian in three stages chained ([`Problem::jacobian`]): the pose with respect to
//! `theta` forward on dual numbers, each skinned vertex with respect to the pose by reversal,
//! each correspondence's rows by reversal; and the one-stage check
//! ([`Problem::jacobian_direct`]).

use super::{ht_pose, ht_residual_vjp, ht_residuals_jacobian_of, ht_skin, ht_skin_vjp};
use super::{PoseLayout, Problem, NTHETA};
use crate::evals::par_blocks;
use nilang::{DualN, Lanes, Loss};

/// Tangents per forward pass of the pose Jacobian (two passes cover the 26 angles).
const POSE_TANGENTS: usize = 13;

/// The work of one correspondence's three Jacobian rows (stage three of [`Problem::jacobian`])
/// in units of `(a..b).par().weight(w)` (about a nanosecond of one core's work;
/// [`par_blocks`]).
const ROWS_WEIGHT: usize = 400;

/// A matrix stored row after row in one buffer (the Jacobian: no allocation per row);
/// serialised as a list of rows, as GradBench expects.
#[derive(Clone, Debug, PartialEq)]
pub struct RowMajor {
    /// Values per row.
    pub cols: usize,
    /// The values, row after row.
    pub data: Vec<f64>,
}

impl RowMajor {
    /// The rows.
    pub fn rows(&self) -> std::slice::Chunks<'_, f64> {
        self.data.chunks(self.cols)
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.data.len() / self.cols
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
}

impl serde::Serialize for RowMajor {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.rows())
    }
}

/// What stage three of [`Problem::jacobian`] reads from the first two stages.
struct Stages<'a> {
    /// The global rotation's rows of the pose Jacobian, by column of `θ`.
    jr: SparseRows,
    /// Columns before `θ` in a row: 2 (`∂u₀`, `∂u₁`) in the complicated variant, else 0.
    off: usize,
    /// The global rotation (9 values of the pose).
    rotation: &'a [f64],
    /// Every vertex skinned (3 values each).
    sk: Vec<f64>,
    /// The skinned vertices' Jacobians with respect to `θ` (`3 × 26` per vertex).
    jv: Vec<f64>,
}

/// Seeds for three rows of a Jacobian in one adjoint sweep: lane `k` of value `k` is 1.
fn three_rows() -> [Lanes<f64, 4>; 3] {
    std::array::from_fn(|k| Lanes::unit(k, 1.0))
}

/// The non-zeros of a matrix, row by row: the pose Jacobian `∂pose/∂θ` is sparse, since a
/// bone's transform depends only on the few angles along its chain of the bone tree.
#[derive(Clone, Debug)]
struct SparseRows {
    /// Where each row's non-zeros start in `cols` and `values` (one more than the rows).
    start: Vec<usize>,
    cols: Vec<usize>,
    values: Vec<f64>,
}

impl SparseRows {
    /// The non-zeros of the given dense rows.
    fn of<'a>(rows: impl Iterator<Item = &'a [f64]>) -> SparseRows {
        let mut m = SparseRows {
            start: vec![0],
            cols: Vec::new(),
            values: Vec::new(),
        };
        for row in rows {
            for (k, &v) in row.iter().enumerate().filter(|(_, &v)| v != 0.0) {
                m.cols.push(k);
                m.values.push(v);
            }
            m.start.push(m.cols.len());
        }
        m
    }

    /// The non-zeros of rows `rows` (of a matrix of `cols` columns) by column: row `c` of the
    /// result holds, for column `c`, the rows (counted from `rows.start`) and values.
    fn transposed_rows(&self, rows: std::ops::Range<usize>, cols: usize) -> SparseRows {
        let dense: Vec<Vec<f64>> = (0..cols)
            .map(|c| {
                rows.clone()
                    .map(|r| {
                        let (cs, values) = self.row(r);
                        cs.iter().position(|&k| k == c).map_or(0.0, |p| values[p])
                    })
                    .collect()
            })
            .collect();
        SparseRows::of(dense.iter().map(Vec::as_slice))
    }

    /// The columns and values of row `r`'s non-zeros.
    fn row(&self, r: usize) -> (&[usize], &[f64]) {
        let range = self.start[r]..self.start[r + 1];
        (&self.cols[range.clone()], &self.values[range])
    }
}

impl Problem {
    /// The Jacobian, row-major `3n × (26 or 28)` (complicated: `∂u₀`, `∂u₁` of the row's own
    /// correspondence, then `∂θ`), in three stages chained: the pose (`12·bones + 9` values)
    /// with respect to `θ` (`pose_jacobian`, forward on dual numbers, once); by reversal,
    /// every vertex a correspondence uses,
    /// skinned, with respect to `θ` (`vertex_jacobians`, once per vertex); and per
    /// correspondence its three residuals with respect to its skinned vertices, the global
    /// rotation, the translation and `us` ([`ht_residual_vjp`] with the three rows in lanes),
    /// multiplied into the first two.
    pub fn jacobian(&self) -> Result<RowMajor, String> {
        let mut out = RowMajor {
            cols: 1,
            data: Vec::new(),
        };
        self.jacobian_into(&mut out)?;
        Ok(out)
    }

    /// [`Problem::jacobian`] into `out`, reusing its buffer (every entry is written). Stage
    /// three runs on the chunks of the parallel loop when the current rayon pool has several
    /// threads ([`par_blocks`]: each correspondence's rows are computed alone, so the
    /// result is the same bits for every thread count). It is plain Rust around one adjoint
    /// sweep per correspondence, each with its own seeds and its own gradients (the rows), so
    /// it is not the adjoint of [`ht_residuals`](super::ht_residuals)' `.par()` loop, which
    /// would sum the correspondences' gradients.
    pub fn jacobian_into(&self, out: &mut RowMajor) -> Result<(), String> {
        let m = &self.model;
        let (jp, pose) = self.pose_jacobian();
        let (sk, jv) = self.vertex_jacobians(&pose, &jp);
        let stages = Stages {
            jr: jp.transposed_rows(12 * m.nb..12 * m.nb + 9, NTHETA),
            off: if self.complicated() { 2 } else { 0 },
            rotation: &pose[12 * m.nb..],
            sk,
            jv,
        };
        let cols = stages.off + NTHETA;
        out.cols = cols;
        out.data.resize(3 * cols * m.correspondences.len(), 0.0);
        par_blocks(&mut out.data, 3 * cols, ROWS_WEIGHT, |i0, rows| {
            self.correspondence_rows(i0, rows, &stages)
        });
        Ok(())
    }

    /// Stage three of [`Problem::jacobian`] for correspondences `i0..` (three rows each, as
    /// many as `out` holds): per correspondence its three residuals with respect to its skinned
    /// vertices, the global rotation, the translation and `us` ([`ht_residual_vjp`] with the
    /// three rows in lanes), multiplied into the Jacobians of the first two (`stages`).
    fn correspondence_rows(&self, i0: usize, out: &mut [f64], stages: &Stages) {
        let m = &self.model;
        let cx = self.complicated();
        let Stages {
            jr,
            off,
            rotation,
            sk,
            jv,
        } = stages;
        let off = *off;
        let global = PoseLayout::of_vertices(m, &[]);
        let zero = Lanes::<f64, 4>::default();
        let (mut th, mut th_grad) = (self.theta.clone(), vec![zero; NTHETA]);
        let (mut us, mut us_grad) = (vec![0.0; off], vec![zero; off]);
        let cols = off + NTHETA;
        for (rows, i) in out.chunks_mut(3 * cols).zip(i0..) {
            let vertices = m.vertices_of(i, cx);
            let mut v = [0.0; 9];
            for (k, &vk) in vertices.iter().enumerate() {
                v[3 * k..3 * k + 3].copy_from_slice(&sk[3 * vk..3 * vk + 3]);
            }
            let mut v_grad = [zero; 9];
            let (mut r, mut r_grad) = ([0.0; 9], [zero; 9]);
            r.copy_from_slice(rotation);
            let (mut e, mut e_grad) = ([0.0; 3], three_rows());
            let (mut s, mut s_grad) = ([0.0; 3], [zero; 3]);
            // (the adjoint restores the inputs, to round-off: start each from the originals)
            th.copy_from_slice(&self.theta);
            th_grad.fill(zero);
            us_grad.fill(zero);
            if cx {
                us.copy_from_slice(&self.us[2 * i..2 * i + 2]);
            }
            ht_residual_vjp(
                &mut e,
                &mut e_grad,
                &mut s,
                &mut s_grad,
                &mut v,
                &mut v_grad,
                [0, 3, 6],
                (),
                &mut r,
                &mut r_grad,
                &mut th,
                &mut th_grad,
                &mut us,
                &mut us_grad,
                m,
                (),
                &global,
                (),
                i,
                (),
                i,
                (),
            );
            // row k: the direct gradients (us, θ), then through the vertices and the rotation
            for (row, k) in rows.chunks_mut(cols).zip(0..) {
                for (r, g) in row.iter_mut().zip(us_grad.iter().chain(&th_grad)) {
                    *r = g.0[k];
                }
                let theta = &mut row[off..];
                for (c, g) in v_grad[..3 * vertices.len()].iter().enumerate() {
                    let dv = &jv[NTHETA * (3 * vertices[c / 3] + c % 3)..][..NTHETA];
                    for (t, d) in theta.iter_mut().zip(dv) {
                        *t += g.0[k] * d;
                    }
                }
                for (t, out) in theta.iter_mut().enumerate() {
                    let (cs, values) = jr.row(t);
                    *out += cs
                        .iter()
                        .zip(values)
                        .map(|(&c, d)| r_grad[c].0[k] * d)
                        .sum::<f64>();
                }
            }
        }
    }

    /// Stage one of [`Problem::jacobian`]: the Jacobian of the pose ([`ht_pose`]) with respect
    /// to `θ`, kept by its non-zeros, and the pose. The pose has ten times more values than
    /// `θ`, so this stage runs forward: [`ht_pose`] on dual numbers carrying [`POSE_TANGENTS`]
    /// tangents (one pass per that many angles; reversal would need a sweep per four pose
    /// values).
    fn pose_jacobian(&self) -> (SparseRows, Vec<f64>) {
        let m = &self.model;
        let np = 12 * m.nb + 9;
        let mut dense = vec![0.0; np * NTHETA];
        let mut values = vec![0.0; np];
        for pass in 0..NTHETA.div_ceil(POSE_TANGENTS) {
            let mut theta: Vec<DualN<f64, POSE_TANGENTS>> = (0..NTHETA)
                .map(|k| match k.checked_sub(pass * POSE_TANGENTS) {
                    Some(t) => DualN::seeded(self.theta[k], t),
                    None => DualN::constant(self.theta[k]),
                })
                .collect();
            let mut pose = vec![DualN::constant(0.0); np];
            ht_pose(&mut pose, &mut theta, m);
            for (r, p) in pose.iter().enumerate() {
                values[r] = p.re;
                for (t, &d) in p.eps.iter().enumerate() {
                    if let Some(col) =
                        dense[r * NTHETA..(r + 1) * NTHETA].get_mut(pass * POSE_TANGENTS + t)
                    {
                        *col = d;
                    }
                }
            }
        }
        (SparseRows::of(dense.chunks(NTHETA)), values)
    }

    /// Stage two of [`Problem::jacobian`]: every vertex skinned ([`ht_skin`], `3` values per
    /// vertex) and, for the vertices a correspondence uses, the Jacobian of the skinned vertex
    /// with respect to `θ` (`3 × 26` per vertex, zero for the others): [`ht_skin_vjp`] with
    /// the three coordinates in lanes, on the bones that skin it, times the pose Jacobian.
    fn vertex_jacobians(&self, pose: &[f64], jp: &SparseRows) -> (Vec<f64>, Vec<f64>) {
        let m = &self.model;
        let nv = m.base_positions.len();
        let (mut sk, mut tr) = (vec![0.0; 3 * nv], pose.to_vec());
        for v in 0..nv {
            ht_skin(&mut sk, 3 * v, &mut tr, m, &m.layout, v);
        }
        let mut used = vec![false; nv];
        for i in 0..m.correspondences.len() {
            m.vertices_of(i, self.complicated())
                .iter()
                .for_each(|&v| used[v] = true);
        }
        let zero = Lanes::<f64, 4>::default();
        let mut jv = vec![0.0; 3 * NTHETA * nv];
        let (mut p, mut p_grad) = (Vec::new(), Vec::new());
        for v in (0..nv).filter(|&v| used[v]) {
            let lay = PoseLayout::of_vertices(m, &[v]);
            p.clear();
            p.extend((0..lay.len()).map(|k| pose[lay.full_index(k, m.nb)]));
            p_grad.clear();
            p_grad.resize(lay.len(), zero);
            let (mut s, mut s_grad) = ([0.0; 3], three_rows());
            ht_skin_vjp(
                &mut s,
                &mut s_grad,
                0,
                (),
                &mut p,
                &mut p_grad,
                m,
                (),
                &lay,
                (),
                v,
                (),
            );
            for (k, row) in jv[3 * NTHETA * v..][..3 * NTHETA]
                .chunks_mut(NTHETA)
                .enumerate()
            {
                for (c, g) in p_grad.iter().enumerate().filter(|(_, g)| g.0[k] != 0.0) {
                    let (cols, values) = jp.row(lay.full_index(c, m.nb));
                    for (&t, &d) in cols.iter().zip(values) {
                        row[t] += g.0[k] * d;
                    }
                }
            }
        }
        (sk, jv)
    }

    /// The same Jacobian in one stage: per correspondence the three rows of the whole
    /// [`ht_residuals`](super::ht_residuals) on that correspondence by reversal
    /// (`ht_residuals_jacobian_of`; each sweep reverses the pose computation too). Slower than
    /// [`Problem::jacobian`]; kept to check it.
    pub fn jacobian_direct(&self) -> Result<Vec<Vec<f64>>, String> {
        let n = self.model.correspondences.len();
        let cx = self.complicated();
        let rows = [Loss::elem(0, 0), Loss::elem(0, 1), Loss::elem(0, 2)];
        let mut out = Vec::with_capacity(3 * n);
        for i in 0..n {
            let mut err = [0.0; 3];
            let mut theta = self.theta.clone();
            let mut us = if cx {
                self.us[2 * i..2 * i + 2].to_vec()
            } else {
                vec![]
            };
            let jac = ht_residuals_jacobian_of(
                &rows,
                &mut err,
                &mut theta,
                &mut us,
                &self.model,
                i,
                i + 1,
            )
            .map_err(|e| e.to_string())?;
            // columns: err (3), theta (26), us (2 or 0)
            for r in 0..3 {
                let row = jac.row(r);
                let mut o = Vec::with_capacity(NTHETA + 2);
                if cx {
                    o.extend_from_slice(&row[3 + NTHETA..3 + NTHETA + 2]);
                }
                o.extend_from_slice(&row[3..3 + NTHETA]);
                out.push(o);
            }
        }
        Ok(out)
    }
}
