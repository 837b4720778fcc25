//! The reversible Bessel function and its gradient run without touching the heap: ancillas
//! are locals, checks format messages only on failure.
//!
//! A counting global allocator (`support/counting.rs`) counts the allocations made by this
//! thread; the counter is per thread, so tests running concurrently in this binary do not
//! disturb it.

use nilang::special::{
    ibesselj, ibesselj_grad, ibesselj_inv, ibesselj_nocheck, ibesselj_nocheck_grad,
    ibesselj_nocheck_inv, ibesselj_terms_nocheck_vjp,
};
use nilang::{GVar, Loss};
#[path = "support/counting.rs"]
mod counting;
use counting::allocations;

#[test]
fn ibesselj_forward_inverse_and_gradient_allocate_nothing() {
    let (mut out, mut z) = (0.0f64, 1.0f64);
    assert_eq!(allocations(|| ibesselj(&mut out, 2, &mut z)), 0, "forward");
    assert!((out - 0.11490348493190048).abs() < 1e-9);
    assert_eq!(
        allocations(|| ibesselj_inv(&mut out, 2, &mut z)),
        0,
        "inverse"
    );
    assert_eq!((out, z), (0.0, 1.0));

    // gradient: forward on f64, inverse on GVar<f64>
    let grad = allocations(|| {
        let (mut out, mut z) = (0.0f64, 1.0f64);
        ibesselj(&mut out, 2, &mut z);
        let (mut gout, mut gz) = (GVar::with_grad(out, 1.0), GVar::new(z));
        ibesselj_inv(&mut gout, 2, &mut gz);
        assert!((gz.g - 0.2102436).abs() < 1e-6);
    });
    assert_eq!(grad, 0, "gradient");

    let unchecked = allocations(|| {
        let (mut out, mut z) = (0.0f64, 1.0f64);
        ibesselj_nocheck(&mut out, 2, &mut z);
        ibesselj_nocheck_inv(&mut out, 2, &mut z);
    });
    assert_eq!(unchecked, 0, "unchecked forward and inverse");

    // the counter works
    assert_eq!(allocations(|| drop(std::hint::black_box(vec![1u8; 16]))), 1);
}

/// The generated gradient functions (forward on `f64`, inverse on `GVar`) make no heap
/// allocation either: the loss is validated without formatting, and for scalar arguments the
/// returned tuple of `GVar`s lives on the stack.
#[test]
fn ibesselj_grad_allocates_nothing() {
    // the counter works
    assert_eq!(allocations(|| drop(std::hint::black_box(vec![1u8]))), 1);

    let mut result: Option<(GVar<f64>, GVar<f64>)> = None;
    let n = allocations(|| {
        let (mut out, mut z) = (0.0f64, 1.0f64);
        result = Some(ibesselj_grad(Loss::arg(0), &mut out, 2, &mut z).unwrap());
    });
    assert_eq!(n, 0, "ibesselj_grad allocated");
    let (gout, gz) = result.unwrap();
    assert_eq!((gout.x, gout.g, gz.x), (0.0, 1.0, 1.0));
    assert!((gz.g - 0.2102436).abs() < 1e-7, "{gz:?}");

    let n = allocations(|| {
        let (mut out, mut z) = (0.0f64, 1.0f64);
        result = Some(ibesselj_nocheck_grad(Loss::arg(0), &mut out, 2, &mut z).unwrap());
    });
    assert_eq!(n, 0, "ibesselj_nocheck_grad allocated");
    assert_eq!(result.unwrap().1.g, gz.g);

    // the error path allocates nothing either (the message is formatted only on display)
    let n = allocations(|| {
        let (mut out, mut z) = (0.0f64, 1.0f64);
        assert!(ibesselj_grad(Loss::elem(0, 1), &mut out, 2, &mut z).is_err());
    });
    assert_eq!(n, 0, "the rejected loss allocated");
}

/// The shadow path (`f_vjp`, `f` then `f_adjoint`) over slices the caller owns allocates
/// nothing: values and gradients stay in the caller's buffers.
#[test]
fn vector_jacobian_products_over_caller_owned_slices_allocate_nothing() {
    use nilang::blas::{i_affine_vjp, idot_vjp};
    use nilang::blas::{inorm2, inorm2_adjoint, inorm2_vjp};
    let mut x: Vec<f64> = (0..1000).map(|i| (i as f64 * 0.37).sin()).collect();
    let mut y: Vec<f64> = (0..1000).map(|i| (i as f64 * 0.11).cos()).collect();
    let (mut xg, mut yg) = (vec![0.0; 1000], vec![0.0; 1000]);
    let (mut out, mut og) = (0.0, 1.0);
    let n = allocations(|| {
        inorm2_vjp(&mut out, &mut og, &mut x, &mut xg);
    });
    assert_eq!(n, 0, "inorm2_vjp allocated");
    assert_eq!(xg[3], 2.0 * x[3]);
    let n = allocations(|| {
        inorm2(&mut out, &mut x);
        inorm2_adjoint(&mut out, &mut og, &mut x, &mut xg);
    });
    assert_eq!(n, 0, "inorm2 then inorm2_adjoint allocated");
    assert_eq!(xg[3], 4.0 * x[3]);
    let (mut out, mut og) = (0.0, 1.0);
    xg.fill(0.0);
    let n = allocations(|| {
        idot_vjp(&mut out, &mut og, &mut x, &mut xg, &mut y, &mut yg);
    });
    assert_eq!(n, 0, "idot_vjp allocated");
    assert_eq!((xg[7], yg[7]), (y[7], x[7]));
    let (mut w, mut wg) = (vec![0.5; 6], vec![0.0; 6]);
    let (mut b, mut bg) = (vec![0.1; 2], vec![0.0; 2]);
    let (mut v, mut vg) = (vec![1.0, 2.0, 3.0], vec![0.0; 3]);
    let (mut r, mut rg) = (vec![0.0; 2], vec![1.0, -1.0]);
    let n = allocations(|| {
        i_affine_vjp(
            &mut r, &mut rg, &mut w, &mut wg, &mut b, &mut bg, &mut v, &mut vg,
        )
    });
    assert_eq!(n, 0, "i_affine_vjp allocated");
    assert_eq!(wg, vec![1.0, 2.0, 3.0, -1.0, -2.0, -3.0]);
}

#[test]
fn ibesselj_terms_gradient_allocates_nothing() {
    let mut zg = 0.0;
    let n = allocations(|| {
        let (mut out, mut z, mut og) = (0.0f64, 1.0f64, 1.0f64);
        ibesselj_terms_nocheck_vjp(&mut out, &mut og, 2, (), &mut z, &mut zg);
    });
    assert_eq!(n, 0);
    assert!((zg - 0.2102436).abs() < 1e-6, "{zg}");
}
