//! A NICE normalizing flow (Dinh et al. 2014) trained with constant memory (ICLR paper,
//! discussion): its gradient is the inverse program, so nothing is stored per layer or per
//! sample.
//!
//! The flow maps data `x ∈ ℝᴰ` to `z = exp(s) ⊙ f_L(…f_1(x))` where each additive coupling
//! layer `f_l` adds an MLP of one half of the coordinates to the other half (the halves
//! alternate with `l`): `v_b += W₂ tanh(W₁ v_a + b₁) + b₂`. Its negative log-likelihood under a
//! standard normal prior is `Σ ½‖z‖² − Σ s + (D/2) log 2π` per sample (coupling layers have unit
//! Jacobian determinant).
//!
//! In the reversible program every coupling layer changes the state in place and uncomputes its
//! hidden layer, and every sample's state is uncomputed after its contribution is added: the
//! memory of the gradient is the parameters (as `GVar`s) plus `O(D + H)` stack ancillas,
//! whatever the number of layers and samples.

use crate::plain::Plain;
use nilang::{i, Loss, Real};

/// Number of parameters of one coupling layer: `W₁ (H × D/2)`, `b₁ (H)`, `W₂ (D/2 × H)`,
/// `b₂ (D/2)`.
pub const fn layer_size(d: usize, h: usize) -> usize {
    2 * h * (d / 2) + h + d / 2
}

/// Number of parameters of a flow with `layers` coupling layers (plus the `D` log-scales).
pub const fn parameter_count(d: usize, h: usize, layers: usize) -> usize {
    layers * layer_size(d, h) + d
}

/// One additive coupling layer, in place: `v_b += W₂ tanh(W₁ v_a + b₁) + b₂` with
/// `a = 2i + l mod 2`, `b = 2i + 1 − l mod 2`.
#[i(nocheck)]
pub fn icoupling<T: Real, const D: usize, const H: usize>(v: &mut [T; D], p: &mut [T], l: usize) {
    let base = l * layer_size(D, H);
    let hid = [T::zero(); H];
    let act = [T::zero(); H];
    routine! {
        for h in 0..H {
            for i in 0..D / 2 {
                hid[h] += p[base + h * (D / 2) + i] * v[2 * i + l % 2];
            }
            hid[h] += p[base + H * (D / 2) + h];
            act[h] += tanh(hid[h]);
        }
    }
    for i in 0..D / 2 {
        for h in 0..H {
            v[2 * i + 1 - l % 2] += p[base + H * (D / 2) + H + i * H + h] * act[h];
        }
        v[2 * i + 1 - l % 2] += p[base + 2 * H * (D / 2) + H + i];
    }
    uncompute!();
    dealloc!(
        hid = [T::zero(); H],
        act = [T::zero(); H],
        base = l * layer_size(D, H)
    );
}

/// `loss += Σ_samples NLL(x)`: data are `D` coordinates per sample, `p` the parameters.
#[i(nocheck)]
pub fn inice_nll<T: Real, const D: usize, const H: usize>(
    loss: &mut T,
    p: &mut [T],
    data: &[f64],
    layers: usize,
) {
    let s = layers * layer_size(D, H);
    for j in 0..data.len() / D {
        let v = [T::zero(); D];
        let scale = [T::zero(); D];
        let z = [T::zero(); D];
        let acc = T::zero();
        routine! {
            for i in 0..D {
                v[i] += data[j * D + i];
            }
            for l in 0..layers {
                icoupling::<T, D, H>(v, p, l);
            }
            for i in 0..D {
                scale[i] += exp(p[s + i]);
                z[i] += scale[i] * v[i];
                acc += square(z[i]);
            }
        }
        loss += 0.5 * acc;
        for i in 0..D {
            loss -= p[s + i];
        }
        loss += 0.5 * D as f64 * (2.0 * std::f64::consts::PI).ln();
        uncompute!();
        dealloc!(
            v = [T::zero(); D],
            scale = [T::zero(); D],
            z = [T::zero(); D],
            acc = T::zero()
        );
    }
    dealloc!(s = layers * layer_size(D, H));
}

/// The same negative log-likelihood, plain Rust, generic over the peers' scalars.
pub fn nice_nll<S: Plain, const D: usize, const H: usize>(
    p: &[S],
    data: &[f64],
    layers: usize,
) -> S {
    let s = layers * layer_size(D, H);
    let mut total = S::cst(0.0);
    for x in data.chunks(D) {
        let mut v: Vec<S> = x.iter().map(|&c| S::cst(c)).collect();
        for l in 0..layers {
            let base = l * layer_size(D, H);
            let mut act = Vec::with_capacity(H);
            for h in 0..H {
                let mut pre = p[base + H * (D / 2) + h];
                for i in 0..D / 2 {
                    pre = pre + p[base + h * (D / 2) + i] * v[2 * i + l % 2];
                }
                let e = (pre + pre).exp();
                act.push((e - S::cst(1.0)) / (e + S::cst(1.0)));
            }
            for i in 0..D / 2 {
                let mut add = p[base + 2 * H * (D / 2) + H + i];
                for (h, &a) in act.iter().enumerate() {
                    add = add + p[base + H * (D / 2) + H + i * H + h] * a;
                }
                v[2 * i + 1 - l % 2] = v[2 * i + 1 - l % 2] + add;
            }
        }
        for i in 0..D {
            let z = p[s + i].exp() * v[i];
            total = total + S::cst(0.5) * z * z - p[s + i];
        }
        total = total + S::cst(0.5 * D as f64 * (2.0 * std::f64::consts::PI).ln());
    }
    total
}

/// Mean NLL and its gradient by reversal.
pub fn nll_and_gradient<const D: usize, const H: usize>(
    p: &[f64],
    data: &[f64],
    layers: usize,
) -> (f64, Vec<f64>) {
    let mut loss = 0.0;
    let mut ps = p.to_vec();
    let (_, g) = inice_nll_grad::<f64, D, H>(Loss::arg(0), &mut loss, &mut ps, data, layers)
        .expect("argument 0 is the loss");
    per_point(loss, &g, data.len() / D)
}

/// The summed NLL and its gradient (`GVar`s) divided by the number of points: the mean.
pub(crate) fn per_point(loss: f64, g: &[nilang::GVar<f64>], points: usize) -> (f64, Vec<f64>) {
    let n = points as f64;
    (loss / n, g.iter().map(|g| g.g / n).collect())
}

/// Samples of the "two moons" data set (2-D), with Gaussian noise, from a seed.
pub fn two_moons(n: usize, noise: f64, seed: u64) -> Vec<f64> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(2 * n);
    for k in 0..n {
        let t = rng.gen_range(0.0..std::f64::consts::PI);
        let (x, y) = if k % 2 == 0 {
            (t.cos(), t.sin())
        } else {
            (1.0 - t.cos(), 0.5 - t.sin())
        };
        let gauss = |rng: &mut rand_chacha::ChaCha8Rng| {
            let (u, v): (f64, f64) = (rng.gen_range(1e-12..1.0), rng.gen_range(0.0..1.0));
            (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
        };
        out.push(x + noise * gauss(&mut rng));
        out.push(y + noise * gauss(&mut rng));
    }
    out
}

/// Small random initial parameters from a seed (log-scales start at zero).
pub fn initial_parameters(d: usize, h: usize, layers: usize, seed: u64) -> Vec<f64> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let n = parameter_count(d, h, layers);
    (0..n)
        .map(|i| {
            if i >= layers * layer_size(d, h) {
                0.0
            } else {
                rng.gen_range(-0.3..0.3)
            }
        })
        .collect()
}

/// Trains with Adam (learning rate `lr`) on the whole data set; returns the parameters and the
/// mean NLL after each step.
pub fn train<const D: usize, const H: usize>(
    p: Vec<f64>,
    data: &[f64],
    layers: usize,
    lr: f64,
    steps: usize,
) -> (Vec<f64>, Vec<f64>) {
    adam(p, lr, steps, |p| nll_and_gradient::<D, H>(p, data, layers))
}

/// `steps` steps of Adam (learning rate `lr`, β = 0.9, 0.999) from `p` on the loss and gradient
/// `loss_and_gradient` gives; returns the parameters and the loss before each step.
pub fn adam(
    mut p: Vec<f64>,
    lr: f64,
    steps: usize,
    mut loss_and_gradient: impl FnMut(&[f64]) -> (f64, Vec<f64>),
) -> (Vec<f64>, Vec<f64>) {
    let (b1, b2, eps) = (0.9, 0.999, 1e-8);
    let mut m = vec![0.0; p.len()];
    let mut v = vec![0.0; p.len()];
    let mut history = Vec::with_capacity(steps);
    for t in 1..=steps {
        let (loss, g) = loss_and_gradient(&p);
        history.push(loss);
        for i in 0..p.len() {
            m[i] = b1 * m[i] + (1.0 - b1) * g[i];
            v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
            let mh = m[i] / (1.0 - b1.powi(t as i32));
            let vh = v[i] / (1.0 - b2.powi(t as i32));
            p[i] -= lr * mh / (vh.sqrt() + eps);
        }
    }
    (p, history)
}
