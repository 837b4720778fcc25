//! Seeded random `gmm` problems, for sizes that have no data file.

use super::{Layout, Problem};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A standard normal sample (Box–Muller on two uniforms).
fn standard_normal(rng: &mut impl Rng) -> f64 {
    let u1: f64 = 1.0 - rng.gen::<f64>(); // in (0, 1]
    let u2: f64 = rng.gen();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

impl Problem {
    /// A random problem of `n` points of dimension `d` and `k` components, for sizes that
    /// have no data file, in ADBench's layout (and objective sign), reproducible from `seed`
    /// (ChaCha8).
    ///
    /// Distributions, in this drawing order: weights `α` standard normal; means `μ` uniform in
    /// `[0, 1)`; log-diagonals `q` and strictly-lower entries `l` standard normal (component by
    /// component, `q` then `l`, as the `icf` rows of the files); data `x` standard normal;
    /// `γ = 1`, `m = 0` (the values of every ADBench file).
    pub fn random(d: usize, k: usize, n: usize, seed: u64) -> Problem {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let lsz = d * d.saturating_sub(1) / 2;
        let alpha = (0..k).map(|_| standard_normal(&mut rng)).collect();
        let mu = (0..k * d).map(|_| rng.gen::<f64>()).collect();
        let (mut q, mut l) = (Vec::with_capacity(k * d), Vec::with_capacity(k * lsz));
        for _ in 0..k {
            q.extend((0..d).map(|_| standard_normal(&mut rng)));
            l.extend((0..lsz).map(|_| standard_normal(&mut rng)));
        }
        let x = (0..n * d).map(|_| standard_normal(&mut rng)).collect();
        Problem {
            d,
            k,
            n,
            alpha,
            mu,
            q,
            l,
            x,
            gamma: 1.0,
            m: 0.0,
            layout: Layout::Adbench,
        }
    }
}
