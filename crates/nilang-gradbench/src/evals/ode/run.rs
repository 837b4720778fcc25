//! `ode`'s solution and gradient, by running [`ode_solve`] forward and its adjoint backward in
//! [`Buffers`] kept across the runs of a message.

use super::{ode_solve, ode_solve_vjp, Rk, PAD};

/// The working memory of the program's runs on one input, kept across the runs of a message
/// (as GradBench's C++ tools keep theirs): the solution at every step, the scaled
/// coefficients, `x`'s copy, and their gradients. For `n = 100 000` and `s = 100` the history
/// is 80 MB, whose pages a fresh allocation would fault in during every run.
#[derive(Clone, Debug)]
pub struct Buffers {
    /// Sizes.
    pub rk: Rk,
    /// The solution at every step, `s + 1` slots of `m` (zero at the start of a run).
    pub ys: Vec<f64>,
    /// Its gradient (the gradient's seed).
    pub ys_grad: Vec<f64>,
    /// The scaled coefficients (zero between runs).
    pub c: Vec<f64>,
    /// Their gradient.
    pub c_grad: Vec<f64>,
    /// The coefficients the program runs on, after [`PAD`] zeros.
    pub x: Vec<f64>,
    /// Their gradient (the first [`PAD`] entries are the padding's).
    pub x_grad: Vec<f64>,
}

impl Buffers {
    /// Buffers for `n` components and `s` steps.
    pub fn new(n: usize, s: usize) -> Buffers {
        let rk = Rk::new(n, s);
        Buffers {
            rk,
            ys: vec![0.0; rk.ys_len()],
            ys_grad: vec![0.0; rk.ys_len()],
            c: vec![0.0; rk.c_len()],
            c_grad: vec![0.0; rk.c_len()],
            x: vec![0.0; rk.m],
            x_grad: vec![0.0; rk.m],
        }
    }

    /// Every slot of the solution zero but for its [`PAD`] leading ones.
    pub fn clear_solution(&mut self) {
        self.ys.fill(0.0);
        for slot in self.ys.chunks_mut(self.rk.m) {
            slot[..PAD].fill(1.0);
        }
    }

    /// The coefficients `x` after the padding.
    pub fn set_x(&mut self, x: &[f64]) {
        self.x[PAD..].copy_from_slice(x);
    }

    /// `∇ₓ`, without the padding's entries, after a gradient run.
    pub fn gradient(&self) -> &[f64] {
        &self.x_grad[PAD..]
    }

    /// `y(2)`, the last slot's components, after a run.
    pub fn solution(&self) -> &[f64] {
        &self.ys[self.rk.s * self.rk.m + PAD..]
    }
}

/// `y(2)` by running [`ode_solve`] forward.
pub fn primal(x: &[f64], s: usize) -> Vec<f64> {
    let mut b = Buffers::new(x.len(), s);
    primal_in(x, &mut b);
    b.solution().to_vec()
}

/// Runs [`ode_solve`] forward in `b` (sized for `x`); the result is [`Buffers::solution`].
pub fn primal_in(x: &[f64], b: &mut Buffers) {
    b.clear_solution();
    b.set_x(x);
    ode_solve(&mut b.ys, &mut b.c, &mut b.x, b.rk);
}

/// `∇ₓ y(2)ₙ₋₁` ([`gradient_in`]).
pub fn gradient(x: &[f64], s: usize) -> Result<Vec<f64>, String> {
    Ok(gradient_in(x, &mut Buffers::new(x.len(), s)).to_vec())
}

/// `∇ₓ y(2)ₙ₋₁` by [`ode_solve_vjp`] in `b` (sized for `x`): the forward program, then its
/// adjoint with the gradients in buffers of their own, seeded with 1 on the last component of
/// `y(2)`.
pub fn gradient_in<'b>(x: &[f64], b: &'b mut Buffers) -> &'b [f64] {
    b.clear_solution();
    b.ys_grad.fill(0.0);
    b.c_grad.fill(0.0);
    b.x_grad.fill(0.0);
    b.set_x(x);
    let last = b.ys_grad.len() - 1;
    b.ys_grad[last] = 1.0;
    let rk = b.rk;
    ode_solve_vjp(
        &mut b.ys,
        &mut b.ys_grad,
        &mut b.c,
        &mut b.c_grad,
        &mut b.x,
        &mut b.x_grad,
        rk,
        (),
    );
    b.gradient()
}
