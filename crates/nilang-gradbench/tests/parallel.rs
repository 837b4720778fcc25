//! The evals' parallel paths (`--threads N`: rayon's pool) against their one-thread paths, for
//! 1, 2 and 4 threads: `lse` (parallel loops with reductions: within 1e-12, the same bits run
//! to run), `ba` and `ht` (every residual and Jacobian block computed alone: the same bits for
//! every thread count), `gmm` (parallel loops over blocks of points whose calls read shared
//! sub-slices of the parameters, and over the points' LogSumExps: within 1e-13, the same bits
//! run to run).

use nilang_gradbench::evals::{ba, gmm, ht, lse};
use nilang_gradbench::seeded::uniform as lcg;

fn pool(threads: usize) -> rayon::ThreadPool {
    // short loops too are split, so that the chunked code is what these tests run
    nilang::parallel::set_min_parallel_work(1);
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

fn bits(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

fn assert_close(what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        let tol = 1e-12 * g.abs().max(w.abs()).max(1e-300);
        assert!((g - w).abs() <= tol, "{what}[{k}]: {g} vs {w}");
    }
}

/// LSE and its gradient, from the parallel loops of `logsumexp` and `logsumexp_kept` (a
/// reduction into the sum, `x` read at owned slots, the exponentials swapped into owned
/// slots) and the chunked maximum.
fn lse_run(x: &[f64]) -> (f64, Vec<f64>) {
    let mut b = lse::GradientBuffers::new(x.len());
    let mut xx = x.to_vec();
    let value = lse::primal_in(&mut xx);
    lse::gradient_into(&mut xx, &mut b);
    assert_eq!(bits(&xx), bits(x), "the programs restore x");
    assert!(
        b.e.iter().chain(&b.e_grad).all(|&v| v == 0.0),
        "e comes back zero"
    );
    (value, b.grad)
}

#[test]
fn lse_parallel_matches_sequential() {
    for n in [1, 7, 10_000] {
        let x: Vec<f64> = lcg(3, n).iter().map(|v| 20.0 * v).collect();
        let (v1, g1) = pool(1).install(|| lse_run(&x));
        assert_close(
            "lse value (1 thread) vs reference",
            &[v1],
            &[lse::reference(&x)],
        );
        for threads in [2, 4] {
            let (v, g) = pool(threads).install(|| lse_run(&x));
            assert_close(&format!("lse value, {threads} threads"), &[v], &[v1]);
            assert_close(&format!("lse gradient, {threads} threads"), &g, &g1);
            let (again, g_again) = pool(threads).install(|| lse_run(&x));
            assert_eq!(
                again.to_bits(),
                v.to_bits(),
                "{threads} threads, run to run"
            );
            assert_eq!(bits(&g_again), bits(&g), "{threads} threads, run to run");
        }
    }
}

#[test]
fn ba_parallel_matches_sequential() {
    let p = ba::Problem::random(7, 23, 501, 5);
    let run = || {
        let (mut r, mut j) = (ba::Residuals::default(), ba::Csr::default());
        p.objective_into(&mut r);
        p.jacobian_into(&mut j);
        // runs on buffers holding the last run's results, as an eval's runs do
        p.objective_into(&mut r);
        p.jacobian_into(&mut j);
        (r, j)
    };
    let (r1, j1) = pool(1).install(run);
    assert_eq!(
        r1.reproj[3],
        ba::reference_reproj(&p.cams[3], &p.x[3], p.w[3], &p.feats[3])
    );
    for threads in [2, 4] {
        let (r, j) = pool(threads).install(run);
        let flat = |r: &ba::Residuals| bits(r.reproj.as_flattened());
        assert_eq!(
            flat(&r),
            flat(&r1),
            "{threads} threads: reprojection residuals"
        );
        assert_eq!(
            bits(&r.w_err),
            bits(&r1.w_err),
            "{threads} threads: weight residuals"
        );
        assert_eq!(
            (&j.rows, &j.cols),
            (&j1.rows, &j1.cols),
            "{threads} threads"
        );
        assert_eq!(bits(&j.vals), bits(&j1.vals), "{threads} threads: Jacobian");
    }
}

/// The parallel loop of `ba_residuals` itself on one thread (one chunk): the bits of the
/// one-thread objective.
#[test]
fn ba_residuals_on_one_thread_is_the_objective() {
    let p = ba::Problem::random(3, 11, 40, 9);
    let want = pool(1).install(|| p.objective());
    let (mut reproj, mut w_err) = (vec![-0.0; 2 * 40], vec![-0.0; 40]);
    pool(1).install(|| ba::ba_residuals(&mut reproj, &mut w_err, &p));
    assert_eq!(bits(&reproj), bits(want.reproj.as_flattened()));
    assert_eq!(bits(&w_err), bits(&want.w_err));
}

/// `ht`: the parallel loop of `ht_residuals` over correspondences (each with a scratch point
/// of its own and its pair of `us` at an owned slot, reading the pose, the skinned vertices
/// and `θ` through calls) and the Jacobian's per-correspondence rows on the chunks of
/// `evals::par_blocks`: every residual and every row is computed alone, so objective and
/// Jacobian are the same bits for 1, 2 and 4 threads (hence run to run), one thread within
/// 1e-12 of the plain Rust reference; the inverse program's parallel loop, on several threads,
/// restores the residuals to round-off and `θ`, `us` bit for bit.
#[test]
fn ht_parallel_matches_sequential() {
    for complicated in [false, true] {
        let p = ht::Problem::random(544, 301, complicated, 13);
        let (m, n) = (&p.model, p.model.correspondences.len());
        let run = || (p.objective(), p.jacobian().unwrap().data);
        let (o1, j1) = pool(1).install(run);
        let want = p.reference(&p.theta, &p.us);
        let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        assert!(o1
            .iter()
            .zip(&want)
            .all(|(o, w)| (o - w).abs() <= 1e-12 * scale));
        for threads in [2, 4] {
            let what = format!("complicated = {complicated}, {threads} threads");
            let (o, j) = pool(threads).install(run);
            assert_eq!(bits(&o), bits(&o1), "{what}: objective");
            assert_eq!(bits(&j), bits(&j1), "{what}: Jacobian");
            let (mut err, mut theta, mut us) = (o.clone(), p.theta.clone(), p.us.clone());
            pool(threads).install(|| ht::ht_residuals_inv(&mut err, &mut theta, &mut us, m, 0, n));
            assert!(
                err.iter().all(|e| e.abs() <= 1e-12 * scale),
                "{what}: the inverse restores the residuals"
            );
            assert_eq!(bits(&theta), bits(&p.theta), "{what}: θ");
            assert_eq!(bits(&us), bits(&p.us), "{what}: us");
        }
    }
}

/// The parallel loops of `gmm_objective` (blocks of points reading the shared `μ`, `Q`, `L`
/// through calls; a LogSumExp reduction) against one thread: objective and gradient within
/// 1e-13 of the one-thread program (relative to the largest value), the same bits on every
/// run; one thread equals the plain Rust reference. Sizes with several blocks and remainders
/// (d = 10: 100 points a block; d = 2: 512; d = 32: 32).
#[test]
fn gmm_parallel_matches_sequential() {
    for (d, k, n) in [(10, 5, 307), (2, 3, 1030), (32, 2, 70)] {
        let p = gmm::Problem::random(d, k, n, 11);
        let run = || {
            let (mut b, mut g) = (p.buffers(), p.zero_gradient());
            let value = p.objective_in(&mut b);
            p.gradient_into(&mut b, &mut g);
            let mut flat = g.alpha.clone();
            for part in [&g.mu, &g.q, &g.l] {
                flat.extend_from_slice(part);
            }
            (value, flat)
        };
        let (v1, g1) = pool(1).install(run);
        let reference = p.reference(&p.alpha, &p.mu, &p.q, &p.l);
        assert!(
            (v1 - reference).abs() <= 1e-12 * reference.abs(),
            "{v1} vs {reference}"
        );
        let scale = g1.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for threads in [2, 4] {
            let (v, g) = pool(threads).install(run);
            let what = format!("d = {d}, k = {k}, n = {n}, {threads} threads");
            assert!((v - v1).abs() <= 1e-13 * v1.abs(), "{what}: {v} vs {v1}");
            for (j, (a, b)) in g.iter().zip(&g1).enumerate() {
                assert!(
                    (a - b).abs() <= 1e-13 * scale,
                    "{what}: gradient[{j}] {a} vs {b}"
                );
            }
            let (again, g_again) = pool(threads).install(run);
            assert_eq!(again.to_bits(), v.to_bits(), "{what}: run to run");
            assert_eq!(bits(&g_again), bits(&g), "{what}: run to run");
        }
    }
}
