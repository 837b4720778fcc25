//! `gmm` as a natural program: ADBench's objective as plain Rust (the loops of GradBench's
//! `gmm.hpp`), differentiated in the weights, means and both parts of the inverse covariance
//! factors.

use super::lse::{logsumexp, logsumexp_rev_taped};
use crate::evals::gmm::{ltri, Gradient, Params, Problem};
use nilang::differentiable;

/// The GMM objective: points `x` (`n × d`), weights `alpha` (`k`), means `mu` (`k × d`),
/// log-diagonals `q` (`k × d`), strictly lower factors `l` (`k × d(d−1)/2`, column by
/// column); Wishart prior `gamma`, `m` with sign `sign`; `constant` the terms free of the
/// parameters.
#[differentiable(wrt(alpha, mu, q, l))]
#[allow(clippy::too_many_arguments)]
pub fn gmm(
    alpha: &[f64],
    mu: &[f64],
    q: &[f64],
    l: &[f64],
    x: &[f64],
    d: usize,
    gamma: f64,
    m: f64,
    sign: f64,
    constant: f64,
) -> f64 {
    let k = alpha.len();
    let n = x.len() / d;
    let lsz = d * (d - 1) / 2;
    let mut qdiag = vec![0.0; k * d];
    let mut sumq = vec![0.0; k];
    for c in 0..k {
        for j in 0..d {
            qdiag[c * d + j] = q[c * d + j].exp();
            sumq[c] += q[c * d + j];
        }
    }
    let mut main = vec![0.0; k];
    let mut qx = vec![0.0; d];
    let mut total = 0.0;
    for i in 0..n {
        for c in 0..k {
            // Q (x − μ) as `Qtimesx` computes it: the diagonal, then L column by column
            for j in 0..d {
                qx[j] = qdiag[c * d + j] * (x[i * d + j] - mu[c * d + j]);
            }
            for a in 0..d {
                let xa = x[i * d + a] - mu[c * d + a];
                for b in a + 1..d {
                    qx[b] += l[c * lsz + ltri(a, b, d)] * xa;
                }
            }
            let mut sq = 0.0;
            for j in 0..d {
                sq += qx[j] * qx[j];
            }
            main[c] = alpha[c] + sumq[c] - 0.5 * sq;
        }
        total += logsumexp(&main);
    }
    total -= n as f64 * logsumexp(alpha);
    let mut frobenius = 0.0;
    for j in 0..q.len() {
        frobenius += qdiag[j] * qdiag[j];
    }
    for j in 0..l.len() {
        frobenius += l[j] * l[j];
    }
    let mut logdet = 0.0;
    for c in 0..k {
        logdet += sumq[c];
    }
    total + sign * (0.5 * gamma * gamma * frobenius - m * logdet) + constant
}

impl Problem {
    /// The objective by the plain function [`gmm`].
    pub fn natural_objective(&self) -> f64 {
        let pr = self.prior();
        let (a, mu, q, l) = (&self.alpha, &self.mu, &self.q, &self.l);
        gmm(
            a,
            mu,
            q,
            l,
            &self.x,
            self.d,
            pr.gamma,
            pr.m,
            pr.sign,
            pr.constant,
        )
    }

    /// The gradient by `gmm_gradient`.
    pub fn natural_gradient(&self) -> Gradient {
        let pr = self.prior();
        let (a, mu, q, l) = (&self.alpha, &self.mu, &self.q, &self.l);
        let (_, (alpha, mu, q, l)) = gmm_gradient(
            a,
            mu,
            q,
            l,
            &self.x,
            self.d,
            pr.gamma,
            pr.m,
            pr.sign,
            pr.constant,
        );
        Params { alpha, mu, q, l }
    }
}
