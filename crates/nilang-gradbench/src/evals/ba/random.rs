//! Seeded random `ba` problems, for sizes that have no data file.

use super::{reference_reproj, Problem, NCAM};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

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
}
