//! The evals as ordinary generic Rust over `nilang_dualrev::Scalar` (`evals::dualrev`) against
//! the expert programs (the reversible programs of `evals`) on small seeded inputs: the
//! objective on `f64` equals the expert's, the derivative by dual-numbers reverse AD the
//! expert's, to 1e-10 relative; served with `--engine dualrev` (`Tool::with_engine`), answers
//! of the same format; a tape over the memory cap is refused.

mod common;

use common::{assert_all_close, close, kmeans_problem};
use nilang_gradbench::evals::{ba, det, dualrev, gmm, llsq, lse, lstm, ode, Engine};
use nilang_gradbench::seeded::uniform;
use nilang_gradbench::Tool;

#[test]
fn lse_dualrev_agrees_with_expert() {
    for (n, seed) in [(1, 1), (2, 2), (7, 3), (64, 4), (1000, 5)] {
        let x: Vec<f64> = uniform(seed, n).iter().map(|v| 20.0 * v).collect();
        assert!(close(dualrev::lse::primal(&x), lse::primal(&x)), "n = {n}");
        let (got, want) = (
            dualrev::lse::gradient(&x).unwrap(),
            lse::gradient(&x).unwrap(),
        );
        assert_all_close(&format!("lse n = {n}"), &got, &want);
    }
}

#[test]
fn llsq_dualrev_agrees_with_expert() {
    for (m, n, seed) in [(1, 2, 1), (3, 5, 2), (8, 16, 3), (16, 33, 4)] {
        let x = uniform(seed, m);
        let what = format!("llsq m = {m}, n = {n}");
        assert!(
            close(dualrev::llsq::primal(&x, n), llsq::primal(&x, n)),
            "{what}"
        );
        let got = dualrev::llsq::gradient(&x, n).unwrap();
        assert_all_close(&what, &got, &llsq::gradient(&x, n).unwrap());
    }
}

#[test]
fn gmm_dualrev_agrees_with_expert() {
    for (d, k, n, seed) in [(1, 2, 3, 0), (2, 3, 4, 1), (3, 4, 5, 2), (5, 3, 7, 3)] {
        let p = gmm::Problem::random(d, k, n, seed);
        let what = format!("gmm d = {d}, k = {k}, n = {n}");
        assert!(close(p.dualrev_objective(), p.objective()), "{what}");
        let (got, want) = (p.dualrev_gradient().unwrap(), p.gradient().unwrap());
        assert_all_close(&format!("{what} alpha"), &got.alpha, &want.alpha);
        assert_all_close(&format!("{what} mu"), &got.mu, &want.mu);
        assert_all_close(&format!("{what} q"), &got.q, &want.q);
        assert_all_close(&format!("{what} l"), &got.l, &want.l);
    }
}

#[test]
fn ode_dualrev_agrees_with_expert() {
    for (n, s, seed) in [(1, 1, 1), (2, 3, 2), (5, 10, 3), (12, 7, 4)] {
        let x = uniform(seed, n);
        let what = format!("ode n = {n}, s = {s}");
        let got = dualrev::ode::gradient(&x, s).unwrap();
        assert_all_close(&what, &got, &ode::gradient(&x, s).unwrap());
        let y = ode::primal(&x, s);
        assert!(close(dualrev::ode::ode_last(&x, s), y[n - 1]), "{what}");
    }
}

#[test]
fn det_dualrev_agrees_with_expert() {
    for (ell, seed) in [(1, 1), (2, 2), (3, 3), (4, 4), (6, 5)] {
        let a = uniform(seed, ell * ell);
        let what = format!("det ell = {ell}");
        assert!(
            close(dualrev::det::primal(&a, ell), det::primal(&a, ell)),
            "{what}"
        );
        let got = dualrev::det::gradient(&a, ell).unwrap();
        assert_all_close(&what, &got, &det::gradient(&a, ell).unwrap());
    }
}

#[test]
fn kmeans_dualrev_agrees_with_expert() {
    for (n, k, d, seed) in [(1, 1, 1, 1), (5, 2, 3, 2), (20, 4, 2, 3), (50, 6, 5, 4)] {
        let p = kmeans_problem(n, k, d, seed);
        let what = format!("kmeans n = {n}, k = {k}, d = {d}");
        assert!(close(p.dualrev_cost(), p.cost()), "{what}");
        assert_all_close(&what, &p.dualrev_dir().unwrap(), &p.dir().unwrap());
    }
}

#[test]
fn lstm_dualrev_agrees_with_expert() {
    for (l, c, b, seed) in [(1, 2, 1, 1), (1, 3, 2, 2), (2, 5, 3, 3), (3, 4, 4, 4)] {
        let p = lstm::Problem::random(l, c, b, seed);
        let what = format!("lstm l = {l}, c = {c}, b = {b}");
        assert!(close(p.dualrev_objective(), p.objective()), "{what}");
        assert_all_close(
            &what,
            &p.dualrev_gradient().unwrap(),
            &p.gradient().unwrap(),
        );
    }
}

#[test]
fn ba_dualrev_agrees_with_expert() {
    for (cams, points, obs, seed) in [(1, 1, 1, 1), (2, 3, 6, 2), (3, 5, 12, 3)] {
        let mut p = ba::Problem::random(cams, points, obs, seed);
        if seed == 3 {
            p.cams[0][..3].fill(0.0); // the branch at rotation zero
        }
        let what = format!("ba {cams} cameras, {points} points, {obs} observations");
        let (got, want) = (p.dualrev_objective(), p.objective());
        let (g, w) = (got.reproj.as_flattened(), want.reproj.as_flattened());
        assert_all_close(&format!("{what} reproj"), g, w);
        assert_all_close(&format!("{what} w_err"), &got.w_err, &want.w_err);
        let (got, want) = (p.dualrev_jacobian().unwrap(), p.jacobian().unwrap());
        let shape = |j: &ba::Csr| (j.ncols, j.rows.clone(), j.cols.clone());
        assert_eq!(shape(&got), shape(&want), "{what}");
        assert_all_close(&format!("{what} jacobian"), &got.vals, &want.vals);
    }
}

#[test]
fn served_with_engine_dualrev_the_answers_have_the_expert_format() {
    common::assert_served_like_expert(|| Tool::with_engine(Engine::DualRev));
}

/// A derivative whose tape would pass the memory cap (the default 4 GB) is refused with the
/// cap's message, before recording: GMM d 64, k 100, n 1000 records about 4·10⁸ operations.
#[test]
fn a_tape_over_the_memory_cap_is_refused() {
    let p = gmm::Problem::random(64, 100, 1000, 7);
    let e = p.dualrev_gradient().unwrap_err();
    assert!(e.starts_with("bad `gmm` input: `tape` asks for"), "{e}");
    assert!(e.contains("NILANG_GRADBENCH_MAX_BYTES"), "{e}");
}
