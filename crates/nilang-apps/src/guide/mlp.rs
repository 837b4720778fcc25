//! The guide's third worked example: a multilayer perceptron `din → h (tanh) → 1` on a batch,
//! its mean squared error, and the gradient with respect to every weight and bias held in one
//! flat parameter vector (handed out by [`nilang::ad::split_mut`]) — written as the guide
//! teaches (`#[i]`, default settings), beside its plain-Rust objective [`native`].
//!
//! `θ = [W₁ (h × din, row-major), b₁ (h), w₂ (h), b₂ (1)]`; the loss is
//! `(1/n) Σₛ (w₂ · tanh(W₁ xₛ + b₁) + b₂ − yₛ)²`.

use crate::plain::Plain;
use nilang::ad::split_mut;
use nilang::{i, Real};
use rand::{Rng, SeedableRng};

/// `loss +=` the mean squared error of the perceptron `(w1, b1, w2, b2)` on the inputs `x`
/// (`n × din`, row-major) against the targets `y` (`n`).
#[i(expand)]
pub fn mlp_mse<T: Real>(
    loss: &mut T,
    w1: &mut [T],
    b1: &mut [T],
    w2: &mut [T],
    b2: &mut [T],
    x: &[f64],
    y: &[f64],
) {
    let n = y.len();
    let h = b1.len();
    let din = x.len() / n;
    let z = vec![T::zero(); n * h];
    let a = vec![T::zero(); n * h];
    let r = vec![T::zero(); n];
    routine! {
        for s in 0..n {
            for j in 0..h {
                z[s * h + j] += identity(b1[j]);
                for i in 0..din {
                    z[s * h + j] += w1[j * din + i] * x[s * din + i];
                }
                a[s * h + j] += tanh(z[s * h + j]);
                r[s] += w2[j] * a[s * h + j];
            }
            r[s] += identity(b2[0]);
            r[s] -= y[s];
        }
    }
    for s in 0..n {
        loss += square(r[s]) / n as f64;
    }
    uncompute!();
    dealloc!(
        z = vec![T::zero(); n * h],
        a = vec![T::zero(); n * h],
        r = vec![T::zero(); n]
    );
    dealloc!(din = x.len() / n, h = b1.len(), n = y.len());
}

/// The plain-Rust objective, generic over the peers' scalars ([`Plain`]), with the operations
/// in the reversible program's order.
pub fn native<S: Plain>(theta: &[S], x: &[f64], y: &[f64], din: usize, h: usize) -> S {
    let (w1, rest) = theta.split_at(h * din);
    let (b1, rest) = rest.split_at(h);
    let (w2, b2) = rest.split_at(h);
    let n = y.len();
    let mut loss = S::cst(0.0);
    for s in 0..n {
        let mut r = S::cst(0.0);
        for j in 0..h {
            let mut z = b1[j];
            for i in 0..din {
                z = z + w1[j * din + i] * S::cst(x[s * din + i]);
            }
            r = r + w2[j] * z.tanh();
        }
        r = r + b2[0] - S::cst(y[s]);
        loss = loss + r * r / S::cst(n as f64);
    }
    loss
}

/// A batch and a perceptron's parameters.
#[derive(Clone, Debug)]
pub struct Problem {
    /// Inputs per sample.
    pub din: usize,
    /// Hidden units.
    pub h: usize,
    /// Inputs, `n × din` row-major.
    pub x: Vec<f64>,
    /// Targets.
    pub y: Vec<f64>,
    /// `[W₁, b₁, w₂, b₂]`.
    pub theta: Vec<f64>,
}

impl Problem {
    /// A random batch of `n` samples for a `din → h → 1` perceptron, from `seed`.
    pub fn random(din: usize, h: usize, n: usize, seed: u64) -> Problem {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let x = (0..n * din).map(|_| rng.gen_range(-1.0..1.0)).collect();
        let y = (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect();
        let scale = 1.0 / (din as f64).sqrt();
        let theta = (0..h * din + 2 * h + 1)
            .map(|_| scale * rng.gen_range(-1.0..1.0))
            .collect();
        Problem {
            din,
            h,
            x,
            y,
            theta,
        }
    }

    /// The lengths of `W₁, b₁, w₂, b₂` in `θ`.
    pub fn pieces(&self) -> [usize; 4] {
        [self.h * self.din, self.h, self.h, 1]
    }

    /// The plain-Rust objective at `theta`.
    pub fn native(&self, theta: &[f64]) -> f64 {
        native(theta, &self.x, &self.y, self.din, self.h)
    }

    /// The reversible program run forward at `theta`: the objective.
    pub fn forward(&self, theta: &mut [f64]) -> f64 {
        let [w1, b1, w2, b2] = split_mut(theta, self.pieces());
        let mut loss = 0.0;
        mlp_mse(&mut loss, w1, b1, w2, b2, &self.x, &self.y);
        loss
    }

    /// The objective and its gradient with respect to `θ`, by `mlp_mse_vjp`.
    pub fn gradient(&self, theta: &mut [f64]) -> (f64, Vec<f64>) {
        let mut grad = vec![0.0; theta.len()];
        let [w1, b1, w2, b2] = split_mut(theta, self.pieces());
        let [g_w1, g_b1, g_w2, g_b2] = split_mut(&mut grad, self.pieces());
        let value = mlp_mse_vjp(
            &mut 0.0,
            &mut 1.0,
            w1,
            g_w1,
            b1,
            g_b1,
            w2,
            g_w2,
            b2,
            g_b2,
            &self.x,
            (),
            &self.y,
            (),
        );
        (value, grad)
    }
}
