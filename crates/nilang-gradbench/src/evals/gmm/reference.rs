//! `gmm`'s objective in plain Rust, for the tests.

use super::{ltri, Problem};

impl Problem {
    /// Plain Rust objective (the reference for tests), with the parameters `(α, μ, q, l)`.
    pub fn reference(&self, alpha: &[f64], mu: &[f64], q: &[f64], l: &[f64]) -> f64 {
        let prior = self.prior();
        let lse = |v: &[f64]| {
            let a = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            a + v.iter().map(|x| (x - a).exp()).sum::<f64>().ln()
        };
        let mut total = 0.0;
        for i in 0..self.n {
            total += lse(&self.main_terms(i, alpha, mu, q, l));
        }
        total -= self.n as f64 * lse(alpha);
        let frob: f64 =
            q.iter().map(|v| (2.0 * v).exp()).sum::<f64>() + l.iter().map(|v| v * v).sum::<f64>();
        let sumq: f64 = q.iter().sum();
        total + prior.sign * (0.5 * self.gamma * self.gamma * frob - self.m * sumq) + prior.constant
    }

    /// Plain Rust main terms `α_c + Σⱼ q_cj − ½‖Q_c (x_i − μ_c)‖²` of point `i`, one per
    /// component (for [`Problem::reference`] and tests).
    pub fn main_terms(
        &self,
        i: usize,
        alpha: &[f64],
        mu: &[f64],
        q: &[f64],
        l: &[f64],
    ) -> Vec<f64> {
        let (d, lsz) = (self.d, self.lsz());
        (0..self.k)
            .map(|c| {
                let xc: Vec<f64> = (0..d).map(|j| self.x[i * d + j] - mu[c * d + j]).collect();
                let mut qx: Vec<f64> = (0..d).map(|j| q[c * d + j].exp() * xc[j]).collect();
                for a in 0..d {
                    for b in a + 1..d {
                        qx[b] += l[c * lsz + ltri(a, b, d)] * xc[a];
                    }
                }
                let sumq: f64 = q[c * d..(c + 1) * d].iter().sum();
                alpha[c] + sumq - 0.5 * qx.iter().map(|v| v * v).sum::<f64>()
            })
            .collect()
    }
}
