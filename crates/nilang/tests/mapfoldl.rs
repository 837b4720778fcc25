//! `stdlib::mapreduce::i_mapfoldl` (NiLang's `i_mapfoldl`): primitives passed by type, a
//! user's and the library's. Forward against plain Rust, `f_inv(f(x)) == x`, gradients against
//! central differences, the `GVar` program and `f_vjp`, the Hessian (dual numbers through the
//! gradient) against the analytic one, and a call from another reversible function.
//!
//! `mapfoldl!(map, fold, out, x)` (NiLang's `i_mapfoldl` with a reversible map and a
//! reversible fold, both written in the language): values against plain Rust, the round trip,
//! gradients against central differences, the tape engine (`nilang_dualrev`), the `GVar`
//! program and `f_grad`; and the additive case against `i_mapfoldl` bit for bit.

use nilang::ad::check_gradient;
use nilang::prims::{Identity, Sin, Square};
// a reversible function that calls `i_mapfoldl` needs only its name in scope
use nilang::stdlib::mapreduce::{
    i_mapfoldl, i_mapfoldl_grad, i_mapfoldl_hessian, i_mapfoldl_inv, i_mapfoldl_vjp,
};
use nilang::{i, Acc1, Float, GVar, Loss, Real, Unary};
use nilang_dualrev::DualRev;
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

/// The map `anc += xᵢ²`: a reversible function (its uncall takes it back out).
#[i]
fn square_into<T: Real>(anc: &mut T, x: &mut T) {
    anc += square(x);
}

/// The additive fold `out += anc` (NiLang's `PlusEq(identity)`).
#[i]
fn add_into<T: Real>(out: &mut T, anc: &mut T) {
    out += identity(anc);
}

/// A fold that is neither additive nor commutative: `out ← out·e^{anc} + anc`. The product
/// is NiLang's reversible multiplication: `t = out·e`, exchanged with `out`, and `t` cleared
/// by `t -= out / e` (exact up to one rounding, which the dealloc check allows).
#[i]
fn scale_add<T: Real>(out: &mut T, anc: &mut T) {
    let e = T::zero();
    e += exp(anc);
    let t = T::zero();
    t += out * e;
    swap(out, t);
    t -= out / e;
    dealloc!(t = T::zero());
    e -= exp(anc);
    dealloc!(e = T::zero());
    out += identity(anc);
}

/// `out += Σ xᵢ²` by `mapfoldl!`, the fold additive.
#[i]
fn sum_of_squares<T: Real>(out: &mut T, x: &mut [T]) {
    mapfoldl!(square_into, add_into, out, x);
}

/// `out ← out·e^{x₀²} + x₀²`, then the same with `x₁`, …: a left fold, order matters.
#[i]
fn exp_horner<T: Real>(out: &mut T, x: &mut [T]) {
    mapfoldl!(square_into, scale_add, out, x);
}

fn exp_horner_plain(out0: f64, x: &[f64]) -> f64 {
    x.iter().fold(out0, |out, &v| {
        let a = v * v;
        out * a.exp() + a
    })
}

/// The gradient of `out` after `f(out0, x)` with respect to `(out0, x)` by the tape engine:
/// `f` run forward on `GVar<DualRev>` (no adjoint rule of `gvar.rs` involved).
fn tape_gradient(f: fn(&mut GVar<DualRev>, &mut [GVar<DualRev>]), inputs: &[f64]) -> Vec<f64> {
    let (_, g) = nilang_dualrev::grad(
        |v: &[DualRev]| {
            let mut out = GVar::new(v[0]);
            let mut x: Vec<GVar<DualRev>> = v[1..].iter().map(|v| GVar::new(*v)).collect();
            f(&mut out, &mut x);
            out.x
        },
        inputs,
    )
    .unwrap();
    g
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

    #[test]
    fn mapfoldl_with_an_additive_fold_is_i_mapfoldl(x in vector()) {
        let (mut a, mut b) = (0.25, 0.25);
        sum_of_squares(&mut a, &mut x.clone());
        i_mapfoldl::<f64, Square, Identity>(&mut b, &mut x.clone());
        prop_assert_eq!(a.to_bits(), b.to_bits());
        let (mut og, mut xg) = (1.0, vec![0.0; x.len()]);
        sum_of_squares_vjp(&mut a, &mut og, &mut x.clone(), &mut xg);
        let want: Vec<f64> = x.iter().map(|v| 2.0 * v).collect();
        prop_assert_eq!(xg, want);
    }

    #[test]
    fn mapfoldl_with_a_reversible_fold(x in vector(), out0 in -1.0f64..1.0) {
        // values against plain Rust, and the round trip
        let (mut out, mut xs) = (out0, x.clone());
        exp_horner(&mut out, &mut xs);
        let want = exp_horner_plain(out0, &x);
        prop_assert!(close(out, want, 1e-13), "{} vs {}", out, want);
        exp_horner_inv(&mut out, &mut xs);
        prop_assert!(close(out, out0, 1e-12), "{} vs {}", out, out0);
        prop_assert_eq!(&xs, &x);
        // the order matters: the fold is not a sum
        if x.len() > 1 && (x[0].abs() - x[x.len() - 1].abs()).abs() > 0.1 {
            let reversed: Vec<f64> = x.iter().rev().copied().collect();
            prop_assert!(!close(exp_horner_plain(out0, &reversed), want, 1e-9));
        }
        // gradients of out with respect to (out0, x): f_vjp, the GVar program, f_grad
        let (mut out, mut xs) = (out0, x.clone());
        let (mut og, mut xg) = (1.0, vec![0.0; x.len()]);
        exp_horner_vjp(&mut out, &mut og, &mut xs, &mut xg);
        let (mut out, mut xs) = (out0, x.clone());
        exp_horner(&mut out, &mut xs);
        let mut wo = GVar::with_grad(out, 1.0);
        let mut wx: Vec<GVar<f64>> = xs.iter().map(|&v| GVar::new(v)).collect();
        exp_horner_inv(&mut wo, &mut wx);
        prop_assert_eq!(og.to_bits(), wo.g.to_bits());
        prop_assert_eq!(&xg, &wx.iter().map(|v| v.g).collect::<Vec<_>>());
        let (_, g) = exp_horner_grad(Loss::arg(0), &mut out0.clone(), &mut x.clone()).unwrap();
        prop_assert_eq!(&xg, &g.iter().map(|v| v.g).collect::<Vec<_>>());
        // against the tape engine and central differences
        let mut inputs = vec![out0];
        inputs.extend_from_slice(&x);
        let mut ours = vec![og];
        ours.extend_from_slice(&xg);
        let tape = tape_gradient(exp_horner, &inputs);
        for (a, b) in ours.iter().zip(&tape) {
            prop_assert!(close(*a, *b, 1e-12), "{:?} vs the tape's {:?}", ours, tape);
        }
        let plain = |v: &[f64]| exp_horner_plain(v[0], &v[1..]);
        let check = check_gradient(plain, &inputs, &ours, 1e-6, 1e-6);
        prop_assert!(check.is_ok(), "{:?}", check);
    }
}
