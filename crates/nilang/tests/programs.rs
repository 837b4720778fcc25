//! The example programs of the papers, run forward and backward: each inverse must restore
//! its inputs exactly (integers) or to 1e-12 (floats), also on random inputs.

use nilang::blas::*;
use nilang::schedule::{Bennett, Transition};
use nilang::special::*;
use nilang::{i, rev, GVar, Real};
use num_complex::Complex;
use proptest::prelude::*;

/// ICLR Listing 4: the reversible multiplier.
#[i]
fn multiplier(y: &mut i64, a: &mut i64, b: &mut i64) {
    y += a * b;
}

/// arXiv Listing 5/6 (ICLR Listings 5, 6): `y += log(x)` on complex numbers, with
/// compute-copy-uncompute on the ancilla `n = |x|`.
#[i]
fn complex_log<T: Real>(y: &mut Complex<T>, x: &mut Complex<T>) {
    let n = T::zero();
    routine! {
        n += hypot(x.re, x.im);
    }
    y.re += log(n);
    y.im += atan2(x.im, x.re);
    uncompute!();
    dealloc!(n = T::zero());
}

/// ICLR Listing 11: `out += Fib(n+1)` recursively, with a `while` whose postcondition is
/// `counter != n`.
#[i]
fn rrfib(out: &mut i64, n: i64) {
    if n >= 1 {
        let counter = 0i64;
        counter += n;
        while (counter > 1, counter != n) {
            rrfib(out, counter - 1);
            counter -= 2;
        }
        counter -= identity(n % 2);
        dealloc!(counter = 0);
    }
    out += 1;
}

/// "Automatic differentiation in reversible Turing machines", Appendix V.A: `out += Fib(n)`.
#[i]
fn rfib(out: &mut i64, n: i64) {
    let n1 = 0i64;
    let n2 = 0i64;
    routine! {
        n1 += n - 1;
        n2 += n - 2;
    }
    if (n <= 2, n <= 2) {
        out += 1;
    } else {
        rfib(out, n1);
        rfib(out, n2);
    }
    uncompute!();
    dealloc!(n1 = 0, n2 = 0);
}

fn fib(n: i64) -> i64 {
    let (mut a, mut b) = (1, 1);
    for _ in 2..n.max(1) {
        (a, b) = (b, a + b);
    }
    if n <= 2 {
        1
    } else {
        b
    }
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * 1f64.max(a.abs()).max(b.abs())
}

fn all_close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| close(*x, *y, tol))
}

#[test]
fn multiplier_listing_4() {
    let (mut y, mut a, mut b) = (2, 3, 5);
    multiplier(&mut y, &mut a, &mut b);
    assert_eq!((y, a, b), (17, 3, 5));
    multiplier_inv(&mut y, &mut a, &mut b);
    assert_eq!((y, a, b), (2, 3, 5));
}

#[test]
fn complex_log_matches_num_complex() {
    let mut y = Complex::new(0.5f64, -0.25);
    let mut x = Complex::new(1.0f64, 2.0);
    complex_log(&mut y, &mut x);
    let expect = Complex::new(0.5, -0.25) + Complex::new(1.0f64, 2.0).ln();
    assert!((y - expect).norm() < 1e-15);
    complex_log_inv(&mut y, &mut x);
    assert!((y - Complex::new(0.5, -0.25)).norm() < 1e-15);
    assert_eq!(x, Complex::new(1.0, 2.0));
}

#[test]
fn fibonacci_both_listings() {
    for n in 1..=15 {
        let mut out = 0;
        rfib(&mut out, n);
        assert_eq!(out, fib(n), "rfib({n})");
        rfib_inv(&mut out, n);
        assert_eq!(out, 0);
        let mut out = 0;
        rrfib(&mut out, n);
        assert_eq!(out, fib(n + 1), "rrfib({n})");
        rrfib_inv(&mut out, n);
        assert_eq!(out, 0);
    }
}

#[test]
fn factorial_and_imul() {
    let mut out = 0;
    ifactorial(&mut out, 10);
    assert_eq!(out, 3_628_800);
    ifactorial_inv(&mut out, 10);
    assert_eq!(out, 0);
    let (mut out, mut anc) = (6i64, 0i64);
    imul_int(&mut out, 7, &mut anc);
    assert_eq!((out, anc), (42, 0));
    imul_int_inv(&mut out, 7, &mut anc);
    assert_eq!((out, anc), (6, 0));
}

#[test]
fn bessel_j2_of_1() {
    let (mut out, mut z) = (0.0f64, 1.0f64);
    ibesselj(&mut out, 2, &mut z);
    assert!((out - 0.11490348493190048).abs() < 1e-9, "{out}");
    assert_eq!(out, besselj_series(2, 1.0));
    ibesselj_inv(&mut out, 2, &mut z);
    assert_eq!((out, z), (0.0, 1.0));
    let (mut out, mut z) = (0.0f64, 1.0f64);
    ibesselj_nocheck(&mut out, 2, &mut z);
    assert_eq!(out, besselj_series(2, 1.0));
    ibesselj_nocheck_inv(&mut out, 2, &mut z);
    assert_eq!((out, z), (0.0, 1.0));
}

#[test]
fn bessel_gradient_matches_paper() {
    let (mut out, mut z) = (0.0f64, 1.0f64);
    ibesselj(&mut out, 2, &mut z);
    let mut gout = GVar::with_grad(out, 1.0);
    let mut gz = GVar::new(z);
    ibesselj_inv(&mut gout, 2, &mut gz);
    assert!((gz.g - 0.2102436).abs() < 1e-6, "{gz:?}");
    assert_eq!((gout.x, gz.x), (0.0, 1.0));
}

#[test]
fn exp_by_series() {
    for x in [1.6f64, 0.3, -1.5, 2.0] {
        let (mut out, mut xx) = (0.25f64, x);
        iexp(&mut out, &mut xx, 1e-8);
        assert!(close(out, 0.25 + x.exp(), 1e-7), "exp({x}) = {out}");
        iexp_inv(&mut out, &mut xx, 1e-8);
        assert!(close(out, 0.25, 1e-12) && xx == x);
    }
    // the gradient of the paper: d exp(x)/dx at 1.6
    let (mut out, mut x) = (0.0, 1.6);
    iexp(&mut out, &mut x, 1e-8);
    let (mut gout, mut gx) = (GVar::with_grad(out, 1.0), GVar::new(x));
    iexp_inv(&mut gout, &mut gx, 1e-8);
    assert!((gx.g - 4.9530324244260555f64).abs() < 1e-7, "{gx:?}");
    assert_eq!((gout.x, gx.x), (0.0, 1.6));
}

/// The paper's `atol = 1e-14` is below what arithmetic uncomputing can resolve: the
/// residuals grow and the checked program reports it instead of returning garbage.
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn exp_with_too_small_atol_is_caught() {
    let (mut out, mut x) = (0.0f64, 1.6f64);
    let err = nilang::catch(|| iexp(&mut out, &mut x, 1e-14)).unwrap_err();
    assert_eq!(err.kind, nilang::CheckKind::WhileIteration);
}

#[test]
fn blas_examples() {
    let (mut out, mut x, mut y) = (1.0, vec![1.0, 2.0, 3.0], vec![4.0, 5.0, 6.0]);
    idot(&mut out, &mut x, &mut y);
    assert_eq!(out, 33.0);
    idot_inv(&mut out, &mut x, &mut y);
    assert_eq!(out, 1.0);

    let mut n = 0.0;
    inorm2(&mut n, &mut x);
    assert_eq!(n, 14.0);
    inorm2_inv(&mut n, &mut x);
    assert_eq!(n, 0.0);

    // y += W x + b with W = [[1, 2, 3], [4, 5, 6]]
    let mut w = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let (mut yy, mut b) = (vec![0.5, 0.0], vec![1.0, -1.0]);
    i_affine(&mut yy, &mut w, &mut b, &mut x);
    assert_eq!(yy, vec![0.5 + 14.0 + 1.0, 32.0 - 1.0]);
    i_affine_inv(&mut yy, &mut w, &mut b, &mut x);
    assert_eq!(yy, vec![0.5, 0.0]);
}

#[test]
fn umm_is_a_rotation() {
    // one rotation of a 2-vector: [cos θ, -sin θ; sin θ, cos θ]
    let (mut x, mut t) = (vec![1.0f64, 0.0], vec![0.5f64]);
    i_umm(&mut x, &mut t, 2);
    assert!(close(x[0].hypot(x[1]), 1.0, 1e-15));
    i_umm_inv(&mut x, &mut t, 2);
    assert!(all_close(&x, &[1.0, 0.0], 1e-15));
}

#[test]
fn umm_wrong_angle_count_is_caught() {
    let (mut x, mut t) = (vec![1.0f64, 0.0, 0.0], vec![0.5f64; 2]);
    let r = std::panic::catch_unwind(move || i_umm(&mut x, &mut t, 3));
    assert!(r.is_err());
}

/// One Bennett step: s_{i+1} = 2 s_i (Listing 12 uses `f(x) = 2x`).
#[i]
fn double(out: &mut f64, inp: &mut f64) {
    out += 2.0 * inp;
}

#[test]
fn bennett_counts() {
    for k in 2..=4usize {
        for n in 1..=4u32 {
            let steps = vec![rev!(double); k.pow(n)];
            let mut b = Bennett::new(k, 1.0, steps.len());
            b.run(&steps);
            assert_eq!(
                b.final_state(),
                Some(&2f64.powi(k.pow(n) as i32)),
                "k={k} n={n}"
            );
            assert_eq!(b.live_states(), 2);
            assert_eq!(
                b.program_counter(),
                (2 * k - 1).pow(n),
                "program count, k={k} n={n}"
            );
            assert_eq!(
                b.peak_live_states(),
                n as usize * (k - 1) + 2,
                "peak, k={k} n={n}"
            );
            b.run_inv(&steps);
            assert_eq!(b.live_states(), 1);
            assert_eq!(b.state(0), Some(&1.0));
            assert_eq!(b.program_counter(), 2 * (2 * k - 1).pow(n));
        }
    }
}

/// A step on a vector state, through a hand-written `Transition`.
struct Shift(f64);

impl Transition<Vec<f64>> for Shift {
    fn call(&self, out: &mut Vec<f64>, inp: &mut Vec<f64>) {
        for (o, i) in out.iter_mut().zip(inp.iter()) {
            *o += i.sin() + self.0;
        }
    }
    fn uncall(&self, out: &mut Vec<f64>, inp: &mut Vec<f64>) {
        for (o, i) in out.iter_mut().zip(inp.iter()) {
            *o -= i.sin() + self.0;
        }
    }
}

#[test]
fn bennett_on_uneven_lengths() {
    for len in 1..=20usize {
        let steps: Vec<Shift> = (0..len).map(|i| Shift(i as f64 * 0.1)).collect();
        let mut expect = vec![0.3, -1.0];
        for s in &steps {
            expect = expect.iter().map(|v: &f64| v.sin() + s.0).collect();
        }
        let mut b = Bennett::new(3, vec![0.3, -1.0], len);
        b.run(&steps);
        assert_eq!(b.final_state(), Some(&expect), "len={len}");
        assert_eq!(b.live_states(), 2);
        b.run_inv(&steps);
        assert_eq!(b.live_states(), 1);
    }
}

proptest! {
    #[test]
    fn multiplier_random(y in -1000i64..1000, a in -1000i64..1000, b in -1000i64..1000) {
        let (mut yy, mut aa, mut bb) = (y, a, b);
        multiplier(&mut yy, &mut aa, &mut bb);
        prop_assert_eq!((yy, aa, bb), (y + a * b, a, b));
        multiplier_inv(&mut yy, &mut aa, &mut bb);
        prop_assert_eq!((yy, aa, bb), (y, a, b));
    }

    #[test]
    fn complex_log_random(re in -10.0f64..10.0, im in 0.01f64..10.0, sign in prop::bool::ANY, y0 in -1.0f64..1.0) {
        let x0 = Complex::new(re, if sign { im } else { -im });
        let (mut y, mut x) = (Complex::new(y0, y0), x0);
        complex_log(&mut y, &mut x);
        prop_assert!((y - (Complex::new(y0, y0) + x0.ln())).norm() < 1e-14);
        complex_log_inv(&mut y, &mut x);
        prop_assert!((y - Complex::new(y0, y0)).norm() < 1e-12);
        prop_assert_eq!(x, x0);
    }

    #[test]
    fn imul_random(out0 in -10.0f64..10.0, x in 0.1f64..10.0) {
        let (mut out, mut xx, mut anc) = (out0, x, 0.0);
        imul(&mut out, &mut xx, &mut anc);
        prop_assert!(close(out, out0 * x, 1e-15));
        prop_assert!(anc.abs() < 1e-12);
        imul_inv(&mut out, &mut xx, &mut anc);
        prop_assert!(close(out, out0, 1e-12) && anc.abs() < 1e-12 && xx == x);
    }

    #[test]
    fn factorial_random(n in 0i64..20, out0 in -5i64..5) {
        let mut out = out0;
        ifactorial(&mut out, n);
        let fact: i64 = (1..=n).product();
        prop_assert_eq!(out, (out0 + 1) * fact);
        ifactorial_inv(&mut out, n);
        prop_assert_eq!(out, out0);
    }

    #[test]
    fn exp_random(x in -2.0f64..2.0, out0 in -1.0f64..1.0) {
        prop_assume!(x.abs() > 1e-3);
        let (mut out, mut xx) = (out0, x);
        iexp(&mut out, &mut xx, 1e-8);
        prop_assert!((out - (out0 + x.exp())).abs() < 1e-7 * x.exp().max(1.0), "{} vs {}", out, out0 + x.exp());
        iexp_inv(&mut out, &mut xx, 1e-8);
        prop_assert!((out - out0).abs() < 1e-12 && xx == x);
    }

    #[test]
    fn bessel_random(nu in 0i64..6, z in 0.05f64..4.0, neg in prop::bool::ANY, out0 in -1.0f64..1.0) {
        let z = if neg { -z } else { z };
        let (mut out, mut zz) = (out0, z);
        ibesselj(&mut out, nu, &mut zz);
        let expect = besselj_series(nu, z);
        // see the precision note of `ibesselj` (measured ≤ 1e-8 for |z| ≤ 4)
        prop_assert!((out - out0 - expect).abs() < 1e-7, "J_{}({}) = {} vs {}", nu, z, out - out0, expect);
        ibesselj_inv(&mut out, nu, &mut zz);
        prop_assert!((out - out0).abs() < 1e-12 && zz == z);
    }

    #[test]
    fn dot_norm_random(v in prop::collection::vec((-10.0f64..10.0, -10.0f64..10.0), 0..20), out0 in -1.0f64..1.0) {
        let (x0, y0): (Vec<f64>, Vec<f64>) = v.into_iter().unzip();
        let (mut x, mut y, mut out) = (x0.clone(), y0.clone(), out0);
        idot(&mut out, &mut x, &mut y);
        let dot: f64 = x0.iter().zip(&y0).map(|(a, b)| a * b).sum();
        prop_assert!((out - out0 - dot).abs() < 1e-10);
        idot_inv(&mut out, &mut x, &mut y);
        prop_assert!((out - out0).abs() < 1e-12 && x == x0 && y == y0);
        let mut n = out0;
        inorm2(&mut n, &mut x);
        let n2: f64 = x0.iter().map(|a| a * a).sum();
        prop_assert!((n - out0 - n2).abs() < 1e-10);
        inorm2_inv(&mut n, &mut x);
        prop_assert!((n - out0).abs() < 1e-12);
    }

    #[test]
    fn affine_random(m in 1usize..6, n in 1usize..6, seed in prop::collection::vec(-3.0f64..3.0, 72)) {
        let mut w: Vec<f64> = seed[..m * n].to_vec();
        let mut x: Vec<f64> = seed[36..36 + n].to_vec();
        let mut b: Vec<f64> = seed[48..48 + m].to_vec();
        let y0: Vec<f64> = seed[60..60 + m].to_vec();
        let mut y = y0.clone();
        i_affine(&mut y, &mut w, &mut b, &mut x);
        for i in 0..m {
            let expect = y0[i] + (0..n).map(|j| w[i * n + j] * x[j]).sum::<f64>() + b[i];
            prop_assert!((y[i] - expect).abs() < 1e-12);
        }
        i_affine_inv(&mut y, &mut w, &mut b, &mut x);
        prop_assert!(all_close(&y, &y0, 1e-12));
    }

    #[test]
    fn umm_random(m in 1usize..7, cols in 1usize..4, seed in prop::collection::vec(-3.0f64..3.0, 40)) {
        let x0: Vec<f64> = seed[..m * cols].to_vec();
        let mut theta: Vec<f64> = seed[24..24 + m * (m - 1) / 2].to_vec();
        let mut x = x0.clone();
        i_umm(&mut x, &mut theta, m);
        for l in 0..cols {
            let before: f64 = x0[l * m..(l + 1) * m].iter().map(|v| v * v).sum();
            let after: f64 = x[l * m..(l + 1) * m].iter().map(|v| v * v).sum();
            prop_assert!(close(before, after, 1e-12), "norm {} -> {}", before, after);
        }
        i_umm_inv(&mut x, &mut theta, m);
        prop_assert!(all_close(&x, &x0, 1e-12) || x.iter().zip(&x0).all(|(a, b)| (a - b).abs() < 1e-12));
    }

    #[test]
    fn rfib_random(n in 1i64..18) {
        let mut out = 7;
        rrfib(&mut out, n);
        prop_assert_eq!(out, 7 + fib(n + 1));
        rrfib_inv(&mut out, n);
        prop_assert_eq!(out, 7);
    }
}

/// One explicit step of the heat equation, `out = inp + ¼ (inp[j−1] − 2 inp[j] + inp[j+1])`
/// on the interior, four float instructions per cell: uncalling it leaves round-off.
#[i]
fn heat_step<T: Real>(out: &mut Vec<T>, inp: &mut Vec<T>) {
    for j in 1..inp.len() - 1 {
        out[j] += identity(inp[j]);
        out[j] += 0.25 * inp[j - 1];
        out[j] += 0.25 * inp[j + 1];
        out[j] -= 0.5 * inp[j];
    }
}

#[test]
fn bennett_accepts_float_round_off_in_uncalled_states() {
    let steps = vec![rev!(heat_step::<f64>); 27];
    let s0: Vec<f64> = (0..16)
        .map(|j| (j as f64 * 0.7).sin() + 0.1 * j as f64)
        .collect();
    let mut expect = s0.clone();
    for _ in 0..steps.len() {
        let (mut out, mut inp) = (vec![0.0; s0.len()], expect.clone());
        heat_step(&mut out, &mut inp);
        expect = out;
    }
    let mut b = Bennett::new(3, s0, steps.len());
    b.run(&steps);
    assert_eq!(b.final_state(), Some(&expect));
    b.run_inv(&steps);
    assert_eq!(b.live_states(), 1);
}

/// A step whose uncall does not undo its call: the error names the state and the step, and
/// shows what was found.
#[test]
fn bennett_reports_a_step_that_does_not_uncompute() {
    let heat = [rev!(heat_step::<f64>), rev!(heat_step::<f64>)];
    let mut b = Bennett::new(2, vec![0.0, 1.0, 2.0, 4.0], 2);
    b.run(&heat);
    // uncalling other steps than those that ran leaves s₂ nonzero
    let err = nilang::catch(|| b.run_inv(&[Shift(0.5), Shift(0.25)])).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("state s2 (uncalling step 1)"), "{text}");
    assert!(text.contains("within the tolerance"), "{text}");
}
