//! The natural programs (`evals::natural`: plain Rust under `#[differentiable]`) against the
//! expert programs (the reversible programs of `evals`) on small seeded inputs: the same
//! objectives and derivatives to 1e-10 relative, and, served with `--natural`
//! (`Tool::with_natural`), answers of the same format.

mod common;

use common::{assert_all_close, close, kmeans_problem};
use nilang_gradbench::evals::{self, ba, det, gmm, ht, llsq, lse, lstm, natural, ode};
use nilang_gradbench::seeded::uniform;
use nilang_gradbench::Tool;

#[test]
fn lse_natural_agrees_with_expert() {
    for (n, seed) in [(1, 1), (2, 2), (7, 3), (64, 4), (1000, 5)] {
        let x: Vec<f64> = uniform(seed, n).iter().map(|v| 20.0 * v).collect();
        assert!(close(natural::lse::primal(&x), lse::primal(&x)), "n = {n}");
        let want = lse::gradient(&x).unwrap();
        assert_all_close(&format!("lse n = {n}"), &natural::lse::gradient(&x), &want);
    }
}

#[test]
fn llsq_natural_agrees_with_expert() {
    for (m, n, seed) in [(1, 2, 1), (3, 5, 2), (8, 16, 3), (16, 33, 4)] {
        let x = uniform(seed, m);
        assert!(
            close(natural::llsq::primal(&x, n), llsq::primal(&x, n)),
            "m = {m}, n = {n}"
        );
        let want = llsq::gradient(&x, n).unwrap();
        let got = natural::llsq::gradient(&x, n);
        assert_all_close(&format!("llsq m = {m}, n = {n}"), &got, &want);
    }
}

#[test]
fn gmm_natural_agrees_with_expert() {
    for (d, k, n, seed) in [(1, 2, 3, 0), (2, 3, 4, 1), (3, 4, 5, 2), (5, 3, 7, 3)] {
        let p = gmm::Problem::random(d, k, n, seed);
        let what = format!("gmm d = {d}, k = {k}, n = {n}");
        assert!(close(p.natural_objective(), p.objective()), "{what}");
        let (got, want) = (p.natural_gradient(), p.gradient().unwrap());
        assert_all_close(&format!("{what} alpha"), &got.alpha, &want.alpha);
        assert_all_close(&format!("{what} mu"), &got.mu, &want.mu);
        assert_all_close(&format!("{what} q"), &got.q, &want.q);
        assert_all_close(&format!("{what} l"), &got.l, &want.l);
    }
}

#[test]
fn ode_natural_agrees_with_expert() {
    for (n, s, seed) in [(1, 1, 1), (2, 3, 2), (5, 10, 3), (12, 7, 4)] {
        let x = uniform(seed, n);
        let want = ode::gradient(&x, s).unwrap();
        let got = natural::ode::gradient(&x, s);
        assert_all_close(&format!("ode n = {n}, s = {s}"), &got, &want);
        // the natural objective is the last component of the expert's solution
        let y = ode::primal(&x, s);
        assert!(close(natural::ode::ode_last(&x, s), y[n - 1]));
    }
}

#[test]
fn det_natural_agrees_with_expert() {
    for (ell, seed) in [(1, 1), (2, 2), (3, 3), (4, 4), (6, 5)] {
        let a = uniform(seed, ell * ell);
        assert!(
            close(natural::det::primal(&a, ell), det::primal(&a, ell)),
            "ell = {ell}"
        );
        let want = det::gradient(&a, ell).unwrap();
        let got = natural::det::gradient(&a, ell);
        assert_all_close(&format!("det ell = {ell}"), &got, &want);
    }
}

#[test]
fn kmeans_natural_agrees_with_expert() {
    for (n, k, d, seed) in [(1, 1, 1, 1), (5, 2, 3, 2), (20, 4, 2, 3), (50, 6, 5, 4)] {
        let p = kmeans_problem(n, k, d, seed);
        let what = format!("kmeans n = {n}, k = {k}, d = {d}");
        assert!(close(p.natural_cost(), p.cost()), "{what}");
        let want = p.dir().unwrap();
        assert_all_close(&what, &p.natural_dir(), &want);
    }
}

/// The guide's k-means example (`nilang::guide::examples`): the value of the gradient entry
/// point and of the reversible program forward is the plain function's, bit for bit, the
/// gradient the central differences', and the inverse restores the centroids; 40 centroids,
/// so the search runs sixteen, sixteen and eight at a time on its table.
#[test]
fn kmeans_natural_cost_is_differentiated_and_inverted() {
    use nilang_gradbench::evals::natural::kmeans::*;
    let unit = |seed, n| -> Vec<f64> { uniform(seed, n).iter().map(|v| 0.5 * (v + 1.0)).collect() };
    let (points, centroids, d) = (unit(1, 300 * 3), unit(2, 40 * 3), 3);
    let (value, grad) = kmeans_cost_gradient(&points, &centroids, d);
    assert_eq!(
        value.to_bits(),
        kmeans_cost(&points, &centroids, d).to_bits()
    );
    let (mut out, mut c) = (0.0, centroids.clone());
    kmeans_cost_rev(&mut out, &points, &mut c, d);
    assert_eq!(out.to_bits(), value.to_bits());
    kmeans_cost_rev_inv(&mut out, &points, &mut c, d);
    assert_eq!((out, &c), (0.0, &centroids));
    let cost = |c: &[f64]| kmeans_cost(&points, c, d);
    nilang::ad::check_gradient(cost, &centroids, &grad, 1e-6, 1e-6).unwrap();
    // the Newton direction on dual numbers, against the expert program's (enough points in
    // two dimensions that every centroid is some point's nearest: no 0 / 0)
    let p = kmeans_problem(4000, 40, 2, 5);
    assert_all_close("kmeans k = 40", &p.natural_dir(), &p.dir().unwrap());
}

#[test]
fn lstm_natural_agrees_with_expert() {
    for (l, c, b, seed) in [(1, 2, 1, 1), (1, 3, 2, 2), (2, 5, 3, 3), (3, 4, 4, 4)] {
        let p = lstm::Problem::random(l, c, b, seed);
        let what = format!("lstm l = {l}, c = {c}, b = {b}");
        assert!(close(p.natural_objective(), p.objective()), "{what}");
        let want = p.gradient().unwrap();
        assert_all_close(&what, &p.natural_gradient(), &want);
    }
}

#[test]
fn ba_natural_agrees_with_expert() {
    // the output buffers are shared by the problems, the largest first, as the runs of one
    // message share them: what a larger problem left must not show
    let (mut residuals, mut jacobian) = (ba::Residuals::default(), ba::Csr::default());
    for (cams, points, obs, seed) in [(3, 5, 12, 3), (1, 1, 1, 1), (2, 3, 6, 2)] {
        let mut p = ba::Problem::random(cams, points, obs, seed);
        if seed == 3 {
            p.cams[0][..3].fill(0.0); // the branch at rotation zero
        }
        let what = format!("ba {cams} cameras, {points} points, {obs} observations");
        p.natural_objective_into(&mut residuals);
        p.natural_jacobian_into(&mut jacobian);
        assert_eq!(residuals, p.natural_objective(), "{what}");
        assert_eq!(jacobian, p.natural_jacobian(), "{what}");
        let (got, want) = (p.natural_objective(), p.objective());
        assert_all_close(
            &format!("{what} reproj"),
            got.reproj.as_flattened(),
            want.reproj.as_flattened(),
        );
        assert_all_close(&format!("{what} w_err"), &got.w_err, &want.w_err);
        let (got, want) = (p.natural_jacobian(), p.jacobian().unwrap());
        assert_eq!(
            (got.ncols, &got.rows, &got.cols),
            (want.ncols, &want.rows, &want.cols),
            "{what}"
        );
        assert_all_close(&format!("{what} jacobian"), &got.vals, &want.vals);
    }
}

#[test]
fn ht_natural_agrees_with_expert() {
    for (nv, n, complicated, seed) in [(6, 4, false, 1), (9, 7, true, 2), (12, 10, false, 3)] {
        let mut p = ht::Problem::random(nv, n, complicated, seed);
        if seed == 3 {
            p.theta[..3].fill(0.0); // the identity branch of the global rotation
        }
        let what = format!("ht {nv} vertices, {n} points, complicated {complicated}");
        let want = p.reference(&p.theta, &p.us);
        assert_all_close(&format!("{what} residuals"), &p.natural_objective(), &want);
        let (got, want) = (p.natural_jacobian(), p.jacobian().unwrap());
        assert_eq!(got.cols, want.cols, "{what}");
        assert_all_close(&format!("{what} jacobian"), &got.data, &want.data);
    }
}

#[test]
fn ht_served_with_natural_has_the_expert_format() {
    let input = ht::Problem::random(8, 5, true, 4).to_input();
    for function in ["objective", "jacobian"] {
        let got = common::answer(&mut Tool::with_natural(true), "ht", function, input.clone());
        let want = common::answer(&mut Tool::new(), "ht", function, input.clone());
        assert_eq!(
            got["success"],
            serde_json::json!(true),
            "ht.{function}: {got}"
        );
        common::assert_same_shape(&format!("ht.{function}"), &got["output"], &want["output"]);
    }
}

/// Every function of every natural eval, served with and without `--natural`: the same keys,
/// the same format, the same numbers to 1e-10 (and the timings of one run).
#[test]
fn served_with_natural_the_answers_have_the_expert_format() {
    common::assert_served_like_expert(|| Tool::with_natural(true));
}

#[test]
fn natural_option_is_accepted_beside_threads() {
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let a = args(&["--natural", "--threads", "2"]);
    assert_eq!(nilang_gradbench::threads_option(&a), Ok(2));
    assert!(nilang_gradbench::natural_option(&a));
    assert!(!nilang_gradbench::natural_option(&args(&[
        "--threads",
        "2"
    ])));
    assert_eq!(
        evals::natural::NATURAL,
        &["lse", "llsq", "gmm", "ode", "det", "kmeans", "lstm", "ba", "ht"]
    );
}
