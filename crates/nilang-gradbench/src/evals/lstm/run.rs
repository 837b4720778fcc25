//! `lstm`'s loss and gradient, by running [`lstm_objective`] forward and backward.

use super::{lstm_objective, lstm_objective_grad, Problem};
use nilang::Loss;

/// The working memory of the objective's runs on one problem, kept across the runs of a
/// message (as GradBench's C++ tools keep theirs): the parameters' copies the program runs on,
/// the state history (the initial state, then zeros) and the predictions (zeros), and each
/// step's gold sum (recomputed in every run, as part of the objective).
#[derive(Clone, Debug)]
pub struct Buffers {
    main: Vec<f64>,
    extra: Vec<f64>,
    hist: Vec<f64>,
    ys: Vec<f64>,
    gold_sums: Vec<f64>,
}

impl Problem {
    fn gold_sums(&self) -> Vec<f64> {
        (0..self.dims.c).map(|t| self.gold_sum(t)).collect()
    }

    /// The sum of step `t`'s gold bits.
    fn gold_sum(&self, t: usize) -> f64 {
        let b = self.dims.b;
        self.seq[t * b..(t + 1) * b].iter().sum()
    }

    fn hist(&self) -> Vec<f64> {
        let mut hist = vec![0.0; self.dims.hist_len()];
        hist[..self.state.len()].copy_from_slice(&self.state);
        hist
    }

    /// Working memory for this problem's objective runs ([`Buffers`]).
    pub fn buffers(&self) -> Buffers {
        Buffers {
            main: self.main.clone(),
            extra: self.extra.clone(),
            hist: self.hist(),
            ys: vec![0.0; self.dims.ys_len()],
            gold_sums: self.gold_sums(),
        }
    }

    /// The loss, by running [`lstm_objective`] forward.
    pub fn objective(&self) -> f64 {
        self.objective_in(&mut self.buffers())
    }

    /// The loss, by running [`lstm_objective`] forward in `b` (reset from the problem first).
    pub fn objective_in(&self, b: &mut Buffers) -> f64 {
        b.main.copy_from_slice(&self.main);
        b.extra.copy_from_slice(&self.extra);
        b.hist[..self.state.len()].copy_from_slice(&self.state);
        b.hist[self.state.len()..].fill(0.0);
        b.ys.fill(0.0);
        for (t, g) in b.gold_sums.iter_mut().enumerate() {
            *g = self.gold_sum(t);
        }
        let mut loss = 0.0;
        lstm_objective(
            &mut loss,
            &mut b.main,
            &mut b.extra,
            &mut b.hist,
            &mut b.ys,
            &self.seq,
            &b.gold_sums,
            self.dims,
        );
        loss
    }

    /// The gradient with respect to the main then the extra parameters (row-major,
    /// concatenated), by running [`lstm_objective_inv`](super::lstm_objective_inv) on gradient
    /// values.
    pub fn gradient(&self) -> Result<Vec<f64>, String> {
        let mut loss = 0.0;
        let (mut main, mut extra) = (self.main.clone(), self.extra.clone());
        let (mut hist, mut ys) = (self.hist(), vec![0.0; self.dims.ys_len()]);
        let (_gl, gmain, gextra, _gh, _gy) = lstm_objective_grad(
            Loss::arg(0),
            &mut loss,
            &mut main,
            &mut extra,
            &mut hist,
            &mut ys,
            &self.seq,
            &self.gold_sums(),
            self.dims,
        )
        .map_err(|e| e.to_string())?;
        Ok(gmain.iter().chain(&gextra).map(|v| v.g).collect())
    }
}
