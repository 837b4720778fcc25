//! `#[differentiable]`: ordinary Rust in, reversible program out. For each program: the
//! reversible program's value equals the plain function's bit for bit; `f_rev_inv` undoes
//! `f_rev`; the gradient of `f_gradient` agrees with central differences of the plain function
//! and with forward mode (the reversible program run on `Dual` numbers), on random inputs
//! (proptest).

use nilang::{differentiable, Dual};
use proptest::prelude::*;

#[path = "support/agreement.rs"]
mod agreement;
use agreement::{duals, inputs};

/// Lotka–Volterra by RK4: state carried by a loop (saved per step, slopes uncomputed).
#[differentiable]
fn rk4(state: &[f64], p: &[f64], steps: usize, h: f64) -> f64 {
    let mut x = state[0];
    let mut y = state[1];
    for _ in 0..steps {
        let k1x = p[0] * x - p[1] * x * y;
        let k1y = p[2] * x * y - p[3] * y;
        let (ax, ay) = (x + 0.5 * h * k1x, y + 0.5 * h * k1y);
        let k2x = p[0] * ax - p[1] * ax * ay;
        let k2y = p[2] * ax * ay - p[3] * ay;
        let (bx, by) = (x + 0.5 * h * k2x, y + 0.5 * h * k2y);
        let k3x = p[0] * bx - p[1] * bx * by;
        let k3y = p[2] * bx * by - p[3] * by;
        let (cx, cy) = (x + h * k3x, y + h * k3y);
        let k4x = p[0] * cx - p[1] * cx * cy;
        let k4y = p[2] * cx * cy - p[3] * cy;
        x += h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
        y += h / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y);
    }
    x * x + y * y
}

/// A one-hidden-layer perceptron's mean squared error: a buffer reused across samples
/// (elements overwritten), accumulations, a final write to an outer variable.
#[differentiable]
#[allow(clippy::too_many_arguments)]
fn mlp(w1: &[f64], b1: &[f64], w2: &[f64], b2: f64, x: &[f64], y: &[f64], n_in: usize) -> f64 {
    let n_hidden = b1.len();
    let batch = y.len();
    let mut loss = 0.0;
    let mut h = vec![0.0; n_hidden];
    for s in 0..batch {
        for j in 0..n_hidden {
            let mut a = b1[j];
            for k in 0..n_in {
                a += w1[j * n_in + k] * x[s * n_in + k];
            }
            h[j] = a.tanh();
        }
        let mut out = b2;
        for j in 0..n_hidden {
            out += w2[j] * h[j];
        }
        let err = out - y[s];
        loss += err * err;
    }
    loss / batch as f64
}

/// Branches on data, a decision the branch changes (recorded), `max`, `*=`, a `while` loop
/// whose trip count depends on the data.
#[differentiable]
fn piecewise(x: &[f64], t: f64) -> f64 {
    let mut acc = 0.0;
    for i in 0..x.len() {
        let v = x[i] * t;
        if v > 0.0 {
            acc += v.sin();
        } else {
            acc -= v * v;
        }
        if acc > 0.5 {
            acc *= 0.75;
        }
        acc = acc.max(-1.0);
    }
    let mut s = acc;
    let mut k = 0;
    while s.abs() > 0.1 && k < 8 {
        s *= 0.5;
        k += 1;
    }
    s + acc.exp()
}

/// `Σ vᵢ²` over the elements of a slice.
#[differentiable]
fn sq_norm(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for x in v.iter() {
        s += x * x;
    }
    s
}

/// Calls to another differentiable function, as a `let` and inside an expression.
#[differentiable]
fn calls(v: &[f64], w: f64) -> f64 {
    let n = sq_norm(v);
    n.sqrt() * w + sq_norm(v) / (1.0 + w * w)
}

/// `a · b`, called from a `while` condition.
#[differentiable]
fn scaled(a: f64, b: f64) -> f64 {
    a * b
}

/// A `while` loop whose condition calls another differentiable function on the state the
/// body changes, and picks a bound with `if`: both are evaluated again before every
/// iteration, as Rust does (computed once before the loop, the test never changed and the
/// loop ran to its cap).
#[differentiable]
fn halving(x: f64, t: f64) -> f64 {
    let mut s = x * x + 1.0;
    let mut k = 0;
    while scaled(s, t) > (if t > 1.0 { t } else { 1.0 }) && k < 30 {
        s *= 0.5;
        k += 1;
    }
    s * t + k as f64
}

/// One program under test, on a flat vector of its differentiable inputs.
struct Case {
    name: &'static str,
    plain: fn(&[f64]) -> f64,
    /// The reversible program's forward value, and the inputs after `f_rev` then `f_rev_inv`
    /// with the output after both.
    reversible: fn(&[f64]) -> (f64, Vec<f64>, f64),
    gradient: fn(&[f64]) -> (f64, Vec<f64>),
    /// The reversible program on dual numbers: the derivative along `dir`.
    forward: fn(&[f64], &[f64]) -> f64,
}

const RK4_STEPS: usize = 40;

fn rk4_case() -> Case {
    Case {
        name: "rk4",
        plain: |v| rk4(&v[0..2], &v[2..6], RK4_STEPS, v[6]),
        reversible: |v| {
            let (mut s, mut p, mut h, mut out) = (v[0..2].to_vec(), v[2..6].to_vec(), v[6], 0.0);
            rk4_rev(&mut out, &mut s, &mut p, RK4_STEPS, &mut h);
            let value = out;
            rk4_rev_inv(&mut out, &mut s, &mut p, RK4_STEPS, &mut h);
            s.extend(p);
            s.push(h);
            (value, s, out)
        },
        gradient: |v| {
            let (value, (gs, gp, gh)) = rk4_gradient(&v[0..2], &v[2..6], RK4_STEPS, v[6]);
            (value, [gs, gp, vec![gh]].concat())
        },
        forward: |v, dir| {
            let d = duals(v, dir);
            let (mut s, mut p, mut h) = (d[0..2].to_vec(), d[2..6].to_vec(), d[6]);
            let mut out = Dual { re: 0.0, eps: 0.0 };
            rk4_rev(&mut out, &mut s, &mut p, RK4_STEPS, &mut h);
            out.eps
        },
    }
}

const MLP: (usize, usize, usize) = (3, 4, 5); // inputs, hidden, batch

/// The flat input of `mlp`: w1, b1, w2, b2, x, y.
fn mlp_split(v: &[f64]) -> [&[f64]; 6] {
    let (i, h, b) = MLP;
    let lens = [i * h, h, h, 1, b * i, b];
    let mut out = [&v[0..0]; 6];
    let mut at = 0;
    for (k, len) in lens.into_iter().enumerate() {
        out[k] = &v[at..at + len];
        at += len;
    }
    out
}

fn mlp_case() -> Case {
    Case {
        name: "mlp",
        plain: |v| {
            let [w1, b1, w2, b2, x, y] = mlp_split(v);
            mlp(w1, b1, w2, b2[0], x, y, MLP.0)
        },
        reversible: |v| {
            let [w1, b1, w2, b2, x, y] = mlp_split(v).map(<[f64]>::to_vec);
            let (mut w1, mut b1, mut w2, mut b2, mut x, mut y) = (w1, b1, w2, b2[0], x, y);
            let mut out = 0.0;
            mlp_rev(
                &mut out, &mut w1, &mut b1, &mut w2, &mut b2, &mut x, &mut y, MLP.0,
            );
            let value = out;
            mlp_rev_inv(
                &mut out, &mut w1, &mut b1, &mut w2, &mut b2, &mut x, &mut y, MLP.0,
            );
            (value, [w1, b1, w2, vec![b2], x, y].concat(), out)
        },
        gradient: |v| {
            let [w1, b1, w2, b2, x, y] = mlp_split(v);
            let (value, (g1, gb1, g2, gb2, gx, gy)) = mlp_gradient(w1, b1, w2, b2[0], x, y, MLP.0);
            (value, [g1, gb1, g2, vec![gb2], gx, gy].concat())
        },
        forward: |v, dir| {
            let d = duals(v, dir);
            let [w1, b1, w2, b2, x, y] = mlp_split_dual(&d);
            let (mut w1, mut b1, mut w2, mut b2) = (w1, b1, w2, b2[0]);
            let (mut x, mut y, mut out) = (x, y, Dual { re: 0.0, eps: 0.0 });
            mlp_rev(
                &mut out, &mut w1, &mut b1, &mut w2, &mut b2, &mut x, &mut y, MLP.0,
            );
            out.eps
        },
    }
}

fn mlp_split_dual(d: &[Dual<f64>]) -> [Vec<Dual<f64>>; 6] {
    let re: Vec<f64> = d.iter().map(|x| x.re).collect();
    let parts = mlp_split(&re).map(<[f64]>::len);
    let mut at = 0;
    parts.map(|len| {
        at += len;
        d[at - len..at].to_vec()
    })
}

const PIECES: usize = 6;

fn piecewise_case() -> Case {
    Case {
        name: "piecewise",
        plain: |v| piecewise(&v[..PIECES], v[PIECES]),
        reversible: |v| {
            let (mut x, mut t, mut out) = (v[..PIECES].to_vec(), v[PIECES], 0.0);
            piecewise_rev(&mut out, &mut x, &mut t);
            let value = out;
            piecewise_rev_inv(&mut out, &mut x, &mut t);
            x.push(t);
            (value, x, out)
        },
        gradient: |v| {
            let (value, (gx, gt)) = piecewise_gradient(&v[..PIECES], v[PIECES]);
            (value, [gx, vec![gt]].concat())
        },
        forward: |v, dir| {
            let d = duals(v, dir);
            let (mut x, mut t) = (d[..PIECES].to_vec(), d[PIECES]);
            let mut out = Dual { re: 0.0, eps: 0.0 };
            piecewise_rev(&mut out, &mut x, &mut t);
            out.eps
        },
    }
}

fn calls_case() -> Case {
    Case {
        name: "calls",
        plain: |v| calls(&v[..3], v[3]),
        reversible: |v| {
            let (mut x, mut w, mut out) = (v[..3].to_vec(), v[3], 0.0);
            calls_rev(&mut out, &mut x, &mut w);
            let value = out;
            calls_rev_inv(&mut out, &mut x, &mut w);
            x.push(w);
            (value, x, out)
        },
        gradient: |v| {
            let (value, (gx, gw)) = calls_gradient(&v[..3], v[3]);
            (value, [gx, vec![gw]].concat())
        },
        forward: |v, dir| {
            let d = duals(v, dir);
            let (mut x, mut w) = (d[..3].to_vec(), d[3]);
            let mut out = Dual { re: 0.0, eps: 0.0 };
            calls_rev(&mut out, &mut x, &mut w);
            out.eps
        },
    }
}

fn halving_case() -> Case {
    Case {
        name: "halving",
        plain: |v| halving(v[0], v[1]),
        reversible: |v| {
            let (mut x, mut t, mut out) = (v[0], v[1], 0.0);
            halving_rev(&mut out, &mut x, &mut t);
            let value = out;
            halving_rev_inv(&mut out, &mut x, &mut t);
            (value, vec![x, t], out)
        },
        gradient: |v| {
            let (value, (gx, gt)) = halving_gradient(v[0], v[1]);
            (value, vec![gx, gt])
        },
        forward: |v, dir| {
            let d = duals(v, dir);
            let (mut x, mut t) = (d[0], d[1]);
            let mut out = Dual { re: 0.0, eps: 0.0 };
            halving_rev(&mut out, &mut x, &mut t);
            out.eps
        },
    }
}

/// Every check of the module documentation, at `v` along `dir`.
fn check(case: &Case, v: &[f64], dir: &[f64]) {
    let name = case.name;
    let plain = (case.plain)(v);
    let (value, restored, out) = (case.reversible)(v);
    assert_eq!(
        value.to_bits(),
        plain.to_bits(),
        "{name}: f_rev's value {value} vs {plain}"
    );
    assert_eq!(restored, v, "{name}: f_rev_inv restores the inputs");
    assert_eq!(out, 0.0, "{name}: f_rev_inv removes the value");
    let (value, grad) = (case.gradient)(v);
    assert_eq!(
        value.to_bits(),
        plain.to_bits(),
        "{name}: f_gradient's value"
    );
    nilang::ad::check_gradient(case.plain, v, &grad, 1e-6, 1e-5)
        .unwrap_or_else(|e| panic!("{name}: against central differences: {e}"));
    let along: f64 = grad.iter().zip(dir).map(|(g, d)| g * d).sum();
    let forward = (case.forward)(v, dir);
    assert!(
        (along - forward).abs() <= 1e-10 * (1.0 + forward.abs()),
        "{name}: reverse {along} vs forward (Dual) {forward}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn rk4_agrees((mut v, dir) in inputs(7, 0.3, 1.5)) {
        v[6] = 0.05 * v[6]; // the step length
        check(&rk4_case(), &v, &dir);
    }

    #[test]
    fn mlp_agrees((v, dir) in inputs(MLP.0 * MLP.1 + 2 * MLP.1 + 1 + MLP.2 * (MLP.0 + 1), -1.0, 1.0)) {
        check(&mlp_case(), &v, &dir);
    }

    #[test]
    fn piecewise_agrees((v, dir) in inputs(PIECES + 1, -2.0, 2.0)) {
        check(&piecewise_case(), &v, &dir);
    }

    #[test]
    fn calls_agree((v, dir) in inputs(4, -2.0, 2.0)) {
        check(&calls_case(), &v, &dir);
    }

    #[test]
    fn while_conditions_with_calls_agree((v, dir) in inputs(2, 0.5, 3.0)) {
        check(&halving_case(), &v, &dir);
    }
}

/// Local arrays: `[0.0; N]` written by element, and an array literal of computed values.
#[differentiable]
fn arrays(x: &[f64]) -> f64 {
    let mut a = [0.0; 3];
    for i in 0..3 {
        a[i] = x[i] * x[i];
    }
    let b = [x[0], x[1] * 2.0];
    a[0] + a[1] * a[2] + b[0] * b[1]
}

#[test]
fn local_arrays_have_the_exact_gradient() {
    let x = [1.0, 2.0, 3.0];
    let (value, g) = arrays_gradient(&x);
    assert_eq!(value, arrays(&x));
    // x₀² + x₁²x₂² + 2x₀x₁
    assert_eq!(
        g,
        [
            2.0 * 1.0 + 2.0 * 2.0,
            2.0 * 2.0 * 9.0 + 2.0,
            2.0 * 3.0 * 4.0
        ]
    );
}

/// `Σᵢ minⱼ ‖cⱼ − pᵢ‖²` under `uncompute`: a block whose nested loop declares and changes its
/// own accumulator (`dist`), which is not a variable the block carries.
#[differentiable(wrt(c), uncompute)]
fn nearest_uncompute(p: &[f64], c: &[f64], d: usize) -> f64 {
    let mut cost = 0.0;
    for i in 0..p.len() / d {
        let mut best = f64::INFINITY;
        for j in 0..c.len() / d {
            let mut dist = 0.0;
            for e in 0..d {
                let diff = c[j * d + e] - p[i * d + e];
                dist += diff * diff;
            }
            best = best.min(dist);
        }
        cost += best;
    }
    cost
}

#[test]
fn nested_accumulators_are_not_carried_by_the_outer_block() {
    let (p, c) = ([0.0, 0.0, 1.0, 2.0, 3.0, -1.0], [0.5, 0.5, 2.0, 0.0]);
    let (value, g) = nearest_uncompute_gradient(&p, &c, 2);
    assert_eq!(value, nearest_uncompute(&p, &c, 2));
    // points 0 and 1 are nearest to c₀ = (0.5, 0.5), point 2 to c₁ = (2, 0):
    // ∂/∂c₀ = 2(c₀ − p₀) + 2(c₀ − p₁), ∂/∂c₁ = 2(c₁ − p₂)
    assert_eq!(
        g,
        [2.0 * 0.5 + 2.0 * -0.5, 2.0 * 0.5 + 2.0 * -1.5, -2.0, 2.0]
    );
}

/// A temporary holding −0: its sign decides `atan2(t, −1)` (−π or π).
#[differentiable]
fn signed_zero(x: f64) -> f64 {
    let t = x * 0.0;
    t.atan2(-1.0) + x
}

#[test]
fn a_temporary_keeps_the_sign_of_zero() {
    // −1 · 0 = −0 and atan2(−0, −1) = −π: a temporary started at +0 would hold +0 (and π)
    let (value, _) = signed_zero_gradient(-1.0);
    assert_eq!(value, signed_zero(-1.0));
    assert_eq!(value, -std::f64::consts::PI - 1.0);
}

/// Float methods called by path (`f64::max(a, b)`, `f64::sqrt(x)`), as Rust allows: the method
/// calls they name; and `clamp`, inside its bounds and outside.
#[differentiable]
fn by_path(x: &[f64]) -> f64 {
    let a = f64::max(x[0], x[1]);
    let b = f64::sqrt(x[2] * x[2] + 1.0);
    f64::powi(a, 3) * b + f64::sin(x[0] * x[1] + x[2]) + x[2].clamp(-0.5, 1.0) * x[0]
}

#[test]
fn float_methods_called_by_path_have_the_methods_gradient() {
    for x in [[0.3, -0.7, 1.5], [-1.2, 0.4, -0.2], [0.5, 0.1, -0.9]] {
        let (value, grad) = by_path_gradient(&x);
        assert_eq!(value.to_bits(), by_path(&x).to_bits());
        nilang::ad::check_gradient(by_path, &x, &grad, 1e-6, 1e-6).unwrap();
        let dir = [0.5, -1.0, 0.25];
        let mut xd = duals(&x, &dir);
        let mut out = Dual { re: 0.0, eps: 0.0 };
        by_path_rev(&mut out, &mut xd);
        let along: f64 = grad.iter().zip(dir).map(|(g, d)| g * d).sum();
        assert!((along - out.eps).abs() <= 1e-12 * (1.0 + along.abs()));
    }
}
