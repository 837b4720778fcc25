//! The guide's first worked example: the Gaussian mixture model objective of ADBench and
//! GradBench, written as the guide teaches (`#[i]`, default settings), beside its plain-Rust
//! objective [`crate::adbench::gmm_objective`].
//!
//! Parameters, one flat vector `θ = [α (k), μ (k·d), q (k·d), l (k·d(d−1)/2)]`: weights,
//! means, log-diagonal `q` and strictly-lower `l` of each component's inverse-covariance
//! factor `Q = diag(exp q) + L` (ADBench's packing, [`crate::adbench::ltri`]). The objective is
//! `Σᵢ logsumexp_c(α_c + Σq_c − ½‖Q_c (xᵢ − μ_c)‖²) − n·logsumexp(α)` plus the Wishart prior
//! terms `½γ² (Σ exp(q)² + Σ l²) − m Σ q` and a constant (`−nd/2 log 2π` here; the Wishart
//! normaliser, constant in θ, is left out of both programs).

use crate::adbench::{gmm_objective, GmmData};
use nilang::ad::split_mut;
use nilang::blas::isum;
use nilang::stats::ilogsumexp;
use nilang::{i, Real};
use rand::{Rng, SeedableRng};

/// `main −= ½‖Q (x − μ)‖²` for one point `x` and one component (`μ`, `Q = diag(qd) + L`).
#[i(expand)]
pub fn sub_half_sqnorm<T: Real>(main: &mut T, x: &[f64], mu: &mut [T], qd: &mut [T], l: &mut [T]) {
    let d = x.len();
    let xc = vec![T::zero(); d];
    let qx = vec![T::zero(); d];
    routine! {
        for j in 0..d {
            xc[j] += x[j] - mu[j];
            qx[j] += qd[j] * xc[j];
        }
        for a in 0..d {
            for b in a + 1..d {
                qx[b] += l[a * (2 * d - a - 1) / 2 + b - a - 1] * xc[a];
            }
        }
    }
    for j in 0..d {
        main -= 0.5 * square(qx[j]);
    }
    uncompute!();
    dealloc!(xc = vec![T::zero(); d], qx = vec![T::zero(); d]);
    dealloc!(d = x.len());
}

/// `out +=` the GMM objective of the points `x` (`n × d`, row-major) at `α, μ, q, l`, with the
/// Wishart prior's `γ` and `m` and the constant term `constant`.
#[i(expand)]
#[allow(clippy::too_many_arguments)]
pub fn gmm<T: Real>(
    out: &mut T,
    alpha: &mut [T],
    mu: &mut [T],
    q: &mut [T],
    l: &mut [T],
    x: &[f64],
    gamma: f64,
    m: f64,
    constant: f64,
) {
    let k = alpha.len();
    let d = mu.len() / k;
    let n = x.len() / d;
    let lsz = d * (d - 1) / 2;
    let qd = vec![T::zero(); k * d];
    let main = vec![T::zero(); n * k];
    let lse_alpha = T::zero();
    routine! {
        for j in 0..k * d {
            qd[j] += exp(q[j]);
        }
        for i in 0..n {
            for c in 0..k {
                main[i * k + c] += identity(alpha[c]);
                isum(main[i * k + c], q[c * d..(c + 1) * d]);
                sub_half_sqnorm(
                    main[i * k + c],
                    x[i * d..(i + 1) * d],
                    mu[c * d..(c + 1) * d],
                    qd[c * d..(c + 1) * d],
                    l[c * lsz..(c + 1) * lsz],
                );
            }
        }
        ilogsumexp(lse_alpha, alpha);
    }
    for i in 0..n {
        ilogsumexp(out, main[i * k..(i + 1) * k]);
    }
    out -= lse_alpha * n as f64;
    for j in 0..q.len() {
        out += 0.5 * gamma * gamma * square(qd[j]);
        out -= m * q[j];
    }
    for j in 0..l.len() {
        out += 0.5 * gamma * gamma * square(l[j]);
    }
    out += constant;
    uncompute!();
    dealloc!(qd = vec![T::zero(); k * d]);
    dealloc!(main = vec![T::zero(); n * k], lse_alpha = T::zero());
    dealloc!(
        lsz = d * (d - 1) / 2,
        n = x.len() / d,
        d = mu.len() / k,
        k = alpha.len()
    );
}

/// A GMM instance: points, prior and parameters `θ` in one flat vector.
#[derive(Clone, Debug)]
pub struct Problem {
    /// Dimension.
    pub d: usize,
    /// Components.
    pub k: usize,
    /// Points.
    pub n: usize,
    /// The points, `n × d` row-major.
    pub x: Vec<f64>,
    /// Wishart γ.
    pub gamma: f64,
    /// Wishart m.
    pub m: f64,
    /// `−nd/2 log 2π`.
    pub constant: f64,
    /// `[α, μ, q, l]`.
    pub theta: Vec<f64>,
}

impl Problem {
    /// A random instance of `n` points in `d` dimensions and `k` components, from `seed`.
    pub fn random(d: usize, k: usize, n: usize, seed: u64) -> Problem {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let x = (0..n * d).map(|_| rng.gen_range(-1.0..1.0)).collect();
        let lsz = d * (d - 1) / 2;
        let theta = (0..k + 2 * k * d + k * lsz)
            .map(|p| {
                let scale = if p < k + k * d { 1.0 } else { 0.1 };
                scale * rng.gen_range(-1.0..1.0)
            })
            .collect();
        Problem {
            d,
            k,
            n,
            x,
            gamma: 1.0,
            m: 0.0,
            constant: -0.5 * (n * d) as f64 * (2.0 * std::f64::consts::PI).ln(),
            theta,
        }
    }

    /// The lengths of `α, μ, q, l` in `θ`.
    pub fn pieces(&self) -> [usize; 4] {
        let (d, k) = (self.d, self.k);
        [k, k * d, k * d, k * d * (d - 1) / 2]
    }

    /// The plain-Rust objective at `theta` ([`crate::adbench::gmm_objective`]).
    pub fn native(&self, theta: &[f64]) -> f64 {
        let data = GmmData {
            d: self.d,
            k: self.k,
            x: &self.x,
            gamma: self.gamma,
            m: self.m,
            constant: self.constant,
        };
        gmm_objective(&data, theta)
    }

    /// The reversible program run forward at `theta`: the objective.
    pub fn forward(&self, theta: &mut [f64]) -> f64 {
        let [alpha, mu, q, l] = split_mut(theta, self.pieces());
        let mut out = 0.0;
        gmm(
            &mut out,
            alpha,
            mu,
            q,
            l,
            &self.x,
            self.gamma,
            self.m,
            self.constant,
        );
        out
    }

    /// The objective and its gradient with respect to `θ`, by `gmm_vjp`.
    pub fn gradient(&self, theta: &mut [f64]) -> (f64, Vec<f64>) {
        let mut grad = vec![0.0; theta.len()];
        let [alpha, mu, q, l] = split_mut(theta, self.pieces());
        let [g_alpha, g_mu, g_q, g_l] = split_mut(&mut grad, self.pieces());
        let value = gmm_vjp(
            &mut 0.0,
            &mut 1.0,
            alpha,
            g_alpha,
            mu,
            g_mu,
            q,
            g_q,
            l,
            g_l,
            &self.x,
            (),
            self.gamma,
            (),
            self.m,
            (),
            self.constant,
            (),
        );
        (value, grad)
    }
}
