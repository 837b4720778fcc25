//! Every public reversible (`#[i]`) function of the evals, run forward and then backward:
//! `f_inv(args)` after `f(args)` must give every argument back (the project standard,
//! `uncall(call(x)) == x`), and `f` must have changed its output (so that no test passes
//! because nothing happened).
//!
//! # Tolerance
//!
//! All these programs are compiled with `#[i(nocheck)]` on `f64`, so the inverse undoes each
//! `y += e` by `y -= e` in floating point: `e` itself is recomputed bit for bit (its inputs
//! are restored before it is recomputed), but `(y + e) − e` is `y` only up to the rounding of
//! the two operations, about one ulp of the largest value `y` held in between. An accumulator
//! that receives `k` terms is therefore back to within about `k` ulps of the largest magnitude
//! it reached, which can exceed both its value before and after the forward run: an `ode_solve`
//! slot whose five Runge–Kutta terms cancel to exactly `0` forward comes back as `−1.4e-20`.
//! So [`assert_restored`] measures each float's error against `max(1, |before|, |after
//! forward|)` (the inputs here are of order one) and allows [`TOL`] `= 1e-12`, about 4500
//! ulps of 1. The largest errors observed, over thousands of cases of every property test,
//! were `1.2e-14` for the `gmm` objective's accumulator (about 50 ulps: it receives a
//! LogSumExp per point, the weights' term, the prior and a constant) and below `3e-15`
//! everywhere else: the tolerance leaves a wide margin for rounding, yet any real bug (a term
//! not uncomputed, a wrong sign or index, a branch taken differently backwards) leaves an
//! error of the size of the values themselves. Integers and stacks must come back exactly
//! (stacks as they began: empty, or holding only what they held before).

use nilang_gradbench::evals::*;
use nilang_gradbench::seeded::uniform as lcg;
use proptest::prelude::*;

/// Relative tolerance on a restored float (see the module documentation).
const TOL: f64 = 1e-12;

/// Asserts that every float of one argument is back: `after` (the argument after `f` then
/// `f_inv`) within [`TOL`] of `before`, relative to `max(1, |before|, |forward|)` where
/// `forward` is the argument after `f` alone.
fn assert_restored(what: &str, before: &[f64], forward: &[f64], after: &[f64]) {
    assert_eq!(before.len(), after.len(), "{what}: length changed");
    assert_eq!(
        before.len(),
        forward.len(),
        "{what}: length changed forward"
    );
    for (i, ((b, f), a)) in before.iter().zip(forward).zip(after).enumerate() {
        assert!(a.is_finite(), "{what}[{i}]: {a} after the inverse");
        let scale = 1f64.max(b.abs()).max(f.abs());
        let rel = (a - b).abs() / scale;
        assert!(
            rel <= TOL,
            "{what}[{i}]: {b} → {f} (forward) → {a} (inverse), relative error {rel:e}"
        );
    }
}

/// Asserts that the forward run changed `forward` from `before` somewhere.
fn assert_changed(what: &str, before: &[f64], forward: &[f64]) {
    assert!(
        before.iter().zip(forward).any(|(b, f)| b != f),
        "{what}: the forward run left it unchanged ({before:?})"
    );
}

/// A non-zero float in `±[lo, hi)`, for arguments whose being zero would make the forward run
/// a no-op.
fn nonzero(lo: f64, hi: f64) -> impl Strategy<Value = f64> {
    (lo..hi, any::<bool>()).prop_map(|(v, neg)| if neg { -v } else { v })
}

// ---------------------------------------------------------------------------------------
// the small evals: property tests

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// `hello`: `isquare` (`y += x²`) and back.
    #[test]
    fn hello_isquare_round_trips(y0 in -10.0f64..10.0, x0 in nonzero(0.1, 30.0)) {
        let (mut y, mut x) = (y0, x0);
        hello::isquare(&mut y, &mut x);
        let fwd = [y, x];
        assert_changed("isquare y", &[y0], &[y]);
        hello::isquare_inv(&mut y, &mut x);
        assert_restored("isquare (y, x)", &[y0, x0], &fwd, &[y, x]);
    }

    /// `lse`: `logsumexp` (`out += LSE(x)`, with the maximum as a constant ancilla) and back.
    #[test]
    fn lse_logsumexp_round_trips(
        out0 in -10.0f64..10.0,
        x0 in proptest::collection::vec(-20.0f64..20.0, 1..8),
    ) {
        let (mut out, mut x) = (out0, x0.clone());
        lse::logsumexp(&mut out, &mut x);
        let (fo, fx) = (out, x.clone());
        assert_changed("logsumexp out", &[out0], &[fo]);
        lse::logsumexp_inv(&mut out, &mut x);
        assert_restored("logsumexp out", &[out0], &[fo], &[out]);
        assert_restored("logsumexp x", &x0, &fx, &x);
    }

    /// `lse`: `logsumexp_kept` (each exponential swapped into `e`, which must be zero on
    /// entry, and swapped back out by the uncomputation) and back.
    #[test]
    fn lse_logsumexp_kept_round_trips(
        out0 in -10.0f64..10.0,
        x0 in proptest::collection::vec(-20.0f64..20.0, 1..8),
    ) {
        let (mut out, mut x, mut e) = (out0, x0.clone(), vec![0.0; x0.len()]);
        let a = lse::max_value(&x0);
        lse::logsumexp_kept(&mut out, &mut x, &mut e, a);
        let (fo, fx) = (out, x.clone());
        assert_changed("logsumexp_kept out", &[out0], &[fo]);
        assert!(e.iter().all(|v| *v == 0.0), "e is zero after the forward run: {e:?}");
        lse::logsumexp_kept_inv(&mut out, &mut x, &mut e, a);
        assert_restored("logsumexp_kept out", &[out0], &[fo], &[out]);
        assert_restored("logsumexp_kept x", &x0, &fx, &x);
        assert!(e.iter().all(|v| *v == 0.0), "e is zero again: {e:?}");
    }

    /// `llsq`: `llsq_objective` (residuals accumulated into `r`, half squares into `out`) and
    /// back; `n` from 2 to 29, so that both the blocks of four points and the remainder run.
    #[test]
    fn llsq_objective_round_trips(
        out0 in -10.0f64..10.0,
        x0 in proptest::collection::vec(-1.0f64..1.0, 1..6),
        n in 2usize..30,
        r_seed in 0u64..1000,
    ) {
        let r0 = lcg(r_seed, n);
        let (mut out, mut x, mut r) = (out0, x0.clone(), r0.clone());
        llsq::llsq_objective(&mut out, &mut x, &mut r, n);
        let (fo, fx, fr) = (out, x.clone(), r.clone());
        assert_changed("llsq out", &[out0], &[fo]);
        assert_changed("llsq r", &r0, &fr);
        llsq::llsq_objective_inv(&mut out, &mut x, &mut r, n);
        assert_restored("llsq out", &[out0], &[fo], &[out]);
        assert_restored("llsq x", &x0, &fx, &x);
        assert_restored("llsq r", &r0, &fr, &r);
    }

    /// `ba`: `ba_reproj` with a random camera, both branches of its rotation (`r = 0` is the
    /// first-order one), and back.
    #[test]
    fn ba_reproj_rotation_branches_round_trip(
        e0 in proptest::array::uniform2(-1.0f64..1.0),
        r0 in proptest::array::uniform3(-1.0f64..1.0),
        rest in proptest::array::uniform8(0.1f64..1.0),
        x0 in proptest::array::uniform3(nonzero(0.1, 5.0)),
        zero_rotation in any::<bool>(),
    ) {
        let r0 = if zero_rotation { [0.0; 3] } else { r0 };
        let mut cam0 = [0.0; ba::NCAM];
        cam0[..3].copy_from_slice(&r0);
        cam0[3..].copy_from_slice(&rest);
        // the point in front of the camera
        let x0 = [x0[0], x0[1], x0[2].abs() + 10.0];
        let (mut e, mut cam, mut x, mut w) = (e0, cam0, x0, 0.8);
        ba::ba_reproj(&mut e, &mut cam, &mut x, &mut w, &[0.3, -0.2]);
        let fe = e;
        assert_changed("ba_reproj err", &e0, &fe);
        ba::ba_reproj_inv(&mut e, &mut cam, &mut x, &mut w, &[0.3, -0.2]);
        assert_restored("ba_reproj err", &e0, &fe, &e);
        assert_restored("ba_reproj cam", &cam0, &cam0, &cam);
        assert_restored("ba_reproj x", &x0, &x0, &x);
    }

    /// `ba`: `ba_weight` (`e += 1 − w²`) and back.
    #[test]
    fn ba_weight_round_trips(e0 in -2.0f64..2.0, w0 in 0.5f64..1.5) {
        let (mut e, mut w) = (e0, w0);
        ba::ba_weight(&mut e, &mut w);
        let fwd = [e, w];
        assert_changed("ba_weight e", &[e0], &[e]);
        ba::ba_weight_inv(&mut e, &mut w);
        assert_restored("ba_weight (e, w)", &[e0, w0], &fwd, &[e, w]);
    }

    /// `kmeans`: `kmeans_cost` pushes each point's nearest centroid on `nearest_of`; the
    /// inverse pops them all (the stack ends empty) and gives the cost and centroids back.
    #[test]
    fn kmeans_cost_round_trips(
        seed in any::<u64>(),
        d in 1usize..4,
        k in 1usize..5,
        n in 1usize..20,
        cost0 in -5.0f64..5.0,
    ) {
        let points = lcg(seed, n * d);
        let c0 = lcg(seed ^ 0x5eed, k * d);
        let (mut cost, mut c, mut nearest_of) = (cost0, c0.clone(), Vec::new());
        kmeans::kmeans_cost(&mut cost, &mut c, &mut nearest_of, &points, d);
        let (fcost, fc) = (cost, c.clone());
        assert_changed("kmeans cost", &[cost0], &[fcost]);
        assert_eq!(nearest_of.len(), n, "one index pushed per point");
        assert!(nearest_of.iter().all(|&j| j < k));
        kmeans::kmeans_cost_inv(&mut cost, &mut c, &mut nearest_of, &points, d);
        assert!(nearest_of.is_empty(), "stack not emptied: {nearest_of:?}");
        assert_restored("kmeans cost", &[cost0], &[fcost], &[cost]);
        assert_restored("kmeans centroids", &c0, &fc, &c);
    }

    /// `ode`: `rk4_coefficients` (the step's diagonals from `x`) and `rk4_step` (slot `k + 1`
    /// += `M·y`), each forward and back, on random slots whose padding holds ones.
    #[test]
    fn ode_coefficients_and_step_round_trip(seed in any::<u64>(), n in 1usize..7, k in 0usize..2) {
        let rk = ode::Rk::new(n, 2);
        let mut x0 = vec![0.0; ode::PAD];
        x0.extend(lcg(seed ^ 1, n));
        let zero_c = vec![0.0; rk.c_len()];
        let (mut c, mut x) = (zero_c.clone(), x0.clone());
        ode::rk4_coefficients(&mut c, &mut x, rk);
        let fc = c.clone();
        assert_changed("rk4_coefficients c", &zero_c, &fc);
        ode::rk4_coefficients_inv(&mut c, &mut x, rk);
        assert_restored("rk4_coefficients c", &zero_c, &fc, &c);
        assert_eq!(x, x0);

        let mut ys0 = lcg(seed ^ 2, rk.ys_len());
        for slot in ys0.chunks_mut(rk.m) {
            slot[..ode::PAD].fill(1.0);
        }
        let mut c = fc.clone();
        let mut ys = ys0.clone();
        ode::rk4_step(&mut ys, &mut c, k, rk);
        let fy = ys.clone();
        assert_changed("rk4_step ys", &ys0, &fy);
        ode::rk4_step_inv(&mut ys, &mut c, k, rk);
        assert_restored("rk4_step ys", &ys0, &fy, &ys);
        assert_eq!(c, fc);
    }

    /// `saddle`: `saddle_f` (`out += x₁² + x₂² − y₁² − y₂²`, `x` read-only) and back.
    #[test]
    fn saddle_f_round_trips(
        out0 in -5.0f64..5.0,
        y0 in proptest::array::uniform2(-3.0f64..3.0),
        x in proptest::array::uniform2(-3.0f64..3.0),
    ) {
        // x and y of different sizes, so that f ≠ 0
        let x = [x[0] + 3.5, x[1]];
        let (mut out, mut y) = (out0, y0);
        saddle::saddle_f(&mut out, &mut y, &x);
        let (fo, fy) = (out, y);
        assert_changed("saddle_f out", &[out0], &[fo]);
        saddle::saddle_f_inv(&mut out, &mut y, &x);
        assert_restored("saddle_f out", &[out0], &[fo], &[out]);
        assert_restored("saddle_f y", &y0, &fy, &y);
    }

    /// `particle`: `particle_potential` (`out += p(x; w)`, `w` by value) and back, away from
    /// the two charges.
    #[test]
    fn particle_potential_round_trips(
        out0 in -2.0f64..2.0,
        x00 in -5.0f64..5.0,
        x01 in 0.5f64..9.0,
        w in -0.5f64..0.5,
    ) {
        let x0 = [x00, x01];
        let (mut out, mut x) = (out0, x0.to_vec());
        particle::particle_potential(&mut out, &mut x, w);
        let (fo, fx) = (out, x.clone());
        assert_changed("particle_potential out", &[out0], &[fo]);
        particle::particle_potential_inv(&mut out, &mut x, w);
        assert_restored("particle_potential out", &[out0], &[fo], &[out]);
        assert_restored("particle_potential x", &x0, &fx, &x);
    }

    /// `ht`: `angle_axis_to_matrix` (`r[ro..ro + 9] += R(a)`), both branches (norm below
    /// `1e-4` adds the identity).
    #[test]
    fn ht_angle_axis_to_matrix_round_trips(
        seed in any::<u64>(),
        ro in 0usize..4,
        tiny in any::<bool>(),
    ) {
        let r0 = lcg(seed, ro + 11);
        let a0: Vec<f64> = lcg(seed ^ 1, 3).iter().map(|v| if tiny { 1e-5 * v } else { v * 1.5 }).collect();
        let (mut r, mut a) = (r0.clone(), a0.clone());
        ht::angle_axis_to_matrix(&mut r, ro, &mut a);
        let (fr, fa) = (r.clone(), a.clone());
        assert_changed("angle_axis_to_matrix r", &r0, &fr);
        ht::angle_axis_to_matrix_inv(&mut r, ro, &mut a);
        assert_restored("angle_axis_to_matrix r", &r0, &fr, &r);
        assert_restored("angle_axis_to_matrix a", &a0, &fa, &a);
    }

    /// `ht`: `euler_to_matrix` (`r[ro..ro + 9] += Rz·Ry·Rx` of `a[ao..ao + 3]`) and back.
    #[test]
    fn ht_euler_to_matrix_round_trips(seed in any::<u64>(), ro in 0usize..4, ao in 0usize..4) {
        let (r0, a0) = (lcg(seed, ro + 10), lcg(seed ^ 1, ao + 4));
        let (mut r, mut a) = (r0.clone(), a0.clone());
        ht::euler_to_matrix(&mut r, ro, &mut a, ao);
        let (fr, fa) = (r.clone(), a.clone());
        assert_changed("euler_to_matrix r", &r0, &fr);
        ht::euler_to_matrix_inv(&mut r, ro, &mut a, ao);
        assert_restored("euler_to_matrix r", &r0, &fr, &r);
        assert_restored("euler_to_matrix a", &a0, &fa, &a);
    }
}

// ---------------------------------------------------------------------------------------
// the larger evals: a few seeded problems

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// `gmm`: `gmm_objective` (the main terms into `mt`, their exponentials into `e`, their
    /// LogSumExp per point, the weights' LogSumExp, the Wishart prior) and back, both layouts'
    /// priors; up to 9 points, so that both the blocks of four points and the remainder run.
    #[test]
    fn gmm_objective_round_trips(
        seed in any::<u64>(),
        d in 1usize..4,
        k in 1usize..4,
        n in 1usize..10,
        split in any::<bool>(),
        out0 in -5.0f64..5.0,
    ) {
        let mut p = gmm::Problem::random(d, k, n, seed);
        // a Wishart prior with every term non-zero
        (p.gamma, p.m) = (1.3, 2.0);
        if split {
            p.layout = gmm::Layout::Split;
        }
        let mut out = out0;
        // any `mt`; `e` zero, as the program requires (each exponential is swapped into it)
        let mt0 = lcg(seed, n * k);
        let e0 = vec![0.0; n * k];
        let (mut mt, mut e) = (mt0.clone(), e0.clone());
        let (mut alpha, mut mu, mut q, mut l) =
            (p.alpha.clone(), p.mu.clone(), p.q.clone(), p.l.clone());
        gmm::gmm_objective(
            &mut out, &mut mt, &mut e, &mut alpha, &mut mu, &mut q, &mut l, &p.x, d, k,
            p.prior(),
        );
        let (fo, fmt, fe, fa, fm, fq, fl) =
            (out, mt.clone(), e.clone(), alpha.clone(), mu.clone(), q.clone(), l.clone());
        assert_changed("gmm out", &[out0], &[fo]);
        assert_changed("gmm mt", &mt0, &fmt);
        assert_changed("gmm e", &e0, &fe);
        gmm::gmm_objective_inv(
            &mut out, &mut mt, &mut e, &mut alpha, &mut mu, &mut q, &mut l, &p.x, d, k,
            p.prior(),
        );
        assert_restored("gmm out", &[out0], &[fo], &[out]);
        assert_restored("gmm mt", &mt0, &fmt, &mt);
        assert_restored("gmm e", &e0, &fe, &e);
        assert_restored("gmm alpha", &p.alpha, &fa, &alpha);
        assert_restored("gmm mu", &p.mu, &fm, &mu);
        assert_restored("gmm q", &p.q, &fq, &q);
        assert_restored("gmm l", &p.l, &fl, &l);
    }

    /// `ba`: `ba_reproj` (`err += w·(proj(cam, x) − feat)`) on every observation of a random
    /// problem, and back.
    #[test]
    fn ba_reproj_round_trips(seed in any::<u64>()) {
        let p = ba::Problem::random(3, 4, 8, seed);
        let e0s = lcg(seed, 2 * p.obs.len());
        for (k, &(c, pt)) in p.obs.iter().enumerate() {
            let e0 = [e0s[2 * k], e0s[2 * k + 1]];
            let (mut e, mut cam, mut x, mut w) = (e0, p.cams[c], p.x[pt], p.w[k]);
            ba::ba_reproj(&mut e, &mut cam, &mut x, &mut w, &p.feats[k]);
            let (fe, fcam, fx, fw) = (e, cam, x, w);
            assert_changed("ba_reproj err", &e0, &fe);
            ba::ba_reproj_inv(&mut e, &mut cam, &mut x, &mut w, &p.feats[k]);
            assert_restored("ba_reproj err", &e0, &fe, &e);
            assert_restored("ba_reproj cam", &p.cams[c], &fcam, &cam);
            assert_restored("ba_reproj x", &p.x[pt], &fx, &x);
            assert_restored("ba_reproj w", &[p.w[k]], &[fw], &[w]);
        }
    }
}

/// `det`: `det_objective` for `ℓ = 1..6` (minors up to size 3 computed directly, sub-minors of larger ones stacked):
/// the stack fills forward and ends empty.
#[test]
fn det_objective_round_trips() {
    for ell in 1..=6 {
        for seed in [ell as u64, 100 + ell as u64] {
            let a0 = lcg(seed, ell * ell);
            let out0 = lcg(seed ^ 7, 1)[0];
            let (mut out, mut a, mut stack) = (out0, a0.clone(), Vec::new());
            det::det_objective(&mut out, &mut a, &mut stack, ell);
            let (fo, fa) = (out, a.clone());
            assert_changed("det out", &[out0], &[fo]);
            assert_eq!(
                stack.is_empty(),
                ell <= det::DIRECT_MAX,
                "ℓ = {ell}: {} stacked",
                stack.len()
            );
            det::det_objective_inv(&mut out, &mut a, &mut stack, ell);
            assert!(
                stack.is_empty(),
                "ℓ = {ell}: {} left on the stack",
                stack.len()
            );
            assert_restored("det out", &[out0], &[fo], &[out]);
            assert_restored("det a", &a0, &fa, &a);
        }
    }
}

/// `det`: `det_minor` on minors of a 6 × 6 matrix (rows `row..6`, some columns left out), of
/// both kinds (direct and stacked); a stack that already holds values gets exactly those
/// back.
#[test]
fn det_minor_round_trips() {
    let ell = 6;
    let a0 = lcg(11, ell * ell);
    let all = det::Cols::all(ell);
    for (row, cols) in [
        (3, all.without(0).without(2).without(3)),
        (2, all.without(5).without(1)),
        (1, all.without(3)),
        (0, all),
    ] {
        assert_eq!(row + cols.len(), ell);
        let below = vec![42.0, -1.5];
        let (mut out, mut a, mut stack) = (0.25, a0.clone(), below.clone());
        det::det_minor(&mut out, &mut a, &mut stack, row, cols, ell);
        let (fo, fa) = (out, a.clone());
        assert_changed("det_minor out", &[0.25], &[fo]);
        assert!(stack.len() >= below.len());
        det::det_minor_inv(&mut out, &mut a, &mut stack, row, cols, ell);
        assert_eq!(stack, below, "row {row}: the stack must end as it began");
        assert_restored("det_minor out", &[0.25], &[fo], &[out]);
        assert_restored("det_minor a", &a0, &fa, &a);
    }
}

/// `lstm`: `lstm_objective` (state history and predictions filled forward, cell inputs, gates
/// and LogSumExps uncomputed) and back: the history and predictions end zero again, apart
/// from the initial state.
#[test]
fn lstm_objective_round_trips() {
    for (l, c, b, seed) in [(1, 2, 1, 1), (2, 4, 3, 2), (3, 5, 4, 3)] {
        let p = lstm::Problem::random(l, c, b, seed);
        let gold_sums: Vec<f64> = (0..c)
            .map(|t| p.seq[t * b..(t + 1) * b].iter().sum())
            .collect();
        let mut hist0 = vec![0.0; p.dims.hist_len()];
        hist0[..p.state.len()].copy_from_slice(&p.state);
        let ys0 = vec![0.0; p.dims.ys_len()];
        let loss0 = 0.5;
        let (mut loss, mut main, mut extra) = (loss0, p.main.clone(), p.extra.clone());
        let (mut hist, mut ys) = (hist0.clone(), ys0.clone());
        lstm::lstm_objective(
            &mut loss, &mut main, &mut extra, &mut hist, &mut ys, &p.seq, &gold_sums, p.dims,
        );
        let fwd = (loss, main.clone(), extra.clone(), hist.clone(), ys.clone());
        assert_changed("lstm loss", &[loss0], &[fwd.0]);
        assert_changed("lstm hist", &hist0, &fwd.3);
        assert_changed("lstm ys", &ys0, &fwd.4);
        lstm::lstm_objective_inv(
            &mut loss, &mut main, &mut extra, &mut hist, &mut ys, &p.seq, &gold_sums, p.dims,
        );
        assert_restored("lstm loss", &[loss0], &[fwd.0], &[loss]);
        assert_restored("lstm main", &p.main, &fwd.1, &main);
        assert_restored("lstm extra", &p.extra, &fwd.2, &extra);
        assert_restored("lstm hist", &hist0, &fwd.3, &hist);
        assert_restored("lstm ys", &ys0, &fwd.4, &ys);
    }
}

/// `lstm`: `lstm_layer` (one layer's state update into the zero slots of step `t + 1`) for
/// every layer and step of a small problem, on the history slice the objective hands it, and
/// back.
#[test]
fn lstm_layer_round_trips() {
    let dims = lstm::Dims { l: 2, c: 3, b: 3 };
    let main0 = lcg(21, 8 * dims.l * dims.b);
    let extra0 = lcg(24, 3 * dims.b);
    let seq = lcg(25, dims.c * dims.b);
    let b = dims.b;
    for t in 0..dims.c - 1 {
        for j in 0..dims.l {
            let mut hist0 = lcg(22 + t as u64, dims.hist_len());
            // the new slots hold zero
            hist0[dims.h(t + 1, j, 0)..dims.h(t + 1, j, 0) + 2 * b].fill(0.0);
            let (mut hist, mut main, mut extra) = (hist0.clone(), main0.clone(), extra0.clone());
            let (state, p) = (
                dims.h(t, j, 0)..dims.h(t + 1, j, 0) + 2 * b,
                8 * b * j..8 * b * (j + 1),
            );
            let x = &seq[t * b..(t + 1) * b];
            lstm::lstm_layer(
                &mut hist[state.clone()],
                &mut main[p.clone()],
                &mut extra,
                x,
                dims.step(),
                b,
                j == 0,
            );
            let (fh, fm, fe) = (hist.clone(), main.clone(), extra.clone());
            assert_changed("lstm_layer hist", &hist0, &fh);
            lstm::lstm_layer_inv(
                &mut hist[state],
                &mut main[p],
                &mut extra,
                x,
                dims.step(),
                b,
                j == 0,
            );
            assert_restored("lstm_layer hist", &hist0, &fh, &hist);
            assert_restored("lstm_layer main", &main0, &fm, &main);
            assert_restored("lstm_layer extra", &extra0, &fe, &extra);
        }
    }
}

/// `ode`: `ode_solve` (`s` Runge–Kutta steps into the zero slots of `ys`) and back, from
/// `y(0) = 0` as the eval and from a random `y(0)`; the coefficient buffer is zero again.
#[test]
fn ode_solve_round_trips() {
    for (n, s) in [(1, 1), (2, 3), (5, 10), (8, 25)] {
        for random_start in [false, true] {
            let rk = ode::Rk::new(n, s);
            let mut x0 = vec![0.0; ode::PAD];
            x0.extend(lcg(n as u64 + 100, n));
            let mut ys0 = vec![0.0; rk.ys_len()];
            for slot in ys0.chunks_mut(rk.m) {
                slot[..ode::PAD].fill(1.0);
            }
            if random_start {
                ys0[ode::PAD..rk.m].copy_from_slice(&lcg(n as u64 + 200, n));
            }
            let (mut ys, mut c, mut x) = (ys0.clone(), vec![0.0; rk.c_len()], x0.clone());
            ode::ode_solve(&mut ys, &mut c, &mut x, rk);
            let (fy, fx) = (ys.clone(), x.clone());
            assert_changed("ode_solve ys", &ys0, &fy);
            assert!(
                c.iter().all(|&v| v.abs() < 1e-14),
                "coefficients left: {c:?}"
            );
            ode::ode_solve_inv(&mut ys, &mut c, &mut x, rk);
            assert_restored("ode_solve ys", &ys0, &fy, &ys);
            assert_restored("ode_solve x", &x0, &fx, &x);
        }
    }
}

// ---------------------------------------------------------------------------------------
// ht: the hand model's reversible pieces, on random hands

/// Random `ht` problems: simple and complicated, mirrored and not, and one pose in the global
/// rotation's identity branch.
fn ht_problems() -> Vec<ht::Problem> {
    let mut out = Vec::new();
    for (complicated, mirrored, seed) in [
        (false, false, 1),
        (false, true, 2),
        (true, true, 3),
        (true, false, 4),
    ] {
        let mut p = ht::Problem::random(9, 5, complicated, seed);
        p.model.is_mirrored = mirrored;
        out.push(p);
    }
    let mut p = ht::Problem::random(7, 4, true, 5);
    p.theta[..3].copy_from_slice(&[0.0, 0.0, 0.0]);
    out.push(p);
    out
}

/// `ht`: `ht_transforms` (the skinning transforms of every bone) and back.
#[test]
fn ht_transforms_round_trips() {
    for p in ht_problems() {
        let m = &p.model;
        let tr0 = vec![0.0; 12 * m.nb];
        let (mut tr, mut theta) = (tr0.clone(), p.theta.clone());
        ht::ht_transforms(&mut tr, &mut theta, m);
        let (ft, fth) = (tr.clone(), theta.clone());
        assert_changed("ht_transforms tr", &tr0, &ft);
        ht::ht_transforms_inv(&mut tr, &mut theta, m);
        assert_restored("ht_transforms tr", &tr0, &ft, &tr);
        assert_restored("ht_transforms theta", &p.theta, &fth, &theta);
    }
}

/// `ht`: `ht_pose` (transforms and global rotation) and back.
#[test]
fn ht_pose_round_trips() {
    for p in ht_problems() {
        let m = &p.model;
        let pose0 = lcg(31, 12 * m.nb + 9);
        let (mut pose, mut theta) = (pose0.clone(), p.theta.clone());
        ht::ht_pose(&mut pose, &mut theta, m);
        let (fp, fth) = (pose.clone(), theta.clone());
        assert_changed("ht_pose pose", &pose0, &fp);
        ht::ht_pose_inv(&mut pose, &mut theta, m);
        assert_restored("ht_pose pose", &pose0, &fp, &pose);
        assert_restored("ht_pose theta", &p.theta, &fth, &theta);
    }
}

/// `ht`: `ht_skin` (one vertex skinned by given transforms, at offset `so`) for every vertex,
/// and back.
#[test]
fn ht_skin_round_trips() {
    for p in ht_problems() {
        let m = &p.model;
        let tr0 = lcg(41, 12 * m.nb);
        for v in 0..m.base_positions.len() {
            let so = v % 3;
            let s0 = lcg(42 + v as u64, so + 3);
            let (mut s, mut tr) = (s0.clone(), tr0.clone());
            ht::ht_skin(&mut s, so, &mut tr, m, &m.layout, v);
            let (fs, ft) = (s.clone(), tr.clone());
            assert_changed("ht_skin s", &s0, &fs);
            ht::ht_skin_inv(&mut s, so, &mut tr, m, &m.layout, v);
            assert_restored("ht_skin s", &s0, &fs, &s);
            assert_restored("ht_skin tr", &tr0, &ft, &tr);
        }
    }
}

/// `ht`: `ht_blend` (a triangle's point at `us[2k..2k + 2]` from three vertices of `src`)
/// for every correspondence's triangle, and back.
#[test]
fn ht_blend_round_trips() {
    for p in ht_problems().into_iter().filter(|p| p.complicated()) {
        let m = &p.model;
        let src0 = lcg(71, 3 * m.base_positions.len());
        for (k, &t) in m.correspondences.iter().enumerate() {
            let o = m.point_offsets(k, true);
            assert_eq!(o, m.triangles[t].map(|v| 3 * v));
            let s0 = lcg(72 + k as u64, 3);
            let (mut s, mut src, mut us) = (s0.clone(), src0.clone(), p.us.clone());
            ht::ht_blend(&mut s, &mut src, o, &mut us, k);
            let (fs, fsrc, fu) = (s.clone(), src.clone(), us.clone());
            assert_changed("ht_blend s", &s0, &fs);
            ht::ht_blend_inv(&mut s, &mut src, o, &mut us, k);
            assert_restored("ht_blend s", &s0, &fs, &s);
            assert_restored("ht_blend src", &src0, &fsrc, &src);
            assert_restored("ht_blend us", &p.us, &fu, &us);
        }
    }
}

/// `ht`: `ht_place` (a skinned point mirrored, rotated, translated and subtracted from its
/// measured point into `err`) for every correspondence, and back; the mirroring of `s` is
/// undone too.
#[test]
fn ht_place_round_trips() {
    for p in ht_problems() {
        let m = &p.model;
        let n = m.correspondences.len();
        let mut pose0 = vec![0.0; 12 * m.nb + 9];
        ht::ht_pose(&mut pose0, &mut p.theta.clone(), m);
        for i in 0..n {
            // into err[3(i − lo)..] with lo = i, as the per-correspondence programs do
            let (err0, s0) = (lcg(81 + i as u64, 3), lcg(82 + i as u64, 3));
            let (mut err, mut s, mut pose, mut theta) =
                (err0.clone(), s0.clone(), pose0.clone(), p.theta.clone());
            ht::ht_place(&mut err, &mut s, &mut pose, &mut theta, m, &m.layout, i, i);
            let fwd = (err.clone(), s.clone(), pose.clone(), theta.clone());
            assert_changed("ht_place err", &err0, &fwd.0);
            ht::ht_place_inv(&mut err, &mut s, &mut pose, &mut theta, m, &m.layout, i, i);
            assert_restored("ht_place err", &err0, &fwd.0, &err);
            assert_restored("ht_place s", &s0, &fwd.1, &s);
            assert_restored("ht_place pose", &pose0, &fwd.2, &pose);
            assert_restored("ht_place theta", &p.theta, &fwd.3, &theta);
        }
    }
}

/// `ht`: `ht_residual` (one correspondence's residual from skinned vertices, given the pose)
/// for every correspondence, on the whole pose and on the global rotation alone
/// (`PoseLayout::of_vertices(m, &[])`, as the Jacobian runs it), and back; the correspondence's
/// own bones (`PoseLayout::of_point`) are fewer than all.
#[test]
fn ht_residual_round_trips() {
    for p in ht_problems() {
        let m = &p.model;
        let n = m.correspondences.len();
        let mut whole = vec![0.0; 12 * m.nb + 9];
        ht::ht_pose(&mut whole, &mut p.theta.clone(), m);
        let sk = lcg(81, 3 * m.base_positions.len());
        let global = ht::PoseLayout::of_vertices(m, &[]);
        for i in 0..n {
            assert!(ht::PoseLayout::of_point(m, i, p.complicated()).len() < m.layout.len());
            let o = m.point_offsets(i, p.complicated());
            let mut residuals = Vec::new();
            for lay in [&m.layout, &global] {
                let pose0 = lay.gather(&whole, m.nb);
                // correspondence i's residual, its pair of us read at lo = 0 from the whole us
                let err0 = lcg(61 + i as u64, 3);
                let (mut err, mut s, mut v, mut pose, mut theta, mut us) = (
                    err0.clone(),
                    vec![0.0; 3],
                    sk.clone(),
                    pose0.clone(),
                    p.theta.clone(),
                    p.us.clone(),
                );
                ht::ht_residual(
                    &mut err, &mut s, &mut v, o, &mut pose, &mut theta, &mut us, m, lay, i, 0,
                );
                let fwd = (err.clone(), pose.clone(), theta.clone(), us.clone());
                assert_changed("ht_residual err", &err0, &fwd.0);
                assert!(
                    s.iter().all(|v| v.abs() < 1e-12),
                    "the point is uncomputed: {s:?}"
                );
                residuals.push(fwd.0.clone());
                ht::ht_residual_inv(
                    &mut err, &mut s, &mut v, o, &mut pose, &mut theta, &mut us, m, lay, i, 0,
                );
                assert_restored("ht_residual err", &err0, &fwd.0, &err);
                assert_restored("ht_residual sk", &sk, &sk, &v);
                assert_restored("ht_residual pose", &pose0, &fwd.1, &pose);
                assert_restored("ht_residual theta", &p.theta, &fwd.2, &theta);
                assert_restored("ht_residual us", &p.us, &fwd.3, &us);
            }
            // the global rotation alone gives the very same residual as the whole pose
            assert_eq!(residuals[0], residuals[1], "correspondence {i}");
        }
    }
}

/// `ht`: `ht_residuals` (pose and skinned vertices computed, every residual placed, all of it
/// uncomputed) on all correspondences and on a sub-range `lo..hi`, and back.
#[test]
fn ht_residuals_round_trips() {
    for p in ht_problems() {
        let m = &p.model;
        let n = m.correspondences.len();
        for (lo, hi) in [(0, n), (1, n - 1)] {
            let err0 = vec![0.0; 3 * (hi - lo)];
            let us0 = if p.complicated() {
                p.us[2 * lo..2 * hi].to_vec()
            } else {
                vec![]
            };
            let (mut err, mut theta, mut us) = (err0.clone(), p.theta.clone(), us0.clone());
            ht::ht_residuals(&mut err, &mut theta, &mut us, m, lo, hi);
            let fwd = (err.clone(), theta.clone(), us.clone());
            assert_changed("ht_residuals err", &err0, &fwd.0);
            ht::ht_residuals_inv(&mut err, &mut theta, &mut us, m, lo, hi);
            assert_restored("ht_residuals err", &err0, &fwd.0, &err);
            assert_restored("ht_residuals theta", &p.theta, &fwd.1, &theta);
            assert_restored("ht_residuals us", &us0, &fwd.2, &us);
        }
    }
}
