//! `ht`'s input: the JSON types, their checks into a [`Problem`] (the [`Model`] in the layout
//! the reversible program reads), and the problem back to JSON.

use serde::Deserialize;
use serde_json::{json, Value};

/// Number of pose parameters `theta`.
pub const NTHETA: usize = 26;

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
    /// The layout of the whole pose ([`ht_pose`](super::ht_pose)): every bone's transform,
    /// then the rotation.
    pub layout: PoseLayout,
}

/// Where a pose buffer keeps the bones' skinning transforms (12 values each) and the global
/// rotation (9 values): the whole pose of [`ht_pose`](super::ht_pose) ([`PoseLayout::full`]),
/// or only the bones one correspondence is skinned with ([`PoseLayout::of_point`]), which is
/// what the Jacobian's per-correspondence program differentiates.
#[derive(Clone, Debug, PartialEq)]
pub struct PoseLayout {
    /// `slot[b]`: the index (in transforms) of bone `b`'s transform; `usize::MAX` if absent.
    pub slot: Vec<usize>,
    /// The bones present, in slot order.
    pub bones: Vec<usize>,
    /// Offset of the global rotation.
    pub global: usize,
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
