//! Each eval's reversible objective against a plain-Rust objective, and its derivative
//! (by reversal) against central finite differences.

#![allow(clippy::excessive_precision)] // ADBench's published objective, digit for digit

use nilang::ad::numeric_gradient;
use nilang_gradbench::evals::*;
use nilang_gradbench::seeded::uniform as lcg;

const ADBENCH: &str = "/work/shared/data/adbench";

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
fn gmm_adbench_test_instance() {
    let text = std::fs::read_to_string(format!("{ADBENCH}/gmm/test.txt")).unwrap();
    let p = gmm::Problem::from_adbench(&text).unwrap();
    let f = p.objective();
    assert!(close(f, 8.07380408004975791, 1e-12), "objective {f}");
    assert!(close(p.reference(&p.alpha, &p.mu, &p.q, &p.l), f, 1e-12));
}

#[test]
fn hello_square_and_double() {
    for x in [0.0, 1.5, -3.25, 1e3] {
        assert_eq!(hello::square_value(x), x * x);
        assert_eq!(hello::double_value(x).unwrap(), 2.0 * x);
    }
}

#[test]
fn lse_value_and_gradient() {
    for (seed, n) in [(1, 1), (2, 5), (3, 40)] {
        let x: Vec<f64> = lcg(seed, n).iter().map(|v| 10.0 * v).collect();
        assert!(close(lse::primal(&x), lse::reference(&x), 1e-14));
        let g = lse::gradient(&x).unwrap();
        assert_all_close(
            "lse gradient",
            &g,
            &numeric_gradient(lse::reference, &x, 1e-6),
            1e-7,
        );
        assert!(
            close(g.iter().sum::<f64>(), 1.0, 1e-14),
            "softmax sums to 1"
        );
    }
    // the buffers come back as a run needs them: repeated runs give the same gradient, the
    // softmax (closed form), and leave `e` and its gradient zero
    let x: Vec<f64> = lcg(4, 33).iter().map(|v| 10.0 * v).collect();
    let lse_x = lse::reference(&x);
    let softmax: Vec<f64> = x.iter().map(|v| (v - lse_x).exp()).collect();
    let (mut xs, mut b) = (x.clone(), lse::GradientBuffers::new(x.len()));
    for _ in 0..3 {
        lse::gradient_into(&mut xs, &mut b);
        assert_eq!(xs, x);
        assert_all_close("lse gradient, buffers kept", &b.grad, &softmax, 1e-15);
        assert!(b.e.iter().chain(&b.e_grad).all(|v| *v == 0.0));
    }
    // large values: the shift keeps it finite
    let x = [1000.0, 1000.0];
    assert!(close(lse::primal(&x), 1000.0 + 2f64.ln(), 1e-15));
    assert_eq!(lse::gradient(&x).unwrap(), vec![0.5, 0.5]);
}

#[test]
fn llsq_value_and_gradient() {
    for (m, n) in [(1, 2), (3, 5), (8, 101)] {
        let x = lcg(m as u64, m);
        assert!(close(llsq::primal(&x, n), llsq::reference(&x, n), 1e-13));
        let g = llsq::gradient(&x, n).unwrap();
        assert_all_close(
            "llsq gradient",
            &g,
            &numeric_gradient(|x| llsq::reference(x, n), &x, 1e-6),
            1e-6,
        );
    }
}

fn random_gmm(d: usize, k: usize, n: usize, layout: gmm::Layout, seed: u64) -> gmm::Problem {
    let lsz = d * (d - 1) / 2;
    gmm::Problem {
        d,
        k,
        n,
        alpha: lcg(seed, k),
        mu: lcg(seed + 1, k * d),
        q: lcg(seed + 2, k * d).iter().map(|v| 0.5 * v).collect(),
        l: lcg(seed + 3, k * lsz),
        x: lcg(seed + 4, n * d).iter().map(|v| 2.0 * v).collect(),
        gamma: 1.3,
        m: 2.0,
        layout,
    }
}

/// The gradient of `p`'s objective by reversal against central differences of the plain
/// objective (step `h`), all parameters in one flat vector.
fn assert_gmm_gradient(p: &gmm::Problem, h: f64) {
    let g = p.gradient().unwrap();
    let (na, nm, nq) = (p.alpha.len(), p.mu.len(), p.q.len());
    let flat: Vec<f64> = [&p.alpha[..], &p.mu, &p.q, &p.l].concat();
    let numeric = numeric_gradient(
        |v: &[f64]| {
            p.reference(
                &v[..na],
                &v[na..na + nm],
                &v[na + nm..na + nm + nq],
                &v[na + nm + nq..],
            )
        },
        &flat,
        h,
    );
    let got: Vec<f64> = [&g.alpha[..], &g.mu, &g.q, &g.l].concat();
    assert_all_close("gmm gradient", &got, &numeric, 1e-6);
}

#[test]
fn gmm_value_and_gradient_both_layouts() {
    for layout in [gmm::Layout::Adbench, gmm::Layout::Split] {
        for (d, k, n) in [(1, 1, 1), (2, 3, 4), (4, 3, 7)] {
            let p = random_gmm(d, k, n, layout, (d * 10 + k) as u64);
            let f = p.objective();
            assert!(
                close(f, p.reference(&p.alpha, &p.mu, &p.q, &p.l), 1e-12),
                "{layout:?} {d} {k} {n}"
            );
            assert_gmm_gradient(&p, 1e-6);
        }
    }
}

/// Enough points that the main terms are computed in several calls of `sub_half_sqnorms`
/// (32 points each at d = 32: two whole blocks, then 4 points), four points at a time, with a
/// remainder of two points. (Central differences with a step of 1e-5: at d = 32 the objective is orders of
/// magnitude larger than its partial derivatives, and a step of 1e-6 left rounding errors of
/// 2e-6 relative in the difference quotients.)
#[test]
fn gmm_points_in_several_calls_and_a_remainder() {
    let (d, k, n) = (32, 2, 70);
    assert!(gmm::blocks(n, d) == 2 && gmm::points_per_call(d) == 32);
    for layout in [gmm::Layout::Adbench, gmm::Layout::Split] {
        let p = random_gmm(d, k, n, layout, 5);
        assert!(close(
            p.objective(),
            p.reference(&p.alpha, &p.mu, &p.q, &p.l),
            1e-12
        ));
        assert_gmm_gradient(&p, 1e-5);
    }
}

/// `ExpUnderflowing` is `exp` down to `2⁻⁹⁰⁰` and zero below; on a problem whose components
/// are so far apart that most points' weights for the far ones are under `2⁻⁹⁰⁰` (main terms
/// about 1 000 apart), the objective still equals the plain one (IEEE `exp`) to rounding and
/// the gradient its central differences: the flushed weights change nothing representable.
#[test]
fn gmm_flushes_weights_under_2_to_the_minus_900_without_changing_results() {
    use nilang::Unary;
    let e = |x: f64| <gmm::ExpUnderflowing as Unary<f64>>::value(x);
    assert_eq!(e(-1.5), (-1.5f64).exp());
    assert_eq!(e(gmm::UNDERFLOW_BELOW), gmm::UNDERFLOW_BELOW.exp());
    assert!(gmm::UNDERFLOW_BELOW.exp() >= 2f64.powi(-900));
    assert_eq!(e(gmm::UNDERFLOW_BELOW - 1e-9), 0.0);
    assert_eq!(e(-700.0), 0.0);
    assert_eq!(
        <gmm::ExpUnderflowing as Unary<f64>>::derivative_from_value(0.25),
        Some(0.25)
    );

    let (d, k, n) = (3, 2, 40);
    let mut p = random_gmm(d, k, n, gmm::Layout::Split, 11);
    // component 1 centred about 21 away from the points, with Q ≈ I: its main terms sit about
    // ½·3·21² ≈ 660 below component 0's, around the window (623.8, 745) where exp is between
    // IEEE's smallest subnormal and 2⁻⁹⁰⁰
    for j in 0..d {
        p.mu[d + j] = 22.0;
        p.q[d + j] = 0.0;
    }
    let half = p.l.len() / 2;
    p.l[half..].iter_mut().for_each(|v| *v = 0.0);
    let gaps: Vec<f64> = (0..n)
        .map(|i| {
            let m = p.main_terms(i, &p.alpha, &p.mu, &p.q, &p.l);
            m[1] - m[0]
        })
        .collect();
    let flushed = gaps
        .iter()
        .filter(|g| (-745.0..gmm::UNDERFLOW_BELOW).contains(*g));
    assert!(
        flushed.count() >= 5,
        "too few weights in the flushed window: {gaps:?}"
    );
    let f = p.objective();
    assert!(close(f, p.reference(&p.alpha, &p.mu, &p.q, &p.l), 1e-12));
    assert_gmm_gradient(&p, 1e-6);
}

#[test]
fn gmm_adbench_file_round_trip_and_gradient() {
    // the smallest ADBench file: objective against the plain objective, gradient spot-checked
    let text = std::fs::read_to_string(format!("{ADBENCH}/gmm/1k/gmm_d2_K5.txt")).unwrap();
    let p = gmm::Problem::from_adbench(&text).unwrap();
    assert_eq!((p.d, p.k, p.n), (2, 5, 1000));
    assert!(close(
        p.objective(),
        p.reference(&p.alpha, &p.mu, &p.q, &p.l),
        1e-12
    ));
    // JSON round trip through the eval's input format
    let raw: gmm::RawInput = serde_json::from_value(p.to_json()).unwrap();
    assert_eq!(gmm::Problem::from_raw(raw).unwrap(), p);
    let g = p.gradient().unwrap();
    let h = 1e-6;
    for c in 0..p.k {
        let mut a = p.alpha.clone();
        a[c] += h;
        let fp = p.reference(&a, &p.mu, &p.q, &p.l);
        a[c] -= 2.0 * h;
        let fm = p.reference(&a, &p.mu, &p.q, &p.l);
        assert!(close(g.alpha[c], (fp - fm) / (2.0 * h), 1e-6), "alpha[{c}]");
    }
}

#[test]
fn ba_residuals_and_jacobian() {
    let text = std::fs::read_to_string(format!("{ADBENCH}/ba/test.txt")).unwrap();
    let mut input = ba::Problem::input_from_adbench(&text).unwrap();
    input.p = 7; // keep it small: 2 cameras, 10 points, 7 observations
    let cases = [
        input.clone(),
        ba::Input {
            cam: {
                let mut c = input.cam.clone();
                c[0] = 0.0;
                c[1] = 0.0;
                c[2] = 0.0;
                c
            },
            ..input.clone()
        },
    ];
    for inp in cases {
        let p = ba::Problem::from_input(&inp).unwrap();
        let r = p.objective();
        for (k, &(c, pt)) in p.obs.iter().enumerate() {
            let want = ba::reference_reproj(&p.cams[c], &p.x[pt], p.w[k], &p.feats[k]);
            assert_all_close("reproj", &r.reproj[k], &want, 1e-12);
            assert!(close(r.w_err[k], 1.0 - p.w[k] * p.w[k], 1e-15));
        }
        let j = p.jacobian().unwrap();
        let (n, m, nobs) = (p.cams.len(), p.x.len(), p.obs.len());
        assert_eq!(j.ncols, 11 * n + 3 * m + nobs);
        assert_eq!(j.rows.len(), 3 * nobs + 1);
        assert_eq!(*j.rows.last().unwrap(), 31 * nobs);
        // each reprojection row against central differences of the plain residual
        for (k, &(c, pt)) in p.obs.iter().enumerate() {
            let vars: Vec<f64> = [&p.cams[c][..], &p.x[pt], &[p.w[k]]].concat();
            for r in 0..2 {
                let f = |v: &[f64]| {
                    let cam: [f64; 11] = v[..11].try_into().unwrap();
                    ba::reference_reproj(&cam, &[v[11], v[12], v[13]], v[14], &p.feats[k])[r]
                };
                let row = 2 * k + r;
                let vals = &j.vals[j.rows[row]..j.rows[row + 1]];
                let cols = &j.cols[j.rows[row]..j.rows[row + 1]];
                assert_all_close(
                    "ba jacobian row",
                    vals,
                    &numeric_gradient(f, &vars, 1e-6),
                    1e-5,
                );
                let want_cols: Vec<usize> = (0..11)
                    .map(|i| 11 * c + i)
                    .chain((0..3).map(|i| 11 * n + 3 * pt + i))
                    .chain([11 * n + 3 * m + k])
                    .collect();
                assert_eq!(cols, &want_cols[..]);
            }
            let row = 2 * nobs + k;
            assert_eq!(&j.vals[j.rows[row]..j.rows[row + 1]], &[-2.0 * p.w[k]]);
        }
    }
}

/// The blocked search (eight centroids at a time) finds the same centroid as the plain one,
/// ties included (a duplicated centroid: the first wins), for `k` below, at and above
/// multiples of eight; and with 21 centroids the cost and gradient are still right.
#[test]
fn kmeans_blocked_search_matches_the_plain_one() {
    for (k, d) in [(1, 2), (7, 3), (8, 2), (21, 5), (64, 8)] {
        let mut c = lcg(k as u64, k * d);
        if k > 3 {
            // centroid 3 repeats centroid 1
            let (a, b) = c.split_at_mut(3 * d);
            b[..d].copy_from_slice(&a[d..2 * d]);
        }
        let points = lcg(100 + k as u64, 200 * d);
        let table = kmeans::Centroids::of(&c, d);
        for i in 0..200 {
            assert_eq!(
                table.nearest(&points[i * d..(i + 1) * d]),
                kmeans::nearest(&points, &c, i, d),
                "k = {k}, d = {d}, point {i}"
            );
        }
        if k > 3 {
            assert_eq!(table.nearest(&c[d..2 * d]), 1);
            assert_eq!(kmeans::nearest(&c, &c, 3, d), 1);
        }
    }
    let (n, k, d) = (60, 21, 5);
    let points = lcg(9, n * d);
    let p = kmeans::Problem {
        d,
        points: points.clone(),
        centroids: points[..k * d].iter().map(|v| v + 0.01).collect(),
    };
    assert!(close(p.cost(), p.reference(&p.centroids), 1e-13));
    let (jac, _) = p.gradient_and_hessian_diagonal().unwrap();
    let numeric = numeric_gradient(|c| p.reference(c), &p.centroids, 1e-6);
    assert_all_close("kmeans gradient", &jac, &numeric, 1e-6);
}

#[test]
fn kmeans_cost_and_direction() {
    let (n, k, d) = (30, 4, 3);
    let points = lcg(7, n * d);
    // centroids at the first k points, so that each has at least one point
    let p = kmeans::Problem {
        d,
        points: points.clone(),
        centroids: points[..k * d].iter().map(|v| v + 0.01).collect(),
    };
    assert!(close(p.cost(), p.reference(&p.centroids), 1e-13));
    let (jac, hdiag) = p.gradient_and_hessian_diagonal().unwrap();
    let numeric = numeric_gradient(|c| p.reference(c), &p.centroids, 1e-6);
    assert_all_close("kmeans gradient", &jac, &numeric, 1e-6);
    // the Hessian diagonal by second differences of the plain cost
    let h = 1e-4;
    for i in 0..p.centroids.len() {
        let mut c = p.centroids.clone();
        let f0 = p.reference(&c);
        c[i] += h;
        let fp = p.reference(&c);
        c[i] -= 2.0 * h;
        let fm = p.reference(&c);
        assert!(
            close(hdiag[i], (fp - 2.0 * f0 + fm) / (h * h), 1e-5),
            "H[{i}][{i}] = {}",
            hdiag[i]
        );
    }
    let dir = p.dir().unwrap();
    for i in 0..dir.len() {
        assert!(close(dir[i], jac[i] / hdiag[i], 1e-15));
    }
}

#[test]
fn det_value_and_gradient() {
    for ell in 1..=6 {
        let a = lcg(ell as u64, ell * ell);
        let v = det::primal(&a, ell);
        assert!(close(v, det::reference(&a, ell), 1e-13), "ell = {ell}");
        let g = det::gradient(&a, ell).unwrap();
        assert_all_close(
            "det gradient",
            &g,
            &numeric_gradient(|a| det::reference(a, ell), &a, 1e-6),
            1e-6,
        );
    }
    // a known determinant and its gradient (the cofactor matrix): diag(1, 2, 3, 4, 5)
    let ell = 5;
    let mut a = vec![0.0; 25];
    for i in 0..ell {
        a[i * ell + i] = (i + 1) as f64;
    }
    assert_eq!(det::primal(&a, ell), 120.0);
    let g = det::gradient(&a, ell).unwrap();
    for i in 0..ell {
        assert!(close(g[i * ell + i], 120.0 / (i + 1) as f64, 1e-14));
    }
}

/// `det` with stacked sub-minors (ℓ ≥ 4): the value is the plain expansion's, and the gradient
/// is the cofactor matrix, `∂det/∂A[i][j] = (−1)^(i+j) det(A without row i and column j)`.
#[test]
fn det_gradient_is_the_cofactor_matrix() {
    for ell in 4..=8 {
        let a = lcg(40 + ell as u64, ell * ell);
        assert!(close(det::primal(&a, ell), det::reference(&a, ell), 1e-13));
        let g = det::gradient(&a, ell).unwrap();
        let cofactor = |i: usize, j: usize| {
            let minor: Vec<f64> = (0..ell * ell)
                .filter(|k| k / ell != i && k % ell != j)
                .map(|k| a[k])
                .collect();
            let sign = if (i + j).is_multiple_of(2) { 1.0 } else { -1.0 };
            sign * det::reference(&minor, ell - 1)
        };
        let want: Vec<f64> = (0..ell * ell).map(|k| cofactor(k / ell, k % ell)).collect();
        assert_all_close("det cofactors", &g, &want, 1e-12);
    }
}

#[test]
fn lstm_value_and_gradient() {
    for (l, c, b, seed) in [(1, 2, 1, 1), (2, 4, 3, 2), (3, 5, 4, 3)] {
        let p = lstm::Problem::random(l, c, b, seed);
        let f = p.objective();
        assert!(
            close(f, p.reference(&p.main, &p.extra), 1e-13),
            "{l} {c} {b}"
        );
        let g = p.gradient().unwrap();
        let nm = p.main.len();
        let flat: Vec<f64> = [&p.main[..], &p.extra].concat();
        let numeric = numeric_gradient(|v| p.reference(&v[..nm], &v[nm..]), &flat, 1e-6);
        assert_all_close("lstm gradient", &g, &numeric, 1e-7);
    }
}

#[test]
fn lstm_adbench_file() {
    let text = std::fs::read_to_string(format!("{ADBENCH}/lstm/lstm_l2_c1024.txt")).unwrap();
    let p = lstm::Problem::from_adbench(&text).unwrap();
    assert_eq!(
        p.dims,
        lstm::Dims {
            l: 2,
            c: 1024,
            b: 14
        }
    );
    assert!(close(p.objective(), p.reference(&p.main, &p.extra), 1e-12));
    // JSON round trip through the eval's input format
    let inp: lstm::Input = serde_json::from_value(p.to_json()).unwrap();
    assert_eq!(lstm::Problem::from_input(&inp).unwrap(), p);
    // gradient spot-checked against central differences of the plain loss
    let g = p.gradient().unwrap();
    let nm = p.main.len();
    for k in [0, 5, 17, 60, nm - 1, nm, nm + 20, nm + 41] {
        let mut v: Vec<f64> = [&p.main[..], &p.extra].concat();
        let h = 1e-6;
        v[k] += h;
        let fp = p.reference(&v[..nm], &v[nm..]);
        v[k] -= 2.0 * h;
        let fm = p.reference(&v[..nm], &v[nm..]);
        assert!(
            close(g[k], (fp - fm) / (2.0 * h), 1e-6),
            "lstm gradient [{k}]"
        );
    }
}

#[test]
fn ode_value_and_gradient() {
    for (n, s) in [(1, 1), (2, 3), (5, 10), (8, 25)] {
        let x = lcg(n as u64 + 100, n);
        assert_all_close(
            "ode primal",
            &ode::primal(&x, s),
            &ode::reference(&x, s),
            1e-13,
        );
        let g = ode::gradient(&x, s).unwrap();
        let numeric = numeric_gradient(|x| ode::reference(x, s)[n - 1], &x, 1e-6);
        assert_all_close("ode gradient", &g, &numeric, 1e-7);
    }
    // y₀(2) = 2x₀ exactly; ∂y₀/∂x₀ = 2
    assert!(close(ode::gradient(&[0.7], 4).unwrap()[0], 2.0, 1e-15));
}

/// For `n ≤ 4` the exact solution `yᵢ(t) = x₀⋯xᵢ·t^(i+1)/(i+1)!` is a polynomial of degree at
/// most four, which classical Runge–Kutta integrates exactly: the program's `y(2)` and
/// gradient equal the closed form (GradBench's `manual` tool differentiates it) to rounding,
/// for any number of steps.
#[test]
fn ode_is_exact_on_polynomial_solutions() {
    for n in 1..=4 {
        for s in [1, 3, 10] {
            let x: Vec<f64> = (0..n).map(|i| 0.5 + 0.3 * i as f64).collect();
            let exact = |i: usize| {
                let fact: f64 = (1..=i + 1).map(|j| j as f64).product();
                x[..=i].iter().product::<f64>() * 2f64.powi(i as i32 + 1) / fact
            };
            let y = ode::primal(&x, s);
            for (i, &yi) in y.iter().enumerate() {
                assert!(
                    close(yi, exact(i), 1e-13),
                    "y[{i}] n={n} s={s}: {yi} vs {}",
                    exact(i)
                );
            }
            let g = ode::gradient(&x, s).unwrap();
            for (j, &gj) in g.iter().enumerate() {
                let want = exact(n - 1) / x[j];
                assert!(
                    close(gj, want, 1e-13),
                    "∂y/∂x[{j}] n={n} s={s}: {gj} vs {want}"
                );
            }
        }
    }
}

/// The four nestings of the nested evals (outer mode first).
fn nestings() -> impl Iterator<Item = gd::Nesting> {
    gd::Nesting::FUNCTIONS
        .iter()
        .map(|f| gd::Nesting::parse(f).unwrap())
}

#[test]
fn nesting_names() {
    use gd::Mode::{Forward, Reverse};
    let n = |outer, inner| Some(gd::Nesting { outer, inner });
    assert_eq!(gd::Nesting::parse("ff"), n(Forward, Forward));
    assert_eq!(gd::Nesting::parse("fr"), n(Forward, Reverse));
    assert_eq!(gd::Nesting::parse("rf"), n(Reverse, Forward));
    assert_eq!(gd::Nesting::parse("rr"), n(Reverse, Reverse));
    for bad in ["", "f", "rrr", "fx", "RR", "xf"] {
        assert_eq!(gd::Nesting::parse(bad), None, "{bad}");
    }
}

#[test]
fn saddle_nested_derivatives() {
    use gd::Mode::{Forward, Reverse};
    for start in [[1.0, -1.0], [0.3, 2.0], [-2.5, 0.7]] {
        // f and its inner gradient (both modes) against the plain function and differences
        let (x, y) = ([start[0], 0.5], [start[1], -0.25]);
        let plain = |x: &[f64], y: &[f64]| x[0] * x[0] + x[1] * x[1] - y[0] * y[0] - y[1] * y[1];
        assert!(close(saddle::f(&x, &y), plain(&x, &y), 1e-15));
        let numeric = numeric_gradient(|y| plain(&x, y), &y, 1e-6);
        assert_all_close(
            "∇_y f reverse",
            &saddle::grad_y_reverse(&x, &y),
            &numeric,
            1e-8,
        );
        assert_all_close(
            "∇_y f forward",
            &saddle::grad_y_forward(&x, &y),
            &numeric,
            1e-8,
        );
        // the outer derivative through the inner solver, in all four nestings, against
        // differences of the plain r and against each other
        let numeric = numeric_gradient(
            |x| saddle::reference_outer(start, &[x[0], x[1]]).unwrap(),
            &x,
            1e-6,
        );
        for inner in [Forward, Reverse] {
            assert!(close(
                saddle::outer::<f64>(start, inner, &x).unwrap(),
                saddle::reference_outer(start, &x).unwrap(),
                1e-15
            ));
        }
        let ff = saddle::outer_gradient(start, gd::Nesting::parse("ff").unwrap(), &x).unwrap();
        for nesting in nestings() {
            let g = saddle::outer_gradient(start, nesting, &x).unwrap();
            assert_all_close(&format!("∇r {nesting:?}"), &g, &numeric, 1e-7);
            assert_all_close(&format!("∇r {nesting:?} vs ff"), &g, &ff, 1e-13);
        }
        // the whole computation: every variant agrees with the plain solver, near (0, 0, 0, 0)
        let want = saddle::reference(start).unwrap();
        for nesting in nestings() {
            let got = saddle::saddle(start, nesting).unwrap();
            assert_all_close(&format!("saddle {nesting:?}"), &got, &want, 1e-12);
            assert!(got.iter().all(|v| v.abs() < 1e-3), "{got:?}");
        }
    }
}

#[test]
fn particle_nested_derivatives() {
    use gd::Mode::{Forward, Reverse};
    // the potential and its inner gradient (both modes) against differences
    let (x, w) = ([1.5, 6.0], 0.3);
    let plain = |x: &[f64]| {
        1.0 / ((x[0] - 10.0).powi(2) + (x[1] - 10.0 + w).powi(2)).sqrt()
            + 1.0 / ((x[0] - 10.0).powi(2) + x[1].powi(2)).sqrt()
    };
    assert!(close(particle::potential(&x, w), plain(&x), 1e-15));
    let numeric = numeric_gradient(plain, &x, 1e-6);
    assert_all_close(
        "∇ₓp reverse",
        &particle::grad_x_reverse(&x, w),
        &numeric,
        1e-8,
    );
    assert_all_close(
        "∇ₓp forward",
        &particle::grad_x_forward(&x, w),
        &numeric,
        1e-8,
    );
    for w in [0.0, 0.2, 0.5] {
        // the integration with nilang's field against the plain one, and the outer
        // derivative through it (all four nestings) against differences of the plain cost
        // and against each other
        let d = numeric_gradient(|v| particle::reference_cost(v[0]).unwrap(), &[w], 1e-6)[0];
        for inner in [Forward, Reverse] {
            assert!(close(
                particle::naive_euler(w, |x: &[f64; 2], w| match inner {
                    Forward => particle::grad_x_forward(x, w),
                    Reverse => particle::grad_x_reverse(x, w),
                })
                .unwrap(),
                particle::reference_cost(w).unwrap(),
                1e-12
            ));
        }
        let ff = particle::cost_derivative(gd::Nesting::parse("ff").unwrap(), w).unwrap();
        for nesting in nestings() {
            let dn = particle::cost_derivative(nesting, w).unwrap();
            assert!(
                close(dn, d, 1e-6),
                "{nesting:?} {w}: {dn} vs differences {d}"
            );
            assert!(close(dn, ff, 1e-12), "{nesting:?} {w}: {dn} vs ff {ff}");
        }
    }
    // the whole optimisation: all variants agree, and the particle then hits the origin
    let ff = particle::particle(0.0, gd::Nesting::parse("ff").unwrap()).unwrap();
    for nesting in nestings() {
        let w = particle::particle(0.0, nesting).unwrap();
        assert!(close(ff, w, 1e-12), "{nesting:?}: {ff} {w}");
        assert!(
            particle::reference_cost(w).unwrap() < 1e-6,
            "{nesting:?}: {w}"
        );
    }
}

/// One evaluation of the derivative per step (`gd::argmin_joint`, the value taken from the
/// derivative's own computation) takes the same steps as `gd.hpp`'s descent, which evaluates
/// the objective on `f64` and then the gradient: the results agree to the bit, in all four
/// nestings of both nested evals.
#[test]
fn joint_value_and_gradient_take_the_spec_steps() {
    for nesting in nestings() {
        for w0 in [0.0, 0.5] {
            let spec = gd::argmin(
                |w: &[f64; 1]| {
                    particle::naive_euler(w[0], |x: &[f64; 2], w| match nesting.inner {
                        gd::Mode::Forward => particle::grad_x_forward(x, w),
                        gd::Mode::Reverse => particle::grad_x_reverse(x, w),
                    })
                },
                |w: &[f64; 1]| Ok([particle::cost_derivative(nesting, w[0])?]),
                &[w0],
            )
            .unwrap();
            let joint = particle::particle(w0, nesting).unwrap();
            assert_eq!(joint.to_bits(), spec[0].to_bits(), "{nesting:?} from {w0}");
        }
        for start in [[1.0, -1.0], [-2.5, 0.7]] {
            let spec = gd::argmin(
                |x: &[f64; 2]| saddle::outer(start, nesting.inner, x),
                |x: &[f64; 2]| saddle::outer_gradient(start, nesting, x),
                &start,
            )
            .unwrap();
            let joint = saddle::saddle(start, nesting).unwrap();
            assert_eq!(joint[..2], spec[..], "{nesting:?} from {start:?}");
        }
    }
}

/// The chained Jacobian reuses buffers across correspondences: nothing may carry over from
/// one to the next (a point restored to round-off once did, and the derivatives with respect
/// to `us` drifted by 1e-13 within 200 correspondences).
#[test]
fn ht_jacobian_does_not_drift_over_many_correspondences() {
    for complicated in [false, true] {
        let p = ht::Problem::random(544, 150, complicated, 7);
        let j = p.jacobian().unwrap();
        for (a, b) in j.rows().zip(&p.jacobian_direct().unwrap()) {
            assert_all_close("ht chained vs direct", a, b, 4e-15);
        }
    }
}

#[test]
fn ht_residuals_and_jacobian() {
    for (complicated, mirrored, seed) in [
        (false, false, 1),
        (false, true, 2),
        (true, true, 3),
        (true, false, 4),
    ] {
        let mut p = ht::Problem::random(9, 5, complicated, seed);
        p.model.is_mirrored = mirrored;
        // the JSON layout reads back to the same problem
        let back = ht::Problem::from_input(&serde_json::from_value(p.to_input()).unwrap()).unwrap();
        assert_eq!(back, p);
        let mut thetas = vec![p.theta.clone()];
        // the global rotation's identity branch (norm below 1e-4)
        let mut t0 = p.theta.clone();
        t0[..3].copy_from_slice(&[0.0, 0.0, 0.0]);
        thetas.push(t0);
        for theta in thetas {
            let q = ht::Problem {
                theta: theta.clone(),
                ..p.clone()
            };
            let n = q.model.correspondences.len();
            let r = q.objective();
            assert_eq!(r.len(), 3 * n);
            assert_all_close("ht residuals", &r, &q.reference(&q.theta, &q.us), 1e-12);
            let j = q.jacobian().unwrap();
            assert_eq!(j.len(), 3 * n);
            // the two-stage reversal equals reversing the whole program per row
            for (a, b) in j.rows().zip(&q.jacobian_direct().unwrap()) {
                assert_all_close("ht two-stage vs direct", a, b, 1e-12);
            }
            let ncols = if complicated { 28 } else { 26 };
            for (row, jr) in j.rows().enumerate() {
                assert_eq!(jr.len(), ncols);
                let i = row / 3;
                // variables: (u₀, u₁ of correspondence i,) theta
                let vars: Vec<f64> = if complicated {
                    [&q.us[2 * i..2 * i + 2], &q.theta[..]].concat()
                } else {
                    q.theta.clone()
                };
                let f = |v: &[f64]| {
                    if complicated {
                        let mut us = q.us.clone();
                        us[2 * i..2 * i + 2].copy_from_slice(&v[..2]);
                        q.reference(&v[2..], &us)[row]
                    } else {
                        q.reference(v, &q.us)[row]
                    }
                };
                assert_all_close(
                    "ht jacobian row",
                    jr,
                    &numeric_gradient(f, &vars, 1e-6),
                    1e-6,
                );
            }
            if theta[0] == 0.0 {
                for jr in j.rows() {
                    let o = if complicated { 2 } else { 0 };
                    assert_eq!(&jr[o..o + 3], &[0.0, 0.0, 0.0], "identity branch");
                }
            }
        }
    }
}

#[test]
fn ht_bad_inputs_are_errors() {
    let p = ht::Problem::random(5, 3, true, 9);
    let good = p.to_input();
    let mut bad = good.clone();
    bad["theta"] = serde_json::json!([0.0, 1.0]);
    assert!(ht::evaluate("objective", &bad).is_err());
    let mut bad = good.clone();
    bad["us"] = serde_json::json!([[0.1, 0.2]]);
    assert!(ht::evaluate("objective", &bad).is_err());
    let mut bad = good.clone();
    bad["data"]["correspondences"][0] = serde_json::json!(99);
    assert!(ht::evaluate("jacobian", &bad).is_err());
    assert!(ht::evaluate("hessian", &good).is_err());
    assert!(ht::evaluate("objective", &good).is_ok());
}

/// The parallel k-means program (taken on more than one thread): the cost within 1e-12 of the
/// sequential program's and the same bits run to run, the gradient and Hessian diagonal
/// within 1e-12; on one thread the sequential program runs.
#[test]
fn kmeans_parallel_matches_sequential() {
    let (n, k, d) = (301, 17, 4);
    let points = lcg(11, n * d);
    let p = kmeans::Problem {
        d,
        points: points.clone(),
        centroids: points[..k * d].iter().map(|v| v + 0.01).collect(),
    };
    nilang::parallel::set_min_parallel_work(1);
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let four = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    let (cost1, (j1, h1)) = one.install(|| (p.cost(), p.gradient_and_hessian_diagonal().unwrap()));
    let (cost4, (j4, h4)) = four.install(|| (p.cost(), p.gradient_and_hessian_diagonal().unwrap()));
    assert!(close(cost1, cost4, 1e-12), "{cost1} {cost4}");
    assert_eq!(cost4.to_bits(), four.install(|| p.cost()).to_bits());
    assert_all_close("parallel kmeans gradient", &j4, &j1, 1e-12);
    assert_all_close("parallel kmeans Hessian diagonal", &h4, &h1, 1e-12);
    // the parallel program itself on one thread: one chunk, the sequential sums
    let (mut cost, mut c, mut nearest) = (0.0, p.centroids.clone(), vec![0; n]);
    one.install(|| kmeans::kmeans_cost_par(&mut cost, &mut c, &mut nearest, &p.points, d));
    assert_eq!(cost.to_bits(), cost1.to_bits());
    let want: Vec<usize> = (0..n)
        .map(|i| kmeans::nearest(&p.points, &c, i, d))
        .collect();
    assert_eq!(nearest, want);
    let mut cost_back = cost;
    four.install(|| {
        kmeans::kmeans_cost_par_inv(&mut cost_back, &mut c, &mut nearest, &p.points, d)
    });
    assert!(cost_back.abs() < 1e-9 * cost.abs(), "{cost_back}");
    assert!(nearest.iter().all(|&j| j == 0));
}
