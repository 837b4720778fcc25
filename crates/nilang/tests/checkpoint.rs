//! Checkpointed loops with parameters (`nilang::checkpoint`): the gradients with respect to
//! the initial state and the parameters of RK4 Lotka–Volterra and of a small RNN cell, from
//! Treeverse and Bennett on the steps' generated adjoint programs, against storing the whole
//! trajectory, against central differences of a plain Rust loop, and against the generic
//! `GVar` Treeverse with the parameters carried in the state; edge cases and bad inputs.

#[path = "support/lotka_volterra.rs"]
mod lotka_volterra;

use lotka_volterra::{native_final, rk4, rk4_adjoint, rk4_carried, rk4_carried_inv};
use lotka_volterra::{rk4_inv, rk4_vjp, THETA, X0};
use nilang::checkpoint::{
    bennett_gradient, optimal_forward_steps, trajectory_gradient, treeverse_gradient,
    ParamTransition,
};
use nilang::treeverse::{treeverse, ReversalChain};
use nilang::{catch, i, GVar, Real};

/// The loss `w · x_T`.
const W: [f64; 2] = [1.0, -0.5];

fn seed(_x_t: &[f64]) -> Vec<f64> {
    W.to_vec()
}

/// `|a − b| ≤ 1e-12 · max(1, |b|)` element by element.
fn assert_close(a: &[f64], b: &[f64], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= 1e-12 * y.abs().max(1.0),
            "{what}[{k}]: {x} vs {y}"
        );
    }
}

/// The loss of the native loop at `v = (x₀, θ)`.
fn native_loss(v: &[f64], steps: usize) -> f64 {
    let x = native_final([v[0], v[1]], &v[2..6], steps);
    W[0] * x[0] + W[1] * x[1]
}

#[test]
fn rk4_gradients_match_central_differences() {
    let steps = 300;
    for snapshots in [1, 4, 9, steps] {
        let r = treeverse_gradient(&(rk4, rk4_vjp), &X0, &THETA, steps, snapshots, seed);
        assert_close(&r.final_state, &native_final(X0, &THETA, steps), "x_T");
        let grad: Vec<f64> = r.state_grad.iter().chain(&r.param_grad).copied().collect();
        let v: Vec<f64> = X0.iter().chain(&THETA).copied().collect();
        nilang::ad::check_gradient(|v| native_loss(v, steps), &v, &grad, 1e-6, 1e-6)
            .unwrap_or_else(|e| panic!("δ = {snapshots}: {e}"));
    }
}

#[test]
fn treeverse_gives_the_trajectory_s_gradients_at_every_budget() {
    for steps in [0usize, 1, 2, 3, 7, 10, 55, 64, 100, 1000] {
        let all = trajectory_gradient(&(rk4, rk4_vjp), &X0, &THETA, steps, seed);
        assert_eq!(all.cost.forward_steps, steps.saturating_sub(1));
        for snapshots in [1usize, 2, 3, 5, 10, steps + 1] {
            if snapshots == 1 && steps > 100 {
                continue; // T²/2 forward steps
            }
            let r = treeverse_gradient(&(rk4, rk4_vjp), &X0, &THETA, steps, snapshots, seed);
            let at = format!("T = {steps}, δ = {snapshots}");
            assert_close(&r.final_state, &all.final_state, &format!("{at}: x_T"));
            assert_close(&r.state_grad, &all.state_grad, &format!("{at}: ∂/∂x₀"));
            assert_close(&r.param_grad, &all.param_grad, &format!("{at}: ∂/∂θ"));
            assert_eq!(r.cost.vjps, steps, "{at}");
            if steps > 0 {
                assert_eq!(
                    r.cost.forward_steps,
                    optimal_forward_steps(steps, snapshots),
                    "{at}"
                );
            }
            assert!(r.cost.peak_snapshots <= snapshots.max(1), "{at}");
        }
    }
}

#[test]
fn the_checked_step_gives_the_same_gradients() {
    use lotka_volterra::checked;
    let default = treeverse_gradient(&(rk4, rk4_vjp), &X0, &THETA, 200, 6, seed);
    let step = (checked::rk4, checked::rk4_vjp);
    let r = treeverse_gradient(&step, &X0, &THETA, 200, 6, seed);
    assert_eq!(r, default);
}

#[test]
fn no_steps_is_the_seed() {
    let r = treeverse_gradient(&(rk4, rk4_vjp), &X0, &THETA, 0, 3, seed);
    assert_eq!((r.final_state, r.state_grad), (X0.to_vec(), W.to_vec()));
    assert_eq!(r.param_grad, vec![0.0; 4]);
    let b = bennett_gradient(&(rk4, rk4_inv, rk4_adjoint), 2, &X0, &THETA, 0, seed);
    assert_eq!((b.final_state, b.state_grad), (X0.to_vec(), W.to_vec()));
    assert_eq!((b.param_grad, b.cost.calls), (vec![0.0; 4], 0));
}

#[test]
fn bennett_gives_the_trajectory_s_gradients() {
    for k in 2..=4usize {
        for steps in [1usize, 2, 3, 5, 9, 16, 27, 64, 100] {
            let all = trajectory_gradient(&(rk4, rk4_vjp), &X0, &THETA, steps, seed);
            let b = bennett_gradient(&(rk4, rk4_inv, rk4_adjoint), k, &X0, &THETA, steps, seed);
            let at = format!("k = {k}, T = {steps}");
            assert_close(&b.final_state, &all.final_state, &format!("{at}: x_T"));
            assert_close(&b.state_grad, &all.state_grad, &format!("{at}: ∂/∂x₀"));
            assert_close(&b.param_grad, &all.param_grad, &format!("{at}: ∂/∂θ"));
            assert_eq!(b.cost.adjoints, steps, "{at}: one adjoint per step");
            // the forward run and its inverse: every call is matched by an uncall
            assert_eq!(b.cost.calls, b.cost.uncalls + b.cost.adjoints, "{at}");
            let n = (1..=8u32).find(|&n| k.pow(n) == steps);
            if let Some(n) = n {
                assert_eq!(b.cost.calls, (2 * k - 1).pow(n), "{at}: (2k−1)ⁿ calls");
                let peak = n as usize * (k - 1) + 2;
                assert_eq!(b.cost.peak_live_states, peak, "{at}: n(k−1)+2 states");
            }
        }
    }
}

#[test]
fn generic_gvar_treeverse_with_carried_parameters_agrees() {
    let chain = ReversalChain::new(6, rk4_carried::<f64>, rk4_carried_inv::<GVar<f64>>);
    let x0: Vec<f64> = X0.iter().chain(&THETA).copied().collect();
    let steps = 500;
    let old = treeverse(&chain, &x0, steps, 10, |_| {
        vec![W[0], W[1], 0.0, 0.0, 0.0, 0.0]
    });
    let new = treeverse_gradient(&(rk4, rk4_vjp), &X0, &THETA, steps, 10, seed);
    assert_close(&old.final_state[..2], &new.final_state, "x_T");
    assert_close(&old.gradient[..2], &new.state_grad, "∂/∂x₀");
    assert_close(&old.gradient[2..], &new.param_grad, "∂/∂θ");
    assert_eq!(old.stats, new.cost);
}

/// A small RNN cell without input: `h' = tanh(W h + b)`, `W` 3×3 row by row then `b` in `p`.
#[i]
fn rnn_cell<T: Real>(out: &mut [T], h: &mut [T], p: &mut [T]) {
    for i in 0..3 {
        let z = T::zero();
        routine! {
            for j in 0..3 {
                z += p[3 * i + j] * h[j];
            }
            z += identity(p[9 + i]);
        }
        out[i] += tanh(z);
        uncompute!();
        dealloc!(z = T::zero());
    }
}

fn rnn_native(h0: &[f64], p: &[f64], steps: usize) -> Vec<f64> {
    let mut h = h0.to_vec();
    for _ in 0..steps {
        h = (0..3)
            .map(|i| ((0..3).map(|j| p[3 * i + j] * h[j]).sum::<f64>() + p[9 + i]).tanh())
            .collect();
    }
    h
}

#[test]
fn rnn_cell_gradients_by_every_scheduler() {
    let h0 = [0.1, -0.4, 0.7];
    let p: Vec<f64> = (0..12).map(|k| ((k * 7 % 12) as f64 - 5.5) / 9.0).collect();
    let steps = 40;
    let loss_w = [0.3, -1.0, 2.0];
    let seed = |_: &[f64]| loss_w.to_vec();
    let all = trajectory_gradient(&(rnn_cell, rnn_cell_vjp), &h0, &p, steps, seed);
    assert_close(&all.final_state, &rnn_native(&h0, &p, steps), "h_T");
    let tv = treeverse_gradient(&(rnn_cell, rnn_cell_vjp), &h0, &p, steps, 3, seed);
    let step = (rnn_cell, rnn_cell_inv, rnn_cell_adjoint);
    let bn = bennett_gradient(&step, 3, &h0, &p, steps, seed);
    for r in [&tv.state_grad, &bn.state_grad] {
        assert_close(r, &all.state_grad, "∂/∂h₀");
    }
    for r in [&tv.param_grad, &bn.param_grad] {
        assert_close(r, &all.param_grad, "∂/∂(W, b)");
    }
    let v: Vec<f64> = h0.iter().chain(&p).copied().collect();
    let loss = |v: &[f64]| {
        let h = rnn_native(&v[..3], &v[3..], steps);
        (0..3).map(|i| loss_w[i] * h[i]).sum::<f64>()
    };
    let grad: Vec<f64> = all
        .state_grad
        .iter()
        .chain(&all.param_grad)
        .copied()
        .collect();
    nilang::ad::check_gradient(loss, &v, &grad, 1e-6, 1e-6).unwrap();
}

/// Runs `f`, which must panic with a message that contains `expected`.
fn assert_panics_with(expected: &str, f: impl FnOnce() + std::panic::UnwindSafe) {
    let payload = std::panic::catch_unwind(f).expect_err("it panics");
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(message.contains(expected), "{message}");
}

#[test]
fn bad_inputs_panic_with_what_was_wrong() {
    let short = |_: &[f64]| vec![1.0];
    let (fast, rev) = ((rk4, rk4_vjp), (rk4, rk4_inv, rk4_adjoint));
    assert_panics_with(
        "treeverse_gradient: `seed` returned a gradient of length 1, but the state has length 2",
        || drop(treeverse_gradient(&fast, &X0, &THETA, 10, 3, short)),
    );
    assert_panics_with(
        "bennett_gradient: `seed` returned a gradient of length 1",
        || drop(bennett_gradient(&rev, 2, &X0, &THETA, 4, short)),
    );
    assert_panics_with("`snapshots` is 0", || {
        drop(treeverse_gradient(&fast, &X0, &THETA, 10, 0, seed))
    });
    assert_panics_with("`k` is 1, but Bennett's scheme needs k ≥ 2", || {
        drop(bennett_gradient(&rev, 1, &X0, &THETA, 4, seed))
    });
    // a state or parameter vector shorter than the step reads: the step's own bounds check
    assert_panics_with("index out of bounds", || {
        drop(treeverse_gradient(&fast, &X0[..1], &THETA, 10, 3, short))
    });
    assert_panics_with("index out of bounds", || {
        drop(trajectory_gradient(&fast, &X0, &THETA[..3], 10, seed))
    });
}

/// `x_{i+1} = 2xᵢ`, written by hand; a leaky one's uncall forgets to subtract, so it is not
/// the inverse of its call.
struct Double {
    leaky: bool,
}

impl ParamTransition<f64> for Double {
    fn call(&self, out: &mut [f64], inp: &mut [f64], _: &mut [f64]) {
        out[0] += 2.0 * inp[0];
    }
    fn uncall(&self, out: &mut [f64], inp: &mut [f64], _: &mut [f64]) {
        if !self.leaky {
            out[0] -= 2.0 * inp[0];
        }
    }
    fn adjoint(
        &self,
        o: &mut [f64],
        og: &mut [f64],
        x: &mut [f64],
        xg: &mut [f64],
        _: &mut [f64],
        _: &mut [f64],
    ) {
        o[0] -= 2.0 * x[0];
        xg[0] += 2.0 * og[0];
    }
}

#[test]
fn bennett_reports_a_state_its_step_did_not_uncompute() {
    let err = catch(|| {
        bennett_gradient(&Double { leaky: true }, 2, &[1.0], &[], 4, |_| vec![1.0]);
    })
    .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("state s1 (uncalling step 0)"), "{text}");
    // the honest step differentiates: x_T = 2ᵀ x₀
    let r = bennett_gradient(&Double { leaky: false }, 2, &[1.0], &[], 4, |_| vec![1.0]);
    assert_eq!((r.final_state, r.state_grad), (vec![16.0], vec![16.0]));
}
