//! Verification of reverse-mode AD by running the inverse program (issue 3).
//!
//! Every primitive and every instruction is a tiny `#[i]` function on a flat state; its
//! Jacobian by reversal (`f_jacobian`, one reverse sweep of `f_inv` on `GVar` per output) is
//! compared with central finite differences (Richardson-extrapolated, to 1e-8 relative) and with
//! forward-mode `nilang::Dual` numbers run through the forward program (to ~1e-14), at random
//! points of a domain where the function is smooth (proptest). Then: the papers' values (Bessel,
//! exp, complex log), Hessians against `num-dual`, Hessian–vector products with `DualN`, the
//! Jacobian layout, `NoGrad`, user primitives, `GradError`, integer arguments, reversibility of
//! the gradient program itself, gradients dropped on deallocated ancillas, and the
//! `check_gradient` / `numeric_gradient` API.

#![allow(dead_code)]

use nilang::ad::{check_gradient, numeric_gradient, GradientMismatch};
use nilang::special::{ibesselj, ibesselj_grad, ibesselj_hessian, iexp, iexp_grad};
use nilang::{i, Dual, DualN, Float, GVar, GradError, Loss, Matrix, NoGrad, Real, Unary};
use num_complex::Complex;
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------
// harness

/// Jacobian of a state map `s ← f(s)` by central differences with one Richardson step
/// (`(4 D(h/2) − D(h)) / 3`, error O(h⁴)), `h = 1e-3 · max(1, |sⱼ|)`.
fn fd_jacobian(f: &dyn Fn(&mut [f64]), x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    let central = |j: usize, h: f64| -> Vec<f64> {
        let (mut p, mut m) = (x.to_vec(), x.to_vec());
        p[j] += h;
        m[j] -= h;
        let step = p[j] - m[j];
        f(&mut p);
        f(&mut m);
        p.iter().zip(&m).map(|(a, b)| (a - b) / step).collect()
    };
    let mut jac = vec![vec![0.0; n]; n];
    for j in 0..n {
        let h = 1e-3 * x[j].abs().max(1.0);
        let (d1, d2) = (central(j, h), central(j, h / 2.0));
        for i in 0..n {
            jac[i][j] = (4.0 * d2[i] - d1[i]) / 3.0;
        }
    }
    jac
}

/// Jacobian of a state map by forward-mode dual numbers: one pass per input column.
fn dual_jacobian(f: &dyn Fn(&mut [Dual<f64>]), x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    let mut jac = vec![vec![0.0; n]; n];
    for j in 0..n {
        let mut s: Vec<Dual<f64>> = x
            .iter()
            .enumerate()
            .map(|(k, &v)| Dual::new(v, if k == j { 1.0 } else { 0.0 }))
            .collect();
        f(&mut s);
        for i in 0..n {
            jac[i][j] = s[i].eps;
        }
    }
    jac
}

/// `|got − want| ≤ rtol · max(|want|, floor)` entry by entry.
fn assert_close(what: &str, got: &[Vec<f64>], want: &[Vec<f64>], rtol: f64, floor: f64) {
    assert_eq!(got.len(), want.len(), "{what}: row count");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.len(), w.len(), "{what}: column count");
        for (j, (&a, &b)) in g.iter().zip(w).enumerate() {
            assert!(
                (a - b).abs() <= rtol * b.abs().max(floor) && a.is_finite(),
                "{what}: J[{i}][{j}] = {a:e}, expected {b:e} (diff {:e})\n got  {got:?}\n want {want:?}",
                (a - b).abs()
            );
        }
    }
}

/// Reversal Jacobian vs central differences (1e-8 relative) and vs forward duals (1e-14).
/// Also checks that the arguments are left holding the forward program's outputs.
fn check_instruction(
    name: &str,
    x: &[f64],
    run: &dyn Fn(&mut [f64]),
    run_dual: &dyn Fn(&mut [Dual<f64>]),
    reversal: &dyn Fn(&mut [f64]) -> Matrix<f64>,
) {
    let mut s = x.to_vec();
    let rev = reversal(&mut s).to_rows();
    let mut out = x.to_vec();
    run(&mut out);
    assert_eq!(
        s, out,
        "{name}: arguments after the Jacobian are the outputs"
    );
    let fd = fd_jacobian(run, x);
    let dual = dual_jacobian(run_dual, x);
    assert_close(
        &format!("{name} reversal vs differences"),
        &rev,
        &fd,
        1e-8,
        1e-3,
    );
    assert_close(&format!("{name} reversal vs dual"), &rev, &dual, 1e-14, 1.0);
}

// ---------------------------------------------------------------------------------------
// every primitive, with `+=` and `-=`

/// For each primitive: `s[0] ±= f(s[1])` (or `f(s[1], s[2])`) in a module of its own, and a
/// proptest over its smooth domain comparing the three Jacobians and the `_grad` row.
macro_rules! unary_cases {
    ($($module:ident: $prim:ident in $lo:literal .. $hi:literal;)*) => {$(
        mod $module {
            use nilang::{i, Real};
            #[i]
            pub fn add<T: Real>(s: &mut [T]) {
                s[0] += $prim(s[1]);
            }
            #[i]
            pub fn sub<T: Real>(s: &mut [T]) {
                s[0] -= $prim(s[1]);
            }
        }
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(48))]
            #[test]
            fn $module(y in -2.0f64..2.0, x in $lo..$hi) {
                let s = [y, x];
                check_instruction(
                    concat!(stringify!($prim), " +="), &s,
                    &|s| $module::add(s), &|s| $module::add(s),
                    &|s| $module::add_jacobian(s).unwrap(),
                );
                check_instruction(
                    concat!(stringify!($prim), " -="), &s,
                    &|s| $module::sub(s), &|s| $module::sub(s),
                    &|s| $module::sub_jacobian(s).unwrap(),
                );
                // the gradient function is the Jacobian's first row
                let mut v = s;
                let (g,) = $module::add_grad(Loss::elem(0, 0), &mut v).unwrap();
                let mut w = s;
                let row = $module::add_jacobian(&mut w).unwrap().row(0).to_vec();
                prop_assert_eq!(g.iter().map(|g| g.g).collect::<Vec<_>>(), row);
                // the values come back as the inputs (`y + f(x) − f(x)`: to round-off)
                prop_assert!((g[0].x - y).abs() < 1e-14 * (1.0 + v[0].abs()) && g[1].x == x);
            }
        }
    )*};
}

unary_cases! {
    p_identity: identity in -3.0f64..3.0;
    p_neg: neg in -3.0f64..3.0;
    p_exp: exp in -3.0f64..3.0;
    p_log: log in 0.2f64..5.0;
    p_log1p: log1p in -0.7f64..3.0;
    p_expm1: expm1 in -3.0f64..3.0;
    p_sin: sin in -4.0f64..4.0;
    p_cos: cos in -4.0f64..4.0;
    p_tan: tan in -1.2f64..1.2;
    p_asin: asin in -0.9f64..0.9;
    p_acos: acos in -0.9f64..0.9;
    p_atan: atan in -4.0f64..4.0;
    p_sinh: sinh in -3.0f64..3.0;
    p_cosh: cosh in -3.0f64..3.0;
    p_tanh: tanh in -3.0f64..3.0;
    p_sqrt: sqrt in 0.2f64..5.0;
    p_abs_pos: abs in 0.1f64..3.0;
    p_abs_neg: abs in -3.0f64..-0.1;
    p_square: square in -3.0f64..3.0;
    p_sigmoid: sigmoid in -5.0f64..5.0;
}

macro_rules! binary_cases {
    ($($module:ident($st:ident): $rhs:expr, $alo:literal .. $ahi:literal, $blo:literal .. $bhi:literal;)*) => {$(
        mod $module {
            use nilang::{i, Real};
            #[i]
            pub fn add<T: Real>($st: &mut [T]) {
                $st[0] += $rhs;
            }
            #[i]
            pub fn sub<T: Real>($st: &mut [T]) {
                $st[0] -= $rhs;
            }
        }
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(48))]
            #[test]
            fn $module(y in -2.0f64..2.0, a in $alo..$ahi, b in $blo..$bhi) {
                let s = [y, a, b];
                check_instruction(
                    concat!(stringify!($rhs), " +="), &s,
                    &|s| $module::add(s), &|s| $module::add(s),
                    &|s| $module::add_jacobian(s).unwrap(),
                );
                check_instruction(
                    concat!(stringify!($rhs), " -="), &s,
                    &|s| $module::sub(s), &|s| $module::sub(s),
                    &|s| $module::sub_jacobian(s).unwrap(),
                );
                let mut v = s;
                let (g,) = $module::add_grad(Loss::elem(0, 0), &mut v).unwrap();
                let mut w = s;
                let row = $module::add_jacobian(&mut w).unwrap().row(0).to_vec();
                prop_assert_eq!(g.iter().map(|g| g.g).collect::<Vec<_>>(), row);
            }
        }
    )*};
}

binary_cases! {
    p_add(s): s[1] + s[2], -3.0f64..3.0, -3.0f64..3.0;
    p_sub(s): s[1] - s[2], -3.0f64..3.0, -3.0f64..3.0;
    p_mul(s): s[1] * s[2], -3.0f64..3.0, -3.0f64..3.0;
    p_div_pos(s): s[1] / s[2], -3.0f64..3.0, 0.3f64..3.0;
    p_div_neg(s): s[1] / s[2], -3.0f64..3.0, -3.0f64..-0.3;
    p_pow(s): pow(s[1], s[2]), 0.3f64..3.0, -2.5f64..2.5;
    p_atan2(s): atan2(s[1], s[2]), -3.0f64..3.0, 0.2f64..3.0;
    p_hypot(s): hypot(s[1], s[2]), 0.2f64..3.0, -3.0f64..3.0;
}

/// `pow` at integer exponents (computed by repeated multiplication, a separate branch of the
/// primitive) and with constant exponents (no gradient for the constant).
#[i]
fn pow_const<T: Real>(s: &mut [T]) {
    s[0] += pow(s[1], 3);
    s[0] += pow(s[2], 0.5);
    s[0] += 2.5 * s[1];
    s[0] += s[2] / 4.0;
}

#[test]
fn pow_at_integer_exponents_and_constant_operands() {
    for b in [-2.0, -1.0, 0.0, 1.0, 2.0, 3.0] {
        for a in [0.5, 1.7, 2.0] {
            let s = [0.3, a, b];
            check_instruction(
                "pow integer exponent",
                &s,
                &|s| p_pow::add(s),
                &|s| p_pow::add(s),
                &|s| p_pow::add_jacobian(s).unwrap(),
            );
        }
    }
    let s = [0.3, 1.3, 2.2];
    check_instruction(
        "constant operands",
        &s,
        &|s| pow_const(s),
        &|s| pow_const(s),
        &|s| pow_const_jacobian(s).unwrap(),
    );
    let mut v = s;
    let (g,) = pow_const_grad(Loss::elem(0, 0), &mut v).unwrap();
    assert!((g[1].g - (3.0 * 1.3f64 * 1.3 + 2.5)).abs() < 1e-14);
    assert!((g[2].g - (0.5 / 2.2f64.sqrt() + 0.25)).abs() < 1e-14);
}

// ---------------------------------------------------------------------------------------
// the other instructions

#[i]
fn i_neg<T: Real>(s: &mut [T]) {
    neg(s[0]);
}
#[i]
fn i_inc<T: Real>(s: &mut [T]) {
    inc(s[0]);
    s[1] += s[0] * s[2];
}
#[i]
fn i_dec<T: Real>(s: &mut [T]) {
    dec(s[0]);
    s[1] += sin(s[0]);
}
#[i]
fn i_swap<T: Real>(s: &mut [T]) {
    swap(s[0], s[1]);
    s[2] += s[0] * s[1];
    s[1] += exp(s[2]);
}
#[i]
fn i_rot<T: Real>(s: &mut [T]) {
    rot(s[0], s[1], s[2]);
}
#[i]
fn i_irot<T: Real>(s: &mut [T]) {
    irot(s[0], s[1], s[2]);
}
#[i]
fn i_conj<T: Real>(s: &mut [T]) {
    conj(s[0]);
    s[1] += square(s[0]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn other_instructions(a in -2.0f64..2.0, b in -2.0f64..2.0, c in -1.0f64..1.0) {
        let s = [a, b, c];
        check_instruction("neg", &s, &|s| i_neg(s), &|s| i_neg(s), &|s| i_neg_jacobian(s).unwrap());
        check_instruction("inc", &s, &|s| i_inc(s), &|s| i_inc(s), &|s| i_inc_jacobian(s).unwrap());
        check_instruction("dec", &s, &|s| i_dec(s), &|s| i_dec(s), &|s| i_dec_jacobian(s).unwrap());
        check_instruction("swap", &s, &|s| i_swap(s), &|s| i_swap(s), &|s| i_swap_jacobian(s).unwrap());
        check_instruction("conj", &s, &|s| i_conj(s), &|s| i_conj(s), &|s| i_conj_jacobian(s).unwrap());
        let theta = 3.0 * c;
        let s = [a, b, theta];
        check_instruction("rot", &s, &|s| i_rot(s), &|s| i_rot(s), &|s| i_rot_jacobian(s).unwrap());
        check_instruction("irot", &s, &|s| i_irot(s), &|s| i_irot(s), &|s| i_irot_jacobian(s).unwrap());
    }

    /// The papers' Eq. 9: after `rot(a, b, θ)`, the angle's gradient is `a′ b̄′ − b′ ā′`;
    /// for the loss `a′` that is `−b′`, for `b′` it is `a′`.
    #[test]
    fn rotation_angle_gradient(a in -2.0f64..2.0, b in -2.0f64..2.0, theta in -3.0f64..3.0) {
        let (s0, c0) = theta.sin_cos();
        let (a1, b1) = (a * c0 - b * s0, b * c0 + a * s0);
        let mut s = [a, b, theta];
        let (g,) = i_rot_grad(Loss::elem(0, 0), &mut s).unwrap();
        prop_assert!((g[2].g + b1).abs() < 1e-14);
        prop_assert!((g[0].g - c0).abs() < 1e-15 && (g[1].g + s0).abs() < 1e-15);
        let mut s = [a, b, theta];
        let (g,) = i_rot_grad(Loss::elem(0, 1), &mut s).unwrap();
        prop_assert!((g[2].g - a1).abs() < 1e-14);
        // irot is rot by −θ: its angle gradient has the opposite sign
        let mut s = [a, b, theta];
        let (g,) = i_irot_grad(Loss::elem(0, 0), &mut s).unwrap();
        let b2 = b * c0 - a * s0;
        prop_assert!((g[2].g - b2).abs() < 1e-14);
    }
}

// ---------------------------------------------------------------------------------------
// complex instructions

mod cx {
    use nilang::{i, Real};
    use num_complex::Complex;

    macro_rules! complex_cases {
        ($($add:ident, $sub:ident: |$y:ident $(, $x:ident)*| $rhs:expr;)*) => {$(
            #[i]
            pub fn $add<T: Real>($y: &mut Complex<T> $(, $x: &mut Complex<T>)*) {
                $y += $rhs;
            }
            #[i]
            pub fn $sub<T: Real>($y: &mut Complex<T> $(, $x: &mut Complex<T>)*) {
                $y -= $rhs;
            }
        )*};
    }

    complex_cases! {
        identity_add, identity_sub: |y, x| identity(x);
        neg_add, neg_sub: |y, x| -x;
        exp_add, exp_sub: |y, x| exp(x);
        log_add, log_sub: |y, x| log(x);
        add_add, add_sub: |y, a, b| a + b;
        sub_add, sub_sub: |y, a, b| a - b;
        mul_add, mul_sub: |y, a, b| a * b;
        div_add, div_sub: |y, a, b| a / b;
    }

    #[i]
    pub fn neg_conj<T: Real>(y: &mut Complex<T>, x: &mut Complex<T>) {
        neg(x);
        y += exp(x);
        conj(y);
        y += log(x);
    }
}

/// Runs a function of two complex arguments on a flat state `[y.re, y.im, x.re, x.im]`.
fn flat2<T: Copy, R>(s: &mut [T], f: impl FnOnce(&mut Complex<T>, &mut Complex<T>) -> R) -> R {
    let (mut y, mut x) = (Complex::new(s[0], s[1]), Complex::new(s[2], s[3]));
    let r = f(&mut y, &mut x);
    s.copy_from_slice(&[y.re, y.im, x.re, x.im]);
    r
}

/// Runs a function of three complex arguments on a flat state.
fn flat3<T: Copy, R>(
    s: &mut [T],
    f: impl FnOnce(&mut Complex<T>, &mut Complex<T>, &mut Complex<T>) -> R,
) -> R {
    let mut y = Complex::new(s[0], s[1]);
    let mut a = Complex::new(s[2], s[3]);
    let mut b = Complex::new(s[4], s[5]);
    let r = f(&mut y, &mut a, &mut b);
    s.copy_from_slice(&[y.re, y.im, a.re, a.im, b.re, b.im]);
    r
}

macro_rules! check_complex2 {
    ($s:expr, $($f:ident, $jac:ident;)*) => {$(
        check_instruction(
            concat!("complex ", stringify!($f)),
            $s,
            &|s| flat2(s, |y, x| cx::$f(y, x)),
            &|s| flat2(s, |y, x| cx::$f(y, x)),
            &|s| flat2(s, |y, x| cx::$jac(y, x).unwrap()),
        );
    )*};
}

macro_rules! check_complex3 {
    ($s:expr, $($f:ident, $jac:ident;)*) => {$(
        check_instruction(
            concat!("complex ", stringify!($f)),
            $s,
            &|s| flat3(s, |y, a, b| cx::$f(y, a, b)),
            &|s| flat3(s, |y, a, b| cx::$f(y, a, b)),
            &|s| flat3(s, |y, a, b| cx::$jac(y, a, b).unwrap()),
        );
    )*};
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    /// Complex instructions are written in the language on the fields, so their gradients come
    /// from the real adjoint rules; every one of them against differences and duals.
    #[test]
    fn complex_instructions(
        y in prop::array::uniform2(-2.0f64..2.0),
        a in prop::array::uniform2(0.3f64..2.0),
        b in prop::array::uniform2(-2.0f64..-0.3),
    ) {
        let s2 = [y[0], y[1], a[0], a[1]];
        check_complex2!(&s2,
            identity_add, identity_add_jacobian;
            identity_sub, identity_sub_jacobian;
            neg_add, neg_add_jacobian;
            neg_sub, neg_sub_jacobian;
            exp_add, exp_add_jacobian;
            exp_sub, exp_sub_jacobian;
            log_add, log_add_jacobian;
            log_sub, log_sub_jacobian;
            neg_conj, neg_conj_jacobian;
        );
        let s3 = [y[0], y[1], a[0], a[1], b[0], b[1]];
        check_complex3!(&s3,
            add_add, add_add_jacobian;
            add_sub, add_sub_jacobian;
            sub_add, sub_add_jacobian;
            sub_sub, sub_sub_jacobian;
            mul_add, mul_add_jacobian;
            mul_sub, mul_sub_jacobian;
            div_add, div_add_jacobian;
            div_sub, div_sub_jacobian;
        );
    }
}

// ---------------------------------------------------------------------------------------
// the papers' values

/// `J_n(z)` by its plain series (40 terms), the analytic reference.
fn bessel_j(n: i32, z: f64) -> f64 {
    let (mut sum, mut term) = (
        0.0,
        (z / 2.0).powi(n) / (1..=n).map(f64::from).product::<f64>(),
    );
    for k in 0..40 {
        sum += term;
        term *= -(z / 2.0).powi(2) / (f64::from(k + 1) * f64::from(k + 1 + n));
    }
    sum
}

#[test]
fn bessel_gradient_and_second_derivative_match_the_paper() {
    let (nu, z) = (2, 1.0);
    // dJ₂/dz = (J₁ − J₃)/2, d²J₂/dz² = (J₀ − 2J₂ + J₄)/4
    let d1 = (bessel_j(1, z) - bessel_j(3, z)) / 2.0;
    let d2 = (bessel_j(0, z) - 2.0 * bessel_j(2, z) + bessel_j(4, z)) / 4.0;
    assert!((d1 - 0.2102436).abs() < 1e-7, "{d1}");
    assert!((d2 - 0.13446683844358093).abs() < 1e-8, "{d2}");

    let (mut out, mut zz) = (0.0, z);
    let (gout, gz) = ibesselj_grad(Loss::arg(0), &mut out, nu, &mut zz).unwrap();
    assert!((out - bessel_j(2, z)).abs() < 1e-9, "J2(1) = {out}");
    assert!((gz.g - d1).abs() < 1e-7, "dJ2/dz = {} vs {d1}", gz.g);
    assert_eq!((gout.x, gout.g, gz.x), (0.0, 1.0, z));

    // second derivative: the Hessian function, and one forward-over-reversal pass by hand
    let (mut out, mut zz) = (0.0, z);
    let h = ibesselj_hessian(Loss::arg(0), &mut out, nu, &mut zz).unwrap();
    assert_eq!(
        (out, zz),
        (0.0, z),
        "the Hessian leaves its arguments unchanged"
    );
    assert!(
        (h.get(1, 1) - 0.13446683844358093).abs() < 1e-7,
        "{}",
        h.get(1, 1)
    );
    assert!((h.get(1, 1) - d2).abs() < 1e-7);
    assert_eq!((h.get(0, 0), h.get(0, 1), h.get(1, 0)), (0.0, 0.0, 0.0));
    let (mut out, mut zz) = (Dual::constant(0.0), Dual::new(z, 1.0));
    let (_, gz) = ibesselj_grad::<Dual<f64>>(Loss::arg(0), &mut out, nu, &mut zz).unwrap();
    assert!((gz.g.re - d1).abs() < 1e-7);
    assert_eq!(gz.g.eps, h.get(1, 1), "the Hessian is this pass");

    // the checked forward program computes the same value
    let (mut o, mut zz) = (0.0, z);
    ibesselj(&mut o, nu, &mut zz);
    assert!((o - bessel_j(2, z)).abs() < 1e-9);
}

#[test]
fn bessel_gradient_agrees_with_differences_over_z() {
    for z in [0.3, 0.8, 1.0, 1.7, 2.5] {
        for nu in 0..4 {
            let (mut out, mut zz) = (0.0, z);
            let (_, gz) = ibesselj_grad(Loss::arg(0), &mut out, nu, &mut zz).unwrap();
            let n = nu as i32;
            let exact = if nu == 0 {
                -bessel_j(1, z)
            } else {
                (bessel_j(n - 1, z) - bessel_j(n + 1, z)) / 2.0
            };
            // the series stops at terms of 1e-8: its derivative is that close to the exact one
            assert!(
                (gz.g - exact).abs() < 1e-7,
                "nu {nu} z {z}: {} vs {exact}",
                gz.g
            );
        }
    }
}

#[test]
fn exp_gradient_matches_the_paper() {
    let (mut out, mut x) = (0.0, 1.6);
    let (_, gx) = iexp_grad(Loss::arg(0), &mut out, &mut x, 1e-8).unwrap();
    // the paper's value (series to 1e-14) and the exact derivative e^1.6; the series summed to
    // terms of 1e-8 is within a few of those terms of both
    assert!((gx.g - 4.9530324244260555).abs() < 1e-7, "{}", gx.g);
    assert!((gx.g - 1.6f64.exp()).abs() < 1e-7);
    assert!((out - 1.6f64.exp()).abs() < 1e-7);
    let (mut o, mut xx) = (0.0, 1.6);
    iexp(&mut o, &mut xx, 1e-8);
    assert_eq!(o, out);
}

#[i]
fn clog<T: Real>(y: &mut Complex<T>, x: &mut Complex<T>) {
    y += log(x);
}

proptest! {
    /// The complex log (the arXiv paper's Listing 5) against its analytic Jacobian: with
    /// `x = a + ib`, `∂Re/∂a = ∂Im/∂b = a/|x|²`, `∂Re/∂b = −∂Im/∂a = b/|x|²`.
    #[test]
    fn complex_log_jacobian_is_analytic(a in -3.0f64..3.0, b in 0.2f64..3.0) {
        let r2 = a * a + b * b;
        let mut y = Complex::new(0.0, 0.0);
        let mut x = Complex::new(a, b);
        let j = clog_jacobian(&mut y, &mut x).unwrap();
        let expected = [[1.0, 0.0, a / r2, b / r2], [0.0, 1.0, -b / r2, a / r2]];
        for (i, row) in expected.iter().enumerate() {
            for (k, &e) in row.iter().enumerate() {
                prop_assert!((j.get(i, k) - e).abs() < 1e-15 * (1.0 + e.abs()), "J[{}][{}]", i, k);
            }
        }
        prop_assert!((y - Complex::new(a, b).ln()).norm() < 1e-15);
        // and the gradient of Im log x = atan2(b, a)
        let mut y = Complex::new(0.0, 0.0);
        let mut x = Complex::new(a, b);
        let (_, gx) = clog_grad(Loss::elem(0, 1), &mut y, &mut x).unwrap();
        prop_assert!((gx.re.g + b / r2).abs() < 1e-15 && (gx.im.g - a / r2).abs() < 1e-15);
    }
}

// ---------------------------------------------------------------------------------------
// Hessians

/// Rosenbrock in `x₀, x₁` plus trigonometric couplings of all four inputs, in the language.
#[i]
fn rosen_trig<T: Real>(y: &mut T, x: &mut [T]) {
    let (sq, d, e, p, c, w) = (
        T::zero(),
        T::zero(),
        T::zero(),
        T::zero(),
        T::zero(),
        T::zero(),
    );
    let q = T::zero();
    routine! {
        sq += square(x[0]);
        d += x[1] - sq;
        e += 1.0 - x[0];
        p += x[0] * x[3];
        c += cos(x[3]);
        w += square(d);
        q += x[1] * x[2];
    }
    y += square(e);
    y += 100.0 * w;
    y += sin(p);
    y += x[2] * c;
    y += exp(q);
    uncompute!();
    dealloc!(sq = T::zero(), d = T::zero(), e = T::zero(), p = T::zero());
    dealloc!(c = T::zero(), w = T::zero(), q = T::zero());
}

/// The same function in plain Rust, generic over num-dual's numbers (the oracle).
fn rosen_trig_plain<D: num_dual::DualNum<Primitive = f64> + Copy>(x: &[D]) -> D {
    let one = D::one();
    (one - x[0]).powi(2)
        + (x[1] - x[0].powi(2)).powi(2) * 100.0
        + (x[0] * x[3]).sin()
        + x[2] * x[3].cos()
        + (x[1] * x[2]).exp()
}

fn num_dual_hessian(x: [f64; 4]) -> (f64, [f64; 4], [[f64; 4]; 4]) {
    let v = nalgebra::SVector::from(x);
    let (f, g, h) = num_dual::hessian(
        |v: nalgebra::SVector<num_dual::Dual2SVec64<4>, 4>| rosen_trig_plain(v.as_slice()),
        &v,
    );
    let hh = core::array::from_fn(|i| core::array::from_fn(|j| h[(i, j)]));
    (f, core::array::from_fn(|i| g[i]), hh)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn hessian_matches_num_dual(x in prop::array::uniform4(-1.0f64..1.0)) {
        let (f, g, h) = num_dual_hessian(x);
        let (mut y, mut xs) = (0.0, x.to_vec());
        let hess = rosen_trig_hessian(Loss::arg(0), &mut y, &mut xs).unwrap();
        prop_assert_eq!((y, xs.clone()), (0.0, x.to_vec()));
        prop_assert_eq!((hess.rows, hess.cols), (5, 5));
        for i in 0..5 {
            // the loss `y` enters linearly: no second derivative
            prop_assert_eq!((hess.get(0, i), hess.get(i, 0)), (0.0, 0.0));
        }
        for i in 0..4 {
            for j in 0..4 {
                let (a, b) = (hess.get(i + 1, j + 1), h[i][j]);
                prop_assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "H[{}][{}] {} vs {}", i, j, a, b);
            }
        }
        // the gradient too, and the value
        let (gy, gx) = rosen_trig_grad(Loss::arg(0), &mut y, &mut xs).unwrap();
        prop_assert!((y - f).abs() <= 1e-12 * f.abs().max(1.0));
        prop_assert_eq!(gy.g, 1.0);
        for i in 0..4 {
            prop_assert!((gx[i].g - g[i]).abs() <= 1e-12 * g[i].abs().max(1.0));
        }
    }

    /// A batch of four Hessian–vector products in one pass of `f_grad::<DualN<f64, 4>>`:
    /// with the basis as tangents they are the Hessian's columns, with random tangents `H·v`.
    #[test]
    fn dualn_hessian_vector_products(
        x in prop::array::uniform4(-1.0f64..1.0),
        v in prop::array::uniform4(prop::array::uniform4(-1.0f64..1.0)),
    ) {
        let (mut y, mut xs) = (0.0, x.to_vec());
        let hess = rosen_trig_hessian(Loss::arg(0), &mut y, &mut xs).unwrap();
        let h = |i: usize, j: usize| hess.get(i + 1, j + 1);

        let mut yd = DualN::<f64, 4>::constant(0.0);
        let mut xd: Vec<DualN<f64, 4>> = (0..4).map(|i| DualN::seeded(x[i], i)).collect();
        let (_, gx) = rosen_trig_grad(Loss::arg(0), &mut yd, &mut xd).unwrap();
        for i in 0..4 {
            for k in 0..4 {
                prop_assert_eq!(gx[i].g.eps[k], h(i, k), "column {} row {}", k, i);
            }
        }

        let mut yd = DualN::<f64, 4>::constant(0.0);
        let mut xd: Vec<DualN<f64, 4>> =
            (0..4).map(|i| DualN::new(x[i], core::array::from_fn(|k| v[k][i]))).collect();
        let (_, gx) = rosen_trig_grad(Loss::arg(0), &mut yd, &mut xd).unwrap();
        for k in 0..4 {
            for i in 0..4 {
                let hv: f64 = (0..4).map(|j| h(i, j) * v[k][j]).sum();
                prop_assert!((gx[i].g.eps[k] - hv).abs() <= 1e-12 * hv.abs().max(1.0));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Jacobian layout, NoGrad, user primitives, errors, integers

#[i]
fn nonsym<T: Real>(y: &mut [T], x: &mut [T]) {
    y[0] += 3.0 * x[0];
    y[1] += x[0] * x[1];
    y[1] += sin(x[1]);
}

#[test]
fn jacobian_layout_is_output_row_input_column() {
    let (x0, x1) = (0.7, -1.3);
    let mut y = vec![0.5, 0.25];
    let mut x = vec![x0, x1];
    let j = nonsym_jacobian(&mut y, &mut x).unwrap();
    // flat order: y0, y1, x0, x1; J[i][j] = ∂out_i/∂in_j
    let expected = [
        [1.0, 0.0, 3.0, 0.0],
        [0.0, 1.0, x1, x0 + x1.cos()],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    assert_eq!(j.to_rows(), expected.map(|r| r.to_vec()).to_vec());
    assert_ne!(
        j.get(0, 2),
        j.get(2, 0),
        "not symmetric: the layout is observable"
    );
    assert_eq!(y, vec![0.5 + 3.0 * x0, 0.25 + x0 * x1 + x1.sin()]);
    // the rows of chosen outputs are the same rows
    let (mut y, mut x) = (vec![0.5, 0.25], vec![x0, x1]);
    let rows = nonsym_jacobian_of(&[Loss::elem(0, 1), Loss::elem(0, 0)], &mut y, &mut x).unwrap();
    assert_eq!(rows.row(0), j.row(1));
    assert_eq!(rows.row(1), j.row(0));
}

#[i]
fn scaled<T: Real>(y: &mut T, x: &mut T, c: &mut NoGrad<T>) {
    y += x * c.0;
    y += sin(c.0);
}

#[test]
fn nograd_arguments_are_carried_but_not_differentiated() {
    let (mut y, mut x, mut c) = (1.0, 2.0, NoGrad(3.0));
    let (gy, gx, gc) = scaled_grad(Loss::arg(0), &mut y, &mut x, &mut c).unwrap();
    assert_eq!((y, x, c.0), (1.0 + 6.0 + 3f64.sin(), 2.0, 3.0));
    assert_eq!((gy.g, gx.g), (1.0, 3.0));
    // its values went through the gradient program; its gradient is not reported as one
    assert_eq!(gc.0.x, 3.0);
    let (mut y, mut x, mut c) = (1.0, 2.0, NoGrad(3.0));
    let j = scaled_jacobian(&mut y, &mut x, &mut c).unwrap();
    assert_eq!(
        (j.rows, j.cols),
        (2, 2),
        "no row or column for the NoGrad argument"
    );
    assert_eq!(j.to_rows(), vec![vec![1.0, 3.0], vec![0.0, 1.0]]);
    let (mut y, mut x, mut c) = (1.0, 2.0, NoGrad(3.0));
    let h = scaled_hessian(Loss::arg(0), &mut y, &mut x, &mut c).unwrap();
    assert_eq!((h.rows, h.cols), (2, 2));
    assert_eq!(
        scaled_grad(Loss::arg(2), &mut y, &mut x, &mut c).unwrap_err(),
        GradError::NotDifferentiable {
            function: "scaled",
            arg: 2
        }
    );
}

/// A user primitive: the Gudermannian `gd(x) = 2 atan(tanh(x/2))` with its derivative
/// `sech x` written by hand.
struct Gd;

impl<T: Float> Unary<T> for Gd {
    fn value(x: T) -> T {
        T::from_f64(2.0) * (x / T::from_f64(2.0)).tanh().atan()
    }
    fn derivative(x: T) -> T {
        T::f_one() / x.cosh()
    }
}

#[i]
fn with_gd<T: Real>(y: &mut T, x: &mut T)
where
    T: nilang::Acc1<Gd>,
{
    y += Gd(x);
    y -= square(x);
}

proptest! {
    #[test]
    fn user_primitive_gradient(y in -2.0f64..2.0, x in -3.0f64..3.0) {
        check_instruction(
            "user primitive Gd",
            &[y, x],
            &|s| { let (a, b) = s.split_at_mut(1); with_gd(&mut a[0], &mut b[0]) },
            &|s| { let (a, b) = s.split_at_mut(1); with_gd(&mut a[0], &mut b[0]) },
            &|s| { let (a, b) = s.split_at_mut(1); with_gd_jacobian(&mut a[0], &mut b[0]).unwrap() },
        );
        let (mut yy, mut xx) = (y, x);
        let (_, gx) = with_gd_grad(Loss::arg(0), &mut yy, &mut xx).unwrap();
        prop_assert!((gx.g - (1.0 / x.cosh() - 2.0 * x)).abs() < 1e-14 * (1.0 + x.abs()));
        prop_assert!((yy - (y + 2.0 * (x / 2.0).tanh().atan() - x * x)).abs() < 1e-14 * (1.0 + x * x));
    }
}

#[i]
fn counted<T: Real>(y: &mut T, x: &mut [T], k: &mut i64, n: usize) {
    for i in 0..n {
        y += x[i] * i;
    }
    inc(k);
}

#[test]
fn grad_errors_leave_the_arguments_unchanged() {
    let (mut y, mut x, mut k) = (1.5, vec![1.0, 2.0, 3.0], 7i64);
    let not_diff = counted_grad(Loss::arg(2), &mut y, &mut x, &mut k, 3).unwrap_err();
    assert_eq!(
        not_diff,
        GradError::NotDifferentiable {
            function: "counted",
            arg: 2
        }
    );
    assert!(not_diff.to_string().contains("argument 2 of `counted`"));
    for loss in [Loss::arg(3), Loss::arg(4)] {
        assert!(matches!(
            counted_grad(loss, &mut y, &mut x, &mut k, 3),
            Err(GradError::NotDifferentiable { .. })
        ));
    }
    let out_of_range = counted_grad(Loss::elem(1, 3), &mut y, &mut x, &mut k, 3).unwrap_err();
    assert_eq!(
        out_of_range,
        GradError::IndexOutOfRange {
            function: "counted",
            arg: 1,
            index: 3,
            len: 3
        }
    );
    assert!(out_of_range.to_string().contains("holds 3 scalars"));
    assert!(counted_grad(Loss::elem(0, 1), &mut y, &mut x, &mut k, 3).is_err());
    assert!(counted_hessian(Loss::elem(1, 5), &mut y, &mut x, &mut k, 3).is_err());
    assert!(counted_jacobian_of(&[Loss::arg(0), Loss::arg(2)], &mut y, &mut x, &mut k, 3).is_err());
    // nothing ran
    assert_eq!((y, x, k), (1.5, vec![1.0, 2.0, 3.0], 7));
}

#[test]
fn integer_arguments_pass_through() {
    let (mut y, mut x, mut k) = (1.5, vec![1.0, 2.0, 3.0], 7i64);
    let (gy, gx) = counted_grad(Loss::arg(0), &mut y, &mut x, &mut k, 3).unwrap();
    // the integer state holds the forward output (incremented once, not undone by the
    // reverse sweep, which runs on a copy); no gradient is reported for it or for `n`
    assert_eq!(k, 8);
    assert_eq!(y, 1.5 + 2.0 + 6.0);
    assert_eq!(gy.g, 1.0);
    assert_eq!(
        gx.iter().map(|g| g.g).collect::<Vec<_>>(),
        vec![0.0, 1.0, 2.0]
    );
    let j = counted_jacobian(&mut y, &mut x, &mut k, 3).unwrap();
    assert_eq!((j.rows, j.cols), (4, 4));
    assert_eq!(k, 9);
    let h = counted_hessian(Loss::arg(0), &mut y, &mut x, &mut k, 3).unwrap();
    assert!(h.data.iter().all(|&v| v == 0.0));
    assert_eq!(k, 9, "the Hessian leaves its arguments unchanged");
}

// ---------------------------------------------------------------------------------------
// the gradient program is reversible; gradients on deallocated ancillas are dropped

#[i]
fn mixed<T: Real>(y: &mut T, x: &mut [T]) {
    let t = T::zero();
    routine! {
        t += x[0] * x[1];
        t += sin(x[2]);
    }
    rot(x[3], x[4], t);
    y += exp(x[3]);
    y += x[4] / x[0];
    swap(x[3], x[4]);
    y += x[3] * x[4];
    y += pow(x[1], x[0]);
    uncompute!();
    dealloc!(t = T::zero());
}

proptest! {
    /// `f::<GVar>` then `f_inv::<GVar>` restores values and gradients: the adjoint rules are
    /// the inverses of the forward rules on `GVar`, so inversion and differentiation commute.
    #[test]
    fn gvar_program_is_reversible(
        x in prop::array::uniform5(0.5f64..1.5),
        g in prop::array::uniform6(-1.0f64..1.0),
    ) {
        let mut y = GVar::with_grad(0.3, g[5]);
        let mut xs: Vec<GVar<f64>> = (0..5).map(|i| GVar::with_grad(x[i], g[i])).collect();
        let (y0, x0) = (y, xs.clone());
        mixed::<GVar<f64>>(&mut y, &mut xs);
        prop_assert!(y.x != y0.x);
        mixed_inv::<GVar<f64>>(&mut y, &mut xs);
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * (1.0 + b.abs());
        prop_assert!(close(y.x, y0.x) && close(y.g, y0.g), "{:?} vs {:?}", y, y0);
        for (a, b) in xs.iter().zip(&x0) {
            prop_assert!(close(a.x, b.x) && close(a.g, b.g), "{:?} vs {:?}", a, b);
        }
        // and the other way round
        mixed_inv::<GVar<f64>>(&mut y, &mut xs);
        mixed::<GVar<f64>>(&mut y, &mut xs);
        prop_assert!(close(y.x, y0.x) && close(y.g, y0.g));
        // its gradient is right
        let mut s = vec![0.3];
        s.extend_from_slice(&x);
        check_instruction(
            "mixed",
            &s,
            &|s| { let (a, b) = s.split_at_mut(1); mixed(&mut a[0], b) },
            &|s| { let (a, b) = s.split_at_mut(1); mixed(&mut a[0], b) },
            &|s| { let (a, b) = s.split_at_mut(1); mixed_jacobian(&mut a[0], b).unwrap() },
        );
    }
}

/// Reads the gradient of a scalar where there is one (for observing ancillas).
trait Probe {
    fn probe_grad(&self) -> f64;
}
impl Probe for f64 {
    fn probe_grad(&self) -> f64 {
        0.0
    }
}
impl<T: Float> Probe for GVar<T> {
    fn probe_grad(&self) -> f64 {
        self.g.to_f64()
    }
}
impl<T: Float> Probe for Dual<T> {
    fn probe_grad(&self) -> f64 {
        0.0
    }
}

thread_local! {
    static PROBED: std::cell::RefCell<Vec<f64>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn probe<T: Probe>(a: &T) {
    PROBED.with(|p| p.borrow_mut().push(a.probe_grad()));
}

/// `a` is a copy of `x` used twice; in the reverse sweep its gradient `2 a ȳ` is handed to `x`
/// by the uncomputation `a -= x` but stays on `a`, which is then deallocated with its known
/// value (zero here, two for `b`): the papers' theorem says that gradient can be dropped.
#[i]
fn ancilla_gradient<T: Real>(y: &mut T, x: &mut T)
where
    T: Probe,
{
    let a = T::zero();
    let b = T::lit(2.0);
    safe! {
        probe(&a);
        probe(&b);
    }
    a += identity(x);
    b += square(x);
    y += square(a);
    y += log(b);
    b -= square(x);
    a -= identity(x);
    dealloc!(a = T::zero(), b = T::lit(2.0));
}

#[test]
fn gradient_on_a_deallocated_ancilla_is_dropped() {
    let x0 = 1.3f64;
    let (mut y, mut x) = (0.0, x0);
    // forward on f64 (no gradient), then the inverse program on `GVar`s (the second AD mode,
    // where the ancillas' gradients travel with them) reaching the deallocation
    PROBED.with(|p| p.borrow_mut().clear());
    ancilla_gradient(&mut y, &mut x);
    let (mut wy, mut wx) = (GVar::with_grad(y, 1.0), GVar::new(x));
    ancilla_gradient_inv(&mut wy, &mut wx);
    let probed = PROBED.with(|p| p.borrow().clone());
    assert_eq!(probed.len(), 4);
    let (mut y, mut x) = (0.0, x0);
    let (gy, gx) = ancilla_gradient_grad(Loss::arg(0), &mut y, &mut x).unwrap();
    assert_eq!(gx.g, wx.g, "the adjoint program and the GVar program agree");
    let (ga, gb) = (probed[2], probed[3]);
    let b = 2.0 + x0 * x0;
    assert!(
        (ga - 2.0 * x0).abs() < 1e-15,
        "a carries 2x at its deallocation: {ga}"
    );
    assert!(
        (gb - 1.0 / b).abs() < 1e-15,
        "b carries 1/b at its deallocation: {gb}"
    );
    // and the gradient is still right: d/dx (x² + ln(2 + x²)) = 2x + 2x/(2 + x²)
    assert_eq!(gy.g, 1.0);
    assert!((gx.g - (2.0 * x0 + 2.0 * x0 / b)).abs() < 1e-14, "{}", gx.g);
    assert!((y - (x0 * x0 + b.ln())).abs() < 1e-15);
    let numeric = numeric_gradient(
        |v| {
            let (mut y, mut x) = (0.0, v[0]);
            ancilla_gradient(&mut y, &mut x);
            y
        },
        &[x0],
        1e-6,
    );
    assert!((numeric[0] - gx.g).abs() < 1e-8);
}

// ---------------------------------------------------------------------------------------
// `check_gradient` and `numeric_gradient`

fn plain(x: &[f64]) -> f64 {
    x[0].sin() * x[1] + x[1] * x[1] * x[2] + x[2].exp()
}

#[test]
fn numeric_gradient_and_check_gradient() {
    let x = [0.4, -1.2, 0.9];
    let exact = [
        x[0].cos() * x[1],
        x[0].sin() + 2.0 * x[1] * x[2],
        x[1] * x[1] + x[2].exp(),
    ];
    let numeric = numeric_gradient(plain, &x, 1e-6);
    assert_eq!(numeric.len(), 3);
    for (n, e) in numeric.iter().zip(&exact) {
        assert!((n - e).abs() < 1e-8, "{n} vs {e}");
    }
    // quadratic: central differences are exact up to round-off
    let q = numeric_gradient(|v| 3.0 * v[0] * v[0] - v[1], &[2.0, 5.0], 1e-3);
    assert!((q[0] - 12.0).abs() < 1e-9 && (q[1] + 1.0).abs() < 1e-9);

    assert_eq!(check_gradient(plain, &x, &exact, 1e-6, 1e-6), Ok(()));
    let mut wrong = exact;
    wrong[1] += 1e-3;
    let err = check_gradient(plain, &x, &wrong, 1e-6, 1e-6).unwrap_err();
    assert_eq!(err.index, 1);
    assert_eq!(err.given, wrong[1]);
    assert!((err.numeric - exact[1]).abs() < 1e-8);
    assert!(err.to_string().contains("gradient component 1"));
    let nan = [f64::NAN, exact[1], exact[2]];
    assert!(matches!(
        check_gradient(plain, &x, &nan, 1e-6, 1e-6),
        Err(GradientMismatch { index: 0, .. })
    ));

    // a generated gradient through the API
    let (mut y, mut xs) = (0.0, vec![0.8, 0.6, -0.5, 0.1, 0.3]);
    let (_, gx) = mixed_grad(Loss::arg(0), &mut y, &mut xs).unwrap();
    let grad: Vec<f64> = gx.iter().map(|g| g.g).collect();
    let f = |v: &[f64]| {
        let (mut y, mut x) = (0.0, v.to_vec());
        mixed(&mut y, &mut x);
        y
    };
    assert_eq!(
        check_gradient(f, &[0.8, 0.6, -0.5, 0.1, 0.3], &grad, 1e-6, 1e-7),
        Ok(())
    );
}
