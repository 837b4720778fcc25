//! `abs`, `abs2` and `angle` of a complex operand accumulated into a real target
//! (`r += abs(z)`, NiLang's `abs`, `abs2`, `angle` on `Complex`): forward values against
//! num-complex, the inverse program, and gradients (`f_grad`, `f_vjp`, forward mode on `Dual`)
//! against central differences of the plain-Rust reference, on random inputs; nested complex
//! operands under `expand` (`r += abs(a * b)`); the same names on real operands.

use nilang::ad::check_gradient;
use nilang::{i, Dual, Loss, Real};
use num_complex::Complex;
use proptest::prelude::*;

/// `out += |z|`, `out -= |z|²` (the inverse instruction), `out += 2·arg z`.
#[i]
fn moduli<T: Real>(out: &mut T, z: &mut Complex<T>) {
    out += abs(z);
    out -= abs2(z);
    out += angle(z);
    out += angle(z);
}

fn moduli_plain(x: &[f64]) -> f64 {
    let z = Complex::new(x[0], x[1]);
    z.norm() - z.norm_sqr() + 2.0 * z.arg()
}

/// `out += |a·b| + arg(a − b) + |a + b|²`, each nested operand computed into a complex
/// ancilla by `expand`.
#[i(expand)]
fn nested<T: Real>(out: &mut T, a: &mut Complex<T>, b: &mut Complex<T>) {
    out += abs(a * b);
    out += angle(a - b);
    out += abs2(a + b);
}

fn nested_plain(x: &[f64]) -> f64 {
    let (a, b) = (Complex::new(x[0], x[1]), Complex::new(x[2], x[3]));
    (a * b).norm() + (a - b).arg() + (a + b).norm_sqr()
}

/// Points away from 0 (where `|z|` is not differentiable) and from the negative real axis
/// (where `arg` jumps from π to −π).
fn point() -> impl Strategy<Value = Complex<f64>> {
    (0.3f64..2.0, -2.8f64..2.8).prop_map(|(r, t)| Complex::from_polar(r, t))
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn forward_and_inverse(z0 in point(), start in -1.0f64..1.0) {
        let (mut out, mut z) = (start, z0);
        moduli(&mut out, &mut z);
        prop_assert!(close(out, start + moduli_plain(&[z0.re, z0.im]), 1e-14));
        prop_assert_eq!(z, z0); // an operand is read, not changed
        moduli_inv(&mut out, &mut z);
        prop_assert!(close(out, start, 1e-14), "{} vs {}", out, start);
        prop_assert_eq!(z, z0);
    }

    #[test]
    fn gradients(z0 in point()) {
        let x = [z0.re, z0.im];
        let (_, g) = moduli_grad(Loss::arg(0), &mut 0.0, &mut z0.clone()).unwrap();
        let grad = [g.re.g, g.im.g];
        prop_assert_eq!((g.re.x, g.im.x), (z0.re, z0.im)); // the input, restored
        let check = check_gradient(moduli_plain, &x, &grad, 1e-6, 1e-6);
        prop_assert!(check.is_ok(), "{:?}", check);
        // the adjoint on the caller's buffers: the same rules, the same bits
        let (mut out, mut out_grad, mut z, mut z_grad) = (0.0, 1.0, z0, Complex::new(0.0, 0.0));
        moduli_vjp(&mut out, &mut out_grad, &mut z, &mut z_grad);
        prop_assert_eq!([z_grad.re, z_grad.im], grad);
        // forward mode: the program on dual numbers, one tangent per field
        for (k, g) in grad.iter().enumerate() {
            let seed = |j: usize| if j == k { 1.0 } else { 0.0 };
            let mut out = Dual::constant(0.0);
            let mut z = Complex::new(Dual::new(z0.re, seed(0)), Dual::new(z0.im, seed(1)));
            moduli(&mut out, &mut z);
            prop_assert!(close(out.eps, *g, 1e-12), "{} vs {}", out.eps, g);
        }
    }

    #[test]
    fn nested_operands(a in point(), b in point()) {
        prop_assume!((a - b).norm() > 0.3 && (a - b).arg().abs() < 2.8);
        let x = [a.re, a.im, b.re, b.im];
        let (mut out, mut aa, mut bb) = (0.0, a, b);
        nested(&mut out, &mut aa, &mut bb);
        prop_assert!(close(out, nested_plain(&x), 1e-13), "{} vs {}", out, nested_plain(&x));
        nested_inv(&mut out, &mut aa, &mut bb);
        prop_assert!(out.abs() < 1e-13 && (aa, bb) == (a, b));
        let (_, ga, gb) = nested_grad(Loss::arg(0), &mut 0.0, &mut a.clone(), &mut b.clone()).unwrap();
        let grad = [ga.re.g, ga.im.g, gb.re.g, gb.im.g];
        let check = check_gradient(nested_plain, &x, &grad, 1e-6, 1e-6);
        prop_assert!(check.is_ok(), "{:?}", check);
    }
}

/// The Hessian of `|z|²` is twice the identity; of `arg z`, `[[2xy, y² − x²], [y² − x², −2xy]]/|z|⁴`.
#[test]
fn hessians() {
    #[i]
    fn power<T: Real>(out: &mut T, z: &mut Complex<T>) {
        out += abs2(z);
    }
    let h = power_hessian(Loss::arg(0), &mut 0.0, &mut Complex::new(0.7, -1.2)).unwrap();
    assert_eq!((h.rows, h.cols), (3, 3)); // out, z.re, z.im
    assert_eq!(
        [h[(1, 1)], h[(1, 2)], h[(2, 1)], h[(2, 2)]],
        [2.0, 0.0, 0.0, 2.0]
    );

    #[i]
    fn argument<T: Real>(out: &mut T, z: &mut Complex<T>) {
        out += angle(z);
    }
    let (x, y) = (0.7f64, -1.2f64);
    let h = argument_hessian(Loss::arg(0), &mut 0.0, &mut Complex::new(x, y)).unwrap();
    let r4 = (x * x + y * y).powi(2);
    let want = [2.0 * x * y / r4, (y * y - x * x) / r4, -2.0 * x * y / r4];
    let got = [h[(1, 1)], h[(1, 2)], h[(2, 2)]];
    for (g, w) in got.iter().zip(want) {
        assert!(close(*g, w, 1e-12), "{got:?} vs {want:?}");
    }
}

/// On a real operand the same names are the table's rows: `abs2(x) = x²`, `angle(x)` is π
/// for negative `x` and 0 otherwise, with derivative 0.
#[test]
fn real_operands() {
    #[i]
    fn real<T: Real>(out: &mut T, x: &mut T) {
        out += abs2(x);
        out += angle(x);
        out += abs(x);
    }
    for x0 in [-1.5, 0.5, 2.0] {
        let (mut out, mut x) = (0.0, x0);
        real(&mut out, &mut x);
        let want = x0 * x0 + Complex::new(x0, 0.0).arg() + f64::abs(x0);
        assert_eq!(out, want);
        real_inv(&mut out, &mut x);
        assert_eq!(out, 0.0);
        let (_, g) = real_grad(Loss::arg(0), &mut 0.0, &mut x0.clone()).unwrap();
        assert_eq!(g.g, 2.0 * x0 + x0.signum());
    }
}

/// `|z|` and `arg z` have no derivative at 0 (`hypot` and `atan2` at the origin): a checked
/// gradient names the statement; `|z|²` has one.
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn singular_at_zero() {
    #[i]
    fn modulus<T: Real>(out: &mut T, z: &mut Complex<T>) {
        out += abs(z);
    }
    #[i]
    fn argument<T: Real>(out: &mut T, z: &mut Complex<T>) {
        out += angle(z);
    }
    #[i]
    fn power<T: Real>(out: &mut T, z: &mut Complex<T>) {
        out += abs2(z);
    }
    let zero = Complex::new(0.0, 0.0);
    let err =
        nilang::catch(|| modulus_grad(Loss::arg(0), &mut 0.0, &mut zero.clone())).unwrap_err();
    // the adjoint runs the inverse program: the statement as it stands there
    assert_eq!(
        (err.kind, err.statement),
        (nilang::CheckKind::NonFinite, "out -= abs(z);")
    );
    let err =
        nilang::catch(|| argument_grad(Loss::arg(0), &mut 0.0, &mut zero.clone())).unwrap_err();
    assert_eq!(err.kind, nilang::CheckKind::NonFinite);
    let (_, g) = power_grad(Loss::arg(0), &mut 0.0, &mut zero.clone()).unwrap();
    assert_eq!((g.re.g, g.im.g), (0.0, 0.0));
}
