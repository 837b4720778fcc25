//! The guide's second worked example: a Lotka–Volterra system integrated by the classical
//! Runge–Kutta method (RK4) over many steps, and the gradient of a loss of the final state
//! with respect to the initial state and the four parameters, keeping the trajectory — written
//! as the guide teaches (`#[i]`, default settings), beside its plain-Rust objective [`native`].
//!
//! `ẋ = a x − b x y`, `ẏ = c x y − d y` with `p = [a, b, c, d]`; the loss is `x_T² + y_T²`.
//! The same gradient in O(log T) memory: [`Problem::checkpointed_gradient`], the step
//! [`rk4_flat`] under `nilang::checkpoint::treeverse_gradient`.

use nilang::checkpoint::{treeverse_gradient, vjp_step};
use nilang::{i, Real};

/// `(dx, dy) += (a x − b x y, c x y − d y)` for `p = [a, b, c, d]`.
#[i(expand)]
pub fn lotka_volterra<T: Real>(dx: &mut T, dy: &mut T, x: &mut T, y: &mut T, p: &mut [T]) {
    dx += p[0] * x - p[1] * x * y;
    dy += p[2] * x * y - p[3] * y;
}

/// One RK4 step of length `h`: `(x1, y1) += (x0, y0) + h/6 (k₁ + 2k₂ + 2k₃ + k₄)`.
#[i(expand)]
pub fn rk4_step<T: Real>(x1: &mut T, y1: &mut T, x0: &mut T, y0: &mut T, p: &mut [T], h: f64) {
    let (k1x, k1y, k2x, k2y) = (T::zero(), T::zero(), T::zero(), T::zero());
    let (k3x, k3y, k4x, k4y) = (T::zero(), T::zero(), T::zero(), T::zero());
    let (ux, uy) = (T::zero(), T::zero());
    let (vx, vy) = (T::zero(), T::zero());
    let (wx, wy) = (T::zero(), T::zero());
    routine! {
        lotka_volterra(k1x, k1y, x0, y0, p);
        ux += x0 + 0.5 * h * k1x;
        uy += y0 + 0.5 * h * k1y;
        lotka_volterra(k2x, k2y, ux, uy, p);
        vx += x0 + 0.5 * h * k2x;
        vy += y0 + 0.5 * h * k2y;
        lotka_volterra(k3x, k3y, vx, vy, p);
        wx += x0 + h * k3x;
        wy += y0 + h * k3y;
        lotka_volterra(k4x, k4y, wx, wy, p);
    }
    x1 += x0 + h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
    y1 += y0 + h / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y);
    uncompute!();
    dealloc!(k1x = T::zero(), k1y = T::zero());
    dealloc!(k2x = T::zero(), k2y = T::zero());
    dealloc!(k3x = T::zero(), k3y = T::zero());
    dealloc!(k4x = T::zero(), k4y = T::zero());
    dealloc!(ux = T::zero(), uy = T::zero());
    dealloc!(vx = T::zero(), vy = T::zero());
    dealloc!(wx = T::zero(), wy = T::zero());
}

/// `loss += x_T² + y_T²` after `steps` RK4 steps of length `h` from `state = [x₀, y₀]`; the
/// trajectory is kept in the ancillas `xs`, `ys` and uncomputed at the end.
#[i]
pub fn rk4_loss<T: Real>(loss: &mut T, state: &mut [T], p: &mut [T], steps: usize, h: f64) {
    let xs = vec![T::zero(); steps + 1];
    let ys = vec![T::zero(); steps + 1];
    routine! {
        xs[0] += identity(state[0]);
        ys[0] += identity(state[1]);
        for t in 0..steps {
            rk4_step(xs[t + 1], ys[t + 1], xs[t], ys[t], p, h);
        }
    }
    loss += square(xs[steps]);
    loss += square(ys[steps]);
    uncompute!();
    dealloc!(
        xs = vec![T::zero(); steps + 1],
        ys = vec![T::zero(); steps + 1]
    );
}

/// One RK4 step on flat slices, `out += step(s)` with `s = [x, y]`: the form the schedulers
/// of `nilang::checkpoint` take.
#[i]
pub fn rk4_flat<T: Real>(out: &mut [T], s: &mut [T], p: &mut [T], h: f64) {
    rk4_step(out[0], out[1], s[0], s[1], p, h);
}

/// The right-hand side in plain Rust.
fn rhs(x: f64, y: f64, p: &[f64]) -> (f64, f64) {
    (p[0] * x - p[1] * x * y, p[2] * x * y - p[3] * y)
}

/// The plain-Rust objective: `x_T² + y_T²` after `steps` RK4 steps of length `h` from
/// `state`, with the operations in the reversible program's order.
pub fn native(state: &[f64], p: &[f64], steps: usize, h: f64) -> f64 {
    let (mut x, mut y) = (state[0], state[1]);
    for _ in 0..steps {
        let (k1x, k1y) = rhs(x, y, p);
        let (k2x, k2y) = rhs(x + 0.5 * h * k1x, y + 0.5 * h * k1y, p);
        let (k3x, k3y) = rhs(x + 0.5 * h * k2x, y + 0.5 * h * k2y, p);
        let (k4x, k4y) = rhs(x + h * k3x, y + h * k3y, p);
        x += h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
        y += h / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y);
    }
    x * x + y * y
}

/// An instance: initial state, parameters, steps and step length.
#[derive(Clone, Debug)]
pub struct Problem {
    /// `[x₀, y₀]`.
    pub state: Vec<f64>,
    /// `[a, b, c, d]`.
    pub p: Vec<f64>,
    /// Number of steps.
    pub steps: usize,
    /// Step length.
    pub h: f64,
}

impl Problem {
    /// The classical predator–prey instance (`a = 2/3, b = 4/3, c = d = 1`, from `(1, 1)`)
    /// over `steps` steps up to time 10.
    pub fn new(steps: usize) -> Problem {
        Problem {
            state: vec![1.0, 1.0],
            p: vec![2.0 / 3.0, 4.0 / 3.0, 1.0, 1.0],
            steps,
            h: 10.0 / steps as f64,
        }
    }

    /// The plain-Rust objective.
    pub fn native(&self) -> f64 {
        native(&self.state, &self.p, self.steps, self.h)
    }

    /// The reversible program run forward: the objective.
    pub fn forward(&mut self) -> f64 {
        let mut loss = 0.0;
        rk4_loss(&mut loss, &mut self.state, &mut self.p, self.steps, self.h);
        loss
    }

    /// The objective and its gradient with respect to the initial state and the parameters
    /// (`[∂x₀, ∂y₀, ∂a, ∂b, ∂c, ∂d]`), by `rk4_loss_vjp`.
    pub fn gradient(&mut self) -> (f64, Vec<f64>) {
        let (mut state_grad, mut p_grad) = (vec![0.0; 2], vec![0.0; 4]);
        let value = rk4_loss_vjp(
            &mut 0.0,
            &mut 1.0,
            &mut self.state,
            &mut state_grad,
            &mut self.p,
            &mut p_grad,
            self.steps,
            (),
            self.h,
            (),
        );
        state_grad.extend(p_grad);
        (value, state_grad)
    }

    /// The objective by [`rk4_flat`], step after step on two buffers: what the checkpointed
    /// gradient's first sweep runs.
    pub fn stepped_forward(&mut self) -> f64 {
        let (mut s, mut next) = (self.state.clone(), vec![0.0; 2]);
        for _ in 0..self.steps {
            rk4_flat(&mut next, &mut s, &mut self.p, self.h);
            std::mem::swap(&mut s, &mut next);
            next.fill(0.0);
        }
        s[0] * s[0] + s[1] * s[1]
    }

    /// What [`Problem::gradient`] returns, keeping at most `snapshots` states instead of the
    /// trajectory: Treeverse (`nilang::checkpoint::treeverse_gradient`) over [`rk4_flat`] and
    /// its generated `rk4_flat_vjp`, each step recomputed a few times from the nearest kept
    /// state. `snapshots = ⌈log₂ T⌉` keeps O(log T) states.
    pub fn checkpointed_gradient(&self, snapshots: usize) -> (f64, Vec<f64>) {
        let h = self.h;
        let step = vjp_step(
            |o, s, p| rk4_flat(o, s, p, h),
            |o, og, s, sg, p, pg| rk4_flat_vjp(o, og, s, sg, p, pg, h, ()),
        );
        // ∂(x_T² + y_T²)/∂(x_T, y_T)
        let seed = |s: &[f64]| vec![2.0 * s[0], 2.0 * s[1]];
        let r = treeverse_gradient(&step, &self.state, &self.p, self.steps, snapshots, seed);
        let [x, y] = [r.final_state[0], r.final_state[1]];
        let mut grad = r.state_grad;
        grad.extend(r.param_grad);
        (x * x + y * y, grad)
    }
}
