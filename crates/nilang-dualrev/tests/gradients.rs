//! Gradients of the efficient engine against forward mode, finite
//! differences and the naive §3 transformation, at fixed and random points.
#![allow(clippy::redundant_closure)]

mod common;

use common::*;
use nilang_dualrev::{grad, naive, Scalar};
use proptest::prelude::*;

/// Check one generic function at `x` against all oracles.
macro_rules! check_all {
    ($f:ident, $x:expr) => {{
        let x: &[f64] = $x;
        let (v, g) = grad(|xs| $f(xs), x).unwrap();
        assert_eq!(v, $f::<f64>(x), "{}: primal value", stringify!($f));
        let gf = fwd_grad(|xs| $f(xs), x);
        assert_close(&g, &gf, 1e-8, concat!(stringify!($f), " vs forward mode"));
        let gd = fd_grad(|xs| $f(xs), x);
        assert_close(
            &g,
            &gd,
            1e-8,
            concat!(stringify!($f), " vs finite differences"),
        );
        let (nv, ng, _) = naive::grad(|xs| $f(xs), x);
        assert_eq!(nv, v);
        assert_close(&g, &ng, 1e-12, concat!(stringify!($f), " vs naive §3"));
    }};
}

#[test]
fn rosenbrock_matches_oracles() {
    check_all!(rosenbrock, &[0.3, 0.7, 0.5, 0.9, 0.2]);
    // Known closed form at the minimum: gradient zero.
    let (v, g) = grad(|x| rosenbrock(x), &[1.0, 1.0, 1.0]).unwrap();
    assert_eq!(v, 0.0);
    assert!(g.iter().all(|&d| d == 0.0));
}

#[test]
fn elementary_functions_match_oracles() {
    check_all!(elementary, &[0.4, 0.6, 0.8]);
}

#[test]
fn binary_operations_match_oracles() {
    check_all!(binary_ops, &[0.4, 0.6, 0.8]);
    // max/min ties and the other branch.
    check_all!(binary_ops, &[0.7, 0.3, 0.5]);
}

#[test]
fn constants_on_both_sides_for_concrete_type() {
    use nilang_dualrev::DualRev;
    fn f(x: &[DualRev]) -> DualRev {
        2.0 * x[0] + 3.0 - x[1] + 1.0 / x[1] + (5.0 - x[0]) * x[1] / 2.0
    }
    let (_, g) = grad(f, &[1.5, 2.0]).unwrap();
    // d/dx0 = 2 - x1/2 ; d/dx1 = -1 - 1/x1^2 + (5 - x0)/2
    assert_close(&g, &[2.0 - 1.0, -1.0 - 0.25 + 1.75], 1e-15, "constants");
}

#[test]
fn scalar_outputs_that_do_not_depend_on_inputs_have_zero_gradient() {
    let (v, g) = grad(|_x| nilang_dualrev::DualRev::cst(4.0), &[1.0, 2.0]).unwrap();
    assert_eq!(v, 4.0);
    assert_eq!(g, vec![0.0, 0.0]);
    let (v, g) = grad(|x| x[0] * 0.0 + 1.0, &[3.0]).unwrap();
    assert_eq!(v, 1.0);
    assert_eq!(g, vec![0.0]);
}

#[test]
fn empty_input_is_fine() {
    let (v, g) = grad(|_x| nilang_dualrev::DualRev::cst(1.0), &[]).unwrap();
    assert_eq!((v, g.len()), (1.0, 0));
}

#[test]
fn large_input_uses_heap_path() {
    let x: Vec<f64> = (0..100).map(|i| 0.2 + 0.007 * i as f64).collect();
    check_all!(rosenbrock, &x);
}

/// A vector-valued test function: the quaternion rotation of Table 1
/// (not normalised, so every input matters).
fn rotate<S: Scalar>(x: &[S]) -> Vec<S> {
    let (v, w, u) = ([x[0], x[1], x[2]], x[3], [x[4], x[5], x[6]]);
    let s = w * w * 2.0 - 1.0;
    let d = (u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) * 2.0;
    let c = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    (0..3)
        .map(|i| s * v[i] + d * u[i] + w * c[i] * 2.0)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn prop_jacobian_and_vjp(
        x in proptest::collection::vec(-2.0f64..2.0, 7),
        w in proptest::collection::vec(-2.0f64..2.0, 3),
    ) {
        let (vals, j) = nilang_dualrev::jacobian(|x| rotate(x), &x).unwrap();
        prop_assert_eq!(vals, rotate::<f64>(&x));
        let naive = naive::jacobian(|x| rotate(x), &x);
        for (i, row) in j.iter().enumerate() {
            let fwd = fwd_grad(|x| rotate(x)[i], &x);
            assert_close(row, &fwd, 1e-12, "Jacobian row vs forward mode");
            assert_close(row, &naive.jacobian[i], 1e-12, "Jacobian row vs naive");
        }
        let (_, g) = nilang_dualrev::vjp(|x| rotate(x), &x, &w).unwrap();
        let expect: Vec<f64> = (0..7).map(|c| (0..3).map(|r| w[r] * j[r][c]).sum()).collect();
        assert_close(&g, &expect, 1e-12, "vjp = wᵀJ");
    }

    #[test]
    fn prop_elementary(a in 0.2f64..0.9, b in 0.2f64..0.9, c in 0.2f64..0.9) {
        // Stay away from the kink of |a - b| so finite differences are valid.
        prop_assume!((a - b).abs() > 0.01);
        check_all!(elementary, &[a, b, c]);
    }

    #[test]
    fn prop_binary_ops(a in 0.2f64..0.9, b in 0.2f64..0.9, c in 0.2f64..0.9) {
        // Stay away from the kinks of max(a, b) and min(c, a).
        prop_assume!((a - b).abs() > 0.01 && (c - a).abs() > 0.01);
        check_all!(binary_ops, &[a, b, c]);
    }

    #[test]
    fn prop_rosenbrock(x in proptest::collection::vec(-2.0f64..2.0, 2..12)) {
        check_all!(rosenbrock, &x);
    }

    #[test]
    fn prop_value_unchanged_by_differentiation(
        x in proptest::collection::vec(0.2f64..0.9, 3..4)
    ) {
        for (name, f) in all_functions_f64() {
            let v = f(&x);
            let w = match name {
                "rosenbrock" => grad(|x| rosenbrock(x), &x).unwrap().0,
                "elementary" => grad(|x| elementary(x), &x).unwrap().0,
                _ => grad(|x| binary_ops(x), &x).unwrap().0,
            };
            prop_assert_eq!(v, w);
        }
    }
}
