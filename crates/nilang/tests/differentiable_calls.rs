//! Calls between `#[differentiable]` functions: each call runs its callee's taped program
//! once (`g_rev_taped`), leaving what the callee saved on the caller's tapes; only the
//! outermost `f_rev` computes, copies out and uncomputes. Checked here: the values equal the
//! plain functions' bit for bit, the taped program leaves one saved value per call and its
//! inverse pops them all, `f_rev` leaves nothing, gradients agree with central differences
//! (proptest), and a recursion (the determinant by minors) has the cofactor gradient.

use nilang::stack::Decisions;
use nilang::{differentiable, Dual};
use proptest::prelude::*;

/// The determinant of the minor of the `n × n` row-major `a` made of rows `row..n` and the
/// columns whose bits are set in `cols`, by expansion along its first row (recursive).
#[differentiable(wrt(a))]
fn minor(a: &[f64], n: usize, row: usize, cols: usize) -> f64 {
    let mut det = 0.0;
    if row + 1 == n {
        for j in 0..n {
            if cols & (1 << j) != 0 {
                det += a[row * n + j];
            }
        }
    } else {
        let mut k = 0;
        for j in 0..n {
            if cols & (1 << j) != 0 {
                if k % 2 == 0 {
                    det += a[row * n + j] * minor(a, n, row + 1, cols & !(1 << j));
                } else {
                    det -= a[row * n + j] * minor(a, n, row + 1, cols & !(1 << j));
                }
                k += 1;
            }
        }
    }
    det
}

fn det(a: &[f64], n: usize) -> f64 {
    minor(a, n, 0, (1 << n) - 1)
}

/// How many calls of `minor` an `n × n` determinant makes below the first: `n (1 + calls(n−1))`.
fn calls_below(n: usize) -> usize {
    if n <= 1 {
        0
    } else {
        n * (1 + calls_below(n - 1))
    }
}

/// A chain of calls three deep, with an argument computed at the call and a call result
/// overwritten.
#[differentiable]
fn inner(x: f64) -> f64 {
    x.sin() * x
}

#[differentiable]
fn middle(x: f64, y: f64) -> f64 {
    let mut t = inner(x) * inner(y + 1.0);
    t = t * t + inner(x * y);
    t
}

/// Also calls given one variable, or one element, twice (`middle(a, a)`): each argument is
/// borrowed alone.
#[differentiable]
fn outer(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 1..x.len() {
        let a = x[i];
        s += middle(x[i - 1], x[i]).tanh() + 0.1 * middle(a, a) + 0.1 * middle(x[i], x[i]);
    }
    s
}

#[test]
fn a_call_leaves_what_the_callee_saved_for_the_inverse_to_pop() {
    let n = 4;
    let a: Vec<f64> = (0..n * n)
        .map(|k| ((k * 7 % 5) as f64) - 1.5 + 0.1 * k as f64)
        .collect();
    let (mut out, mut tape, mut decisions) = (0.0, Vec::new(), Decisions::new());
    let mut ar = a.clone();
    let all = (1 << n) - 1;
    minor_rev_taped(&mut out, &mut tape, &mut decisions, &mut ar, n, 0, all);
    assert_eq!(out, det(&a, n), "the same operations as the plain function");
    // every call's value is saved once (not recomputed), and each minor's accumulator
    assert_eq!(tape.len(), calls_below(n) + (calls_below(n) + 1));
    minor_rev_taped_inv(&mut out, &mut tape, &mut decisions, &mut ar, n, 0, all);
    assert_eq!((out, tape.len(), decisions.len()), (0.0, 0, 0));
    assert_eq!(ar, a);
    // `f_rev` keeps its tapes to itself and undoes its work
    minor_rev(&mut out, &mut ar, n, 0, all);
    assert_eq!(out, det(&a, n));
    minor_rev_inv(&mut out, &mut ar, n, 0, all);
    assert_eq!((out, &ar), (0.0, &a));
}

#[test]
fn the_determinant_by_minors_has_the_cofactor_gradient() {
    // a = [[2, 1, 0], [1, 3, 1], [0, 1, 4]]: det 18; cofactors by hand
    let a = [2.0, 1.0, 0.0, 1.0, 3.0, 1.0, 0.0, 1.0, 4.0];
    let (value, grad) = minor_gradient(&a, 3, 0, 0b111);
    assert_eq!(value, 18.0);
    let cofactors = [11.0, -4.0, 1.0, -4.0, 8.0, -2.0, 1.0, -2.0, 5.0];
    assert_eq!(grad, cofactors);
}

#[test]
fn nested_calls_uncall_to_their_inputs() {
    let x = vec![0.3, -0.7, 1.1, 0.4];
    let (mut out, mut xr) = (0.0, x.clone());
    outer_rev(&mut out, &mut xr);
    assert_eq!(out, outer(&x));
    outer_rev_inv(&mut out, &mut xr);
    assert_eq!((out, xr), (0.0, x));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn nested_calls_have_the_gradient_of_central_differences_and_forward_mode(
        x in prop::collection::vec(-1.5f64..1.5, 2..6),
    ) {
        let (value, grad) = outer_gradient(&x);
        prop_assert_eq!(value, outer(&x));
        let e = 1e-6;
        for i in 0..x.len() {
            let (mut up, mut down) = (x.clone(), x.clone());
            up[i] += e;
            down[i] -= e;
            let fd = (outer(&up) - outer(&down)) / (2.0 * e);
            prop_assert!((grad[i] - fd).abs() < 1e-5 * (1.0 + fd.abs()), "{i}: {} vs {fd}", grad[i]);
            // forward mode: the reversible program on dual numbers, seeded at x[i]
            let mut xd: Vec<Dual<f64>> = x.iter().map(|&v| Dual::new(v, 0.0)).collect();
            xd[i] = Dual::new(x[i], 1.0);
            let mut out = Dual::new(0.0, 0.0);
            outer_rev(&mut out, &mut xd);
            prop_assert!((out.eps - grad[i]).abs() < 1e-9 * (1.0 + grad[i].abs()));
        }
    }

    #[test]
    fn determinants_by_minors_have_the_gradient_of_central_differences(
        a in prop::collection::vec(-2.0f64..2.0, 16),
    ) {
        let (value, grad) = minor_gradient(&a, 4, 0, 0b1111);
        prop_assert_eq!(value, det(&a, 4));
        let e = 1e-6;
        for k in 0..16 {
            let (mut up, mut down) = (a.clone(), a.clone());
            up[k] += e;
            down[k] -= e;
            let fd = (det(&up, 4) - det(&down, 4)) / (2.0 * e);
            prop_assert!((grad[k] - fd).abs() < 1e-6 * (1.0 + fd.abs()), "{k}: {} vs {fd}", grad[k]);
        }
    }
}
