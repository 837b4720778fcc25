//! Vector ancillas that a body reaches only by index live in `__private::LocalStore` in
//! unchecked programs — inline up to 16 or 32 values, on the heap beyond
//! (`nilang_ir::local_vectors`) — and in `Vec`s in checked ones. The two programs of one body
//! must agree at every length around the inline limits, through every program that allocates
//! them: forward, inverse, the adjoint (`f_vjp`), the fused gradient's halves with their
//! per-sweep copies (`f_jacobian`) and a parallel loop that hands a sub-slice of one to calls.

#![allow(dead_code)]

use nilang::{i, Real};

/// `out += Σ (sin x_j)² + x₀ Σ_j t_j` with `t = sin x` computed in a routine (the fused
/// gradient's `L P M ~P D` shape); `_checked` is the same body with the checks on.
macro_rules! sum_sin_sq {
    ($name:ident, $attr:ident) => {
        #[i($attr)]
        fn $name<T: Real>(out: &mut T, x: &mut [T]) {
            let n = x.len();
            let t = vec![T::zero(); n];
            routine! {
                for j in 0..n {
                    t[j] += sin(x[j]);
                }
            }
            for j in 0..n {
                out += square(t[j]);
            }
            if n > 1 {
                isum(out, t[1..n]);
            }
            uncompute!();
            dealloc!(t = vec![T::zero(); n]);
            dealloc!(n = x.len());
        }
    };
}
sum_sin_sq!(sum_sin_sq, nocheck);
sum_sin_sq!(sum_sin_sq_checked, check);

/// `out += t` for the slice `t`.
#[i]
fn isum<T: Real>(out: &mut T, t: &mut [T]) {
    for j in 0..t.len() {
        out += identity(t[j]);
    }
}

/// `y[i] += Σ_j w_j (i + 1)` in a parallel loop whose iterations hand the local vector `w`'s
/// elements to a call that only reads them: each chunk works on its own copy.
macro_rules! weighted_rows {
    ($name:ident, $attr:ident) => {
        #[i($attr)]
        fn $name<T: Real>(y: &mut [T], x: &mut [T]) {
            let m = x.len();
            let w = vec![T::zero(); m];
            routine! {
                for j in 0..m {
                    w[j] += identity(x[j]);
                }
            }
            for i in (0..y.len()).par() {
                isum(y[i], w[0..m]);
            }
            uncompute!();
            dealloc!(w = vec![T::zero(); m]);
            dealloc!(m = x.len());
        }
    };
}
weighted_rows!(weighted_rows, nocheck);
weighted_rows!(weighted_rows_checked, check);

const LENGTHS: [usize; 10] = [0, 1, 5, 15, 16, 17, 32, 33, 40, 70];

fn input(n: usize) -> Vec<f64> {
    (0..n).map(|j| 0.3 + 0.7 * (j as f64).sin()).collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-13 * (1.0 + a.abs().max(b.abs()))
}

#[test]
fn forward_and_inverse_agree_with_the_checked_program() {
    for n in LENGTHS {
        let x0 = input(n);
        let (mut y, mut x) = (0.25, x0.clone());
        let (mut yc, mut xc) = (0.25, x0.clone());
        sum_sin_sq(&mut y, &mut x);
        sum_sin_sq_checked(&mut yc, &mut xc);
        assert!(close(y, yc), "n = {n}: {y} vs {yc}");
        let want = 0.25
            + x0.iter().map(|v| v.sin().powi(2)).sum::<f64>()
            + x0.iter().skip(1).map(|v| v.sin()).sum::<f64>();
        assert!(close(y, want), "n = {n}: {y} vs {want}");
        sum_sin_sq_inv(&mut y, &mut x);
        assert!(close(y, 0.25) && x == x0, "n = {n}");
    }
}

#[test]
fn gradients_agree_with_the_checked_program_and_the_formula() {
    for n in LENGTHS {
        let x0 = input(n);
        let (mut y, mut x, mut gy, mut gx) = (0.0, x0.clone(), 1.0, vec![0.0; n]);
        sum_sin_sq_vjp(&mut y, &mut gy, &mut x, &mut gx);
        let (mut yc, mut xc, mut gyc, mut gxc) = (0.0, x0.clone(), 1.0, vec![0.0; n]);
        sum_sin_sq_checked_vjp(&mut yc, &mut gyc, &mut xc, &mut gxc);
        for j in 0..n {
            let want = 2.0 * x0[j].sin() * x0[j].cos() + if j > 0 { x0[j].cos() } else { 0.0 };
            assert!(
                close(gx[j], gxc[j]) && close(gx[j], want),
                "n = {n}, j = {j}"
            );
        }
        // the Jacobian (one row: `out`), by the fused halves' sweeps on copies
        let (mut y, mut x) = (0.0, x0.clone());
        let jac = sum_sin_sq_jacobian(&mut y, &mut x).unwrap();
        let (mut yc, mut xc) = (0.0, x0.clone());
        let jac_checked = sum_sin_sq_checked_jacobian(&mut yc, &mut xc).unwrap();
        let (rows, rows_checked) = (jac.to_rows(), jac_checked.to_rows());
        assert_eq!(rows.len(), rows_checked.len());
        for (r, rc) in rows.iter().zip(&rows_checked) {
            assert!(r.iter().zip(rc).all(|(a, b)| close(*a, *b)), "n = {n}");
        }
    }
}

#[test]
fn a_parallel_loop_reads_a_local_vector_through_calls() {
    for n in LENGTHS {
        let x0 = input(n);
        let (mut y, mut x) = (vec![1.0; 300], x0.clone());
        let (mut yc, mut xc) = (vec![1.0; 300], x0.clone());
        weighted_rows(&mut y, &mut x);
        weighted_rows_checked(&mut yc, &mut xc);
        let sum: f64 = x0.iter().sum();
        assert!(y
            .iter()
            .zip(&yc)
            .all(|(a, b)| close(*a, *b) && close(*a, 1.0 + sum)));
        let (mut gy, mut gx) = (vec![1.0; 300], vec![0.0; n]);
        weighted_rows_vjp(&mut y, &mut gy, &mut x, &mut gx);
        assert!(gx.iter().all(|g| close(*g, 300.0)), "n = {n}: {gx:?}");
        let (mut gyc, mut gxc) = (vec![1.0; 300], vec![0.0; n]);
        weighted_rows_checked_vjp(&mut yc, &mut gyc, &mut xc, &mut gxc);
        assert!(gx.iter().zip(&gxc).all(|(a, b)| close(*a, *b)));
    }
}
