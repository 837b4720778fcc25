//! The numerical checks a NiLang user has (`hessian_numeric`, `check_inv`): the central-
//! difference Hessian against the exact one (`f_hessian`, forward over reverse) on random
//! points, and the invertibility checker on right and wrong inverses, on adjoint programs, on
//! a failing runtime check and on a resized state.

use nilang::ad::{numeric_hessian, split_mut};
use nilang::check::{check_inv, InverseMismatch};
use nilang::{i, rev, CheckKind, Loss, Real, Reversible};
use num_complex::Complex;
use proptest::prelude::*;

/// `out += x₀ x₁ + sin(x₀) x₂ + exp(x₁ x₂) + |x₀ + i x₂|²`, written as instructions.
#[i(expand)]
fn mixed<T: Real>(out: &mut T, x: &mut [T]) {
    out += x[0] * x[1];
    out += sin(x[0]) * x[2];
    out += exp(x[1] * x[2]);
    out += square(x[0]);
    out += square(x[2]);
}

fn mixed_plain(x: &[f64]) -> f64 {
    x[0] * x[1] + x[0].sin() * x[2] + (x[1] * x[2]).exp() + Complex::new(x[0], x[2]).norm_sqr()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// The differences agree with the exact Hessian (its block of `x`: `f_hessian` also has
    /// the row and column of `out`) and are exactly symmetric.
    #[test]
    fn numeric_hessian_is_the_exact_one(x in prop::collection::vec(-1.0f64..1.0, 3)) {
        let exact = mixed_hessian(Loss::arg(0), &mut 0.0, &mut x.clone()).unwrap();
        let numeric = numeric_hessian(mixed_plain, &x, 1e-4);
        for i in 0..3 {
            for j in 0..3 {
                let (e, n) = (exact[(i + 1, j + 1)], numeric[(i, j)]);
                prop_assert!((e - n).abs() <= 1e-5 * (1.0 + e.abs()), "({i}, {j}): {e} vs {n}");
                prop_assert_eq!(numeric[(i, j)].to_bits(), numeric[(j, i)].to_bits());
            }
        }
    }

    /// A function and its inverse, and the adjoint program and its inverse, give the state
    /// back; a wrong inverse is reported at the first scalar it misses.
    #[test]
    fn check_inv_of_a_function_and_its_adjoint(x in prop::collection::vec(-1.0f64..1.0, 3)) {
        prop_assume!(x[0].abs() > 1e-3); // the wrong inverse below misses x₀²
        let mut state = vec![0.0];
        state.extend(&x);
        let run = |s: &mut [f64]| {
            let [out, x] = split_mut(s, [1, 3]);
            mixed(&mut out[0], x)
        };
        let run_inv = |s: &mut [f64]| {
            let [out, x] = split_mut(s, [1, 3]);
            mixed_inv(&mut out[0], x)
        };
        prop_assert_eq!(check_inv(&mut state[..], run, run_inv, 1e-12), Ok(()));
        let forgets_one = |s: &mut [f64]| s[0] -= mixed_plain(&s[1..]) - s[1] * s[1];
        let err = check_inv(&mut state[..], run, forgets_one, 1e-12).unwrap_err();
        match err {
            InverseMismatch::Value { index, before, after } => {
                prop_assert_eq!(index, 0);
                prop_assert!((after - before - x[0] * x[0]).abs() < 1e-12);
            }
            other => prop_assert!(false, "{:?}", other),
        }

        // values then gradients: out, x, out_grad, x_grad
        let mut pairs = vec![0.0; 8];
        pairs[1..4].copy_from_slice(&x);
        pairs[4] = 1.0;
        let adjoint = |s: &mut [f64]| {
            let [out, x, og, xg] = split_mut(s, [1, 3, 1, 3]);
            mixed_adjoint(&mut out[0], &mut og[0], x, xg)
        };
        let adjoint_inv = |s: &mut [f64]| {
            let [out, x, og, xg] = split_mut(s, [1, 3, 1, 3]);
            mixed_adjoint_inv(&mut out[0], &mut og[0], x, xg)
        };
        prop_assert_eq!(check_inv(&mut pairs[..], adjoint, adjoint_inv, 1e-12), Ok(()));
    }
}

/// Both directions of a `Reversible` value, and the reported scalar of a wrong pairing.
#[test]
fn check_inv_of_reversible_values() {
    #[i]
    fn shift<T: Real>(y: &mut T, x: &mut T) {
        y += exp(x);
    }
    #[i]
    fn shift_more<T: Real>(y: &mut T, x: &mut T) {
        y += exp(x);
        y += identity(x);
    }
    let mut state = [0.5, 0.25];
    let call = |r: &dyn Fn(&mut f64, &mut f64), s: &mut [f64; 2]| {
        let [y, x] = s;
        r(y, x)
    };
    let r = rev!(shift::<f64>);
    let ok = check_inv(
        &mut state,
        |s| call(&|y, x| r.call((y, x)), s),
        |s| call(&|y, x| r.uncall((y, x)), s),
        1e-14,
    );
    assert_eq!(ok, Ok(()));
    let err = check_inv(
        &mut state,
        |s| call(&|y, x| shift_more(y, x), s),
        |s| call(&|y, x| r.uncall((y, x)), s),
        1e-14,
    )
    .unwrap_err();
    match err {
        InverseMismatch::Value {
            index: 0,
            before,
            after,
        } => assert!(before == 0.5 && (after - 0.75).abs() < 1e-15),
        other => panic!("{other:?}"),
    }
}

/// A runtime check that fails in the inverse is an error value, not a panic; so is a state
/// that changes size; a NaN given back as itself is given back.
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn check_inv_reports_checks_lengths_and_nans() {
    #[i]
    fn leaky<T: Real>(y: &mut T, x: &mut T) {
        let t = T::zero();
        t += exp(x);
        y += identity(t);
        dealloc!(t = T::zero()); // t is not zero: a runtime check fails
    }
    let mut s = [0.0, 1.0];
    let err = check_inv(
        &mut s,
        |s| {
            let [y, x] = s;
            leaky(y, x)
        },
        |_| {},
        1e-12,
    )
    .unwrap_err();
    match err {
        InverseMismatch::Check(e) => {
            assert_eq!((e.kind, e.function), (CheckKind::Dealloc, "leaky"))
        }
        other => panic!("{other:?}"),
    }

    let mut v = vec![1.0, 2.0];
    let err = check_inv(&mut v, |v| v.push(3.0), |_| {}, 1e-12).unwrap_err();
    assert_eq!(
        err,
        InverseMismatch::Length {
            before: 2,
            after: 3
        }
    );
    assert!(err
        .to_string()
        .contains("held 2 scalars before and holds 3"));

    let mut v = vec![f64::NAN, 1.0];
    assert_eq!(
        check_inv(&mut v, |v| v[1] += 1.0, |v| v[1] -= 1.0, 0.0),
        Ok(())
    );
    let mut z = Complex::new(1.0, 2.0);
    let err = check_inv(&mut z, |z| z.im += 1.0, |_| {}, 1e-12).unwrap_err();
    assert!(matches!(err, InverseMismatch::Value { index: 1, .. }));
}
