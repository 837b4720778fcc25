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

/// A user struct with public fields, differentiable through `#[derive(Scalars)]`.
#[derive(Clone, Debug, nilang::Scalars)]
pub struct Particle<T> {
    pub pos: [T; 2],
    pub vel: [T; 2],
    pub mass: T,
}

#[i]
fn kinetic<T: Real>(e: &mut T, p: &mut Particle<T>) {
    let v2 = T::zero();
    routine! {
        v2 += square(p.vel[0]);
        v2 += square(p.vel[1]);
    }
    e += p.mass * v2;
    uncompute!();
    dealloc!(v2 = T::zero());
}

#[i]
fn drift<T: Real>(p: &mut Particle<T>, dt: T) {
    p.pos[0] += p.vel[0] * dt;
    p.pos[1] += p.vel[1] * dt;
}

#[test]
fn user_structs_run_both_ways_and_differentiate() {
    let p0 = Particle {
        pos: [0.0f64, 1.0],
        vel: [2.0, -1.0],
        mass: 3.0,
    };
    let mut p = p0.clone();
    drift(&mut p, 0.5);
    assert_eq!(p.pos, [1.0, 0.5]);
    drift_inv(&mut p, 0.5);
    assert_eq!(p.pos, p0.pos);
    let mut e = 0.0;
    let (_, gp) = kinetic_grad(Loss::arg(0), &mut e, &mut p).unwrap();
    assert_eq!(e, 15.0);
    assert_eq!(gp.vel[0].g, 12.0); // ∂(m v²)/∂v0 = 2 m v0
    assert_eq!(gp.mass.g, 5.0);
    let j = drift_jacobian(&mut p, 0.5).unwrap();
    assert_eq!(j.get(0, 2), 0.5); // ∂pos0'/∂vel0 = dt
}

/// The generated gradient of a body shaped `L P M ~P D` skips uncomputing `P` and recomputing
/// it on `GVar`s; it must give the same gradient as the plain definition (forward, wrap, seed,
/// inverse on `GVar`).
#[test]
fn fused_gradient_equals_forward_then_inverse() {
    use nilang::special::{ibesselj, ibesselj_grad, ibesselj_inv};
    use nilang::GVar;
    for z0 in [0.3f64, 1.0, 2.5] {
        let (mut out, mut z) = (0.0f64, z0);
        let (gout, gz) = ibesselj_grad(Loss::arg(0), &mut out, 2, &mut z).unwrap();
        let (mut o, mut zz) = (0.0f64, z0);
        ibesselj(&mut o, 2, &mut zz);
        assert_eq!(o, out, "the arguments hold the forward outputs");
        let (mut go, mut gzz) = (GVar::with_grad(o, 1.0), GVar::new(zz));
        ibesselj_inv(&mut go, 2, &mut gzz);
        assert_eq!(gz, gzz);
        assert_eq!(gout, go);
    }
}

/// `out += log Σᵢ exp(xᵢ − 1)`: `expand!` gives each loop iteration its own ancilla, so the
/// uncomputation that the fused gradient runs on `GVar`s allocates inside a loop.
#[i(expand)]
fn log_sum_exp_shifted<T: Real>(out: &mut T, x: &mut [T]) {
    let s = T::zero();
    routine! {
        for i in 0..x.len() {
            s += exp(x[i] - 1.0);
        }
    }
    out += log(s);
    uncompute!();
    dealloc!(s = T::zero());
}

/// The fused gradient with ancillas allocated inside the reversed part is still bit for bit
/// the plain definition.
#[test]
fn fused_gradient_with_ancillas_in_the_reversed_part_equals_forward_then_inverse() {
    use nilang::GVar;
    let x0 = [0.3f64, -1.2, 2.0, 0.7];
    let (mut out, mut x) = (0.0f64, x0);
    let (gout, gx) = log_sum_exp_shifted_grad(Loss::arg(0), &mut out, &mut x).unwrap();
    let (mut o, mut xx) = (0.0f64, x0);
    log_sum_exp_shifted(&mut o, &mut xx);
    assert_eq!(o, out, "the arguments hold the forward outputs");
    let mut go = GVar::with_grad(o, 1.0);
    let mut gxx = xx.map(GVar::new);
    log_sum_exp_shifted_inv(&mut go, &mut gxx);
    assert_eq!(gx, gxx);
    assert_eq!(gout, go);
    // and it is the softmax of x − 1
    let s: f64 = x0.iter().map(|v| (v - 1.0).exp()).sum();
    for (g, v) in gx.iter().zip(x0) {
        assert!((g.g - (v - 1.0).exp() / s).abs() < 1e-15);
    }
}

/// `split_mut` hands out consecutive pieces, and lengths that do not add up to the vector's
/// are a panic naming both, never a short or overlapping piece.
#[test]
fn split_mut_cuts_a_flat_vector_or_says_why_not() {
    let mut theta = [1.0, 2.0, 3.0, 4.0, 5.0];
    let [a, b, c] = nilang::ad::split_mut(&mut theta, [2, 0, 3]);
    assert_eq!((a.len(), b.len(), c.len()), (2, 0, 3));
    c[0] = 30.0;
    assert_eq!(theta, [1.0, 2.0, 30.0, 4.0, 5.0]);
    for lengths in [[2, 2], [3, 3], [usize::MAX, 6]] {
        let message = std::panic::catch_unwind(|| {
            let mut v = [0.0; 5];
            let _ = nilang::ad::split_mut(&mut v, lengths);
        })
        .unwrap_err();
        let text = message.downcast_ref::<String>().unwrap();
        assert!(
            text.contains(&format!("{lengths:?}")) && text.contains("length 5"),
            "{text}"
        );
    }
}
