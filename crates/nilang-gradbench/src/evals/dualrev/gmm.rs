//! `gmm` over [`Scalar`]: ADBench's objective (the loops of GradBench's `gmm.hpp`),
//! differentiated in the weights, means and both parts of the inverse covariance factors.

use super::lse::logsumexp;
use crate::evals::gmm::{Gradient, Params, Prior, Problem};
use nilang_dualrev::Scalar;

/// The parameters of one mixture, as slices of a number type `S`.
pub struct Mixture<'a, S> {
    /// Weights, `k`.
    pub alpha: &'a [S],
    /// Means, `k × d`.
    pub mu: &'a [S],
    /// Log-diagonals of the inverse covariance factors, `k × d`.
    pub q: &'a [S],
    /// Strictly lower parts of those factors, `k × d(d−1)/2`, column by column.
    pub l: &'a [S],
}

impl<'a, S> Mixture<'a, S> {
    /// The mixture of `k` components in `d` dimensions whose parameters are `v`, one after the
    /// other.
    pub fn split(v: &'a [S], k: usize, d: usize) -> Mixture<'a, S> {
        let (alpha, rest) = v.split_at(k);
        let (mu, rest) = rest.split_at(k * d);
        let (q, l) = rest.split_at(k * d);
        Mixture { alpha, mu, q, l }
    }
}

/// The GMM objective of the mixture `p` at the points `x` (`n × d`) with the prior `pr`.
pub fn gmm<S: Scalar>(p: &Mixture<S>, x: &[f64], d: usize, pr: &Prior) -> S {
    let (k, n, lsz) = (p.alpha.len(), x.len() / d, d * (d - 1) / 2);
    let qdiag: Vec<S> = p.q.iter().map(|q| q.exp()).collect();
    let sumq: Vec<S> = p.q.chunks(d).map(|q| q.iter().copied().sum()).collect();
    let (mut main, mut xc, mut qx) = (vec![S::zero(); k], vec![S::zero(); d], vec![S::zero(); d]);
    let mut total = S::zero();
    for xi in x.chunks(d) {
        for c in 0..k {
            for b in 0..d {
                xc[b] = S::cst(xi[b]) - p.mu[c * d + b];
                qx[b] = qdiag[c * d + b] * xc[b];
            }
            // Q·(x − μ), the strictly lower part column by column
            let mut lc = p.l[c * lsz..(c + 1) * lsz].iter();
            for a in 0..d {
                for b in a + 1..d {
                    qx[b] += *lc.next().expect("d(d−1)/2 entries") * xc[a];
                }
            }
            let sq: S = qx.iter().map(|&v| v * v).sum();
            main[c] = p.alpha[c] + sumq[c] - sq * 0.5;
        }
        total += logsumexp(&main);
    }
    total -= logsumexp(p.alpha) * n as f64;
    let frobenius: S = qdiag.iter().chain(p.l).map(|&v| v * v).sum();
    let logdet: S = sumq.iter().copied().sum();
    total + (frobenius * (0.5 * pr.gamma * pr.gamma) - logdet * pr.m) * pr.sign + pr.constant
}

impl Problem {
    /// The objective on `f64`.
    pub fn dualrev_objective(&self) -> f64 {
        let (a, mu, q, l) = (&self.alpha, &self.mu, &self.q, &self.l);
        let p = Mixture { alpha: a, mu, q, l };
        gmm(&p, &self.x, self.d, &self.prior())
    }

    /// The gradient by one reverse sweep over the parameters `alpha`, `mu`, `q`, `l` in turn.
    pub fn dualrev_gradient(&self) -> Result<Gradient, String> {
        let (k, d) = (self.k, self.d);
        super::need_tape("gmm", &[self.n, k, d * (d + 1) + 3 * d + 8])?;
        let all = [&self.alpha, &self.mu, &self.q, &self.l]
            .map(|v| v.as_slice())
            .concat();
        let prior = self.prior();
        let g = super::gradient_of(|v| gmm(&Mixture::split(v, k, d), &self.x, d, &prior), &all)?;
        let Mixture { alpha, mu, q, l } = Mixture::split(&g, k, d);
        Ok(Params {
            alpha: alpha.to_vec(),
            mu: mu.to_vec(),
            q: q.to_vec(),
            l: l.to_vec(),
        })
    }
}
