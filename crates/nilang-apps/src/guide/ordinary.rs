//! The guide's three worked examples written as ordinary Rust under `#[differentiable]`
//! (`nilang::guide::ordinary`): plain bodies over `f64`, no ancillas, no uncomputation, no
//! trajectory kept by hand — the programs a scientist writes. Each takes the same instance as
//! its hand-written reversible counterpart ([`super::gmm`], [`super::rk4`], [`super::mlp`]),
//! so the two can be measured side by side (`nilang bench --only guide`).

use nilang::differentiable;

/// `log Σ exp(vᵢ)`, shifted by the maximum.
#[differentiable]
pub fn logsumexp(v: &[f64]) -> f64 {
    let mut mx = v[0];
    for x in v.iter() {
        mx = mx.max(*x);
    }
    let mut s = 0.0;
    for x in v.iter() {
        s += (x - mx).exp();
    }
    mx + s.ln()
}

/// The GMM objective of [`super::gmm`] (points `x`, `n × d`; weights `alpha`, means `mu`,
/// log-diagonals `q`, strictly lower factors `l` packed column by column; Wishart `gamma`,
/// `m`).
#[differentiable(wrt(alpha, mu, q, l))]
#[allow(clippy::too_many_arguments)]
pub fn gmm(
    alpha: &[f64],
    mu: &[f64],
    q: &[f64],
    l: &[f64],
    x: &[f64],
    d: usize,
    gamma: f64,
    m: f64,
    constant: f64,
) -> f64 {
    let k = alpha.len();
    let n = x.len() / d;
    let lsz = d * (d - 1) / 2;
    // per component: exp(q) (the diagonal of Q) and Σq, as the plain objective computes them
    let mut qdiag = vec![0.0; k * d];
    let mut sumq = vec![0.0; k];
    for c in 0..k {
        for b in 0..d {
            qdiag[c * d + b] = q[c * d + b].exp();
            sumq[c] += q[c * d + b];
        }
    }
    let mut total = 0.0;
    let mut main = vec![0.0; k];
    let mut qx = vec![0.0; d];
    for i in 0..n {
        for c in 0..k {
            // Q (x − μ): the diagonal exp(q) (x − μ), then L's columns, each read in order
            for b in 0..d {
                qx[b] = qdiag[c * d + b] * (x[i * d + b] - mu[c * d + b]);
            }
            for a in 0..d {
                let xa = x[i * d + a] - mu[c * d + a];
                for b in a + 1..d {
                    qx[b] += l[c * lsz + a * (2 * d - a - 1) / 2 + b - a - 1] * xa;
                }
            }
            let mut sq = 0.0;
            for b in 0..d {
                sq += qx[b] * qx[b];
            }
            main[c] = alpha[c] + sumq[c] - 0.5 * sq;
        }
        total += logsumexp(&main);
    }
    total -= n as f64 * logsumexp(alpha);
    let mut prior = 0.0;
    for j in 0..q.len() {
        prior += 0.5 * gamma * gamma * qdiag[j] * qdiag[j] - m * q[j];
    }
    for j in 0..l.len() {
        prior += 0.5 * gamma * gamma * l[j] * l[j];
    }
    total + prior + constant
}

/// The RK4 loss of [`super::rk4`]: `x_T² + y_T²` after `steps` steps of length `h` from
/// `state` under Lotka–Volterra with `p = [a, b, c, d]`.
#[differentiable(wrt(state, p))]
pub fn rk4(state: &[f64], p: &[f64], steps: usize, h: f64) -> f64 {
    let (mut x, mut y) = (state[0], state[1]);
    for _ in 0..steps {
        let (k1x, k1y) = (p[0] * x - p[1] * x * y, p[2] * x * y - p[3] * y);
        let (ax, ay) = (x + 0.5 * h * k1x, y + 0.5 * h * k1y);
        let (k2x, k2y) = (p[0] * ax - p[1] * ax * ay, p[2] * ax * ay - p[3] * ay);
        let (bx, by) = (x + 0.5 * h * k2x, y + 0.5 * h * k2y);
        let (k3x, k3y) = (p[0] * bx - p[1] * bx * by, p[2] * bx * by - p[3] * by);
        let (cx, cy) = (x + h * k3x, y + h * k3y);
        let (k4x, k4y) = (p[0] * cx - p[1] * cx * cy, p[2] * cx * cy - p[3] * cy);
        x += h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
        y += h / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y);
    }
    x * x + y * y
}

/// The perceptron loss of [`super::mlp`]: mean squared error of `din → h → 1` (`tanh`) on the
/// batch `x` (`n × din`), `y`.
#[differentiable(wrt(w1, b1, w2, b2))]
pub fn mlp(w1: &[f64], b1: &[f64], w2: &[f64], b2: f64, x: &[f64], y: &[f64], din: usize) -> f64 {
    let n = y.len();
    let mut loss = 0.0;
    for s in 0..n {
        let mut r = 0.0;
        for j in 0..b1.len() {
            let mut z = b1[j];
            for i in 0..din {
                z += w1[j * din + i] * x[s * din + i];
            }
            r += w2[j] * z.tanh();
        }
        r += b2 - y[s];
        loss += r * r / n as f64;
    }
    loss
}

/// The gradient of [`gmm`] at the hand-written example's instance, as one vector `[α, μ, q, l]`.
pub fn gmm_gradient_of(p: &super::gmm::Problem) -> (f64, Vec<f64>) {
    let [na, nm, nq, _] = p.pieces();
    let t = &p.theta;
    let (alpha, rest) = t.split_at(na);
    let (mu, rest) = rest.split_at(nm);
    let (q, l) = rest.split_at(nq);
    let (value, (ga, gm, gq, gl)) =
        gmm_gradient(alpha, mu, q, l, &p.x, p.d, p.gamma, p.m, p.constant);
    (value, [ga, gm, gq, gl].concat())
}

/// The gradient of [`rk4`] at the hand-written example's instance, `[∂x₀, ∂y₀, ∂p]`.
pub fn rk4_gradient_of(p: &super::rk4::Problem) -> (f64, Vec<f64>) {
    let (value, (gs, gp)) = rk4_gradient(&p.state, &p.p, p.steps, p.h);
    (value, [gs, gp].concat())
}

/// The gradient of [`mlp`] at the hand-written example's instance, as one vector `θ`.
pub fn mlp_gradient_of(p: &super::mlp::Problem) -> (f64, Vec<f64>) {
    let [n1, nb, n2, _] = p.pieces();
    let (w1, rest) = p.theta.split_at(n1);
    let (b1, rest) = rest.split_at(nb);
    let (w2, b2) = rest.split_at(n2);
    let (value, (g1, gb1, g2, gb2)) = mlp_gradient(w1, b1, w2, b2[0], &p.x, &p.y, p.din);
    (value, [g1, gb1, g2, vec![gb2]].concat())
}

/// [`gmm_rev`] forward at `theta` (the hand-written example's instance): the objective.
pub fn gmm_forward_of(p: &super::gmm::Problem, theta: &mut [f64]) -> f64 {
    let [alpha, mu, q, l] = nilang::ad::split_mut(theta, p.pieces());
    let mut out = 0.0;
    gmm_rev(
        &mut out, alpha, mu, q, l, &p.x, p.d, p.gamma, p.m, p.constant,
    );
    out
}

/// [`rk4_rev`] forward at the instance: the loss.
pub fn rk4_forward_of(p: &mut super::rk4::Problem) -> f64 {
    let mut out = 0.0;
    rk4_rev(&mut out, &mut p.state, &mut p.p, p.steps, p.h);
    out
}

/// [`mlp_rev`] forward at `theta`: the loss.
pub fn mlp_forward_of(p: &super::mlp::Problem, theta: &mut [f64]) -> f64 {
    let [w1, b1, w2, b2] = nilang::ad::split_mut(theta, p.pieces());
    let mut out = 0.0;
    mlp_rev(&mut out, w1, b1, w2, &mut b2[0], &p.x, &p.y, p.din);
    out
}
