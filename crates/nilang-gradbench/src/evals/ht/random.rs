//! Seeded random `ht` problems, for tests and timings.

use super::{reference_euler, Model, PoseLayout, Problem, NTHETA};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

impl Problem {
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
}
