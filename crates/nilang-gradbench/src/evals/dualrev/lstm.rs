//! `lstm` over [`Scalar`]: ADBench's LSTM loss (the loops of GradBench's `lstm.hpp`),
//! differentiated in the main and extra parameters.

use crate::evals::lstm::Problem;
use nilang_dualrev::Scalar;

/// `1 / (1 + e⁻ˣ)`.
pub fn logistic<S: Scalar>(x: S) -> S {
    ((-x).exp() + 1.0).recip()
}

/// The loss of an `l`-layer LSTM of width `b` predicting each entry of `seq` (`c × b`) from the
/// previous one: `main` (`l × 8b`: forget, input, output, cell weights, then their biases),
/// `extra` (`3b`: input weights, output weights, output biases), `state` (`l × 2b`: hidden,
/// then cell, per layer).
pub fn lstm<S: Scalar>(main: &[S], extra: &[S], state: &[f64], seq: &[f64], l: usize) -> S {
    let b = extra.len() / 3;
    let c = seq.len() / b;
    let mut hc: Vec<S> = state.iter().map(|&v| S::cst(v)).collect();
    let mut input = vec![S::zero(); b];
    let mut total = S::zero();
    for t in 0..c - 1 {
        for i in 0..b {
            input[i] = extra[i] * seq[t * b + i];
        }
        for j in 0..l {
            let (w, h) = (&main[8 * b * j..8 * b * (j + 1)], &mut hc[2 * b * j..]);
            for i in 0..b {
                let f = logistic(input[i] * w[i] + w[4 * b + i]);
                let ig = logistic(h[i] * w[b + i] + w[5 * b + i]);
                let o = logistic(input[i] * w[2 * b + i] + w[6 * b + i]);
                let g = (h[i] * w[3 * b + i] + w[7 * b + i]).tanh();
                h[b + i] = h[b + i] * f + ig * g;
                h[i] = o * h[b + i].tanh();
                input[i] = h[i];
            }
        }
        let y: Vec<S> = (0..b)
            .map(|i| input[i] * extra[b + i] + extra[2 * b + i])
            .collect();
        let lse = (y.iter().map(|v| v.exp()).sum::<S>() + 2.0).ln();
        for i in 0..b {
            total += (y[i] - lse) * seq[(t + 1) * b + i];
        }
    }
    -total / ((c - 1) * b) as f64
}

impl Problem {
    /// The loss on `f64`.
    pub fn dualrev_objective(&self) -> f64 {
        lstm(&self.main, &self.extra, &self.state, &self.seq, self.dims.l)
    }

    /// The gradient with respect to the main then the extra parameters, by one reverse sweep.
    pub fn dualrev_gradient(&self) -> Result<Vec<f64>, String> {
        let (l, b, c) = (self.dims.l, self.dims.b, self.dims.c);
        super::need_tape("lstm", &[c, b, l + 1, 40])?;
        let all = [self.main.as_slice(), &self.extra].concat();
        let cut = self.main.len();
        super::gradient_of(
            |v| {
                let (main, extra) = v.split_at(cut);
                lstm(main, extra, &self.state, &self.seq, l)
            },
            &all,
        )
    }
}
