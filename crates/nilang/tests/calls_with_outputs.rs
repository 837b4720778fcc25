//! Calls to `#[differentiable]` functions that write output parameters, from other such
//! functions: `g(&x, &mut v)`, `g(&x, &mut v[a..b])`, and an output passed on (`g(x, out)`).
//! The call changes its outputs as the plain call does — an overwriting callee replaces what
//! they held (a buffer reused across iterations), an accumulating one adds to it — through
//! `g_rev_taped`, which leaves what it overwrote and saved on the caller's tapes. Checked here:
//! values equal the plain functions' bit for bit, the taped programs' inverses restore every
//! input and empty the tapes, and gradients agree with central differences and with forward
//! mode (the reversible program on dual numbers), by proptest.

use nilang::stack::Decisions;
use nilang::{differentiable, Dual};
use proptest::prelude::*;

/// Overwrites `out` with `v` rotated by `theta[0]`.
#[differentiable]
fn rotate(theta: &[f64], v: &[f64], out: &mut [f64]) {
    let (c, s) = (theta[0].cos(), theta[0].sin());
    out[0] = c * v[0] - s * v[1];
    out[1] = s * v[0] + c * v[1];
}

/// Adds `a x` to `y` (`a` is `y.len() × x.len()`, row-major): it accumulates into `y`.
#[differentiable]
fn add_matvec(a: &[f64], x: &[f64], y: &mut [f64]) {
    let n = x.len();
    for i in 0..y.len() {
        for j in 0..n {
            y[i] += a[i * n + j] * x[j];
        }
    }
}

/// Writes outputs by calling other functions with outputs: its own output passed on, a part
/// of it, and a local buffer.
#[differentiable]
fn rotate_twice(theta: &[f64], v: &[f64], out: &mut [f64]) {
    let mut w = vec![0.0; 2];
    rotate(theta, v, &mut w);
    rotate(&theta[1..2], &w, &mut out[0..2]);
    out[2] = w[0] * w[1];
}

/// A loss over calls with outputs: a buffer reused (overwritten) in every iteration, parts
/// of a local vector filled by a loop, a vector that accumulates, and a nested call.
#[differentiable]
fn loss(theta: &[f64], a: &[f64], v: &[f64]) -> f64 {
    let k = theta.len();
    let mut w = vec![0.0; 2];
    let mut parts = vec![0.0; 2 * k];
    for i in 0..k {
        rotate(&theta[i..i + 1], v, &mut w);
        rotate(&theta[i..i + 1], &w, &mut parts[2 * i..2 * i + 2]);
    }
    let mut y = vec![0.0; 2];
    for i in 0..k {
        y[i % 2] += 0.5;
        add_matvec(a, &parts[2 * i..2 * i + 2], &mut y);
    }
    let mut z = vec![0.0; 3];
    rotate_twice(theta, &y, &mut z);
    let mut total = 0.0;
    for i in 0..3 {
        total += z[i] * z[i] + w[i % 2] * w[i % 2];
    }
    total.sqrt()
}

/// The same calls under `uncompute` (blocks recomputed instead of saved; the calls' saved
/// values still go on the tape).
#[differentiable(uncompute)]
fn lean(theta: &[f64], v: &[f64]) -> f64 {
    let mut w = vec![0.0; 2];
    let mut total = 0.0;
    for i in 0..theta.len() {
        rotate(&theta[i..i + 1], v, &mut w);
        total += (w[0] * w[1]).sin();
    }
    total
}

/// Arguments that share a variable with another argument: an element beside the whole
/// (`x` and `x[0]`), and an element of the vector the call writes (taken before the call).
#[differentiable]
fn shared_arguments(x: &[f64]) -> f64 {
    let mut v = vec![0.0; 2];
    rotate(&x[1..2], &x[2..4], &mut v);
    let mut w = vec![0.0; 2];
    turn_by(x, x[0], &mut w);
    turn_by(&w, v[0], &mut v);
    let mut u = vec![0.0; 4];
    rotate(&v[0..1], &w[0..2], &mut u[2..4]);
    rotate(&u[2..3], &u[2..4], &mut w);
    v[0] * w[1] + v[1] + u[3] + dot(&u, &u[0..4])
}

/// `a · b`.
#[differentiable]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

/// Overwrites `out` with `v` turned by the angle `a`.
#[differentiable]
fn turn_by(v: &[f64], a: f64, out: &mut [f64]) {
    out[0] = a.cos() * v[0] - a.sin() * v[1];
    out[1] = a.sin() * v[0] + a.cos() * v[1];
}

fn problem(k: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let theta = (0..k).map(|i| 0.3 + 0.7 * i as f64).collect();
    let a = vec![0.9, -0.4, 0.3, 1.2];
    (theta, a, vec![0.8, -0.5])
}

#[test]
fn calls_with_outputs_compute_what_the_plain_calls_compute() {
    let (theta, a, v) = problem(3);
    let mut out = 0.0;
    let (mut t, mut ar, mut vr) = (theta.clone(), a.clone(), v.clone());
    loss_rev(&mut out, &mut t, &mut ar, &mut vr);
    assert_eq!(
        out,
        loss(&theta, &a, &v),
        "the same operations as the plain function"
    );
    loss_rev_inv(&mut out, &mut t, &mut ar, &mut vr);
    assert_eq!((out, t, ar, vr), (0.0, theta, a, v));
}

#[test]
fn calls_with_outputs_under_uncompute_have_the_gradient_of_central_differences() {
    let (theta, _, v) = problem(4);
    let (value, (g_theta, _)) = lean_gradient(&theta, &v);
    assert_eq!(value, lean(&theta, &v));
    let e = 1e-6;
    for i in 0..theta.len() {
        let (mut up, mut down) = (theta.clone(), theta.clone());
        up[i] += e;
        down[i] -= e;
        let fd = (lean(&up, &v) - lean(&down, &v)) / (2.0 * e);
        assert!(
            (g_theta[i] - fd).abs() < 1e-6 * (1.0 + fd.abs()),
            "{i}: {} vs {fd}",
            g_theta[i]
        );
    }
}

#[test]
fn arguments_sharing_a_variable_have_the_gradient_of_central_differences() {
    let x = vec![0.4, -0.3, 0.9, 1.3];
    let (value, grad) = shared_arguments_gradient(&x);
    assert_eq!(value, shared_arguments(&x));
    let e = 1e-6;
    for i in 0..x.len() {
        let (mut up, mut down) = (x.clone(), x.clone());
        up[i] += e;
        down[i] -= e;
        let fd = (shared_arguments(&up) - shared_arguments(&down)) / (2.0 * e);
        assert!(
            (grad[i] - fd).abs() < 1e-6 * (1.0 + fd.abs()),
            "{i}: {} vs {fd}",
            grad[i]
        );
    }
    let (mut out, mut xr) = (0.0, x.clone());
    shared_arguments_rev(&mut out, &mut xr);
    shared_arguments_rev_inv(&mut out, &mut xr);
    assert_eq!((out, xr), (0.0, x));
}

#[test]
fn a_taped_call_overwrites_its_outputs_and_its_inverse_restores_them() {
    let (theta, v) = (vec![0.4, -1.1], vec![0.8, -0.5]);
    let held = vec![7.0, -3.0, 2.5];
    let (mut tape, mut decisions) = (Vec::new(), Decisions::new());
    let (mut t, mut vr, mut out) = (theta.clone(), v.clone(), held.clone());
    rotate_twice_rev_taped(&mut tape, &mut decisions, &mut t, &mut vr, &mut out);
    let mut plain = held.clone();
    rotate_twice(&theta, &v, &mut plain);
    assert_eq!(
        out, plain,
        "what the outputs held is replaced, as in the plain call"
    );
    assert!(!tape.is_empty(), "the old outputs are on the caller's tape");
    rotate_twice_rev_taped_inv(&mut tape, &mut decisions, &mut t, &mut vr, &mut out);
    assert_eq!((out, tape.len(), decisions.len()), (held, 0, 0));
    assert_eq!((t, vr), (theta, v));
}

#[test]
fn an_accumulating_callee_adds_to_what_its_output_held() {
    let (a, x) = (vec![1.0, 2.0, 3.0, 4.0], vec![0.5, -1.0]);
    let (mut tape, mut decisions) = (Vec::new(), Decisions::new());
    let (mut ar, mut xr, mut y) = (a.clone(), x.clone(), vec![10.0, 20.0]);
    add_matvec_rev_taped(&mut tape, &mut decisions, &mut ar, &mut xr, &mut y);
    assert_eq!(y, vec![10.0 + 0.5 - 2.0, 20.0 + 1.5 - 4.0]);
    add_matvec_rev_taped_inv(&mut tape, &mut decisions, &mut ar, &mut xr, &mut y);
    assert_eq!((y, tape.len()), (vec![10.0, 20.0], 0));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn calls_with_outputs_have_the_gradient_of_central_differences_and_forward_mode(
        theta in prop::collection::vec(-1.5f64..1.5, 2..5),
        a in prop::collection::vec(-1.0f64..1.0, 4),
        v in prop::collection::vec(-1.0f64..1.0, 2),
    ) {
        let (value, (g_theta, g_a, g_v)) = loss_gradient(&theta, &a, &v);
        prop_assert_eq!(value, loss(&theta, &a, &v));
        let e = 1e-6;
        let inputs = [&theta, &a, &v];
        for (which, grad) in [&g_theta, &g_a, &g_v].into_iter().enumerate() {
            for i in 0..grad.len() {
                let at = |step: f64| {
                    let mut p: Vec<Vec<f64>> = inputs.iter().map(|x| x.to_vec()).collect();
                    p[which][i] += step;
                    loss(&p[0], &p[1], &p[2])
                };
                let fd = (at(e) - at(-e)) / (2.0 * e);
                prop_assert!((grad[i] - fd).abs() < 1e-5 * (1.0 + fd.abs()),
                    "input {which}, {i}: {} vs {fd}", grad[i]);
                // forward mode: the reversible program on dual numbers, seeded at this input
                let mut p: Vec<Vec<Dual<f64>>> = inputs
                    .iter()
                    .map(|x| x.iter().map(|&u| Dual::new(u, 0.0)).collect())
                    .collect();
                p[which][i].eps = 1.0;
                let mut out = Dual::new(0.0, 0.0);
                let [pt, pa, pv] = &mut p[..] else { unreachable!() };
                loss_rev(&mut out, pt, pa, pv);
                prop_assert!((out.eps - grad[i]).abs() < 1e-9 * (1.0 + grad[i].abs()));
            }
        }
    }
}
