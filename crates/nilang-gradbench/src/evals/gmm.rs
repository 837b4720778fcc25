//! `gmm`: the Gaussian mixture model objective of ADBench and its gradient.
//!
//! With `Q_c = diag(exp q_c) + L_c` (strictly lower `L_c`), `x_i` the data, `α` the weights:
//!
//! ```text
//! f = −nd/2·log 2π + Σᵢ LSE_c(α_c + Σⱼ q_cj − ½‖Q_c (x_i − μ_c)‖²) − n·LSE(α)
//!     + s·(½γ² Σ_c (‖exp q_c‖² + ‖L_c‖²) − m Σ_c Σⱼ q_cj − k·C)
//! C = N d (log γ − ½ log 2) − log Γ_d(N/2),  N = d + m + 1
//! ```
//!
//! GradBench has sent this eval in two layouts, both accepted here:
//!
//! * **ADBench layout** (`means`, `icf`; the eval README): `icf[c]` is `q_c` followed by the
//!   strictly-lower entries of `L_c` column by column; the `jacobian` output is one flat vector
//!   `[∂α, ∂means, ∂icf]`. The Wishart term has ADBench's sign, `s = +1` (so ADBench's test
//!   instance gives its published objective).
//! * **Split layout** (`mu`, `q`, `l`; the newer eval): the same numbers in separate fields;
//!   the `jacobian` output is `{"alpha", "mu", "q", "l"}`. The objective is the log posterior,
//!   `s = −1`.
//!
//! The reversible program keeps `exp q` and `Σⱼ q_cj` in ancillas for the whole run; for each
//! data point it computes the `k` main terms (with `x − μ`, `Q(x − μ)` and the squared norms as
//! ancillas), adds their LogSumExp ([`crate::evals::lse::logsumexp`]) to the output, and
//! uncomputes the main terms. The gradient is the generated `gmm_objective_grad`.

use super::lse::{logsumexp, logsumexp_adjoint, logsumexp_adjoint_inv, logsumexp_inv};
use super::{decode, flatten, rows, timed, unknown_function};
use crate::runs::Timing;
use nilang::{i, Loss, Real};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use serde_json::{json, Value};

/// The constants of the objective that do not depend on the parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prior {
    /// Wishart precision γ.
    pub gamma: f64,
    /// Wishart extra degrees of freedom m.
    pub m: f64,
    /// Sign of the Wishart term: `+1` ADBench, `−1` log posterior.
    pub sign: f64,
    /// `−nd/2·log 2π − s·k·C`.
    pub constant: f64,
}

impl Prior {
    /// The constants for `n` points of dimension `d` and `k` components.
    pub fn new(d: usize, k: usize, n: usize, gamma: f64, m: f64, sign: f64) -> Prior {
        let big_n = d as f64 + m + 1.0;
        let c = big_n * d as f64 * (gamma.ln() - 0.5 * 2f64.ln()) - log_multigamma(0.5 * big_n, d);
        let constant =
            -(n as f64) * d as f64 * 0.5 * (2.0 * std::f64::consts::PI).ln() - sign * k as f64 * c;
        Prior {
            gamma,
            m,
            sign,
            constant,
        }
    }

    /// `s·½γ²`, the weight of the squared Frobenius norms.
    pub fn frobenius_weight(&self) -> f64 {
        self.sign * 0.5 * self.gamma * self.gamma
    }

    /// `s·m`, the weight of the sums of log-diagonals.
    pub fn log_det_weight(&self) -> f64 {
        self.sign * self.m
    }
}

/// `log Γ(x)` for `x > 0` (Lanczos, g = 7; about 15 correct digits).
pub fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // reflection
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// `log Γ_p(a)`, the multivariate gamma function.
pub fn log_multigamma(a: f64, p: usize) -> f64 {
    let mut r = 0.25 * (p * p.saturating_sub(1)) as f64 * std::f64::consts::PI.ln();
    for j in 1..=p {
        r += ln_gamma(a + 0.5 * (1.0 - j as f64));
    }
    r
}

/// Position of `L[b][a]` (`b > a`) in the strictly-lower entries stored column by column.
#[inline(always)]
pub fn ltri(a: usize, b: usize, d: usize) -> usize {
    a * (d - 1) - a * a.saturating_sub(1) / 2 + b - a - 1
}

/// `out += f(α, μ, q, l)` for the data `x` (`n × d`, row-major), `k` components.
/// `mu`, `q` are `k × d`; `l` is `k × d(d−1)/2`.
#[i(nocheck)]
#[allow(clippy::too_many_arguments)]
pub fn gmm_objective<T: Real>(
    out: &mut T,
    alpha: &mut [T],
    mu: &mut [T],
    q: &mut [T],
    l: &mut [T],
    x: &[f64],
    d: usize,
    k: usize,
    prior: Prior,
) {
    let qd = vec![T::zero(); k * d];
    let sumq = vec![T::zero(); k];
    let xc = vec![T::zero(); k * d];
    let qx = vec![T::zero(); k * d];
    let sq = vec![T::zero(); k];
    let mt = vec![T::zero(); k];
    let la = T::zero();
    let w = T::zero();
    routine! {
        for c in 0..k {
            for j in 0..d {
                qd[c * d + j] += exp(q[c * d + j]);
                sumq[c] += q[c * d + j];
            }
        }
    }
    for i in 0..x.len() / d {
        routine! {
            for c in 0..k {
                for j in 0..d {
                    xc[c * d + j] += identity(x[i * d + j]);
                    xc[c * d + j] -= mu[c * d + j];
                    qx[c * d + j] += qd[c * d + j] * xc[c * d + j];
                }
                for a in 0..d {
                    for b in a + 1..d {
                        qx[c * d + b] += l[c * (d * (d - 1) / 2) + ltri(a, b, d)] * xc[c * d + a];
                    }
                }
                for j in 0..d {
                    sq[c] += square(qx[c * d + j]);
                }
                mt[c] += alpha[c];
                mt[c] += sumq[c];
                mt[c] -= sq[c] * 0.5;
            }
        }
        logsumexp(out, mt);
        uncompute!();
    }
    // − n·LSE(α)
    logsumexp(la, alpha);
    out -= la * ((x.len() / d) as f64);
    uncall!(logsumexp(la, alpha));
    // the Wishart prior
    for c in 0..k * d {
        w += square(qd[c]);
    }
    for c in 0..l.len() {
        w += square(l[c]);
    }
    out += w * prior.frobenius_weight();
    reverse! {
        for c in 0..k * d {
            w += square(qd[c]);
        }
        for c in 0..l.len() {
            w += square(l[c]);
        }
    }
    for c in 0..k {
        out -= sumq[c] * prior.log_det_weight();
    }
    out += identity(prior.constant);
    uncompute!();
    dealloc!(qd = vec![T::zero(); k * d], sumq = vec![T::zero(); k]);
    dealloc!(xc = vec![T::zero(); k * d], qx = vec![T::zero(); k * d]);
    dealloc!(sq = vec![T::zero(); k], mt = vec![T::zero(); k]);
    dealloc!(la = T::zero(), w = T::zero());
}

/// Which layout an input came in (decides the Wishart sign and the output shape).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `means` + `icf`, flat gradient output, ADBench's Wishart sign.
    Adbench,
    /// `mu` + `q` + `l`, gradient output by field, log-posterior sign.
    Split,
}

/// A GMM problem, flattened row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Dimension.
    pub d: usize,
    /// Components.
    pub k: usize,
    /// Points.
    pub n: usize,
    /// Weights, `k`.
    pub alpha: Vec<f64>,
    /// Means, `k × d`.
    pub mu: Vec<f64>,
    /// Log-diagonals, `k × d`.
    pub q: Vec<f64>,
    /// Strictly-lower entries, `k × d(d−1)/2`.
    pub l: Vec<f64>,
    /// Data, `n × d`.
    pub x: Vec<f64>,
    /// Wishart γ.
    pub gamma: f64,
    /// Wishart m.
    pub m: f64,
    /// The layout it came in.
    pub layout: Layout,
}

/// The gradient of the objective, by parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Gradient {
    /// ∂f/∂α.
    pub alpha: Vec<f64>,
    /// ∂f/∂μ (`k × d`).
    pub mu: Vec<f64>,
    /// ∂f/∂q (`k × d`).
    pub q: Vec<f64>,
    /// ∂f/∂l (`k × d(d−1)/2`).
    pub l: Vec<f64>,
}

/// The `gmm` input as sent (either layout).
#[derive(Clone, Debug, Deserialize)]
pub struct RawInput {
    /// Dimension.
    pub d: usize,
    /// Components.
    pub k: usize,
    /// Points.
    pub n: usize,
    /// Weights.
    pub alpha: Vec<f64>,
    /// Means (ADBench layout).
    pub means: Option<Vec<Vec<f64>>>,
    /// Inverse covariance factors (ADBench layout).
    pub icf: Option<Vec<Vec<f64>>>,
    /// Means (split layout).
    pub mu: Option<Vec<Vec<f64>>>,
    /// Log-diagonals (split layout).
    pub q: Option<Vec<Vec<f64>>>,
    /// Strictly-lower entries (split layout).
    pub l: Option<Vec<Vec<f64>>>,
    /// Data points.
    pub x: Vec<Vec<f64>>,
    /// Wishart γ.
    pub gamma: f64,
    /// Wishart m.
    pub m: f64,
}

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

    /// Size of one component's strictly-lower part.
    pub fn lsz(&self) -> usize {
        self.d * self.d.saturating_sub(1) / 2
    }

    /// Checks and flattens an input.
    pub fn from_raw(r: RawInput) -> Result<Problem, String> {
        let (d, k, n) = (r.d, r.k, r.n);
        if d == 0 || k == 0 {
            return Err("bad `gmm` input: `d` and `k` must be positive".into());
        }
        let lsz = d * (d - 1) / 2;
        let count = |what: &str, len: usize, want: usize| {
            if len == want {
                Ok(())
            } else {
                Err(format!(
                    "bad `gmm` input: `{what}` has {len} rows, expected {want}"
                ))
            }
        };
        count("alpha", r.alpha.len(), k)?;
        count("x", r.x.len(), n)?;
        let x = flatten("x", &r.x, d)?;
        let (layout, mu, q, l) = match (r.means, r.icf, r.mu, r.q, r.l) {
            (Some(means), Some(icf), None, None, None) => {
                count("means", means.len(), k)?;
                count("icf", icf.len(), k)?;
                let mu = flatten("means", &means, d)?;
                let icf = flatten("icf", &icf, d + lsz)?;
                let mut q = Vec::with_capacity(k * d);
                let mut l = Vec::with_capacity(k * lsz);
                for c in icf.chunks(d + lsz) {
                    q.extend_from_slice(&c[..d]);
                    l.extend_from_slice(&c[d..]);
                }
                (Layout::Adbench, mu, q, l)
            }
            (None, None, Some(mu), Some(q), Some(l)) => {
                count("mu", mu.len(), k)?;
                count("q", q.len(), k)?;
                count("l", l.len(), k)?;
                (
                    Layout::Split,
                    flatten("mu", &mu, d)?,
                    flatten("q", &q, d)?,
                    flatten("l", &l, lsz)?,
                )
            }
            _ => {
                return Err(
                    "bad `gmm` input: expected either `means` and `icf`, or `mu`, `q` and `l`"
                        .into(),
                );
            }
        };
        Ok(Problem {
            d,
            k,
            n,
            alpha: r.alpha,
            mu,
            q,
            l,
            x,
            gamma: r.gamma,
            m: r.m,
            layout,
        })
    }

    /// Reads an ADBench `gmm` data file (see `/work/shared/data/adbench/README.md`).
    pub fn from_adbench(text: &str) -> Result<Problem, String> {
        let mut it = text
            .split_whitespace()
            .map(|w| w.parse::<f64>().map_err(|e| format!("{w}: {e}")));
        let mut next = || {
            it.next()
                .unwrap_or_else(|| Err("unexpected end of file".into()))
        };
        let (d, k, n) = (next()? as usize, next()? as usize, next()? as usize);
        let lsz = d * d.saturating_sub(1) / 2;
        let mut take = |count: usize| {
            (0..count)
                .map(|_| next())
                .collect::<Result<Vec<f64>, String>>()
        };
        let alpha = take(k)?;
        let mu = take(k * d)?;
        let icf = take(k * (d + lsz))?;
        let x = take(n * d)?;
        let gm = take(2)?;
        let mut q = Vec::new();
        let mut l = Vec::new();
        for c in icf.chunks(d + lsz) {
            q.extend_from_slice(&c[..d]);
            l.extend_from_slice(&c[d..]);
        }
        Ok(Problem {
            d,
            k,
            n,
            alpha,
            mu,
            q,
            l,
            x,
            gamma: gm[0],
            m: gm[1],
            layout: Layout::Adbench,
        })
    }

    /// The problem as a GradBench input (in its layout), without `Runs` fields.
    pub fn to_json(&self) -> Value {
        let (d, k, lsz) = (self.d, self.k, self.lsz());
        let x = rows(&self.x, self.n, d);
        match self.layout {
            Layout::Adbench => {
                let icf: Vec<Vec<f64>> = (0..k)
                    .map(|c| {
                        let mut v = self.q[c * d..(c + 1) * d].to_vec();
                        v.extend_from_slice(&self.l[c * lsz..(c + 1) * lsz]);
                        v
                    })
                    .collect();
                json!({"d": d, "k": k, "n": self.n, "alpha": self.alpha, "means": rows(&self.mu, k, d),
                       "icf": icf, "x": x, "gamma": self.gamma, "m": self.m})
            }
            Layout::Split => {
                json!({"d": d, "k": k, "n": self.n, "alpha": self.alpha, "mu": rows(&self.mu, k, d),
                                    "q": rows(&self.q, k, d), "l": rows(&self.l, k, lsz), "x": x,
                                    "gamma": self.gamma, "m": self.m})
            }
        }
    }

    /// The constants for this problem.
    pub fn prior(&self) -> Prior {
        let sign = match self.layout {
            Layout::Adbench => 1.0,
            Layout::Split => -1.0,
        };
        Prior::new(self.d, self.k, self.n, self.gamma, self.m, sign)
    }

    /// The objective, by running [`gmm_objective`] forward.
    pub fn objective(&self) -> f64 {
        let mut out = 0.0;
        let (mut alpha, mut mu, mut q, mut l) = (
            self.alpha.clone(),
            self.mu.clone(),
            self.q.clone(),
            self.l.clone(),
        );
        gmm_objective(
            &mut out,
            &mut alpha,
            &mut mu,
            &mut q,
            &mut l,
            &self.x,
            self.d,
            self.k,
            self.prior(),
        );
        out
    }

    /// The gradient, by running [`gmm_objective_inv`] on gradient values.
    pub fn gradient(&self) -> Result<Gradient, String> {
        let mut out = 0.0;
        let (mut alpha, mut mu, mut q, mut l) = (
            self.alpha.clone(),
            self.mu.clone(),
            self.q.clone(),
            self.l.clone(),
        );
        let (_g_out, ga, gm, gq, gl) = gmm_objective_grad(
            Loss::arg(0),
            &mut out,
            &mut alpha,
            &mut mu,
            &mut q,
            &mut l,
            &self.x,
            self.d,
            self.k,
            self.prior(),
        )
        .map_err(|e| e.to_string())?;
        let g = |v: &[nilang::GVar<f64>]| v.iter().map(|v| v.g).collect();
        Ok(Gradient {
            alpha: g(&ga),
            mu: g(&gm),
            q: g(&gq),
            l: g(&gl),
        })
    }

    /// The gradient as the eval's output for this layout.
    pub fn encode_gradient(&self, g: &Gradient) -> Value {
        let (d, k, lsz) = (self.d, self.k, self.lsz());
        match self.layout {
            Layout::Adbench => {
                let mut flat = g.alpha.clone();
                flat.extend_from_slice(&g.mu);
                for c in 0..k {
                    flat.extend_from_slice(&g.q[c * d..(c + 1) * d]);
                    flat.extend_from_slice(&g.l[c * lsz..(c + 1) * lsz]);
                }
                json!(flat)
            }
            Layout::Split => {
                json!({"alpha": g.alpha, "mu": rows(&g.mu, k, d), "q": rows(&g.q, k, d),
                                    "l": rows(&g.l, k, lsz)})
            }
        }
    }

    /// Plain Rust objective (the reference for tests), with the parameters `(α, μ, q, l)`.
    pub fn reference(&self, alpha: &[f64], mu: &[f64], q: &[f64], l: &[f64]) -> f64 {
        let (d, k, lsz) = (self.d, self.k, self.lsz());
        let prior = self.prior();
        let lse = |v: &[f64]| {
            let a = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            a + v.iter().map(|x| (x - a).exp()).sum::<f64>().ln()
        };
        let mut total = 0.0;
        let mut main = vec![0.0; k];
        for i in 0..self.n {
            for c in 0..k {
                let xc: Vec<f64> = (0..d).map(|j| self.x[i * d + j] - mu[c * d + j]).collect();
                let mut qx: Vec<f64> = (0..d).map(|j| q[c * d + j].exp() * xc[j]).collect();
                for a in 0..d {
                    for b in a + 1..d {
                        qx[b] += l[c * lsz + ltri(a, b, d)] * xc[a];
                    }
                }
                let sumq: f64 = q[c * d..(c + 1) * d].iter().sum();
                main[c] = alpha[c] + sumq - 0.5 * qx.iter().map(|v| v * v).sum::<f64>();
            }
            total += lse(&main);
        }
        total -= self.n as f64 * lse(alpha);
        let frob: f64 =
            q.iter().map(|v| (2.0 * v).exp()).sum::<f64>() + l.iter().map(|v| v * v).sum::<f64>();
        let sumq: f64 = q.iter().sum();
        total + prior.sign * (0.5 * self.gamma * self.gamma * frob - self.m * sumq) + prior.constant
    }
}

/// The `gmm` functions: `objective` and `jacobian` (the gradient).
pub fn evaluate(function: &str, input: &Value) -> Result<(Value, Vec<Timing>), String> {
    let p = Problem::from_raw(decode("gmm", input)?)?;
    match function {
        "objective" => timed(input, || Ok(p.objective()), |y| json!(y)),
        "jacobian" => timed(input, || p.gradient(), |g| p.encode_gradient(&g)),
        _ => Err(unknown_function(
            "gmm",
            function,
            &["objective", "jacobian"],
        )),
    }
}
