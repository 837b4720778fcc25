//! A RealNVP normalizing flow (Dinh, Sohl-Dickstein and Bengio 2017) beside the NICE flow of
//! [`crate::flow`]: its coupling layers scale as well as shift, so their Jacobian determinant
//! is not one, and the log-likelihood carries it.
//!
//! Each affine coupling layer computes, from one half `v_a` of the coordinates (the halves
//! alternate with the layer `l`), a hidden layer `h = tanh(W₁ v_a + b₁)`, a log-scale
//! `s = tanh(W_s h + b_s)` and a shift `t = W_t h + b_t`, and changes the other half in place:
//! `v_b ← v_b ⊙ exp(s) + t`; its log-determinant is `Σ s`. The negative log-likelihood of a
//! sample under a standard normal prior is `½‖z‖² − Σ_layers Σ s + (D/2) log 2π`, `z` the
//! state after the last layer.
//!
//! In the reversible program a layer adds the next state into an ancilla (`y_b += x_b · e^s`,
//! `y_b += t`): a floating-point `x *= e^s` in place would not be undone exactly by `/=`, so
//! nilang has no such instruction on floats, and a sample keeps its `layers + 1` states until
//! it is uncomputed. `h`, `s`, `t` and `e^s` are ancillas computed from `x_a` in a routine and
//! uncomputed after the layer. As for NICE, the gradient is the inverse program: its memory is
//! the parameters and `O(layers·D + H)` ancillas, whatever the number of samples.

use crate::plain::Plain;
use nilang::{i, Loss, Real};

/// Number of parameters of one affine coupling layer: `W₁ (H × D/2)`, `b₁ (H)`,
/// `W_s (D/2 × H)`, `b_s (D/2)`, `W_t (D/2 × H)`, `b_t (D/2)`.
pub const fn layer_size(d: usize, h: usize) -> usize {
    h * (d / 2) + h + 2 * ((d / 2) * h + d / 2)
}

/// Where each block of layer `l`'s parameters starts: `[W₁, b₁, W_s, b_s, W_t, b_t]`.
pub const fn offsets(d: usize, h: usize, l: usize) -> [usize; 6] {
    let (half, base) = (d / 2, l * layer_size(d, h));
    let w1 = base;
    let b1 = w1 + h * half;
    let ws = b1 + h;
    let bs = ws + half * h;
    let wt = bs + half;
    let bt = wt + half * h;
    [w1, b1, ws, bs, wt, bt]
}

/// One affine coupling layer: from the state `x = states[l·D..]` it adds the next state
/// `y = states[(l+1)·D..]` (`y_a = x_a`, `y_b = x_b ⊙ exp(s) + t`) and its log-determinant `Σ s`
/// to `logdet`.
#[i(nocheck)]
pub fn iaffine_coupling<T: Real, const D: usize, const H: usize>(
    states: &mut [T],
    logdet: &mut T,
    p: &mut [T],
    l: usize,
) {
    let o = offsets(D, H, l);
    let (x, y) = (l * D, (l + 1) * D);
    let hid = [T::zero(); H];
    let act = [T::zero(); H];
    let pre = [T::zero(); D];
    let s = [T::zero(); D];
    let t = [T::zero(); D];
    let scale = [T::zero(); D];
    routine! {
        for h in 0..H {
            for i in 0..D / 2 {
                hid[h] += p[o[0] + h * (D / 2) + i] * states[x + 2 * i + l % 2];
            }
            hid[h] += p[o[1] + h];
            act[h] += tanh(hid[h]);
        }
        for i in 0..D / 2 {
            for h in 0..H {
                pre[i] += p[o[2] + i * H + h] * act[h];
                t[i] += p[o[4] + i * H + h] * act[h];
            }
            pre[i] += p[o[3] + i];
            t[i] += p[o[5] + i];
            s[i] += tanh(pre[i]);
            scale[i] += exp(s[i]);
        }
    }
    for i in 0..D / 2 {
        states[y + 2 * i + l % 2] += identity(states[x + 2 * i + l % 2]);
        states[y + 2 * i + 1 - l % 2] += states[x + 2 * i + 1 - l % 2] * scale[i];
        states[y + 2 * i + 1 - l % 2] += identity(t[i]);
        logdet += identity(s[i]);
    }
    uncompute!();
    dealloc!(
        hid = [T::zero(); H],
        act = [T::zero(); H],
        pre = [T::zero(); D],
        s = [T::zero(); D],
        t = [T::zero(); D],
        scale = [T::zero(); D],
        y = (l + 1) * D,
        x = l * D,
        o = offsets(D, H, l)
    );
}

/// `loss += Σ_samples NLL(x)`: data are `D` coordinates per sample, `p` the parameters of
/// `layers` affine coupling layers. A sample's states after every layer are ancillas
/// (`O(layers·D)`, uncomputed before the next sample).
#[i(nocheck)]
pub fn irealnvp_nll<T: Real, const D: usize, const H: usize>(
    loss: &mut T,
    p: &mut [T],
    data: &[f64],
    layers: usize,
) {
    for j in 0..data.len() / D {
        let states = vec![T::zero(); (layers + 1) * D];
        let logdet = T::zero();
        let acc = T::zero();
        routine! {
            for i in 0..D {
                states[i] += data[j * D + i];
            }
            for l in 0..layers {
                iaffine_coupling::<T, D, H>(states, logdet, p, l);
            }
            for i in 0..D {
                acc += square(states[layers * D + i]);
            }
        }
        loss += 0.5 * acc;
        loss -= identity(logdet);
        loss += 0.5 * D as f64 * (2.0 * std::f64::consts::PI).ln();
        uncompute!();
        dealloc!(
            states = vec![T::zero(); (layers + 1) * D],
            logdet = T::zero(),
            acc = T::zero()
        );
    }
}

/// The same negative log-likelihood, plain Rust, generic over the peers' scalars.
pub fn realnvp_nll<S: Plain, const D: usize, const H: usize>(
    p: &[S],
    data: &[f64],
    layers: usize,
) -> S {
    let tanh = |x: S| {
        let e = (x + x).exp();
        (e - S::cst(1.0)) / (e + S::cst(1.0))
    };
    let mut total = S::cst(0.0);
    for x in data.chunks(D) {
        let mut v: Vec<S> = x.iter().map(|&c| S::cst(c)).collect();
        let mut logdet = S::cst(0.0);
        for l in 0..layers {
            let o = offsets(D, H, l);
            let act: Vec<S> = (0..H)
                .map(|h| {
                    let mut pre = p[o[1] + h];
                    for i in 0..D / 2 {
                        pre = pre + p[o[0] + h * (D / 2) + i] * v[2 * i + l % 2];
                    }
                    tanh(pre)
                })
                .collect();
            for i in 0..D / 2 {
                let (mut pre, mut t) = (p[o[3] + i], p[o[5] + i]);
                for (h, &a) in act.iter().enumerate() {
                    pre = pre + p[o[2] + i * H + h] * a;
                    t = t + p[o[4] + i * H + h] * a;
                }
                let s = tanh(pre);
                let b = 2 * i + 1 - l % 2;
                v[b] = v[b] * s.exp() + t;
                logdet = logdet + s;
            }
        }
        let sq = v.iter().fold(S::cst(0.0), |a, &z| a + z * z);
        total = total + S::cst(0.5) * sq - logdet;
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
    let (_, g) = irealnvp_nll_grad::<f64, D, H>(Loss::arg(0), &mut loss, &mut ps, data, layers)
        .expect("argument 0 is the loss");
    crate::flow::per_point(loss, &g, data.len() / D)
}

/// Small random initial parameters of `layers` layers from a seed.
pub fn initial_parameters(d: usize, h: usize, layers: usize, seed: u64) -> Vec<f64> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..layers * layer_size(d, h))
        .map(|_| rng.gen_range(-0.3..0.3))
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
    crate::flow::adam(p, lr, steps, |p| nll_and_gradient::<D, H>(p, data, layers))
}
