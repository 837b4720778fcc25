//! The seeded GMM and BA generators (`Problem::random`): reproducible, of the asked sizes, and
//! their objectives and derivatives (by reversal) agree with the plain references of this
//! crate (`gmm::Problem::reference`, `ba::reference_reproj`), with ADBench's objectives as
//! written in `nilang_apps::adbench` and with forward-mode duals (`num-dual`) through them.

use nilang::ad::numeric_gradient;
use nilang_apps::adbench::{ba_residual, gmm_objective, GmmData};
use nilang_apps::plain::peers::num_dual_gradient;
use nilang_gradbench::evals::{ba, gmm};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * 1f64.max(a.abs()).max(b.abs())
}

fn assert_all_close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(close(*g, *w, tol), "{what}[{i}]: got {g}, want {w}");
    }
}

#[test]
fn gmm_random_is_reproducible_and_sized() {
    let p = gmm::Problem::random(3, 4, 5, 7);
    assert_eq!(p, gmm::Problem::random(3, 4, 5, 7));
    assert_ne!(p, gmm::Problem::random(3, 4, 5, 8));
    assert_eq!((p.d, p.k, p.n), (3, 4, 5));
    assert_eq!(
        (p.alpha.len(), p.mu.len(), p.q.len(), p.l.len(), p.x.len()),
        (4, 12, 12, 12, 15)
    );
    assert!(p.mu.iter().all(|&v| (0.0..1.0).contains(&v)));
    assert_eq!((p.gamma, p.m, p.layout), (1.0, 0.0, gmm::Layout::Adbench));
    // d = 1 has no strictly-lower entries
    assert!(gmm::Problem::random(1, 2, 3, 0).l.is_empty());
}

#[test]
fn gmm_random_objective_and_gradient_agree_with_the_references() {
    for (d, k, n, seed) in [(2, 3, 4, 1), (3, 4, 5, 2), (4, 2, 3, 3)] {
        let p = gmm::Problem::random(d, k, n, seed);
        let params: Vec<f64> = [&p.alpha, &p.mu, &p.q, &p.l]
            .iter()
            .flat_map(|v| v.iter().copied())
            .collect();
        let (na, nm, nq) = (k, k * d, k * d);
        let split = |v: &[f64]| {
            let (a, r) = v.split_at(na);
            let (m, r) = r.split_at(nm);
            let (q, l) = r.split_at(nq);
            (a.to_vec(), m.to_vec(), q.to_vec(), l.to_vec())
        };
        let data = GmmData {
            d,
            k,
            x: &p.x,
            gamma: p.gamma,
            m: p.m,
            constant: p.prior().constant,
        };
        let what = format!("gmm d={d} k={k} n={n}");
        // the objective: reversible program, this crate's reference, ADBench's definition
        let f = p.objective();
        assert!(
            close(f, p.reference(&p.alpha, &p.mu, &p.q, &p.l), 1e-12),
            "{what}"
        );
        assert!(
            close(f, gmm_objective::<f64>(&data, &params), 1e-12),
            "{what}"
        );
        // the gradient by reversal against forward-mode duals and central differences
        let g = p.gradient().unwrap();
        let mut flat = g.alpha.clone();
        flat.extend(&g.mu);
        flat.extend(&g.q);
        flat.extend(&g.l);
        let dual = num_dual_gradient(|v| gmm_objective(&data, v), &params);
        assert_all_close(&format!("{what} vs num-dual"), &flat, &dual, 1e-10);
        let fd = numeric_gradient(
            |v| {
                let (a, m, q, l) = split(v);
                p.reference(&a, &m, &q, &l)
            },
            &params,
            1e-6,
        );
        assert_all_close(&format!("{what} vs differences"), &flat, &fd, 1e-6);
    }
}

#[test]
fn ba_random_is_reproducible_and_sized() {
    let p = ba::Problem::random(3, 5, 12, 7);
    assert_eq!(p, ba::Problem::random(3, 5, 12, 7));
    assert_ne!(p, ba::Problem::random(3, 5, 12, 8));
    assert_eq!(
        (
            p.cams.len(),
            p.x.len(),
            p.w.len(),
            p.obs.len(),
            p.feats.len()
        ),
        (3, 5, 12, 12, 12)
    );
    for (i, &(c, pt)) in p.obs.iter().enumerate() {
        assert_eq!(c, i % 3);
        assert!(pt < 5);
        if i < 5 {
            assert_eq!(pt, i);
        }
    }
    // features are projections plus at most one pixel of noise: |residual| ≤ w
    let r = p.objective();
    for (k, e) in r.reproj.iter().enumerate() {
        assert!(e.iter().all(|v| v.abs() <= p.w[k]), "{e:?}");
    }
}

#[test]
fn ba_random_residuals_and_jacobian_agree_with_the_references() {
    let p = ba::Problem::random(3, 4, 10, 11);
    let (n, m, nobs) = (p.cams.len(), p.x.len(), p.obs.len());
    let r = p.objective();
    let j = p.jacobian().unwrap();
    assert_eq!(j.ncols, ba::NCAM * n + 3 * m + nobs);
    assert_eq!(j.rows.len(), 3 * nobs + 1);
    for (k, &(c, pt)) in p.obs.iter().enumerate() {
        let (cam, x, w, feat) = (&p.cams[c], &p.x[pt], p.w[k], &p.feats[k]);
        // residuals: reversible program, this crate's reference, ADBench's definition
        let plain = ba::reference_reproj(cam, x, w, feat);
        let adb = ba_residual::<f64>(cam, x, w, *feat);
        assert_all_close("reproj vs reference", &r.reproj[k], &plain, 1e-12);
        assert_all_close("reproj vs ADBench", &r.reproj[k], &adb, 1e-12);
        assert!(close(r.w_err[k], 1.0 - w * w, 1e-15));
        // Jacobian rows: columns (camera c, point pt, weight k), values against duals through
        // ADBench's residual and against central differences of the reference
        let mut v: Vec<f64> = cam.to_vec();
        v.extend(x);
        v.push(w);
        for out in 0..2 {
            let row = 2 * k + out;
            let (lo, hi) = (j.rows[row], j.rows[row + 1]);
            let mut want_cols: Vec<usize> = (0..ba::NCAM).map(|i| ba::NCAM * c + i).collect();
            want_cols.extend((0..3).map(|i| ba::NCAM * n + 3 * pt + i));
            want_cols.push(ba::NCAM * n + 3 * m + k);
            assert_eq!(&j.cols[lo..hi], &want_cols[..]);
            let dual =
                num_dual_gradient(|v| ba_residual(&v[..11], &v[11..14], v[14], *feat)[out], &v);
            assert_all_close("jacobian vs num-dual", &j.vals[lo..hi], &dual, 1e-10);
            let fd = numeric_gradient(
                |v| {
                    let cam: [f64; 11] = v[..11].try_into().unwrap();
                    let x: [f64; 3] = v[11..14].try_into().unwrap();
                    ba::reference_reproj(&cam, &x, v[14], feat)[out]
                },
                &v,
                1e-6,
            );
            assert_all_close("jacobian vs differences", &j.vals[lo..hi], &fd, 1e-5);
        }
        // the weight row: d(1 − w²)/dw = −2w
        let row = 2 * nobs + k;
        assert_eq!(
            &j.cols[j.rows[row]..j.rows[row + 1]],
            &[ba::NCAM * n + 3 * m + k]
        );
        assert!(close(j.vals[j.rows[row]], -2.0 * w, 1e-15));
    }
}
