use nilang::{i, Loss, Real};

#[i]
fn f2<T: Real>(y: &mut T, x: &mut [T]) {
    y += x[0] * x[1];
    y += sin(x[2]);
}

#[test]
fn grad_jac_hess() {
    let mut y = 0.0f64;
    let mut x = vec![2.0f64, 3.0, 0.5];
    let (gy, gx) = f2_grad(Loss::arg(0), &mut y, &mut x).unwrap();
    println!("{gy:?} {gx:?}");
    assert_eq!(gx[0].g, 3.0);
    let mut y = 0.0f64;
    let mut x = vec![2.0f64, 3.0, 0.5];
    let j = f2_jacobian(&mut y, &mut x).unwrap();
    println!("{:?}", j.to_rows());
    let mut y = 0.0f64;
    let mut x = vec![2.0f64, 3.0, 0.5];
    let h = f2_hessian(Loss::arg(0), &mut y, &mut x).unwrap();
    println!("{:?}", h.to_rows());
    assert!((h.get(3, 3) + 0.5f64.sin()).abs() < 1e-15);
    assert_eq!(h.get(1, 2), 1.0);
}

#[i]
fn clog<T: Real>(y: &mut num_complex::Complex<T>, x: &mut num_complex::Complex<T>) {
    y += log(x);
}

#[test]
fn complex_log_gradient() {
    use num_complex::Complex;
    let x0 = Complex::new(1.0f64, 2.0);
    let mut y = Complex::new(0.0f64, 0.0);
    let mut x = x0;
    let (_gy, gx) = clog_grad(Loss::elem(0, 0), &mut y, &mut x).unwrap();
    assert!((y - x0.ln()).norm() < 1e-15);
    // d Re(log x) / d x.re = x.re / |x|^2
    assert!((gx.re.g - 1.0 / 5.0).abs() < 1e-15);
    assert!((gx.im.g - 2.0 / 5.0).abs() < 1e-15);
}

#[test]
fn jacobian_of_chosen_outputs() {
    let mut y = 0.0f64;
    let mut x = vec![2.0f64, 3.0, 0.5];
    let full = f2_jacobian(&mut y, &mut x).unwrap();
    let mut y = 0.0f64;
    let mut x = vec![2.0f64, 3.0, 0.5];
    let rows = f2_jacobian_of(&[Loss::arg(0), Loss::elem(1, 2)], &mut y, &mut x).unwrap();
    assert_eq!((rows.rows, rows.cols), (2, 4));
    assert_eq!(rows.row(0), full.row(0));
    assert_eq!(rows.row(1), full.row(3));
    assert!(f2_jacobian_of(&[Loss::elem(1, 3)], &mut y, &mut x).is_err());
}

#[i]
fn with_constants<T: Real>(y: &mut T, x: &mut T, c: T, w: &[T]) {
    y += x * c;
    y += w[0] * x;
}

#[test]
fn by_value_and_shared_scalars_are_constants_of_the_gradient_type() {
    let (mut y, mut x) = (0.0f64, 2.0f64);
    let (_, gx) = with_constants_grad(Loss::arg(0), &mut y, &mut x, 3.0, &[5.0]).unwrap();
    assert_eq!(y, 16.0);
    assert_eq!(gx.g, 8.0);
    let (mut y, mut x) = (0.0f64, 2.0f64);
    let h = with_constants_hessian(Loss::arg(0), &mut y, &mut x, 3.0, &[5.0]).unwrap();
    assert_eq!(h.get(1, 1), 0.0);
}
