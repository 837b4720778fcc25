//! `exp`, `log`, `sin`, `cos` on fixed point by reversible series: values against f64 within
//! the module's stated bounds, exact inverses (on plain numbers and on `GVar`s), and gradients
//! against f64 central differences and the exact derivatives.

use nilang::numbers::fixed_math::{icos, icos_inv, iexp, iexp_inv, ilog, ilog_inv, isin, isin_inv};
use nilang::numbers::I21F43;
use nilang::GVar;

/// The message of the panic `f` raises.
fn catch_panic_message(f: impl FnOnce()) -> String {
    let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_err();
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(p) => p
            .downcast::<&str>()
            .map(|s| s.to_string())
            .unwrap_or_default(),
    }
}

type Prog<T> = fn(&mut T, &mut T);

const U: f64 = 1.0 / (1u64 << 43) as f64;

/// One function of the module: its program on plain numbers and on `GVar`s, its inverse on
/// both, the f64 reference and its derivative, the error bound at `x`, and test inputs.
struct Case {
    name: &'static str,
    f: Prog<I21F43>,
    f_inv: Prog<I21F43>,
    g: Prog<GVar<I21F43>>,
    g_inv: Prog<GVar<I21F43>>,
    reference: fn(f64) -> f64,
    derivative: fn(f64) -> f64,
    bound: fn(f64) -> f64,
    inputs: Vec<f64>,
}

fn grid(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    // an irrational-ish offset, so the points are not dyadic
    (0..=n)
        .map(|k| lo + (hi - lo) * k as f64 / n as f64 + 0.000_123_456_7)
        .filter(|&x| x < hi)
        .collect()
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "exp",
            f: iexp,
            f_inv: iexp_inv,
            g: iexp,
            g_inv: iexp_inv,
            reference: f64::exp,
            derivative: f64::exp,
            bound: |x| 40.0 * U * (1.0 + x.exp()),
            inputs: grid(-20.0, 13.5, 400),
        },
        Case {
            name: "log",
            f: ilog,
            f_inv: ilog_inv,
            g: ilog,
            g_inv: ilog_inv,
            reference: f64::ln,
            derivative: |x| 1.0 / x,
            bound: |_| 40.0 * U,
            inputs: grid(1e-3, 4.0, 200)
                .into_iter()
                .chain(grid(4.0, 1e6, 200))
                .chain([U, 3.0 * U, 0.5, 1.0, 2.0, 1024.0])
                .collect(),
        },
        Case {
            name: "sin",
            f: isin,
            f_inv: isin_inv,
            g: isin,
            g_inv: isin_inv,
            reference: f64::sin,
            derivative: f64::cos,
            bound: |x| 40.0 * U + x.abs() * 2f64.powi(-52),
            inputs: grid(-100.0, 100.0, 400)
                .into_iter()
                .chain([0.0, 1e5, -3e5])
                .collect(),
        },
        Case {
            name: "cos",
            f: icos,
            f_inv: icos_inv,
            g: icos,
            g_inv: icos_inv,
            reference: f64::cos,
            derivative: |x| -x.sin(),
            bound: |x| 40.0 * U + x.abs() * 2f64.powi(-52),
            inputs: grid(-100.0, 100.0, 400)
                .into_iter()
                .chain([0.0, 1e5, -3e5])
                .collect(),
        },
    ]
}

#[test]
fn values_are_within_the_stated_bounds_of_f64() {
    for c in cases() {
        let mut worst: f64 = 0.0;
        for &x0 in &c.inputs {
            let (mut y, mut x) = (I21F43::ZERO, I21F43::from_num(x0));
            let xv = x.to_num::<f64>(); // the reference at the value the fixed input holds
            (c.f)(&mut y, &mut x);
            let err = (y.to_num::<f64>() - (c.reference)(xv)).abs();
            assert!(
                err <= (c.bound)(xv),
                "{}({xv}): error {err:e} > {:e}",
                c.name,
                (c.bound)(xv)
            );
            worst = worst.max(err);
        }
        assert!(worst > 0.0, "{}: the series rounds somewhere", c.name);
    }
}

#[test]
fn the_inverse_restores_every_bit() {
    for c in cases() {
        for &x0 in &c.inputs {
            let y0 = I21F43::from_num(0.375) + I21F43::DELTA; // a nonzero output to add to
            let (mut y, mut x) = (y0, I21F43::from_num(x0));
            let x1 = x;
            (c.f)(&mut y, &mut x);
            if (c.reference)(x1.to_num::<f64>()).abs() > 1e-9 {
                assert_ne!(y, y0, "{}({x0}) changed nothing", c.name);
            }
            (c.f_inv)(&mut y, &mut x);
            assert_eq!(
                (y.to_bits(), x.to_bits()),
                (y0.to_bits(), x1.to_bits()),
                "{}({x0})",
                c.name
            );
        }
    }
}

/// `∂y/∂x` by the inverse on `GVar`s (ȳ = 1), asserting that it restores the values, and that
/// running the gradient program's own inverse gives the outputs and their seed back exactly.
fn fixed_derivative(c: &Case, x0: f64) -> f64 {
    let x = I21F43::from_num(x0);
    let mut y = I21F43::ZERO;
    (c.f)(&mut y, &mut x.clone());
    let (mut gy, mut gx) = (
        GVar {
            x: y,
            g: I21F43::ONE,
        },
        GVar { x, g: I21F43::ZERO },
    );
    (c.g_inv)(&mut gy, &mut gx);
    assert_eq!(
        (gy.x, gx.x),
        (I21F43::ZERO, x),
        "{}({x0}): values back",
        c.name
    );
    let d = gx.g;
    (c.g)(&mut gy, &mut gx);
    assert_eq!(
        (gy, gx.x, gx.g),
        (
            GVar {
                x: y,
                g: I21F43::ONE
            },
            x,
            I21F43::ZERO
        ),
        "{}({x0})",
        c.name
    );
    d.to_num::<f64>()
}

#[test]
fn gradients_agree_with_f64_central_differences_and_derivatives() {
    for c in cases() {
        for (k, &x0) in c.inputs.iter().enumerate() {
            if k % 8 != 0 && x0.abs() > 1e-2 {
                continue; // every eighth point: each gradient runs the program three times
            }
            let xv = I21F43::from_num(x0).to_num::<f64>();
            if (c.derivative)(xv).abs() > 1e3 {
                continue; // log′ near 0: the gradient 1/x leaves the type's range (it wraps)
            }
            let d = fixed_derivative(&c, x0);
            // central difference of the f64 function, with a step relative to x (log near 0)
            let h = 1e-6 * xv.abs().max(1e-2);
            let cd = ((c.reference)(xv + h) - (c.reference)(xv - h)) / (2.0 * h);
            let exact = (c.derivative)(xv);
            let scale = 1.0 + exact.abs();
            assert!(
                (d - cd).abs() <= 1e-6 * scale,
                "{}'({xv}) = {d} vs difference {cd}",
                c.name
            );
            // and the derivative itself: the series' derivative rounds like its value, times
            // the factor 1/x (log) or the value (exp) that the adjoint multiplies by
            let tight = 4.0 * (c.bound)(xv) * scale + exact.abs() * 2f64.powi(-50);
            assert!(
                (d - exact).abs() <= tight,
                "{}'({xv}) = {d} vs {exact}",
                c.name
            );
        }
    }
}

#[test]
fn out_of_range_arguments_are_named() {
    let msg = catch_panic_message(|| iexp(&mut I21F43::ZERO.clone(), &mut I21F43::from_num(14.0)));
    assert!(
        msg.contains("iexp") && msg.contains("x = 14") && msg.contains("< x < 13.5"),
        "{msg}"
    );
    let msg = catch_panic_message(|| iexp(&mut I21F43::ZERO.clone(), &mut I21F43::MIN.clone()));
    assert!(
        msg.contains("iexp")
            && msg.contains("x = -1048576 ")
            && msg.contains("expected -1048575.5 < x"),
        "{msg}"
    );
    let msg = catch_panic_message(|| icos(&mut I21F43::ZERO.clone(), &mut I21F43::MAX.clone()));
    assert!(
        msg.contains("icos") && msg.contains("expected -1048575 < x < 1048575"),
        "{msg}"
    );
    let msg = catch_panic_message(|| ilog(&mut I21F43::ZERO.clone(), &mut I21F43::from_num(-1.0)));
    assert!(
        msg.contains("ilog") && msg.contains("x = -1") && msg.contains("expected x > 0"),
        "{msg}"
    );
}

#[test]
fn a_32_bit_type_gets_its_own_resolution() {
    use fixed::types::I16F16;
    for x0 in [-3.0f64, -0.7, 0.1, 1.0, 2.5, 6.0] {
        let (mut y, mut x) = (I16F16::ZERO, I16F16::from_num(x0));
        iexp(&mut y, &mut x);
        let err = (y.to_num::<f64>() - x.to_num::<f64>().exp()).abs();
        assert!(
            err <= 40.0 * 2f64.powi(-16) * (1.0 + x0.exp()),
            "exp({x0}): {err:e}"
        );
        iexp_inv(&mut y, &mut x);
        assert_eq!(y, I16F16::ZERO);
    }
}
