//! `stdlib::mapreduce::i_mapfoldl` (NiLang's `i_mapfoldl`): primitives passed by type, a
//! user's and the library's. Forward against plain Rust, `f_inv(f(x)) == x`, gradients against
//! central differences, the `GVar` program and `f_vjp`, the Hessian (dual numbers through the
//! gradient) against the analytic one, and a call from another reversible function.

use nilang::ad::check_gradient;
use nilang::prims::{Identity, Sin, Square};
// a reversible function that calls `i_mapfoldl` needs its adjoint programs in scope too
use nilang::stdlib::mapreduce::{
    i_mapfoldl, i_mapfoldl_adjoint, i_mapfoldl_adjoint_inv, i_mapfoldl_grad, i_mapfoldl_hessian,
    i_mapfoldl_inv, i_mapfoldl_vjp,
};
use nilang::{i, Acc1, Float, GVar, Loss, Real, Unary};
use proptest::prelude::*;

/// ln cosh x (derivative tanh x), a user primitive.
struct LogCosh;

impl<T: Float> Unary<T> for LogCosh {
    fn value(x: T) -> T {
        x.cosh().ln()
    }
    fn derivative(x: T) -> T {
        x.tanh()
    }
}

fn logcosh(x: f64) -> f64 {
    x.cosh().ln()
}

/// `out += Σ ln(cosh xᵢ)² + Σ sin(xᵢ)`: `i_mapfoldl` called from a reversible function, twice.
#[i]
fn two_folds<T: Real>(out: &mut T, x: &mut [T])
where
    T: Acc1<LogCosh>,
{
    i_mapfoldl::<T, LogCosh, Square>(out, x);
    i_mapfoldl::<T, Sin, Identity>(out, x);
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

fn vector() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-2.0f64..2.0, 1..6)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn forward_inverse_and_gradients(x in vector()) {
        let plain = |x: &[f64]| x.iter().map(|&v| logcosh(v).powi(2)).sum::<f64>();
        let (mut out, mut xs) = (0.0, x.clone());
        i_mapfoldl::<f64, LogCosh, Square>(&mut out, &mut xs);
        prop_assert!(close(out, plain(&x), 1e-14));
        i_mapfoldl_inv::<f64, LogCosh, Square>(&mut out, &mut xs);
        prop_assert!(out.abs() <= 1e-14 && xs == x);
        // the GVar program
        let (mut out, mut xs) = (0.0, x.clone());
        i_mapfoldl::<f64, LogCosh, Square>(&mut out, &mut xs);
        let mut wo = GVar::with_grad(out, 1.0);
        let mut wx: Vec<GVar<f64>> = xs.iter().map(|&v| GVar::new(v)).collect();
        i_mapfoldl_inv::<GVar<f64>, LogCosh, Square>(&mut wo, &mut wx);
        let gvar: Vec<f64> = wx.iter().map(|v| v.g).collect();
        // the adjoint on separate buffers
        let (mut out, mut xs) = (0.0, x.clone());
        let (mut og, mut xg) = (1.0, vec![0.0; x.len()]);
        i_mapfoldl_vjp::<f64, LogCosh, Square, _>(&mut out, &mut og, &mut xs, &mut xg);
        prop_assert_eq!(&xg, &gvar);
        let (_, g) = i_mapfoldl_grad::<f64, LogCosh, Square>(Loss::arg(0), &mut 0.0, &mut x.clone()).unwrap();
        prop_assert_eq!(g.iter().map(|v| v.g).collect::<Vec<_>>(), gvar.clone());
        for (g, &v) in gvar.iter().zip(&x) {
            prop_assert!(close(*g, 2.0 * logcosh(v) * v.tanh(), 1e-12));
        }
        let check = check_gradient(plain, &x, &gvar, 1e-6, 1e-6);
        prop_assert!(check.is_ok(), "{:?}", check);
        // the Hessian: diagonal, (lc²)'' = 2(tanh² + lc·(1 − tanh²)) with lc = ln cosh
        let h = i_mapfoldl_hessian::<f64, LogCosh, Square>(Loss::arg(0), &mut 0.0, &mut x.clone()).unwrap();
        for (i, &v) in x.iter().enumerate() {
            for (j, _) in x.iter().enumerate() {
                let (t, lc) = (v.tanh(), logcosh(v));
                let want = if i == j { 2.0 * (t * t + lc * (1.0 - t * t)) } else { 0.0 };
                prop_assert!(close(h.get(1 + i, 1 + j), want, 1e-10), "{} vs {}", h.get(1 + i, 1 + j), want);
            }
        }
    }

    #[test]
    fn called_from_a_reversible_function(x in vector()) {
        let plain = |x: &[f64]| x.iter().map(|&v| logcosh(v).powi(2) + v.sin()).sum::<f64>();
        let (mut out, mut xs) = (0.0, x.clone());
        two_folds(&mut out, &mut xs);
        prop_assert!(close(out, plain(&x), 1e-14));
        two_folds_inv(&mut out, &mut xs);
        prop_assert!(out.abs() <= 1e-14);
        let (mut out, mut xs) = (0.0, x.clone());
        let (mut og, mut xg) = (1.0, vec![0.0; x.len()]);
        two_folds_vjp(&mut out, &mut og, &mut xs, &mut xg);
        let (_, g) = two_folds_grad(Loss::arg(0), &mut 0.0, &mut x.clone()).unwrap();
        prop_assert_eq!(g.iter().map(|v| v.g).collect::<Vec<_>>(), xg.clone());
        let check = check_gradient(plain, &x, &xg, 1e-6, 1e-6);
        prop_assert!(check.is_ok(), "{:?}", check);
    }
}
