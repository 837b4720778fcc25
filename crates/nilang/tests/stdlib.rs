//! The reversible standard library (`blas`: sums and products, QR; `stats`: max, LogSumExp,
//! softmax cross-entropy, mean and variance): each function against a plain-Rust reference on
//! random inputs, forward then inverse restoring the inputs, and the generated gradients
//! against central differences and forward-mode dual numbers.

use nilang::ad::check_gradient;
use nilang::blas::*;
use nilang::stats::*;
use nilang::{Dual, Loss};
use proptest::prelude::*;

const CASES: u32 = 24;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * 1f64.max(a.abs()).max(b.abs())
}

fn all_close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| close(*x, *y, tol))
}

fn vec_of(n: std::ops::Range<usize>) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-3.0f64..3.0, n)
}

fn dual(v: &[f64], seed: usize) -> Vec<Dual<f64>> {
    v.iter()
        .enumerate()
        .map(|(i, &x)| Dual::new(x, if i == seed { 1.0 } else { 0.0 }))
        .collect()
}

fn grads(v: &[nilang::GVar<f64>]) -> Vec<f64> {
    v.iter().map(|g| g.g).collect()
}

/// The derivative of a scalar output with respect to every input, by forward-mode duals:
/// `f` runs the program on dual inputs seeded at one index and returns the output's tangent.
fn forward_gradient(x: &[f64], f: impl Fn(Vec<Dual<f64>>) -> f64) -> Vec<f64> {
    (0..x.len()).map(|j| f(dual(x, j))).collect()
}

// ---------- references ----------

fn max_ref(x: &[f64]) -> f64 {
    x.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
}

fn lse_ref(x: &[f64]) -> f64 {
    let a = max_ref(x);
    a + x.iter().map(|v| (v - a).exp()).sum::<f64>().ln()
}

fn mean_var_ref(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    (m, x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / n)
}

fn matmul_ref(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|l| a[i * k + l] * b[l * n + j]).sum();
        }
    }
    c
}

// ---------- isum ----------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn isum_matches_and_reverses(x0 in vec_of(0..12), y0 in -2.0f64..2.0) {
        let (mut y, mut x) = (y0, x0.clone());
        isum(&mut y, &mut x);
        prop_assert!(close(y, y0 + x0.iter().sum::<f64>(), 1e-14));
        isum_inv(&mut y, &mut x);
        prop_assert!(close(y, y0, 1e-12) && x == x0);
        let (mut y, mut x) = (y0, x0.clone());
        let (_, gx) = isum_grad(Loss::arg(0), &mut y, &mut x).unwrap();
        prop_assert!(grads(&gx).iter().all(|&g| g == 1.0));
        let fd = forward_gradient(&x0, |mut x| {
            let mut y = Dual::constant(y0);
            isum(&mut y, &mut x);
            y.eps
        });
        prop_assert_eq!(fd, grads(&gx));
    }

    // ---------- imatvec ----------

    #[test]
    fn imatvec_matches_and_reverses(
        (m, n, a0, x0) in (1usize..5, 1usize..5)
            .prop_flat_map(|(m, n)| (Just(m), Just(n), vec_of(m * n..m * n + 1), vec_of(n..n + 1))),
        y_shift in -1.0f64..1.0,
    ) {
        let y0 = vec![y_shift; m];
        let (mut y, mut a, mut x) = (y0.clone(), a0.clone(), x0.clone());
        imatvec(&mut y, &mut a, &mut x, m, n);
        let expect: Vec<f64> = matmul_ref(&a0, &x0, m, n, 1).iter().map(|v| v + y_shift).collect();
        prop_assert!(all_close(&y, &expect, 1e-14));
        imatvec_inv(&mut y, &mut a, &mut x, m, n);
        prop_assert!(all_close(&y, &y0, 1e-12) && a == a0 && x == x0);
        // the gradient of y[m − 1] with respect to A and x
        let (mut y, mut a, mut x) = (y0.clone(), a0.clone(), x0.clone());
        let (_, ga, gx) = imatvec_grad(Loss::elem(0, m - 1), &mut y, &mut a, &mut x, m, n).unwrap();
        let mut p = a0.clone();
        p.extend_from_slice(&x0);
        let f = |p: &[f64]| {
            let (mut y, mut a, mut x) = (y0.clone(), p[..m * n].to_vec(), p[m * n..].to_vec());
            imatvec(&mut y, &mut a, &mut x, m, n);
            y[m - 1]
        };
        let mut g = grads(&ga);
        g.extend(grads(&gx));
        prop_assert!(check_gradient(f, &p, &g, 1e-6, 1e-7).is_ok());
        let fd = forward_gradient(&p, |p| {
            let (mut y, mut a, mut x) = (
                y0.iter().map(|&v| Dual::constant(v)).collect::<Vec<_>>(),
                p[..m * n].to_vec(),
                p[m * n..].to_vec(),
            );
            imatvec(&mut y, &mut a, &mut x, m, n);
            y[m - 1].eps
        });
        prop_assert!(all_close(&fd, &g, 1e-14));
    }

    // ---------- imatmul ----------

    #[test]
    fn imatmul_matches_and_reverses(
        (m, k, n, a0, b0) in (1usize..4, 1usize..4, 1usize..4).prop_flat_map(|(m, k, n)| {
            (Just(m), Just(k), Just(n), vec_of(m * k..m * k + 1), vec_of(k * n..k * n + 1))
        }),
    ) {
        let c0 = vec![0.5; m * n];
        let (mut c, mut a, mut b) = (c0.clone(), a0.clone(), b0.clone());
        imatmul(&mut c, &mut a, &mut b, m, k, n);
        let expect: Vec<f64> = matmul_ref(&a0, &b0, m, k, n).iter().map(|v| v + 0.5).collect();
        prop_assert!(all_close(&c, &expect, 1e-14));
        imatmul_inv(&mut c, &mut a, &mut b, m, k, n);
        prop_assert!(all_close(&c, &c0, 1e-12) && a == a0 && b == b0);
        // the whole Jacobian of C with respect to (C, A, B), rows of C only
        let rows: Vec<Loss> = (0..m * n).map(|i| Loss::elem(0, i)).collect();
        let (mut c, mut a, mut b) = (c0.clone(), a0.clone(), b0.clone());
        let jac = imatmul_jacobian_of(&rows, &mut c, &mut a, &mut b, m, k, n).unwrap();
        let mut p = c0.clone();
        p.extend_from_slice(&a0);
        p.extend_from_slice(&b0);
        for (r, _) in rows.iter().enumerate() {
            let f = |p: &[f64]| {
                let (mut c, mut a, mut b) = (
                    p[..m * n].to_vec(),
                    p[m * n..m * n + m * k].to_vec(),
                    p[m * n + m * k..].to_vec(),
                );
                imatmul(&mut c, &mut a, &mut b, m, k, n);
                c[r]
            };
            prop_assert!(check_gradient(f, &p, jac.row(r), 1e-6, 1e-7).is_ok());
            let fd = forward_gradient(&p, |p| {
                let (mut c, mut a, mut b) = (
                    p[..m * n].to_vec(),
                    p[m * n..m * n + m * k].to_vec(),
                    p[m * n + m * k..].to_vec(),
                );
                imatmul(&mut c, &mut a, &mut b, m, k, n);
                c[r].eps
            });
            prop_assert!(all_close(&fd, jac.row(r), 1e-14));
        }
    }

    // ---------- imax ----------

    #[test]
    fn imax_matches_and_reverses(x0 in vec_of(1..16), y0 in -1.0f64..1.0) {
        let (mut y, mut x) = (y0, x0.clone());
        imax(&mut y, &mut x);
        prop_assert_eq!(y, y0 + max_ref(&x0));
        imax_inv(&mut y, &mut x);
        prop_assert!(close(y, y0, 1e-12) && x == x0);
        // the gradient is the indicator of the first maximum
        let (mut y, mut x) = (y0, x0.clone());
        let (_, gx) = imax_grad(Loss::arg(0), &mut y, &mut x).unwrap();
        let first = x0.iter().position(|&v| v == max_ref(&x0)).unwrap();
        let expect: Vec<f64> = (0..x0.len()).map(|i| if i == first { 1.0 } else { 0.0 }).collect();
        prop_assert_eq!(&grads(&gx), &expect);
        let f = |x: &[f64]| {
            let (mut y, mut x) = (0.0, x.to_vec());
            imax(&mut y, &mut x);
            y
        };
        // random continuous inputs have a unique maximum, where max is differentiable
        prop_assert!(check_gradient(f, &x0, &expect, 1e-7, 1e-6).is_ok());
        let fd = forward_gradient(&x0, |mut x| {
            let mut y = Dual::constant(y0);
            imax(&mut y, &mut x);
            y.eps
        });
        prop_assert_eq!(fd, expect);
    }

    // ---------- ilogsumexp ----------

    #[test]
    fn ilogsumexp_matches_and_reverses(x0 in vec_of(1..12), shift in -1.0f64..1.0) {
        let (mut y, mut x) = (shift, x0.clone());
        ilogsumexp(&mut y, &mut x);
        prop_assert!(close(y, shift + lse_ref(&x0), 1e-14));
        ilogsumexp_inv(&mut y, &mut x);
        prop_assert!(close(y, shift, 1e-12) && x == x0);
        let (mut y, mut x) = (shift, x0.clone());
        let (_, gx) = ilogsumexp_grad(Loss::arg(0), &mut y, &mut x).unwrap();
        let g = grads(&gx);
        let softmax: Vec<f64> = x0.iter().map(|v| (v - lse_ref(&x0)).exp()).collect();
        prop_assert!(all_close(&g, &softmax, 1e-14));
        let f = |x: &[f64]| {
            let (mut y, mut x) = (0.0, x.to_vec());
            ilogsumexp(&mut y, &mut x);
            y
        };
        prop_assert!(check_gradient(f, &x0, &g, 1e-6, 1e-7).is_ok());
        let fd = forward_gradient(&x0, |mut x| {
            let mut y = Dual::constant(shift);
            ilogsumexp(&mut y, &mut x);
            y.eps
        });
        prop_assert!(all_close(&fd, &g, 1e-14));
    }

    // ---------- isoftmax_cross_entropy ----------

    #[test]
    fn isoftmax_cross_entropy_matches_and_reverses(
        (x0, label) in vec_of(1..10).prop_flat_map(|x| { let n = x.len(); (Just(x), 0..n) }),
    ) {
        let (mut loss, mut x) = (0.0, x0.clone());
        isoftmax_cross_entropy(&mut loss, &mut x, label);
        let p = (x0[label] - lse_ref(&x0)).exp();
        prop_assert!(close(loss, -p.ln(), 1e-13));
        isoftmax_cross_entropy_inv(&mut loss, &mut x, label);
        prop_assert!(close(loss, 0.0, 1e-12) && x == x0);
        let (mut loss, mut x) = (0.0, x0.clone());
        let (_, gx) = isoftmax_cross_entropy_grad(Loss::arg(0), &mut loss, &mut x, label).unwrap();
        let g = grads(&gx);
        // softmax − one-hot
        let expect: Vec<f64> = x0
            .iter()
            .enumerate()
            .map(|(i, v)| (v - lse_ref(&x0)).exp() - if i == label { 1.0 } else { 0.0 })
            .collect();
        prop_assert!(all_close(&g, &expect, 1e-13));
        let f = |x: &[f64]| {
            let (mut y, mut x) = (0.0, x.to_vec());
            isoftmax_cross_entropy(&mut y, &mut x, label);
            y
        };
        prop_assert!(check_gradient(f, &x0, &g, 1e-6, 1e-7).is_ok());
        let fd = forward_gradient(&x0, |mut x| {
            let mut y = Dual::constant(0.0);
            isoftmax_cross_entropy(&mut y, &mut x, label);
            y.eps
        });
        prop_assert!(all_close(&fd, &g, 1e-14));
    }

    // ---------- imean_var ----------

    #[test]
    fn imean_var_matches_and_reverses(x0 in vec_of(1..16), m0 in -1.0f64..1.0, v0 in 0.0f64..1.0) {
        let (mut mean, mut var, mut x) = (m0, v0, x0.clone());
        imean_var(&mut mean, &mut var, &mut x);
        let (m, v) = mean_var_ref(&x0);
        prop_assert!(close(mean, m0 + m, 1e-13) && close(var, v0 + v, 1e-13));
        imean_var_inv(&mut mean, &mut var, &mut x);
        prop_assert!(close(mean, m0, 1e-12) && close(var, v0, 1e-12) && x == x0);
        // one reverse sweep per output: the mean's and the variance's gradients
        let (mut mean, mut var, mut x) = (m0, v0, x0.clone());
        let jac = imean_var_jacobian_of(
            &[Loss::arg(0), Loss::arg(1)], &mut mean, &mut var, &mut x,
        ).unwrap();
        let n = x0.len() as f64;
        for out in 0..2 {
            let g = &jac.row(out)[2..];
            let expect: Vec<f64> = x0
                .iter()
                .map(|xi| if out == 0 { 1.0 / n } else { 2.0 * (xi - m) / n })
                .collect();
            prop_assert!(all_close(g, &expect, 1e-13));
            let f = |x: &[f64]| {
                let (mut mean, mut var, mut x) = (0.0, 0.0, x.to_vec());
                imean_var(&mut mean, &mut var, &mut x);
                if out == 0 { mean } else { var }
            };
            prop_assert!(check_gradient(f, &x0, g, 1e-6, 1e-7).is_ok());
            let fd = forward_gradient(&x0, |mut x| {
                let (mut mean, mut var) = (Dual::constant(m0), Dual::constant(v0));
                imean_var(&mut mean, &mut var, &mut x);
                if out == 0 { mean.eps } else { var.eps }
            });
            prop_assert!(all_close(&fd, g, 1e-13));
        }
    }
}

// ---------- iqr ----------

/// Runs [`iqr`] on `a` (`m × n`) into zeroed outputs.
fn qr(a: &[f64], m: usize, n: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut q, mut r, mut a) = (vec![0.0; m * n], vec![0.0; n * n], a.to_vec());
    iqr(&mut q, &mut r, &mut a, m, n);
    (q, r)
}

/// Matrices with entries in [−1, 1] plus `2·I` on the top square: well conditioned.
fn matrix(m: usize, n: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-1.0f64..1.0, m * n..m * n + 1).prop_map(move |mut a| {
        for j in 0..n {
            a[j * n + j] += 2.0;
        }
        a
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn iqr_factorizes_and_reverses(
        (m, n, a0) in (1usize..5).prop_flat_map(|n| (n..6).prop_map(move |m| (m, n)))
            .prop_flat_map(|(m, n)| (Just(m), Just(n), matrix(m, n))),
    ) {
        let (mut q, mut r, mut a) = (vec![0.0; m * n], vec![0.0; n * n], a0.clone());
        iqr(&mut q, &mut r, &mut a, m, n);
        prop_assert_eq!(&a, &a0);
        // Q has orthonormal columns
        let qtq = {
            let mut qt = vec![0.0; n * m];
            for i in 0..m {
                for j in 0..n {
                    qt[j * m + i] = q[i * n + j];
                }
            }
            matmul_ref(&qt, &q, n, m, n)
        };
        for i in 0..n {
            for j in 0..n {
                let want = if i == j { 1.0 } else { 0.0 };
                prop_assert!((qtq[i * n + j] - want).abs() < 1e-12, "QᵀQ[{i},{j}] = {}", qtq[i * n + j]);
            }
        }
        // R is upper triangular with a positive diagonal, and QR = A
        for i in 0..n {
            prop_assert!(r[i * n + i] > 0.0);
            for j in 0..i {
                prop_assert_eq!(r[i * n + j], 0.0);
            }
        }
        prop_assert!(all_close(&matmul_ref(&q, &r, m, n, n), &a0, 1e-13));
        // the inverse clears Q and R
        iqr_inv(&mut q, &mut r, &mut a, m, n);
        prop_assert!(q.iter().chain(&r).all(|v| v.abs() < 1e-12) && a == a0);
    }
}

#[test]
fn iqr_gradient_of_sum_of_r() {
    // the sum of R (and the sum of Q's entries, another smooth function of A) by reversal
    let (m, n) = (4, 3);
    let a0 = vec![
        2.1, -0.3, 0.5, //
        0.4, 1.7, -0.8, //
        -0.6, 0.2, 2.4, //
        0.9, -1.1, 0.3,
    ];
    let rows: Vec<Loss> = (0..n * n).map(|i| Loss::elem(1, i)).collect();
    let (mut q, mut r, mut a) = (vec![0.0; m * n], vec![0.0; n * n], a0.clone());
    let jac = iqr_jacobian_of(&rows, &mut q, &mut r, &mut a, m, n).unwrap();
    let off = m * n + n * n; // the columns of A come after those of Q and R
    let g: Vec<f64> = (0..m * n)
        .map(|j| (0..n * n).map(|i| jac.get(i, off + j)).sum())
        .collect();
    let f = |a: &[f64]| qr(a, m, n).1.iter().sum::<f64>();
    check_gradient(f, &a0, &g, 1e-6, 1e-6).unwrap();
    // the same with one gradient call per loss, and against forward-mode duals
    let fd = forward_gradient(&a0, |mut a| {
        let mut q = vec![Dual::constant(0.0); m * n];
        let mut r = vec![Dual::constant(0.0); n * n];
        iqr(&mut q, &mut r, &mut a, m, n);
        r.iter().map(|v| v.eps).sum()
    });
    assert!(all_close(&fd, &g, 1e-12), "{fd:?} vs {g:?}");
    // a single entry of Q, like the paper's test1
    let (mut q, mut r, mut a) = (vec![0.0; m * n], vec![0.0; n * n], a0.clone());
    let (_, _, ga) = iqr_grad(Loss::elem(0, 1), &mut q, &mut r, &mut a, m, n).unwrap();
    let f = |a: &[f64]| qr(a, m, n).0[1];
    check_gradient(f, &a0, &grads(&ga), 1e-6, 1e-6).unwrap();
}

#[test]
fn runtime_checks_catch_bad_use() {
    // imax of an empty slice is refused
    let r = std::panic::catch_unwind(|| {
        let (mut y, mut x) = (0.0, Vec::<f64>::new());
        imax(&mut y, &mut x);
    });
    assert!(r.is_err());
    // shape mismatches are refused
    let r = std::panic::catch_unwind(|| {
        let (mut y, mut a, mut x) = (vec![0.0; 2], vec![0.0; 5], vec![0.0; 3]);
        imatvec(&mut y, &mut a, &mut x, 2, 3);
    });
    assert!(r.is_err());
}

#[test]
fn ilogsumexp_hessian_is_softmax_covariance() {
    // second order through the branch-kept maximum: H = diag(p) − p pᵀ, p = softmax(x)
    let x0 = vec![0.3, -1.2, 2.0, 0.7];
    let (mut y, mut x) = (0.0, x0.clone());
    let h = ilogsumexp_hessian(Loss::arg(0), &mut y, &mut x).unwrap();
    let p: Vec<f64> = x0.iter().map(|v| (v - lse_ref(&x0)).exp()).collect();
    for i in 0..4 {
        for j in 0..4 {
            let want = if i == j { p[i] } else { 0.0 } - p[i] * p[j];
            assert!((h.get(1 + i, 1 + j) - want).abs() < 1e-14, "H[{i},{j}]");
        }
    }
}
