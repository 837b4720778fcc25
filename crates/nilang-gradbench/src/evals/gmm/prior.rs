//! The terms of `gmm`'s objective that do not depend on the parameters ([`Prior`]).

use super::{Layout, Problem};

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

impl Problem {
    /// The constants for this problem.
    pub fn prior(&self) -> Prior {
        let sign = match self.layout {
            Layout::Adbench => 1.0,
            Layout::Split => -1.0,
        };
        Prior::new(self.d, self.k, self.n, self.gamma, self.m, sign)
    }
}
