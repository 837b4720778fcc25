//! `inv(z)` on complex numbers (`z ← 1/z`, its own inverse up to rounding): forward values
//! against num-complex, the inverse, and its adjoint rule (`InvertComplex for GVar` in
//! `gvar.rs`) against central differences, forward mode on `Dual`, the `GVar` program and the
//! adjoint on separate buffers (`f_vjp`), on random inputs.

use nilang::ad::check_gradient;
use nilang::{i, Dual, GVar, InvertComplex, Loss, Real};
use num_complex::Complex;
use proptest::prelude::*;

/// `out += Re(w)·Im(w) + Re(w)` for `w = 1/z`; `z` is left holding `w`.
#[i]
fn reciprocal<T: Real>(out: &mut T, z: &mut Complex<T>) {
    inv(z);
    out += z.re * z.im;
    out += identity(z.re);
}

fn reciprocal_plain(x: &[f64]) -> f64 {
    let w = Complex::new(x[0], x[1]).inv();
    w.re * w.im + w.re
}

/// Points away from the pole at 0, where `1/z` is steep.
fn point() -> impl Strategy<Value = (f64, f64)> {
    (0.3f64..2.0, 0.0f64..std::f64::consts::TAU).prop_map(|(r, t)| (r * t.cos(), r * t.sin()))
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn forward_and_inverse((re, im) in point()) {
        let z0 = Complex::new(re, im);
        let (mut out, mut z) = (0.0, z0);
        reciprocal(&mut out, &mut z);
        let w = z0.inv();
        prop_assert!(close(z.re, w.re, 1e-15) && close(z.im, w.im, 1e-15), "{} vs {}", z, w);
        prop_assert!(close(out, reciprocal_plain(&[re, im]), 1e-14));
        reciprocal_inv(&mut out, &mut z);
        // `1/(1/z)` rounds twice, as `inv` on floats does
        prop_assert!(close(z.re, re, 1e-14) && close(z.im, im, 1e-14), "{} vs {}", z, z0);
        prop_assert!(out.abs() <= 1e-14);
    }

    #[test]
    fn gradient_four_ways((re, im) in point()) {
        let z0 = Complex::new(re, im);
        // the GVar program: forward on f64, then the inverse on GVars
        let (mut out, mut z) = (0.0, z0);
        reciprocal(&mut out, &mut z);
        let mut wo = GVar::with_grad(out, 1.0);
        let mut wz = Complex::new(GVar::new(z.re), GVar::new(z.im));
        reciprocal_inv(&mut wo, &mut wz);
        let gvar = [wz.re.g, wz.im.g];
        prop_assert!(close(wz.re.x, re, 1e-14) && close(wz.im.x, im, 1e-14));
        // the adjoint on separate buffers: the same rules in the same order
        let (mut out, mut z) = (0.0, z0);
        let (mut out_grad, mut z_grad) = (1.0, Complex::new(0.0, 0.0));
        reciprocal_vjp(&mut out, &mut out_grad, &mut z, &mut z_grad);
        prop_assert_eq!([z_grad.re.to_bits(), z_grad.im.to_bits()], [gvar[0].to_bits(), gvar[1].to_bits()]);
        // f_grad, and central differences of the plain-Rust reference
        let (_, g) = reciprocal_grad(Loss::arg(0), &mut 0.0, &mut z0.clone()).unwrap();
        prop_assert_eq!([g.re.g, g.im.g], gvar);
        let check = check_gradient(reciprocal_plain, &[re, im], &gvar, 1e-6, 1e-6);
        prop_assert!(check.is_ok(), "{:?}", check);
        // forward mode: the same program on dual numbers, one tangent per field
        for (k, g) in gvar.iter().enumerate() {
            let seed = |j: usize| if j == k { 1.0 } else { 0.0 };
            let mut out = Dual::constant(0.0);
            let mut z = Complex::new(Dual::new(re, seed(0)), Dual::new(im, seed(1)));
            reciprocal(&mut out, &mut z);
            prop_assert!(close(out.eps, *g, 1e-12), "{} vs {}", out.eps, g);
        }
    }

    /// The adjoint rule run twice gives value and gradient back (it is its own inverse).
    #[test]
    fn adjoint_rule_is_an_involution((re, im) in point(), (gr, gi) in (-2.0f64..2.0, -2.0f64..2.0)) {
        let (mut a, mut b) = (GVar::with_grad(re, gr), GVar::with_grad(im, gi));
        GVar::invert_complex(&mut a, &mut b);
        GVar::invert_complex(&mut a, &mut b);
        prop_assert!(close(a.x, re, 1e-14) && close(b.x, im, 1e-14));
        prop_assert!(close(a.g, gr, 1e-13) && close(b.g, gi, 1e-13), "{:?} {:?}", a, b);
    }
}
