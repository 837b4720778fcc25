use nilang::GVar;
use nilang_apps::sparse::*;
use num_complex::Complex;

#[test]
fn dot_matches_native_and_inverts() {
    for seed in 0..5 {
        let a = random_csc(40, 30, 0.2, seed);
        let b = random_csc(40, 30, 0.3, seed + 100);
        let (pa, pb) = (Pattern::of(&a).unwrap(), Pattern::of(&b).unwrap());
        let (mut av, mut bv) = (a.data().to_vec(), b.data().to_vec());
        let mut r = 0.0;
        isparse_dot(&mut r, &mut av, &mut bv, &pa, &pb);
        let native = sparse_dot(&a, &b);
        let dense: f64 = (0..40)
            .flat_map(|i| (0..30).map(move |j| (i, j)))
            .map(|(i, j)| a.get(i, j).copied().unwrap_or(0.0) * b.get(i, j).copied().unwrap_or(0.0))
            .sum();
        assert!(
            (r - native).abs() < 1e-12 && (r - dense).abs() < 1e-12,
            "{r} {native} {dense}"
        );
        isparse_dot_inv(&mut r, &mut av, &mut bv, &pa, &pb);
        assert!(r.abs() < 1e-12);
    }
}

#[test]
fn dot_gradient_is_the_other_matrix() {
    let a = random_csc(20, 20, 0.3, 1);
    let b = random_csc(20, 20, 0.3, 2);
    let (r, ga, gb) = sparse_dot_gradient(&a, &b).unwrap();
    assert!((r - sparse_dot(&a, &b)).abs() < 1e-12);
    // ∂/∂A_ij = B_ij on A's pattern
    for (k, (&v, (i, j))) in a.iter().enumerate() {
        let _ = v;
        assert_eq!(ga[k], b.get(i, j).copied().unwrap_or(0.0));
    }
    for (k, (_, (i, j))) in b.iter().enumerate() {
        assert_eq!(gb[k], a.get(i, j).copied().unwrap_or(0.0));
    }
    assert!(matches!(
        sparse_dot_gradient(&a, &random_csc(20, 21, 0.3, 3)),
        Err(SparseError::Shape { .. })
    ));
    assert_eq!(Pattern::of(&a.to_csr()).unwrap_err(), SparseError::NotCsc);
}

#[test]
fn matmul_real_complex_and_backward() {
    let a = random_csc(30, 20, 0.2, 4);
    let pa = Pattern::of(&a).unwrap();
    let n = 3;
    let b: Vec<f64> = (0..20 * n).map(|i| (i as f64 * 0.37).sin()).collect();
    let mut c = vec![0.0; 30 * n];
    let (mut av, mut bv) = (a.data().to_vec(), b.clone());
    isparse_matmul(&mut c, &mut av, &mut bv, &pa, n);
    let mut c_native = vec![0.0; 30 * n];
    sparse_matmul(&mut c_native, &a, &b, n);
    assert_eq!(c, c_native);
    isparse_matmul_inv(&mut c, &mut av, &mut bv, &pa, n);
    assert!(c.iter().all(|v| v.abs() < 1e-14));

    // complex values
    let ac: sprs::CsMat<Complex<f64>> = a.map(|&v| Complex::new(v, -0.5 * v));
    let pc = Pattern::of(&ac).unwrap();
    let bc: Vec<Complex<f64>> = b.iter().map(|&v| Complex::new(v, 1.0 - v)).collect();
    let mut cc = vec![Complex::new(0.0, 0.0); 30 * n];
    let (mut acv, mut bcv) = (ac.data().to_vec(), bc.clone());
    isparse_matmul(&mut cc, &mut acv, &mut bcv, &pc, n);
    let mut cc_native = vec![Complex::new(0.0, 0.0); 30 * n];
    sparse_matmul(&mut cc_native, &ac, &bc, n);
    for (x, y) in cc.iter().zip(&cc_native) {
        assert!((x - y).norm() < 1e-14);
    }

    // backward: with output cotangent 1 everywhere, ∂/∂B[col, j] = Σ_i A_ij
    let mut cg: Vec<GVar<f64>> = c_native.iter().map(|&v| GVar::with_grad(v, 1.0)).collect();
    let mut ag: Vec<GVar<f64>> = av.iter().map(|&v| GVar::new(v)).collect();
    let mut bg: Vec<GVar<f64>> = bv.iter().map(|&v| GVar::new(v)).collect();
    isparse_matmul_inv(&mut cg, &mut ag, &mut bg, &pa, n);
    for j in 0..20 {
        let colsum: f64 = (pa.indptr[j]..pa.indptr[j + 1]).map(|p| av[p]).sum();
        for col in 0..n {
            assert!((bg[col * 20 + j].g - colsum).abs() < 1e-12);
        }
    }
    assert!(cg.iter().all(|v| v.x.abs() < 1e-14));
}

#[test]
fn dot_merge_without_keeper_over_sparse_and_dense_patterns() {
    // empty columns, single entries, full columns: the checked program verifies each step's
    // postcondition (which pointer moved) and that the pointers end at the last entries
    for (density, seed) in [(0.02, 1), (0.1, 2), (0.5, 3), (1.0, 4)] {
        let a = random_csc(25, 17, density, seed);
        let b = random_csc(25, 17, density * 0.7 + 0.05, seed + 50);
        let (pa, pb) = (Pattern::of(&a).unwrap(), Pattern::of(&b).unwrap());
        let (mut av, mut bv) = (a.data().to_vec(), b.data().to_vec());
        let mut r = 0.0;
        isparse_dot(&mut r, &mut av, &mut bv, &pa, &pb);
        assert!((r - sparse_dot(&a, &b)).abs() < 1e-12, "density {density}");
        isparse_dot_inv(&mut r, &mut av, &mut bv, &pa, &pb);
        assert!(r.abs() < 1e-12);
        let (_, ga, gb) = sparse_dot_gradient(&a, &b).unwrap();
        for (k, (_, (i, j))) in a.iter().enumerate() {
            assert_eq!(ga[k], b.get(i, j).copied().unwrap_or(0.0));
        }
        for (k, (_, (i, j))) in b.iter().enumerate() {
            assert_eq!(gb[k], a.get(i, j).copied().unwrap_or(0.0));
        }
    }
}

#[test]
fn complex_matmul_adjoint_matches_the_gvar_inverse() {
    let a = random_csc(12, 9, 0.4, 7);
    let ac: sprs::CsMat<Complex<f64>> = a.map(|&v| Complex::new(v, 0.3 - v));
    let pc = Pattern::of(&ac).unwrap();
    let n = 2;
    let b: Vec<Complex<f64>> = (0..9 * n)
        .map(|i| Complex::new((i as f64).sin(), (i as f64 * 0.7).cos()))
        .collect();
    let seed: Vec<Complex<f64>> = (0..12 * n)
        .map(|i| Complex::new(0.5 + i as f64 * 0.1, 1.0 - i as f64 * 0.05))
        .collect();
    // forward: the same product as the native one
    let (mut c, mut av, mut bv) = (
        vec![Complex::new(0.0, 0.0); 12 * n],
        ac.data().to_vec(),
        b.clone(),
    );
    isparse_matmul_complex(&mut c, &mut av, &mut bv, &pc, n);
    let mut native = vec![Complex::new(0.0, 0.0); 12 * n];
    sparse_matmul(&mut native, &ac, &b, n);
    for (x, y) in c.iter().zip(&native) {
        assert!((x - y).norm() < 1e-14);
    }
    // backward: the adjoint program against the generic program's inverse on Complex<GVar>
    let (mut cg, mut ag, mut bg) = (
        seed.clone(),
        vec![Complex::new(0.0, 0.0); av.len()],
        vec![Complex::new(0.0, 0.0); bv.len()],
    );
    isparse_matmul_complex_adjoint(
        &mut c,
        &mut cg,
        &mut av,
        &mut ag,
        &mut bv,
        &mut bg,
        &pc,
        (),
        n,
        (),
    );
    assert!(
        c.iter().all(|v| v.norm() < 1e-14),
        "the adjoint undoes the product"
    );
    let gv = |v: &Complex<f64>, g: &Complex<f64>| {
        Complex::new(GVar::with_grad(v.re, g.re), GVar::with_grad(v.im, g.im))
    };
    let mut wc: Vec<_> = native.iter().zip(&seed).map(|(v, g)| gv(v, g)).collect();
    let zero = Complex::new(0.0, 0.0);
    let mut wa: Vec<_> = ac.data().iter().map(|v| gv(v, &zero)).collect();
    let mut wb: Vec<_> = b.iter().map(|v| gv(v, &zero)).collect();
    isparse_matmul_inv(&mut wc, &mut wa, &mut wb, &pc, n);
    for (g, w) in ag.iter().zip(&wa).chain(bg.iter().zip(&wb)) {
        assert!(
            (g.re - w.re.g).abs() < 1e-12 && (g.im - w.im.g).abs() < 1e-12,
            "{g} vs {w:?}"
        );
    }
    // and ∂/∂b[col, j] = Σ_p conj-free real-part rule, checked independently on one entry:
    // c_re += a_re b_re − a_im b_im, c_im += a_re b_im + a_im b_re
    let (j, col) = (3, 1);
    let (mut ere, mut eim) = (0.0, 0.0);
    for p in pc.indptr[j]..pc.indptr[j + 1] {
        let (ap, s) = (ac.data()[p], seed[col * 12 + pc.indices[p]]);
        ere += s.re * ap.re + s.im * ap.im;
        eim += -s.re * ap.im + s.im * ap.re;
    }
    let g = bg[col * 9 + j];
    assert!((g.re - ere).abs() < 1e-12 && (g.im - eim).abs() < 1e-12);
}
