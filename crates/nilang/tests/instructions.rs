//! The instructions NiLang.jl has beyond the papers' table: `flip` (FLIP), `inv` (INV),
//! `hadamard` (HADAMARD) and constant add/subtract (AddConst/SubConst, written `x += c`). Each
//! one's forward against its definition, its inverse, and its adjoint: the shadow adjoint
//! (`f_vjp`) against the inverse program on `GVar`s and against central differences, on random
//! inputs.

use nilang::ad::check_gradient;
use nilang::numbers::{QLog, Tropical, ULog};
use nilang::{i, Acc1, GVar, Real};
use num_complex::Complex;
use proptest::prelude::*;

// ---------- flip ----------

#[i]
fn toggle(b: &mut bool, flags: &mut [bool]) {
    flip(b);
    for k in 0..flags.len() {
        flip(flags[k]);
    }
}

/// A bool flipped in a differentiable function chooses the branch: `y += sin x` after an odd
/// number of flips of `false`, else `y += cos x`.
#[i]
fn choose<T: Real>(y: &mut T, x: &mut T, b: &mut bool) {
    flip(b);
    if *b {
        y += sin(x);
    } else {
        y += cos(x);
    }
}

// ---------- inv ----------

/// `x ← 1/x`, then `y += x²` (so `y += 1/x²` with x left inverted).
#[i]
fn reciprocal<T: Real>(y: &mut T, x: &mut T) {
    inv(x);
    y += square(x);
}

/// `out += 1/x` for `x > 0`, by a logarithmic number: `inv` on a `ULog` is exact.
#[i]
fn ulog_reciprocal<T: Real>(out: &mut T, x: &mut T)
where
    T: Acc1<QLog>,
{
    let lx = ULog::<T>::one();
    routine! {
        lx.ln += QLog(x);
        inv(lx);
    }
    out += exp(lx.ln);
    uncompute!();
    dealloc!(lx = ULog::<T>::one());
}

#[i]
fn ulog_inv(x: &mut ULog<f64>) {
    inv(x);
}

#[i]
fn tropical_inv(x: &mut Tropical<f64>, n: &mut Tropical<i64>) {
    inv(x);
    inv(n);
}

// ---------- hadamard ----------

#[i]
fn hadamard_pair<T: Real>(a: &mut T, b: &mut T) {
    hadamard(a, b);
}

/// Two Hadamard transforms around a nonlinearity, so the gradient mixes both rules.
#[i]
fn hadamard_mix<T: Real>(y: &mut T, a: &mut T, b: &mut T) {
    hadamard(a, b);
    y += a * b;
    hadamard(a, b);
}

#[i]
fn hadamard_complex<T: Real>(a: &mut Complex<T>, b: &mut Complex<T>) {
    hadamard(a, b);
}

// ---------- constant add and subtract ----------

#[i]
fn shifts<T: Real>(x: &mut T, n: &mut i64, z: &mut Complex<T>) {
    x += 2.5;
    x -= 0.25;
    n += 3;
    n -= 1;
    z += 1.5;
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * 1f64.max(a.abs()).max(b.abs())
}

#[test]
fn flip_negates_booleans_and_undoes_itself() {
    let (mut b, mut flags) = (false, vec![true, false, true]);
    toggle(&mut b, &mut flags);
    assert_eq!((b, flags.clone()), (true, vec![false, true, false]));
    toggle_inv(&mut b, &mut flags);
    assert_eq!((b, flags), (false, vec![true, false, true]));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn flip_chooses_a_branch_with_its_gradient(x0 in -3.0f64..3.0, b0: bool) {
        let (mut y, mut x, mut b) = (0.0, x0, b0);
        choose(&mut y, &mut x, &mut b);
        prop_assert_eq!(b, !b0);
        prop_assert_eq!(y, if !b0 { x0.sin() } else { x0.cos() });
        choose_inv(&mut y, &mut x, &mut b);
        prop_assert_eq!((y, x, b), (0.0, x0, b0));
        // f_vjp, the GVar inverse and the derivative
        let (mut y, mut x, mut b) = (0.0, x0, b0);
        let (mut y_grad, mut x_grad, mut b_grad) = (1.0, 0.0, false);
        choose_vjp(&mut y, &mut y_grad, &mut x, &mut x_grad, &mut b, &mut b_grad);
        let want = if !b0 { x0.cos() } else { -x0.sin() };
        prop_assert!(close(x_grad, want, 1e-15));
        let (mut gy, mut gx, mut b) = (GVar::with_grad(want_value(x0, b0), 1.0), GVar::new(x0), !b0);
        choose_inv(&mut gy, &mut gx, &mut b);
        prop_assert_eq!(gx.g, x_grad);
    }

    #[test]
    fn inv_inverts_and_its_adjoint_is_minus_the_square(x0 in 0.2f64..4.0, sign: bool, y0 in -1.0f64..1.0) {
        let x0 = if sign { x0 } else { -x0 };
        let (mut y, mut x) = (y0, x0);
        reciprocal(&mut y, &mut x);
        prop_assert_eq!(x, 1.0 / x0);
        prop_assert_eq!(y, y0 + (1.0 / x0) * (1.0 / x0));
        reciprocal_inv(&mut y, &mut x);
        prop_assert!(close(x, x0, 1e-15) && close(y, y0, 1e-14));
        // the loss y + 3x at the outputs: ∂/∂x₀ = −2/x₀³ − 3/x₀²
        let (mut y, mut x) = (y0, x0);
        let (mut y_grad, mut x_grad) = (1.0, 3.0);
        reciprocal_vjp(&mut y, &mut y_grad, &mut x, &mut x_grad);
        let want = -2.0 / x0.powi(3) - 3.0 / (x0 * x0);
        prop_assert!(close(x_grad, want, 1e-13), "{} vs {}", x_grad, want);
        prop_assert!(close(x, x0, 1e-15));
        let (mut y, mut x) = (y0, x0);
        reciprocal(&mut y, &mut x);
        let (mut gy, mut gx) = (GVar::with_grad(y, 1.0), GVar::with_grad(x, 3.0));
        reciprocal_inv(&mut gy, &mut gx);
        prop_assert!(close(gx.g, x_grad, 1e-14));
        let loss = |p: &[f64]| {
            let (mut y, mut x) = (y0, p[0]);
            reciprocal(&mut y, &mut x);
            y + 3.0 * x
        };
        prop_assert!(check_gradient(loss, &[x0], &[x_grad], 1e-6, 1e-6).is_ok());
    }

    #[test]
    fn inv_on_logarithmic_numbers_is_exact(x0 in 1e-3f64..1e3) {
        let mut x = ULog::new(x0);
        let before = x;
        ulog_inv(&mut x);
        prop_assert_eq!(x.ln, -before.ln);
        ulog_inv_inv(&mut x);
        prop_assert_eq!(x, before);
        // through a ULog ancilla: out += 1/x, gradient −1/x²
        let (mut out, mut xv) = (0.0, x0);
        ulog_reciprocal(&mut out, &mut xv);
        prop_assert!(close(out, 1.0 / x0, 1e-12));
        ulog_reciprocal_inv(&mut out, &mut xv);
        prop_assert_eq!((out, xv), (0.0, x0));
        let (mut out, mut xv) = (0.0, x0);
        let (mut out_grad, mut x_grad) = (1.0, 0.0);
        ulog_reciprocal_vjp(&mut out, &mut out_grad, &mut xv, &mut x_grad);
        prop_assert!(close(x_grad, -1.0 / (x0 * x0), 1e-11));
        let (mut out, mut xv) = (0.0, x0);
        ulog_reciprocal(&mut out, &mut xv);
        let (mut go, mut gx) = (GVar::with_grad(out, 1.0), GVar::new(xv));
        ulog_reciprocal_inv(&mut go, &mut gx);
        prop_assert!(close(gx.g, x_grad, 1e-14));
    }

    #[test]
    fn inv_on_tropical_numbers_negates(x0 in -5.0f64..5.0, n0 in -100i64..100) {
        let (mut x, mut n) = (Tropical(x0), Tropical(n0));
        tropical_inv(&mut x, &mut n);
        prop_assert_eq!((x.0, n.0), (-x0, -n0));
        tropical_inv_inv(&mut x, &mut n);
        prop_assert_eq!((x.0, n.0), (x0, n0));
    }

    #[test]
    fn hadamard_transforms_pairs_and_gradients(a0 in -3.0f64..3.0, b0 in -3.0f64..3.0, y0 in -1.0f64..1.0) {
        let s = std::f64::consts::FRAC_1_SQRT_2;
        let (mut a, mut b) = (a0, b0);
        hadamard_pair(&mut a, &mut b);
        prop_assert_eq!((a, b), ((a0 + b0) * s, (a0 - b0) * s));
        hadamard_pair_inv(&mut a, &mut b);
        prop_assert!(close(a, a0, 1e-15) && close(b, b0, 1e-15));
        // y += ((a+b)/√2)((a−b)/√2) = (a² − b²)/2: ∂/∂a = a, ∂/∂b = −b
        let (mut y, mut a, mut b) = (y0, a0, b0);
        hadamard_mix(&mut y, &mut a, &mut b);
        prop_assert!(close(y, y0 + (a0 * a0 - b0 * b0) / 2.0, 1e-14));
        prop_assert!(close(a, a0, 1e-15) && close(b, b0, 1e-15));
        let (mut y, mut a, mut b) = (y0, a0, b0);
        let (mut yg, mut ag, mut bg) = (1.0, 0.0, 0.0);
        hadamard_mix_vjp(&mut y, &mut yg, &mut a, &mut ag, &mut b, &mut bg);
        prop_assert!(close(ag, a0, 1e-14) && close(bg, -b0, 1e-14), "{} {}", ag, bg);
        let (mut y, mut a, mut b) = (y0, a0, b0);
        hadamard_mix(&mut y, &mut a, &mut b);
        let (mut gy, mut ga, mut gb) = (GVar::with_grad(y, 1.0), GVar::new(a), GVar::new(b));
        hadamard_mix_inv(&mut gy, &mut ga, &mut gb);
        prop_assert!(close(ga.g, ag, 1e-15) && close(gb.g, bg, 1e-15));
        let loss = |p: &[f64]| {
            let (mut y, mut a, mut b) = (0.0, p[0], p[1]);
            hadamard_mix(&mut y, &mut a, &mut b);
            y
        };
        prop_assert!(check_gradient(loss, &[a0, b0], &[ag, bg], 1e-6, 1e-7).is_ok());
        // the gradient of a lone transform is the transform of the seed
        let (mut a, mut b) = (a0, b0);
        let (mut ag, mut bg) = (1.0, 0.0);
        hadamard_pair_vjp(&mut a, &mut ag, &mut b, &mut bg);
        prop_assert_eq!((ag, bg), (s, s));
    }

    #[test]
    fn hadamard_on_complex_numbers_acts_on_both_parts(z in prop::array::uniform4(-3.0f64..3.0)) {
        let s = std::f64::consts::FRAC_1_SQRT_2;
        let (a0, b0) = (Complex::new(z[0], z[1]), Complex::new(z[2], z[3]));
        let (mut a, mut b) = (a0, b0);
        hadamard_complex(&mut a, &mut b);
        prop_assert_eq!((a, b), ((a0 + b0) * s, (a0 - b0) * s));
        hadamard_complex_inv(&mut a, &mut b);
        // two roundings of sums of both inputs per part: a few ulps of the larger input
        let tolerance = 8.0 * f64::EPSILON * (a0.norm() + b0.norm());
        prop_assert!((a - a0).norm() <= tolerance && (b - b0).norm() <= tolerance);
    }

    #[test]
    fn constants_add_and_subtract(x0 in -3.0f64..3.0, n0 in -100i64..100, z0 in prop::array::uniform2(-3.0f64..3.0)) {
        let z0 = Complex::new(z0[0], z0[1]);
        let (mut x, mut n, mut z) = (x0, n0, z0);
        shifts(&mut x, &mut n, &mut z);
        prop_assert_eq!((x, n, z), (x0 + 2.5 - 0.25, n0 + 2, Complex::new(z0.re + 1.5, z0.im)));
        shifts_inv(&mut x, &mut n, &mut z);
        prop_assert!(close(x, x0, 1e-15) && n == n0 && (z - z0).norm() < 1e-15);
        // a constant shift passes the gradient through unchanged
        let (mut x, mut n, mut z) = (x0, n0, z0);
        let (mut xg, mut ng, mut zg) = (1.5, 0i64, Complex::new(2.0, -1.0));
        shifts_vjp(&mut x, &mut xg, &mut n, &mut ng, &mut z, &mut zg);
        prop_assert_eq!((xg, zg), (1.5, Complex::new(2.0, -1.0)));
        let (mut x, mut n, mut z) = (x0, n0, z0);
        shifts(&mut x, &mut n, &mut z);
        let mut gx = GVar::with_grad(x, 1.5);
        let mut gz = Complex::new(GVar::with_grad(z.re, 2.0), GVar::with_grad(z.im, -1.0));
        shifts_inv(&mut gx, &mut n, &mut gz);
        prop_assert_eq!((gx.g, gz.re.g, gz.im.g), (1.5, 2.0, -1.0));
        prop_assert!(close(gx.x, x0, 1e-15));
    }
}

/// `choose`'s output from zero: `sin x` when `b` was false (flipped to true), else `cos x`.
fn want_value(x: f64, b: bool) -> f64 {
    if !b {
        x.sin()
    } else {
        x.cos()
    }
}

// ---------- copies on a stack ----------

/// `s` receives a copy of `x`, and `y += x²`: a loss `y + 3·s[0]` has `∂/∂x = 2x + 3`.
#[i]
fn copy_and_square<T: Real>(y: &mut T, s: &mut Vec<T>, x: &mut T) {
    push_copy!(s, x);
    y += square(x);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// The adjoint of `push_copy!` hands the copy's gradient back to the value, in both AD
    /// modes (both dropped it before).
    #[test]
    fn a_copy_pushed_on_a_stack_passes_its_gradient_back(x0 in -3.0f64..3.0) {
        let (mut y, mut s, mut x) = (0.0, Vec::new(), x0);
        copy_and_square(&mut y, &mut s, &mut x);
        prop_assert_eq!(&s, &vec![x0]);
        let (mut y_grad, mut s_grad, mut x_grad) = (1.0, vec![3.0], 0.0);
        copy_and_square_adjoint(&mut y, &mut y_grad, &mut s, &mut s_grad, &mut x, &mut x_grad);
        prop_assert!(s.is_empty() && s_grad.is_empty());
        prop_assert!(close(x_grad, 2.0 * x0 + 3.0, 1e-15), "{}", x_grad);
        let (mut y, mut s, mut x) = (0.0, Vec::new(), x0);
        copy_and_square(&mut y, &mut s, &mut x);
        let mut gy = GVar::with_grad(y, 1.0);
        let mut gs = vec![GVar::with_grad(s[0], 3.0)];
        let mut gx = GVar::new(x);
        copy_and_square_inv(&mut gy, &mut gs, &mut gx);
        prop_assert_eq!(gx.g, x_grad);
        let loss = |p: &[f64]| {
            let (mut y, mut s, mut x) = (0.0, Vec::new(), p[0]);
            copy_and_square(&mut y, &mut s, &mut x);
            y + 3.0 * s[0]
        };
        prop_assert!(check_gradient(loss, &[x0], &[x_grad], 1e-6, 1e-7).is_ok());
    }
}

// ---------- complex powers, and the modulus into a real target ----------

#[i]
fn complex_power<T: Real>(y: &mut Complex<T>, a: &mut Complex<T>, b: &mut Complex<T>) {
    y += pow(a, b);
}

/// `r += |z|` and `s += |z|²` through the fields (NiLang's `abs` and `abs2` of a complex value).
#[i]
fn complex_moduli<T: Real>(r: &mut T, s: &mut T, z: &mut Complex<T>) {
    r += hypot(z.re, z.im);
    s += square(z.re);
    s += square(z.im);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn complex_pow_is_powc_with_its_gradient(v in prop::array::uniform6(-2.0f64..2.0)) {
        let (y0, a0, b0) = (Complex::new(v[0], v[1]), Complex::new(v[2], v[3]), Complex::new(v[4], v[5]));
        prop_assume!(a0.norm() > 0.3 && a0.im.abs() > 1e-3); // off the branch cut of log
        let (mut y, mut a, mut b) = (y0, a0, b0);
        complex_power(&mut y, &mut a, &mut b);
        prop_assert!((y - (y0 + a0.powc(b0))).norm() <= 1e-13 * (1.0 + y.norm()));
        complex_power_inv(&mut y, &mut a, &mut b);
        prop_assert!((y - y0).norm() < 1e-12 && a == a0 && b == b0);
        // the loss Re(y) + 2 Im(y): its gradient by f_vjp, the GVar inverse and differences
        let (mut y, mut a, mut b) = (y0, a0, b0);
        let (mut yg, mut ag, mut bg) = (Complex::new(1.0, 2.0), Complex::new(0.0, 0.0), Complex::new(0.0, 0.0));
        complex_power_vjp(&mut y, &mut yg, &mut a, &mut ag, &mut b, &mut bg);
        let (mut y, mut a, mut b) = (y0, a0, b0);
        complex_power(&mut y, &mut a, &mut b);
        let pair = |z: Complex<f64>, g: Complex<f64>| Complex::new(GVar::with_grad(z.re, g.re), GVar::with_grad(z.im, g.im));
        let (mut gy, mut ga, mut gb) = (pair(y, Complex::new(1.0, 2.0)), pair(a, Complex::new(0.0, 0.0)), pair(b, Complex::new(0.0, 0.0)));
        complex_power_inv(&mut gy, &mut ga, &mut gb);
        let grads = [ag.re, ag.im, bg.re, bg.im];
        let gvar = [ga.re.g, ga.im.g, gb.re.g, gb.im.g];
        for (x, w) in grads.iter().zip(gvar) {
            prop_assert!(close(*x, w, 1e-12), "{:?} vs {:?}", grads, gvar);
        }
        let loss = |p: &[f64]| {
            let (mut y, mut a, mut b) = (y0, Complex::new(p[0], p[1]), Complex::new(p[2], p[3]));
            complex_power(&mut y, &mut a, &mut b);
            y.re + 2.0 * y.im
        };
        prop_assert!(check_gradient(loss, &[v[2], v[3], v[4], v[5]], &grads, 1e-6, 1e-6).is_ok());
    }

    #[test]
    fn complex_moduli_into_real_targets(z in prop::array::uniform2(-2.0f64..2.0)) {
        let z0 = Complex::new(z[0], z[1]);
        prop_assume!(z0.norm() > 1e-3);
        let (mut r, mut s, mut zz) = (0.0, 0.0, z0);
        complex_moduli(&mut r, &mut s, &mut zz);
        prop_assert!(close(r, z0.norm(), 1e-15) && close(s, z0.norm_sqr(), 1e-15));
        let (mut r, mut s, mut zz) = (0.0, 0.0, z0);
        let (mut rg, mut sg, mut zg) = (1.0, 1.0, Complex::new(0.0, 0.0));
        complex_moduli_vjp(&mut r, &mut rg, &mut s, &mut sg, &mut zz, &mut zg);
        // ∂(|z| + |z|²)/∂(re, im) = (re, im)/|z| + 2 (re, im)
        let want = z0 / z0.norm() + z0 * 2.0;
        prop_assert!(close(zg.re, want.re, 1e-14) && close(zg.im, want.im, 1e-14));
    }
}

// ---------- logarithmic numbers: products with sums and differences ----------

use nilang::numbers::{QLogAddExp, QLogSubExp};

#[i]
fn ulog_sum_product(y: &mut ULog<f64>, a: &mut ULog<f64>, b: &mut ULog<f64>) {
    y *= a + b;
    y *= a - b;
}

/// `out += x + z` and `out2 += x − z` for `x > z > 0`, through logarithmic numbers.
#[i]
fn ulog_sum_and_difference<T: Real>(out: &mut T, out2: &mut T, x: &mut T, z: &mut T)
where
    T: Acc1<QLog> + nilang::Acc2<QLogAddExp> + nilang::Acc2<QLogSubExp>,
{
    let (lx, lz) = (ULog::<T>::one(), ULog::<T>::one());
    let (ls, ld) = (ULog::<T>::one(), ULog::<T>::one());
    routine! {
        lx.ln += QLog(x);
        lz.ln += QLog(z);
        ls *= lx + lz;
        ld *= lx - lz;
    }
    out += exp(ls.ln);
    out2 += exp(ld.ln);
    uncompute!();
    dealloc!(
        (lx, lz) = (ULog::<T>::one(), ULog::<T>::one()),
        (ls, ld) = (ULog::<T>::one(), ULog::<T>::one())
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn ulog_times_a_sum_or_difference_is_exactly_undone(y0 in 0.01f64..100.0, a0 in 0.01f64..100.0, b0 in 0.01f64..100.0) {
        prop_assume!((a0 - b0).abs() > 1e-6 * a0.max(b0));
        let (a0, b0) = (a0.max(b0), a0.min(b0));
        let (mut y, mut a, mut b) = (ULog::new(y0), ULog::new(a0), ULog::new(b0));
        let before = (y, a, b);
        ulog_sum_product(&mut y, &mut a, &mut b);
        let want = before.0.to_f64() * (a.to_f64() + b.to_f64()) * (a.to_f64() - b.to_f64());
        prop_assert!(close(y.to_f64(), want, 1e-9), "{} vs {}", y.to_f64(), want);
        ulog_sum_product_inv(&mut y, &mut a, &mut b);
        prop_assert_eq!((y, a, b), before); // bit for bit
    }

    #[test]
    fn ulog_sums_and_differences_have_gradients(x0 in 0.1f64..10.0, z0 in 0.1f64..10.0) {
        prop_assume!((x0 - z0).abs() > 0.05);
        let (x0, z0) = (x0.max(z0), x0.min(z0));
        let (mut o, mut o2, mut x, mut z) = (0.0, 0.0, x0, z0);
        ulog_sum_and_difference(&mut o, &mut o2, &mut x, &mut z);
        prop_assert!(close(o, x0 + z0, 1e-11) && close(o2, x0 - z0, 1e-11), "{} {}", o, o2);
        ulog_sum_and_difference_inv(&mut o, &mut o2, &mut x, &mut z);
        prop_assert!(o.abs() < 1e-12 && o2.abs() < 1e-12 && (x, z) == (x0, z0));
        // the loss out + 3·out2 = 4x − 2z
        let (mut o, mut o2, mut x, mut z) = (0.0, 0.0, x0, z0);
        let (mut og, mut o2g, mut xg, mut zg) = (1.0, 3.0, 0.0, 0.0);
        ulog_sum_and_difference_vjp(&mut o, &mut og, &mut o2, &mut o2g, &mut x, &mut xg, &mut z, &mut zg);
        prop_assert!(close(xg, 4.0, 1e-9) && close(zg, -2.0, 1e-9), "{} {}", xg, zg);
        let (mut o, mut o2, mut x, mut z) = (0.0, 0.0, x0, z0);
        ulog_sum_and_difference(&mut o, &mut o2, &mut x, &mut z);
        let (mut go, mut go2, mut gx, mut gz) = (GVar::with_grad(o, 1.0), GVar::with_grad(o2, 3.0), GVar::new(x), GVar::new(z));
        ulog_sum_and_difference_inv(&mut go, &mut go2, &mut gx, &mut gz);
        prop_assert!(close(gx.g, xg, 1e-12) && close(gz.g, zg, 1e-12));
    }
}

#[test]
fn ulog_difference_needs_a_larger_first_operand() {
    let (mut y, mut a, mut b) = (ULog::new(1.0), ULog::new(2.0), ULog::new(3.0));
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        ulog_sum_product(&mut y, &mut a, &mut b)
    }));
    let msg = *err.unwrap_err().downcast::<String>().unwrap();
    assert!(msg.contains("needs a > b"), "{msg}");
}
