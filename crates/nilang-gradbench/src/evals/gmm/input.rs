//! `gmm`'s input in either layout ([`RawInput`]), checked into a [`Problem`]; ADBench's data
//! files; the problem back to JSON and the gradient as the eval's output.

use crate::evals::{flatten, rows};
use serde::Deserialize;
use serde_json::{json, Value};

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

/// The parameters, or a vector of the same shape (a gradient).
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// α, or ∂f/∂α (`k`).
    pub alpha: Vec<f64>,
    /// μ, or ∂f/∂μ (`k × d`).
    pub mu: Vec<f64>,
    /// q, or ∂f/∂q (`k × d`).
    pub q: Vec<f64>,
    /// l, or ∂f/∂l (`k × d(d−1)/2`).
    pub l: Vec<f64>,
}

/// The gradient of the objective, by parameter.
pub type Gradient = Params;

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

impl Problem {
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
        let lsz = d
            .checked_mul(d - 1)
            .ok_or_else(|| format!("bad `gmm` input: `d` = {d} is too large"))?
            / 2;
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
}
