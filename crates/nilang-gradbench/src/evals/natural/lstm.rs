//! `lstm` as a natural program: ADBench's LSTM loss (the loops of GradBench's `lstm.hpp`) as
//! plain Rust, differentiated in the main and extra parameters.

use crate::evals::lstm::Problem;
use nilang::differentiable;

/// `1 / (1 + e⁻ˣ)`.
#[differentiable]
pub fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The loss of an `l`-layer LSTM of width `b` predicting each entry of `seq` (`c × b`) from the
/// previous one: `main` (`l × 8b`: forget, input, output, cell weights, then their biases),
/// `extra` (`3b`: input weights, output weights, output biases), `state` (`l × 2b`: hidden,
/// then cell, per layer).
#[differentiable(wrt(main, extra))]
pub fn lstm(main: &[f64], extra: &[f64], state: &[f64], seq: &[f64], l: usize) -> f64 {
    let b = extra.len() / 3;
    let c = seq.len() / b;
    let mut hc = vec![0.0; 2 * l * b];
    for i in 0..2 * l * b {
        hc[i] = state[i];
    }
    let mut input = vec![0.0; b];
    let mut y = vec![0.0; b];
    let mut total = 0.0;
    for t in 0..c - 1 {
        for i in 0..b {
            input[i] = seq[t * b + i] * extra[i];
        }
        for j in 0..l {
            let (p, h) = (8 * b * j, 2 * b * j);
            for i in 0..b {
                let f = logistic(input[i] * main[p + i] + main[p + 4 * b + i]);
                let ig = logistic(hc[h + i] * main[p + b + i] + main[p + 5 * b + i]);
                let o = logistic(input[i] * main[p + 2 * b + i] + main[p + 6 * b + i]);
                let g = (hc[h + i] * main[p + 3 * b + i] + main[p + 7 * b + i]).tanh();
                hc[h + b + i] = hc[h + b + i] * f + ig * g;
                hc[h + i] = o * hc[h + b + i].tanh();
                input[i] = hc[h + i];
            }
        }
        let mut sum = 0.0;
        for i in 0..b {
            y[i] = input[i] * extra[b + i] + extra[2 * b + i];
            sum += y[i].exp();
        }
        let lse = (sum + 2.0).ln();
        for i in 0..b {
            total += seq[(t + 1) * b + i] * (y[i] - lse);
        }
    }
    -total / ((c - 1) * b) as f64
}

impl Problem {
    /// The loss, the plain function [`lstm`].
    pub fn natural_objective(&self) -> f64 {
        lstm(&self.main, &self.extra, &self.state, &self.seq, self.dims.l)
    }

    /// The gradient with respect to the main then the extra parameters, by `lstm_gradient`.
    pub fn natural_gradient(&self) -> Vec<f64> {
        let (_, (main, extra)) =
            lstm_gradient(&self.main, &self.extra, &self.state, &self.seq, self.dims.l);
        main.into_iter().chain(extra).collect()
    }
}
