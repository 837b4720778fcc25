//! Embedding the Petersen graph (arXiv paper §"Solving a graph embedding problem").
//!
//! Find points x₀…x₉ in ℝᵏ such that connected vertices are all at one distance l₁ and
//! disconnected vertices all at another distance l₂ > l₁. The loss of the paper's Eq. (7) is
//! `Var(dist(L₁)) + Var(dist(L₂)) + exp(relu(mean(dist(L₁)) − mean(dist(L₂)) + 0.1)) − 1`.
//! Two vertices are held fixed during training (otherwise every vertex collapses onto one).
//! Scanning k = 1…10, the loss first reaches ≈ 0 at k = 5, where l₂/l₁ = √2.

use crate::plain::Plain;
use nilang::{i, Loss, Real};

/// Number of vertices of the Petersen graph.
pub const VERTICES: usize = 10;

/// The 15 edges: outer 5-cycle, 5 spokes, inner pentagram.
pub const EDGES: [(usize, usize); 15] = [
    (0, 1),
    (1, 2),
    (2, 3),
    (3, 4),
    (4, 0),
    (0, 5),
    (1, 6),
    (2, 7),
    (3, 8),
    (4, 9),
    (5, 7),
    (7, 9),
    (9, 6),
    (6, 8),
    (8, 5),
];

/// All 45 vertex pairs `(i, j, connected)` with `i < j`.
pub const PAIRS: [(usize, usize, bool); 45] = pairs();

const fn pairs() -> [(usize, usize, bool); 45] {
    let mut out = [(0, 0, false); 45];
    let mut n = 0;
    let mut i = 0;
    while i < VERTICES {
        let mut j = i + 1;
        while j < VERTICES {
            let mut connected = false;
            let mut e = 0;
            while e < EDGES.len() {
                let (a, b) = EDGES[e];
                if (a == i && b == j) || (a == j && b == i) {
                    connected = true;
                }
                e += 1;
            }
            out[n] = (i, j, connected);
            n += 1;
            j += 1;
        }
        i += 1;
    }
    out
}

/// The vertices held fixed during training.
pub const FIXED: [usize; 2] = [0, 1];

/// The primitive `(a − b)²`, with its partial derivatives `(2(a − b), −2(a − b))` written by
/// hand: one instruction per coordinate of a squared distance (a user-registered primitive).
#[derive(Clone, Copy, Debug)]
pub struct SquaredDifference;

impl<T: nilang::Float> nilang::Binary<T> for SquaredDifference {
    #[inline(always)]
    fn value(a: T, b: T) -> T {
        let d = a - b;
        d * d
    }
    #[inline(always)]
    fn partials(a: T, b: T) -> (T, T) {
        let d = a - b;
        (d + d, -(d + d))
    }
}

/// The loss of Eq. (7), reversible: `loss += L(x)`. The 45 squared distances and distances
/// are computed once into stack arrays (ancillas), used, and uncomputed at the end (each
/// distance through a released scalar, so a gradient evaluates each square root once). Runtime
/// checks are off, as in the papers' benchmarks; the tests check that the inverse restores the
/// inputs.
#[i(nocheck)]
pub fn iembedding_loss<T: Real>(loss: &mut T, x: &mut [T], k: usize)
where
    T: nilang::Acc2<SquaredDifference>,
{
    let sq = [T::zero(); 45];
    let d = [T::zero(); 45];
    let (s1, q1, s2, q2) = (T::zero(), T::zero(), T::zero(), T::zero());
    let (m1, m2, v1, v2) = (T::zero(), T::zero(), T::zero(), T::zero());
    let (t, e) = (T::zero(), T::zero());
    routine! {
        for p in 0..45 {
            for c in 0..k {
                sq[p] += SquaredDifference(x[PAIRS[p].0 * k + c], x[PAIRS[p].1 * k + c]);
            }
            // the distance in a scalar moved into `d`: the reverse sweep moves it back and
            // releases it, taking sqrt's derivative from the distance instead of a second sqrt
            let dp = T::zero();
            dp += sqrt(sq[p]);
            // Σ d² sums the squared distances themselves: no square to compute, nor to undo
            if PAIRS[p].2 {
                s1 += identity(dp);
                q1 += sq[p];
            } else {
                s2 += identity(dp);
                q2 += sq[p];
            }
            swap(dp, d[p]);
            dealloc!(dp = T::zero());
        }
        m1 += s1 / 15.0;
        m2 += s2 / 30.0;
        v1 += q1 / 15.0;
        v1 -= square(m1);
        v2 += q2 / 30.0;
        v2 -= square(m2);
        t += m1 - m2;
        t += 0.1;
        if t.val() > 0.0 {
            e += exp(t);
        } else {
            e += 1.0;
        }
    }
    loss += v1 + v2;
    loss += e;
    loss -= 1.0;
    uncompute!();
    dealloc!(sq = [T::zero(); 45], d = [T::zero(); 45]);
    dealloc!(
        s1 = T::zero(),
        q1 = T::zero(),
        s2 = T::zero(),
        q2 = T::zero()
    );
    dealloc!(
        m1 = T::zero(),
        m2 = T::zero(),
        v1 = T::zero(),
        v2 = T::zero()
    );
    dealloc!(t = T::zero(), e = T::zero());
}

/// The same loss as a plain (irreversible) function, generic over the peers' scalars.
pub fn embedding_loss<S: Plain>(x: &[S], k: usize) -> S {
    let (mut s1, mut q1, mut s2, mut q2) = (S::cst(0.0), S::cst(0.0), S::cst(0.0), S::cst(0.0));
    for &(i, j, connected) in PAIRS.iter() {
        let mut sq = S::cst(0.0);
        for c in 0..k {
            let diff = x[i * k + c] - x[j * k + c];
            sq = sq + diff * diff;
        }
        let d = sq.sqrt();
        if connected {
            s1 = s1 + d;
            q1 = q1 + d * d;
        } else {
            s2 = s2 + d;
            q2 = q2 + d * d;
        }
    }
    let m1 = s1 / S::cst(15.0);
    let m2 = s2 / S::cst(30.0);
    let v1 = q1 / S::cst(15.0) - m1 * m1;
    let v2 = q2 / S::cst(30.0) - m2 * m2;
    let t = m1 - m2 + S::cst(0.1);
    let e = if t.value() > 0.0 {
        t.exp()
    } else {
        S::cst(1.0)
    };
    v1 + v2 + e - S::cst(1.0)
}

/// The gradient by reversal on the caller's buffers, allocating nothing:
/// `iembedding_loss_vjp` seeded with 1 on the loss (the forward program's computation on
/// values, its adjoint on values and gradients), which restores `x` and writes `∂loss/∂x`
/// into `grad` (overwritten; same length as `x`).
pub fn gradient_into(x: &mut [f64], grad: &mut [f64], k: usize) {
    grad.fill(0.0);
    let (mut loss, mut loss_grad) = (0.0, 1.0);
    iembedding_loss_vjp(&mut loss, &mut loss_grad, x, grad, k, ());
}

/// Loss and gradient by reversal: the loss by the forward program [`iembedding_loss`], the
/// gradient by [`gradient_into`] (the vjp returns the loss argument to its input, so the
/// loss is read from a forward run of its own).
pub fn loss_and_gradient(x: &[f64], k: usize) -> (f64, Vec<f64>) {
    let (mut xs, mut grad) = (x.to_vec(), vec![0.0; x.len()]);
    let mut loss = 0.0;
    iembedding_loss(&mut loss, &mut xs, k);
    gradient_into(&mut xs, &mut grad, k);
    (loss, grad)
}

/// Hessian of the loss by forward-over-reversal (`iembedding_loss_hessian`), over `x` only.
pub fn hessian(x: &[f64], k: usize) -> Vec<Vec<f64>> {
    let mut loss = 0.0;
    let mut xs = x.to_vec();
    let h = iembedding_loss_hessian(Loss::arg(0), &mut loss, &mut xs, k)
        .expect("argument 0 is the loss");
    // flat order: the loss scalar first, then x
    (1..h.rows)
        .map(|i| (1..h.cols).map(|j| h.get(i, j)).collect())
        .collect()
}

/// Random initial positions in [−1, 1]ᵏ from a seed.
pub fn initial_positions(k: usize, seed: u64) -> Vec<f64> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..VERTICES * k)
        .map(|_| rng.gen_range(-1.0..1.0))
        .collect()
}

fn zero_fixed(g: &mut [f64], k: usize) {
    for v in FIXED {
        for c in 0..k {
            g[v * k + c] = 0.0;
        }
    }
}

/// Adam with learning rate `lr` for `steps` steps (fixed vertices untouched); returns the
/// final positions and the loss history.
pub fn train_adam(mut x: Vec<f64>, k: usize, lr: f64, steps: usize) -> (Vec<f64>, Vec<f64>) {
    let (b1, b2, eps) = (0.9, 0.999, 1e-8);
    let mut m = vec![0.0; x.len()];
    let mut v = vec![0.0; x.len()];
    let mut history = Vec::with_capacity(steps);
    for t in 1..=steps {
        let (loss, mut g) = loss_and_gradient(&x, k);
        history.push(loss);
        zero_fixed(&mut g, k);
        for i in 0..x.len() {
            m[i] = b1 * m[i] + (1.0 - b1) * g[i];
            v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
            let mh = m[i] / (1.0 - b1.powi(t as i32));
            let vh = v[i] / (1.0 - b2.powi(t as i32));
            x[i] -= lr * mh / (vh.sqrt() + eps);
        }
    }
    (x, history)
}

/// A trust-region Newton method on the free coordinates, with the Hessian by
/// forward-over-reversal: each step solves `(H + λI) p = −g` with λ ≥ 0 chosen so that the
/// step stays in the trust region (Levenberg–Marquardt form), and the region grows or shrinks
/// with the ratio of actual to predicted reduction. Returns the positions and the loss history
/// (one entry per Hessian computed).
pub fn train_newton(mut x: Vec<f64>, k: usize, iterations: usize) -> (Vec<f64>, Vec<f64>) {
    let free: Vec<usize> = (0..x.len()).filter(|i| !FIXED.contains(&(i / k))).collect();
    let n = free.len();
    let mut lambda = 1e-3;
    let mut history = Vec::with_capacity(iterations);
    let (mut loss, mut g) = loss_and_gradient(&x, k);
    for _ in 0..iterations {
        history.push(loss);
        if loss < 1e-15 {
            break;
        }
        let h = hessian(&x, k);
        let hf = nalgebra::DMatrix::from_fn(n, n, |a, b| h[free[a]][free[b]]);
        let gf = nalgebra::DVector::from_fn(n, |a, _| g[free[a]]);
        // Try steps with growing damping until one reduces the loss.
        let mut accepted = false;
        for _ in 0..30 {
            let damped = &hf + nalgebra::DMatrix::identity(n, n) * lambda;
            let Some(chol) = damped.cholesky() else {
                lambda *= 10.0;
                continue;
            };
            let p = chol.solve(&(-&gf));
            let predicted = -(gf.dot(&p) + 0.5 * p.dot(&(&hf * &p)));
            let mut trial = x.clone();
            for (a, &i) in free.iter().enumerate() {
                trial[i] += p[a];
            }
            let (trial_loss, trial_g) = loss_and_gradient(&trial, k);
            let rho = (loss - trial_loss) / predicted.max(1e-300);
            if trial_loss < loss && rho > 1e-4 {
                x = trial;
                loss = trial_loss;
                g = trial_g;
                lambda = if rho > 0.75 {
                    (lambda / 3.0).max(1e-12)
                } else {
                    lambda
                };
                accepted = true;
                break;
            }
            lambda *= 4.0;
        }
        if !accepted {
            break;
        }
    }
    history.push(loss);
    (x, history)
}

/// The distances of connected and disconnected pairs of an embedding.
pub fn distances(x: &[f64], k: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut l1, mut l2) = (Vec::new(), Vec::new());
    for &(i, j, connected) in PAIRS.iter() {
        let d = (0..k)
            .map(|c| (x[i * k + c] - x[j * k + c]).powi(2))
            .sum::<f64>()
            .sqrt();
        if connected {
            l1.push(d)
        } else {
            l2.push(d)
        }
    }
    (l1, l2)
}

/// One row of the dimension scan: the best loss over `seeds` Newton runs at dimension `k`, and
/// the ratio l₂/l₁ of the best embedding.
#[derive(Clone, Debug)]
pub struct ScanRow {
    /// Embedding dimension.
    pub k: usize,
    /// The lowest loss reached.
    pub loss: f64,
    /// mean(l₂) / mean(l₁) of that embedding.
    pub ratio: f64,
    /// The seed that reached it.
    pub seed: u64,
}

/// Scans dimensions `ks`, `seeds` trust-region Newton runs each (seeds 0, 1, …).
pub fn scan(ks: impl IntoIterator<Item = usize>, seeds: u64, iterations: usize) -> Vec<ScanRow> {
    ks.into_iter()
        .map(|k| {
            let mut best = ScanRow {
                k,
                loss: f64::INFINITY,
                ratio: f64::NAN,
                seed: 0,
            };
            for seed in 0..seeds {
                let (x, history) = train_newton(initial_positions(k, seed), k, iterations);
                let loss = *history.last().unwrap();
                if loss < best.loss {
                    let (l1, l2) = distances(&x, k);
                    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
                    best = ScanRow {
                        k,
                        loss,
                        ratio: mean(&l2) / mean(&l1),
                        seed,
                    };
                }
            }
            best
        })
        .collect()
}
