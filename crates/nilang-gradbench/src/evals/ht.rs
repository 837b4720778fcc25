//! `ht`: ADBench's hand tracking residuals and their Jacobian with respect to the pose (and,
//! in the complicated variant, the barycentric coordinates `us`).
//!
//! The hand model: `bone_count` bones in a tree (`parents`, a parent before its children),
//! each with a 4 × 4 base relative transform and an inverse base absolute transform; vertices
//! (homogeneous `base_positions`) skinned by per-bone `weights`. `theta` (26 values) is the
//! global rotation (angle-axis), the global translation, then 20 finger angles mapped into
//! the pose parameters as ADBench's `to_pose_params` does (bone `b` gets column `b + 3`; the
//! global scale is 1). Per bone the Euler angles (x, z, y order) give a rotation `R`; the
//! posed relative is `base_relative · [R 0; 0 1]`, the absolutes are the products along the
//! tree, and the skinning transform is `absolute · inverse_base_absolute`. A vertex is
//! `Σ_b w_b (T_b · p)`, mirrored in x when `is_mirrored`, then `R_global · v + t`. Residual
//! `i` is `points[i] − vertex(correspondences[i])` (simple), or `points[i] −` the point of
//! triangle `correspondences[i]` at barycentric `(u₀, u₁, 1 − u₀ − u₁)` (complicated, `us`
//! non-empty).
//!
//! Reversible program: [`ht_transforms`] computes the skinning transforms from `theta` into a
//! zero buffer (the Euler rotations, posed relatives and absolutes are ancillas computed in a
//! routine and uncomputed); [`ht_pose`] adds the global rotation ([`angle_axis_to_matrix`]);
//! [`ht_residuals`] computes the pose and every skinned vertex once, then, in a parallel loop
//! over the correspondences (`.par()`), takes each one's point from them and accumulates its
//! residual ([`ht_residual`], [`ht_place`]).
//!
//! Jacobian in three stages chained ([`Problem::jacobian`]): the pose with respect to `theta`
//! ([`ht_pose`] run forward on dual numbers, once: 273 values of 26 angles), then by reversal
//! each vertex a correspondence uses, skinned, with respect to the pose ([`ht_skin`], once per
//! vertex), and per correspondence its three residuals with respect to its skinned vertices,
//! the global rotation, the translation and `us` ([`ht_residual`], the
//! rows in lanes of one sweep). [`Problem::jacobian_direct`] reverses the
//! whole [`ht_residuals`] per row instead (the check). Output as GradBench's reference:
//! `objective` → the `3n` residuals; `jacobian` →
//! `3n` rows of `26` (simple) or `2 + 26` (complicated: `∂/∂u₀`, `∂/∂u₁` of the row's own
//! correspondence, then `theta`) values.

use super::{decode, timed_into, timed_into_with, unknown_function};
use crate::limits::{Need, ANSWER_NUMBER_BYTES};
use crate::runs::Timing;
use nilang::{i, DualN, Lanes, Loss, Real};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use serde_json::{json, Value};

/// Tangents per forward pass of the pose Jacobian (two passes cover the 26 angles).
const POSE_TANGENTS: usize = 13;

/// The work of one correspondence's three Jacobian rows (stage three of [`Problem::jacobian`])
/// in units of `(a..b).par().weight(w)` (about a nanosecond; [`super::par_blocks`]): 0.35–0.5
/// µs a correspondence on one thread (c100000: 35–50 ms, docs/benchmarks.md; hand11, c51200:
/// 27 ms for the whole Jacobian).
const ROWS_WEIGHT: usize = 400;

/// The work of one correspondence of [`ht_residuals`]' parallel loop in the same units: about
/// 20 ns a correspondence (hand11, c51200: 1.08 ms for the objective, 0.09 ms of it the pose
/// and vertices).
pub const RESIDUAL_WEIGHT: usize = 20;

/// Number of pose parameters `theta`.
pub const NTHETA: usize = 26;

/// The working memory of [`Problem::objective_into`], kept across the runs of a message.
#[derive(Clone, Debug)]
pub struct ObjectiveBuffers {
    /// The residuals, `3n`.
    pub err: Vec<f64>,
    theta: Vec<f64>,
    us: Vec<f64>,
}

/// A hand model and its data, checked and in the layout the reversible program reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// Number of bones.
    pub nb: usize,
    /// Parent of each bone (`-1` for a root); a parent comes before its children.
    pub parents: Vec<i64>,
    /// Base relative transform of each bone, row-major 4 × 4.
    pub base_relatives: Vec<[f64; 16]>,
    /// Inverse base absolute transform of each bone, row-major 4 × 4.
    pub inverse_base_absolutes: Vec<[f64; 16]>,
    /// Homogeneous base position of each vertex.
    pub base_positions: Vec<[f64; 4]>,
    /// Per vertex, the bones with a non-zero weight and that weight.
    pub influences: Vec<Vec<(usize, f64)>>,
    /// Vertices of each triangle.
    pub triangles: Vec<[usize; 3]>,
    /// Whether x is mirrored after skinning.
    pub is_mirrored: bool,
    /// Correspondence of each point: a vertex (simple) or a triangle (complicated).
    pub correspondences: Vec<usize>,
    /// The measured points.
    pub points: Vec<[f64; 3]>,
    /// For `theta[k]`, `k ≥ 6`: the flat index `3·column + row` in the pose parameters.
    pub theta_map: Vec<usize>,
    /// The layout of the whole pose ([`ht_pose`]): every bone's transform, then the rotation.
    pub layout: PoseLayout,
}

/// Where a pose buffer keeps the bones' skinning transforms (12 values each) and the global
/// rotation (9 values): the whole pose of [`ht_pose`] ([`PoseLayout::full`]), or only the bones
/// one correspondence is skinned with ([`PoseLayout::of_point`]), which is what the Jacobian's
/// per-correspondence program differentiates.
#[derive(Clone, Debug, PartialEq)]
pub struct PoseLayout {
    /// `slot[b]`: the index (in transforms) of bone `b`'s transform; `usize::MAX` if absent.
    pub slot: Vec<usize>,
    /// The bones present, in slot order.
    pub bones: Vec<usize>,
    /// Offset of the global rotation.
    pub global: usize,
}

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

impl PoseLayout {
    /// Every one of `nb` bones, in order.
    pub fn full(nb: usize) -> PoseLayout {
        PoseLayout {
            slot: (0..nb).collect(),
            bones: (0..nb).collect(),
            global: 12 * nb,
        }
    }

    /// Only the bones that skin correspondence `i`'s vertex (`complicated`: its triangle's
    /// three vertices), in increasing order.
    pub fn of_point(m: &Model, i: usize, complicated: bool) -> PoseLayout {
        PoseLayout::of_vertices(m, m.vertices_of(i, complicated))
    }

    /// Only the bones that skin the given vertices, in increasing order.
    pub fn of_vertices(m: &Model, vertices: &[usize]) -> PoseLayout {
        let mut used = vec![false; m.nb];
        for &v in vertices {
            for &(b, _) in &m.influences[v] {
                used[b] = true;
            }
        }
        let bones: Vec<usize> = (0..m.nb).filter(|&b| used[b]).collect();
        let mut slot = vec![usize::MAX; m.nb];
        for (k, &b) in bones.iter().enumerate() {
            slot[b] = k;
        }
        PoseLayout {
            global: 12 * bones.len(),
            slot,
            bones,
        }
    }

    /// Values in a pose buffer of this layout.
    pub fn len(&self) -> usize {
        self.global + 9
    }

    /// Whether the layout holds no value (never: the rotation is always there).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The index in the whole pose of value `k` of a buffer in this layout.
    pub fn full_index(&self, k: usize, nb: usize) -> usize {
        if k < self.global {
            12 * self.bones[k / 12] + k % 12
        } else {
            12 * nb + (k - self.global)
        }
    }

    /// This layout's values gathered from the whole pose `pose`.
    pub fn gather(&self, pose: &[f64], nb: usize) -> Vec<f64> {
        (0..self.len())
            .map(|k| pose[self.full_index(k, nb)])
            .collect()
    }
}

impl Model {
    /// ADBench's `to_pose_params` mapping of `theta[6..26]`: per finger, three pose columns
    /// (the first with two angles), then one column skipped; fingers start at column 5.
    pub fn pose_map() -> Vec<usize> {
        let mut map = Vec::with_capacity(NTHETA - 6);
        let mut col = 5;
        for _finger in 0..5 {
            for i in 2..=4 {
                map.push(3 * col);
                if i == 2 {
                    map.push(3 * col + 1);
                }
                col += 1;
            }
            col += 1;
        }
        map
    }

    /// The vertices correspondence `i` is placed on: its vertex, or (`complicated`) the three
    /// of its triangle.
    pub fn vertices_of(&self, i: usize, complicated: bool) -> &[usize] {
        let c = &self.correspondences[i];
        if complicated {
            &self.triangles[*c]
        } else {
            std::slice::from_ref(c)
        }
    }

    /// The offsets `3v` in a buffer of skinned vertices of correspondence `i`'s vertex (then
    /// zeros) or (`complicated`) of its triangle's three vertices.
    pub fn point_offsets(&self, i: usize, complicated: bool) -> [usize; 3] {
        let mut o = [0; 3];
        for (o, v) in o.iter_mut().zip(self.vertices_of(i, complicated)) {
            *o = 3 * v;
        }
        o
    }
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

/// `us` as sent: empty, one pair per correspondence, or flat.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Us {
    /// One `[u₀, u₁]` per correspondence.
    Pairs(Vec<Vec<f64>>),
    /// `u₀, u₁` of every correspondence in turn.
    Flat(Vec<f64>),
}

/// The JSON hand model.
#[derive(Clone, Debug, Deserialize)]
pub struct ModelInput {
    /// Number of bones.
    pub bone_count: usize,
    /// Bone names (one per bone).
    #[serde(default)]
    pub bone_names: Vec<String>,
    /// Parent of each bone, `-1` for a root.
    pub parents: Vec<i64>,
    /// Per bone a 4 × 4 matrix, rows.
    pub base_relatives: Vec<Vec<Vec<f64>>>,
    /// Per bone a 4 × 4 matrix, rows.
    pub inverse_base_absolutes: Vec<Vec<Vec<f64>>>,
    /// Per vertex 3 or 4 (homogeneous) coordinates.
    pub base_positions: Vec<Vec<f64>>,
    /// Per vertex one weight per bone.
    pub weights: Vec<Vec<f64>>,
    /// Per triangle 3 vertices.
    #[serde(default)]
    pub triangles: Vec<Vec<usize>>,
    /// Whether x is mirrored.
    pub is_mirrored: bool,
}

/// The JSON data.
#[derive(Clone, Debug, Deserialize)]
pub struct DataInput {
    /// The model.
    pub model: ModelInput,
    /// Per point a vertex (simple) or triangle (complicated).
    pub correspondences: Vec<usize>,
    /// Per point 3 coordinates.
    pub points: Vec<Vec<f64>>,
}

/// The `ht` input.
#[derive(Clone, Debug, Deserialize)]
pub struct Input {
    /// The pose (26 values).
    pub theta: Vec<f64>,
    /// Model and measurements.
    pub data: DataInput,
    /// Barycentric coordinates (empty for the simple variant).
    #[serde(default)]
    pub us: Option<Us>,
}

/// An `ht` problem: the model with its data, the pose and the barycentric coordinates.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Model and data.
    pub model: Model,
    /// The pose.
    pub theta: Vec<f64>,
    /// `2n` barycentric coordinates, or empty (simple).
    pub us: Vec<f64>,
}

fn mat4(what: &str, b: usize, rows: &[Vec<f64>]) -> Result<[f64; 16], String> {
    if rows.len() != 4 || rows.iter().any(|r| r.len() != 4) {
        return Err(format!("bad `ht` input: `{what}[{b}]` must be 4 × 4"));
    }
    let mut m = [0.0; 16];
    for (i, r) in rows.iter().enumerate() {
        m[4 * i..4 * i + 4].copy_from_slice(r);
    }
    Ok(m)
}

impl Problem {
    /// Checks an input and lays it out.
    pub fn from_input(inp: &Input) -> Result<Problem, String> {
        let bad = |s: String| Err(format!("bad `ht` input: {s}"));
        let mi = &inp.data.model;
        let nb = mi.bone_count;
        if inp.theta.len() != NTHETA {
            return bad(format!(
                "`theta` must have {NTHETA} values, got {}",
                inp.theta.len()
            ));
        }
        // ADBench's pose mapping writes up to pose column 23 = bone 20.
        if nb < 21 {
            return bad(format!("the hand model needs at least 21 bones, got {nb}"));
        }
        if mi.parents.len() != nb
            || mi.base_relatives.len() != nb
            || mi.inverse_base_absolutes.len() != nb
        {
            return bad(format!(
                "`parents`, `base_relatives`, `inverse_base_absolutes` need {nb} entries"
            ));
        }
        for (b, &p) in mi.parents.iter().enumerate() {
            if p >= b as i64 || p < -1 {
                return bad(format!(
                    "parent {p} of bone {b} must be -1 or an earlier bone"
                ));
            }
        }
        let base_relatives = (0..nb)
            .map(|b| mat4("base_relatives", b, &mi.base_relatives[b]))
            .collect::<Result<Vec<_>, _>>()?;
        let inverse_base_absolutes = (0..nb)
            .map(|b| mat4("inverse_base_absolutes", b, &mi.inverse_base_absolutes[b]))
            .collect::<Result<Vec<_>, _>>()?;
        let nv = mi.base_positions.len();
        let mut base_positions = Vec::with_capacity(nv);
        for (v, p) in mi.base_positions.iter().enumerate() {
            match p.len() {
                3 => base_positions.push([p[0], p[1], p[2], 1.0]),
                4 => base_positions.push([p[0], p[1], p[2], p[3]]),
                n => return bad(format!("`base_positions[{v}]` has {n} values")),
            }
        }
        if mi.weights.len() != nv || mi.weights.iter().any(|w| w.len() != nb) {
            return bad(format!("`weights` must be {nv} rows of {nb}"));
        }
        let influences = mi
            .weights
            .iter()
            .map(|w| {
                w.iter()
                    .enumerate()
                    .filter(|(_, &x)| x != 0.0)
                    .map(|(b, &x)| (b, x))
                    .collect()
            })
            .collect();
        let mut triangles = Vec::with_capacity(mi.triangles.len());
        for (t, tri) in mi.triangles.iter().enumerate() {
            if tri.len() != 3 || tri.iter().any(|&v| v >= nv) {
                return bad(format!("`triangles[{t}]` must be 3 vertices below {nv}"));
            }
            triangles.push([tri[0], tri[1], tri[2]]);
        }
        let n = inp.data.correspondences.len();
        if inp.data.points.len() != n || inp.data.points.iter().any(|p| p.len() != 3) {
            return bad(format!("`points` must be {n} rows of 3"));
        }
        let points = inp.data.points.iter().map(|p| [p[0], p[1], p[2]]).collect();
        let us: Vec<f64> = match &inp.us {
            None => vec![],
            Some(Us::Flat(v)) => v.clone(),
            Some(Us::Pairs(rows)) => {
                if rows.iter().any(|r| r.len() != 2) {
                    return bad("every `us` row must have 2 values".into());
                }
                rows.concat()
            }
        };
        if !us.is_empty() && us.len() != 2 * n {
            return bad(format!("`us` must be empty or hold {n} pairs"));
        }
        let limit = if us.is_empty() { nv } else { triangles.len() };
        if let Some(c) = inp.data.correspondences.iter().find(|&&c| c >= limit) {
            return bad(format!("correspondence {c} out of range (below {limit})"));
        }
        Ok(Problem {
            model: Model {
                nb,
                parents: mi.parents.clone(),
                base_relatives,
                inverse_base_absolutes,
                base_positions,
                influences,
                triangles,
                is_mirrored: mi.is_mirrored,
                correspondences: inp.data.correspondences.clone(),
                points,
                theta_map: Model::pose_map(),
                layout: PoseLayout::full(nb),
            },
            theta: inp.theta.clone(),
            us,
        })
    }

    /// Whether this is the complicated variant (`us` non-empty).
    pub fn complicated(&self) -> bool {
        !self.us.is_empty()
    }

    /// A random problem for tests and timings, reproducible from `seed` (ChaCha8): ADBench's
    /// 22-bone hand tree (root `0`; five fingers of four bones, `1–4`, …, `17–20`, each
    /// finger's first bone and bone `21` hanging off the root), `nv` vertices each weighted on up to
    /// three bones, random rigid base transforms, `n` correspondences (triangles of random
    /// vertices and random `us` when `complicated`), points near the posed model, a random
    /// pose with small angles.
    pub fn random(nv: usize, n: usize, complicated: bool, seed: u64) -> Problem {
        assert!(nv >= 3, "ht: a random problem needs 3 vertices");
        let nb = 22;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut parents = vec![-1i64];
        for f in 0..5 {
            parents.push(0);
            for k in 1..4 {
                parents.push((1 + 4 * f + k - 1) as i64);
            }
        }
        parents.push(0);
        let rigid = |rng: &mut ChaCha8Rng| {
            let a: Vec<f64> = (0..3).map(|_| rng.gen_range(-0.5..0.5)).collect();
            let r = reference_euler(&[a[0], a[1], a[2]]);
            let mut m = [0.0; 16];
            for i in 0..3 {
                for j in 0..3 {
                    m[4 * i + j] = r[3 * i + j];
                }
                m[4 * i + 3] = rng.gen_range(-1.0..1.0);
            }
            m[15] = 1.0;
            m
        };
        let base_relatives: Vec<[f64; 16]> = (0..nb).map(|_| rigid(&mut rng)).collect();
        let inverse_base_absolutes: Vec<[f64; 16]> = (0..nb).map(|_| rigid(&mut rng)).collect();
        let base_positions: Vec<[f64; 4]> = (0..nv)
            .map(|_| {
                [
                    rng.gen_range(-1.0..1.0),
                    rng.gen_range(-1.0..1.0),
                    rng.gen_range(-1.0..1.0),
                    1.0,
                ]
            })
            .collect();
        let influences: Vec<Vec<(usize, f64)>> = (0..nv)
            .map(|_| {
                let k = rng.gen_range(1..=3);
                let mut bones: Vec<usize> = Vec::new();
                while bones.len() < k {
                    let b = rng.gen_range(0..nb);
                    if !bones.contains(&b) {
                        bones.push(b);
                    }
                }
                let w: Vec<f64> = (0..k).map(|_| rng.gen_range(0.1..1.0)).collect();
                let total: f64 = w.iter().sum();
                let mut inf: Vec<(usize, f64)> = bones
                    .into_iter()
                    .zip(w)
                    .map(|(b, w)| (b, w / total))
                    .collect();
                inf.sort_by_key(|&(b, _)| b);
                inf
            })
            .collect();
        let triangles: Vec<[usize; 3]> = if complicated {
            (0..n.max(1))
                .map(|_| {
                    [
                        rng.gen_range(0..nv),
                        rng.gen_range(0..nv),
                        rng.gen_range(0..nv),
                    ]
                })
                .collect()
        } else {
            vec![]
        };
        let correspondences: Vec<usize> = (0..n)
            .map(|i| if complicated { i } else { rng.gen_range(0..nv) })
            .collect();
        let us: Vec<f64> = if complicated {
            (0..n)
                .flat_map(|_| {
                    let u0: f64 = rng.gen_range(0.0..0.6);
                    let u1: f64 = rng.gen_range(0.0..(1.0 - u0));
                    [u0, u1]
                })
                .collect()
        } else {
            vec![]
        };
        let theta: Vec<f64> = (0..NTHETA).map(|_| rng.gen_range(-0.5..0.5)).collect();
        let mut model = Model {
            nb,
            parents,
            base_relatives,
            inverse_base_absolutes,
            base_positions,
            influences,
            triangles,
            is_mirrored: rng.gen_bool(0.5),
            correspondences,
            points: vec![[0.0; 3]; n],
            theta_map: Model::pose_map(),
            layout: PoseLayout::full(nb),
        };
        let mut p = Problem {
            model: model.clone(),
            theta,
            us,
        };
        let r0 = p.reference(&p.theta, &p.us);
        for (i, pt) in model.points.iter_mut().enumerate() {
            for j in 0..3 {
                pt[j] = -r0[3 * i + j] + rng.gen_range(-0.1..0.1);
            }
        }
        p.model = model;
        p
    }

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
    /// threads ([`super::par_blocks`]: each correspondence's rows are computed alone, so the
    /// result is the same bits for every thread count). It is plain Rust around one adjoint
    /// sweep per correspondence, each with its own seeds and its own gradients (the rows), so
    /// it is not the adjoint of [`ht_residuals`]' `.par()` loop, which would sum the
    /// correspondences' gradients.
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
        super::par_blocks(&mut out.data, 3 * cols, ROWS_WEIGHT, |i0, rows| {
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
    /// [`ht_residuals`] on that correspondence by reversal (`ht_residuals_jacobian_of`; each
    /// sweep reverses the pose computation too). Slower than [`Problem::jacobian`]; kept to
    /// check it.
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

    /// The problem as a GradBench input (with `runs` runs).
    pub fn to_input(&self) -> Value {
        let m = &self.model;
        let nv = m.base_positions.len();
        let mut weights = vec![vec![0.0; m.nb]; nv];
        for (v, inf) in m.influences.iter().enumerate() {
            for &(b, w) in inf {
                weights[v][b] = w;
            }
        }
        let mat = |a: &[f64; 16]| {
            (0..4)
                .map(|i| a[4 * i..4 * i + 4].to_vec())
                .collect::<Vec<_>>()
        };
        json!({
            "theta": self.theta,
            "us": (0..self.us.len() / 2).map(|i| vec![self.us[2 * i], self.us[2 * i + 1]]).collect::<Vec<_>>(),
            "data": {
                "model": {
                    "bone_count": m.nb,
                    "bone_names": (0..m.nb).map(|b| format!("bone{b}")).collect::<Vec<_>>(),
                    "parents": m.parents,
                    "base_relatives": m.base_relatives.iter().map(mat).collect::<Vec<_>>(),
                    "inverse_base_absolutes": m.inverse_base_absolutes.iter().map(mat).collect::<Vec<_>>(),
                    "base_positions": m.base_positions,
                    "weights": weights,
                    "triangles": m.triangles,
                    "is_mirrored": m.is_mirrored,
                },
                "correspondences": m.correspondences,
                "points": m.points,
            },
        })
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

/// The memory `function` needs on `p` ([`Need`]): the `3n` residuals, or the Jacobian's `3n`
/// rows of `26` or `28`, each value with its answer; for the Jacobian also every vertex's
/// skinned position and its `3 × 26` derivatives, and the pose's `12·bones + 9` values with
/// their `26` derivatives (dense, and on dual numbers).
pub fn need(function: &str, p: &Problem) -> Result<(), String> {
    let m = &p.model;
    let n = m.correspondences.len();
    let mut need = Need::new("ht");
    if function != "jacobian" {
        return need.add("correspondences", &[3, n], 8 + ANSWER_NUMBER_BYTES);
    }
    let cols = if p.complicated() { 2 + NTHETA } else { NTHETA };
    need.add("correspondences", &[3, cols, n], 8 + ANSWER_NUMBER_BYTES)?;
    need.add(
        "base_positions",
        &[m.base_positions.len(), 3 * (NTHETA + 1) + 1],
        8,
    )?;
    need.add("bone_count", &[12 * m.nb + 9, 2 * NTHETA + 1], 8)
}

/// The `ht` functions: `objective` and `jacobian`. The sizes are checked before the outputs
/// are allocated ([`need`]).
pub fn evaluate(function: &str, input: &Value) -> Result<(Value, Vec<Timing>), String> {
    let inp: Input = decode("ht", input)?;
    let problem = Problem::from_input(&inp)?;
    need(function, &problem)?;
    match function {
        "objective" => {
            let mut buffers = problem.objective_buffers();
            let run = |b: &mut ObjectiveBuffers| {
                problem.objective_into(b);
                Ok(())
            };
            timed_into_with(input, &mut buffers, run, |b| json!(b.err))
        }
        "jacobian" => {
            let mut out = RowMajor {
                cols: 1,
                data: Vec::new(),
            };
            timed_into(input, &mut out, |out| problem.jacobian_into(out))
        }
        _ => Err(unknown_function("ht", function, &["objective", "jacobian"])),
    }
}
