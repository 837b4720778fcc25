//! `gmm`'s objective and gradient, by running [`gmm_objective`] forward and its adjoint
//! backward in [`Buffers`] kept across the runs of a message.

use super::{gmm_objective, gmm_objective_vjp, Gradient, Params, Problem};
use crate::evals::par_fill;

/// The working memory of the program's runs on one problem, kept across the runs of a
/// message (as GradBench's C++ tools keep theirs): the main terms and their exponentials
/// (`n·k` each, outputs of the program, zero at the start of a run), their gradients, and the
/// parameters' copies the program runs on.
#[derive(Clone, Debug)]
pub struct Buffers {
    /// The main terms.
    pub mt: Vec<f64>,
    /// Their shifted exponentials.
    pub e: Vec<f64>,
    /// The gradient of the main terms.
    pub mt_grad: Vec<f64>,
    /// The gradient of the exponentials.
    pub e_grad: Vec<f64>,
    /// The parameters (the program restores them; reset from the problem before each run).
    pub params: Params,
}

impl Buffers {
    /// Outputs zero and parameters copied from `p`, for a run (the `n·k` outputs cleared on
    /// the threads of the pool, [`par_fill`]).
    fn reset(&mut self, p: &Problem) {
        par_fill(&mut self.mt, 0.0);
        par_fill(&mut self.e, 0.0);
        self.params.alpha.copy_from_slice(&p.alpha);
        self.params.mu.copy_from_slice(&p.mu);
        self.params.q.copy_from_slice(&p.q);
        self.params.l.copy_from_slice(&p.l);
    }
}

impl Problem {
    /// Working memory for this problem's runs ([`Buffers`]).
    pub fn buffers(&self) -> Buffers {
        let nk = self.n * self.k;
        Buffers {
            mt: vec![0.0; nk],
            e: vec![0.0; nk],
            mt_grad: vec![0.0; nk],
            e_grad: vec![0.0; nk],
            params: self.zero_gradient(),
        }
    }

    /// A zero gradient of this problem's shape.
    pub fn zero_gradient(&self) -> Gradient {
        Params {
            alpha: vec![0.0; self.alpha.len()],
            mu: vec![0.0; self.mu.len()],
            q: vec![0.0; self.q.len()],
            l: vec![0.0; self.l.len()],
        }
    }

    /// The objective, by running [`gmm_objective`] forward.
    pub fn objective(&self) -> f64 {
        self.objective_in(&mut self.buffers())
    }

    /// The objective, by running [`gmm_objective`] forward in `b`.
    pub fn objective_in(&self, b: &mut Buffers) -> f64 {
        b.reset(self);
        let mut out = 0.0;
        let w = &mut b.params;
        gmm_objective(
            &mut out,
            &mut b.mt,
            &mut b.e,
            &mut w.alpha,
            &mut w.mu,
            &mut w.q,
            &mut w.l,
            &self.x,
            self.d,
            self.k,
            self.prior(),
        );
        out
    }

    /// The gradient ([`Problem::gradient_into`]).
    pub fn gradient(&self) -> Result<Gradient, String> {
        let mut grad = self.zero_gradient();
        self.gradient_into(&mut self.buffers(), &mut grad);
        Ok(grad)
    }

    /// The gradient into `grad`, by [`gmm_objective_vjp`] in `b`: the program forward, then
    /// its adjoint with the gradients in buffers of their own (seeded with 1 on the
    /// objective).
    pub fn gradient_into(&self, b: &mut Buffers, grad: &mut Gradient) {
        b.reset(self);
        par_fill(&mut b.mt_grad, 0.0);
        par_fill(&mut b.e_grad, 0.0);
        for g in [&mut grad.alpha, &mut grad.mu, &mut grad.q, &mut grad.l] {
            g.fill(0.0);
        }
        let (mut out, mut out_grad) = (0.0, 1.0);
        let w = &mut b.params;
        gmm_objective_vjp(
            &mut out,
            &mut out_grad,
            &mut b.mt,
            &mut b.mt_grad,
            &mut b.e,
            &mut b.e_grad,
            &mut w.alpha,
            &mut grad.alpha,
            &mut w.mu,
            &mut grad.mu,
            &mut w.q,
            &mut grad.q,
            &mut w.l,
            &mut grad.l,
            &self.x,
            (),
            self.d,
            (),
            self.k,
            (),
            self.prior(),
            (),
        );
    }
}
