//! The paper's Figure 2 program, `x_{i+1} = x_i + x_i`: with the naive §3
//! transformation the number of backpropagator invocations doubles with every
//! step, while the final algorithm (§7 + §8.1/8.2) invokes each backpropagator
//! at most once, so its count grows by one per step. We count invocations
//! with instrumented counters, not seconds.
#![allow(clippy::redundant_closure)]

use nilang_dualrev::{naive, record, Scalar};

/// Fig. 2, left: `n` doublings by self-addition.
fn doubling<S: Scalar>(x0: S, n: usize) -> S {
    let mut x = x0;
    for _ in 0..n {
        x = x + x;
    }
    x
}

fn naive_calls(n: usize) -> (f64, u64) {
    let (_, g, calls) = naive::grad(|x| doubling(x[0], n), &[1.0]);
    (g[0], calls)
}

fn final_calls(n: usize) -> (f64, u64, usize) {
    let mut pb = record(|x| doubling(x[0], n), &[1.0]).unwrap();
    let (g, stats) = pb.vjp_with_stats(&[1.0]).unwrap();
    (g[0], stats.backpropagator_calls, stats.ids)
}

#[test]
fn naive_work_doubles_final_work_is_linear() {
    let mut prev_naive = None;
    let mut prev_final = None;
    for n in 1..=16 {
        let (gn, cn) = naive_calls(n);
        let (gf, cf, ids) = final_calls(n);
        let exact = 2f64.powi(n as i32);
        assert_eq!(gn, exact);
        assert_eq!(gf, exact);
        // Naive: dx_n once, dx_{n-1} twice, ..., the input's one-hot
        // backpropagator 2^n times: 2^(n+1) - 1 invocations in total.
        assert_eq!(cn, (1u64 << (n + 1)) - 1, "naive calls at n = {n}");
        // Final: exactly one invocation per primitive operation.
        assert_eq!(cf, n as u64, "final calls at n = {n}");
        // Memory: sink + input + one ID per operation.
        assert_eq!(ids, n + 2);
        if let (Some(pn), Some(pf)) = (prev_naive, prev_final) {
            assert_eq!(cn, 2 * pn + 1, "naive work doubles");
            assert_eq!(cf, pf + 1, "final work grows by one");
        }
        prev_naive = Some(cn);
        prev_final = Some(cf);
    }
}

#[test]
fn without_sharing_both_are_linear() {
    // x_{i+1} = x_i * 1.0001: every scalar is used once, so the naive
    // transformation is not exponential either (its blow-up comes from
    // sharing, §3.4).
    let f = |x: S1| {
        let mut y = x;
        for _ in 0..20 {
            y *= 1.0001;
        }
        y
    };
    type S1 = naive::NaiveDual;
    let (_, _, calls) = naive::grad(|x| f(x[0]), &[1.0]);
    assert_eq!(calls, 21);
}
