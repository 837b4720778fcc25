//! Time–space trade-off: Treeverse's measured forward steps and stored states match the
//! binomial formulas (ICLR Eq. (1), Table 1), Bennett's match (2k−1)ⁿ and n(k−1)+2 (Eq. (2)),
//! and a 10⁴-step chain is differentiated under a budget of 20 states with the same gradient
//! as with every state stored.

use nilang::schedule::{Bennett, Transition};
use nilang::treeverse::{eta, optimal_forward_steps, sweeps, treeverse, Chain, ReversalChain};
use nilang::{i, GVar, Real};

/// A chain whose state is its index: checks that every vector–Jacobian product gets the right
/// state, in reverse order.
struct Counter;

impl Chain for Counter {
    type State = usize;
    /// The index of the next expected vjp.
    type Grad = usize;
    fn step(&self, i: usize, x: &usize) -> usize {
        assert_eq!(*x, i);
        x + 1
    }
    fn vjp(&self, i: usize, x: &usize, g: &mut usize) {
        assert_eq!(
            (*x, i),
            (i, *g),
            "vjp of step {i} got state {x}, expected step {g}"
        );
        *g = g.wrapping_sub(1);
    }
}

fn counted(steps: usize, snaps: usize) -> nilang::treeverse::Stats {
    let r = treeverse(&Counter, &0, steps, snaps, |&x| {
        assert_eq!(x, steps);
        steps - 1
    });
    assert_eq!(r.gradient, usize::MAX, "every step reversed once");
    assert_eq!(r.stats.vjps, steps);
    r.stats
}

/// Minimal forward steps by dynamic programming over every first split:
/// t(l, s) = min_m m + t(l − m, s − 1) + t(m, s).
fn brute_force(lmax: usize, smax: usize) -> Vec<Vec<usize>> {
    let mut t = vec![vec![0usize; smax + 1]; lmax + 1];
    for l in 2..=lmax {
        t[l][1] = l * (l - 1) / 2;
        for s in 2..=smax {
            t[l][s] = (1..l).map(|m| m + t[l - m][s - 1] + t[m][s]).min().unwrap();
        }
    }
    t
}

#[test]
fn no_steps_seeds_at_the_initial_state() {
    let r = treeverse(&Counter, &0, 0, 3, |&x| {
        assert_eq!(x, 0, "the final state is x₀");
        7
    });
    assert_eq!((r.final_state, r.gradient), (0, 7));
    assert_eq!(r.stats, nilang::treeverse::Stats::default());
}

#[test]
fn closed_form_is_the_optimum() {
    let t = brute_force(80, 6);
    for (l, row) in t.iter().enumerate().skip(1) {
        for (s, &best) in row.iter().enumerate().skip(1) {
            assert_eq!(optimal_forward_steps(l, s), best, "T = {l}, S = {s}");
        }
    }
}

#[test]
fn treeverse_steps_and_memory_match_the_binomial_formulas() {
    for &steps in &[1usize, 2, 3, 7, 10, 55, 100, 333, 1000, 4097, 10_000] {
        for &snaps in &[2usize, 3, 4, 5, 10, 20, 50] {
            let stats = counted(steps, snaps);
            assert_eq!(
                stats.forward_steps,
                optimal_forward_steps(steps, snaps),
                "T = {steps}, S = {snaps}"
            );
            assert!(
                stats.peak_snapshots <= snaps,
                "T = {steps}, S = {snaps}: {stats:?}"
            );
            if steps > snaps {
                assert_eq!(
                    stats.peak_snapshots, snaps,
                    "T = {steps}, S = {snaps}: the budget is used"
                );
            }
        }
    }
}

#[test]
fn treeverse_at_full_binomial_lengths_costs_tau_sweeps() {
    // T = η(τ, δ): every step is recomputed at most τ times, t = τT − η(τ−1, δ+1) ≤ τT
    // (the paper's T_c = tT, S_c = dS).
    for delta in 1..=12usize {
        for tau in 1..=12usize {
            let steps = eta(tau, delta);
            if steps > 10_000 || steps < 2 {
                continue;
            }
            assert_eq!(sweeps(steps, delta), tau);
            let stats = counted(steps, delta);
            assert_eq!(stats.forward_steps, tau * steps - eta(tau - 1, delta + 1));
            assert!(stats.forward_steps <= tau * steps);
            assert_eq!(stats.peak_snapshots, delta.min(steps));
        }
    }
}

#[test]
fn treeverse_extremes_are_table_1() {
    // most time efficient: every state stored, T − 1 forward steps (O(T) time, O(T) space)
    for &t in &[10usize, 1000, 10_000] {
        let s = counted(t, t);
        assert_eq!((s.forward_steps, s.peak_snapshots), (t - 1, t));
    }
    // most space efficient: one stored state, T(T−1)/2 steps (O(T²) time, O(1) space)
    for &t in &[10usize, 300, 2000] {
        let s = counted(t, 1);
        assert_eq!((s.forward_steps, s.peak_snapshots), (t * (t - 1) / 2, 1));
    }
}

/// A step for Bennett's scheme that only counts.
struct Tick;

impl Transition<u64> for Tick {
    fn call(&self, out: &mut u64, inp: &mut u64) {
        *out = out.wrapping_add(inp.wrapping_add(1));
    }
    fn uncall(&self, out: &mut u64, inp: &mut u64) {
        *out = out.wrapping_sub(inp.wrapping_add(1));
    }
}

#[test]
fn bennett_steps_and_memory_match_eq_2() {
    for &(k, n) in &[
        (2usize, 1u32),
        (2, 5),
        (2, 13),
        (3, 8),
        (4, 6),
        (5, 5),
        (10, 4),
    ] {
        let t = k.pow(n);
        assert!(t <= 10_000);
        let steps = vec![Tick; t];
        let mut b = Bennett::new(k, 0u64, t);
        b.run(&steps);
        assert_eq!(b.final_state(), Some(&(t as u64)));
        assert_eq!(b.program_counter(), (2 * k - 1).pow(n), "k = {k}, n = {n}");
        assert_eq!(
            b.peak_live_states(),
            n as usize * (k - 1) + 2,
            "k = {k}, n = {n}"
        );
        b.run_inv(&steps);
        assert_eq!(b.live_states(), 1);
    }
}

impl Clone for Tick {
    fn clone(&self) -> Self {
        Tick
    }
}

/// A pendulum, one symplectic Euler step: x' = x + h v, v' = v − h sin x'.
#[i]
fn pendulum<T: Real>(out: &mut [T], inp: &mut [T]) {
    out[0] += inp[0];
    out[0] += 0.01 * inp[1];
    out[1] += inp[1];
    let s = T::zero();
    s += sin(out[0]);
    out[1] -= 0.01 * s;
    s -= sin(out[0]);
    dealloc!(s = T::zero());
}

#[test]
fn ten_thousand_steps_in_twenty_states() {
    let chain = ReversalChain::new(2, pendulum::<f64>, pendulum_inv::<GVar<f64>>);
    let x0 = vec![1.0, 0.3];
    let n = 10_000;
    // loss: x_T[0] + 2 v_T
    let seed = |_: &Vec<f64>| vec![1.0, 2.0];
    let bounded = treeverse(&chain, &x0, n, 20, seed);
    let unbounded = treeverse(&chain, &x0, n, n, seed);
    assert_eq!(bounded.gradient, unbounded.gradient);
    assert_eq!(bounded.final_state, unbounded.final_state);
    assert_eq!(bounded.stats.peak_snapshots, 20);
    assert_eq!(bounded.stats.forward_steps, optimal_forward_steps(n, 20));
    assert_eq!(unbounded.stats.forward_steps, n - 1);
    // r = 4 sweeps: fewer than 4 forward steps per step
    assert!(bounded.stats.forward_steps < 4 * n);
    // and the gradient is the derivative (central differences)
    let loss = |x: &[f64]| {
        let mut s = x.to_vec();
        for i in 0..n {
            s = chain.step(i, &s);
        }
        s[0] + 2.0 * s[1]
    };
    let fd = nilang::ad::numeric_gradient(loss, &x0, 1e-6);
    for (g, f) in bounded.gradient.iter().zip(&fd) {
        assert!((g - f).abs() < 1e-4 * f.abs().max(1.0), "{g} vs {f}");
    }
}

/// `η(τ, δ) = C(τ + δ, δ)` against Pascal's rule in 128 bits, across the range where the
/// 64-bit product overflows and where the result saturates at `usize::MAX`.
#[test]
fn eta_is_the_binomial_coefficient_and_saturates() {
    let n = 140;
    let mut pascal = vec![vec![0u128; n + 1]; n + 1];
    for i in 0..=n {
        pascal[i][0] = 1;
        for j in 1..=i {
            pascal[i][j] = pascal[i - 1][j - 1].saturating_add(pascal[i - 1][j]);
        }
    }
    for tau in 0..=70 {
        for delta in 0..=70 {
            let want = pascal[tau + delta][delta];
            let want = usize::try_from(want).unwrap_or(usize::MAX);
            assert_eq!(eta(tau, delta), want, "η({tau}, {delta})");
        }
    }
}
