//! Gradients of functions whose arguments are slices or `Vec`s of elements holding several
//! scalars (`[[T; 3]]`, `Vec<Complex<T>>`) or a scalar in a number system (`[ULog<T>]`):
//! `f_grad` and `f_jacobian` flatten them element by element.

use nilang::ad::check_gradient;
use nilang::numbers::ULog;
use nilang::{i, Loss, Real};
use num_complex::Complex;

/// `out += Σᵢ |pᵢ|²` over points in 3-d.
#[i]
fn sum_of_squares<T: Real>(out: &mut T, p: &mut [[T; 3]]) {
    for i in 0..p.len() {
        for j in 0..3 {
            out += square(p[i][j]);
        }
    }
}

/// `out += Σᵢ Re(zᵢ)·Im(zᵢ)`.
#[i]
fn re_times_im<T: Real>(out: &mut T, z: &mut Vec<Complex<T>>) {
    for i in 0..z.len() {
        out += z[i].re * z[i].im;
    }
}

/// `out += Σᵢ xᵢ` for logarithmic numbers, read in the linear domain (`exp(ln xᵢ)`).
#[i]
fn linear_sum<T: Real>(out: &mut T, x: &mut [ULog<T>]) {
    for i in 0..x.len() {
        out += exp(x[i].ln);
    }
}

#[test]
fn arrays_in_a_slice() {
    let p0 = vec![[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]];
    let mut p = p0.clone();
    let (_, gp) = sum_of_squares_grad(Loss::arg(0), &mut 0.0, &mut p).unwrap();
    for (g, x) in gp.iter().zip(&p0) {
        for j in 0..3 {
            assert_eq!(g[j].g, 2.0 * x[j]);
        }
    }
    // the Jacobian's columns: out, then the points' coordinates in order
    let j = sum_of_squares_jacobian(&mut 0.0, &mut p0.clone()).unwrap();
    assert_eq!((j.rows, j.cols), (7, 7));
    let flat: Vec<f64> = p0.iter().flatten().copied().collect();
    let f = |x: &[f64]| {
        let mut p: Vec<[f64; 3]> = x.chunks(3).map(|c| [c[0], c[1], c[2]]).collect();
        let mut out = 0.0;
        sum_of_squares(&mut out, &mut p);
        out
    };
    assert!(check_gradient(f, &flat, &j.row(0)[1..], 1e-6, 1e-7).is_ok());
}

#[test]
fn complex_numbers_in_a_vec() {
    let z0 = vec![Complex::new(1.0, 2.0), Complex::new(-0.5, 3.0)];
    let (_, gz) = re_times_im_grad(Loss::arg(0), &mut 0.0, &mut z0.clone()).unwrap();
    for (g, z) in gz.iter().zip(&z0) {
        assert_eq!((g.re.g, g.im.g), (z.im, z.re));
    }
}

#[test]
fn logarithmic_numbers_in_a_slice() {
    let mut x = vec![ULog::<f64>::new(2.0), ULog::new(0.5)];
    let (_, gx) = linear_sum_grad(Loss::arg(0), &mut 0.0, &mut x).unwrap();
    // ∂/∂ln xᵢ of Σ exp(ln xᵢ) is xᵢ
    assert!((gx[0].ln.g - 2.0).abs() < 1e-12 && (gx[1].ln.g - 0.5).abs() < 1e-12);
}
