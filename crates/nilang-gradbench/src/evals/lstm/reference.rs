//! `lstm`'s loss in plain Rust, as ADBench computes it, for the tests.

use super::{Dims, Problem};

impl Problem {
    /// Plain Rust loss, as ADBench computes it (the reference for tests).
    pub fn reference(&self, main: &[f64], extra: &[f64]) -> f64 {
        let Dims { l, c, b } = self.dims;
        let sig = |x: f64| 1.0 / (1.0 + (-x).exp());
        let mut state = self.state.clone();
        let mut total = 0.0;
        for t in 0..c - 1 {
            let mut input: Vec<f64> = (0..b).map(|i| self.seq[t * b + i] * extra[i]).collect();
            for j in 0..l {
                let p = &main[8 * b * j..8 * b * (j + 1)];
                let (hs, rest) = state[2 * b * j..2 * b * (j + 1)].split_at_mut(b);
                for i in 0..b {
                    let f = sig(input[i] * p[i] + p[4 * b + i]);
                    let ig = sig(hs[i] * p[b + i] + p[5 * b + i]);
                    let o = sig(input[i] * p[2 * b + i] + p[6 * b + i]);
                    let g = (hs[i] * p[3 * b + i] + p[7 * b + i]).tanh();
                    rest[i] = rest[i] * f + ig * g;
                    hs[i] = o * rest[i].tanh();
                }
                input = hs.to_vec();
            }
            let y: Vec<f64> = (0..b)
                .map(|i| input[i] * extra[b + i] + extra[2 * b + i])
                .collect();
            let lse = (y.iter().map(|v| v.exp()).sum::<f64>() + 2.0).ln();
            let gold = &self.seq[(t + 1) * b..(t + 2) * b];
            total += gold.iter().zip(&y).map(|(g, y)| g * (y - lse)).sum::<f64>();
        }
        -total / ((c - 1) * b) as f64
    }
}
