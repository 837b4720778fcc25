//! The API a new user meets first: printing, indexing, conditions on `Real` values, chosen
//! names for the gradient functions, gradients of functions on `f64`, primitives of one's
//! own without a bound, and the closure-level helpers. Every gradient is checked against
//! central differences and against a second AD path (the generic inverse on `GVar`s, or the
//! dual-number Hessian).

use nilang::ad::{check_gradient, gradient, hessian_vector_product, WithGrad};
use nilang::{i, Dual, Float, GVar, Lanes, Loss, Matrix, Real, Unary};
use proptest::prelude::*;

#[test]
fn gvar_dual_lanes_and_matrix_print_readably() {
    assert_eq!(GVar::with_grad(2.0, 0.5).to_string(), "2 (grad 0.5)");
    assert_eq!(
        format!("{:.3}", GVar::with_grad(1.0, -1.0)),
        "1.000 (grad -1.000)"
    );
    assert_eq!(Dual::new(1.0, -2.0).to_string(), "1 - 2ε");
    assert_eq!(Dual::new(1.0, 0.0).to_string(), "1 + 0ε");
    assert_eq!(Lanes([1.0, 2.5]).to_string(), "[1, 2.5]");
    let mut m = Matrix::filled(2, 2, 0.0);
    m[(0, 0)] = 10.0;
    m[(1, 1)] = -3.25;
    assert_eq!(m.to_string(), "[10      0]\n[ 0  -3.25]\n");
    assert_eq!(m[(1, 1)], m.get(1, 1));
    assert_eq!(Matrix::<f64>::filled(0, 0, 0.0).to_string(), "");
}

#[test]
#[should_panic(expected = "index (2, 0) out of range for a 2×3 matrix")]
fn matrix_index_out_of_range_names_the_index_and_the_shape() {
    let m = Matrix::filled(2, 3, 0.0);
    let _ = m[(2, 0)];
}

#[test]
#[should_panic(expected = "index (0, 3) out of range for a 2×3 matrix")]
fn matrix_column_out_of_range_is_caught_even_inside_the_data() {
    // (0, 3) would be entry 3 of the data, inside the buffer: still an error
    let mut m = Matrix::filled(2, 3, 0.0);
    m[(0, 3)] = 1.0;
}

/// A condition on `Real` values without `.val()`: `*x > T::zero()` and `x[k] < T::lit(c)`.
#[i]
fn clipped_sum<T: Real>(y: &mut T, x: &mut [T]) {
    for k in 0..x.len() {
        if x[k] > T::zero() {
            if x[k] < T::lit(2.0) {
                y += square(x[k]);
            } else {
                y += 4.0 * x[k];
            }
        }
    }
}

fn clipped_sum_plain(x: &[f64]) -> f64 {
    x.iter()
        .map(|&v| match v {
            v if v <= 0.0 => 0.0,
            v if v < 2.0 => v * v,
            v => 4.0 * v,
        })
        .sum()
}

proptest! {
    #[test]
    fn conditions_compare_real_values_on_every_scalar_type(
        x in prop::collection::vec(-3.0f64..3.0, 1..6)
    ) {
        // away from the kinks, where central differences straddle two branches
        prop_assume!(x.iter().all(|v| v.abs() > 1e-3 && (v - 2.0).abs() > 1e-3));
        let (mut y, mut xs) = (0.0, x.clone());
        clipped_sum(&mut y, &mut xs);
        prop_assert!((y - clipped_sum_plain(&x)).abs() < 1e-12);
        let (_, g) = clipped_sum_grad(Loss::arg(0), &mut 0.0, &mut x.clone()).unwrap();
        let grads: Vec<f64> = g.iter().map(|v| v.g).collect();
        check_gradient(clipped_sum_plain, &x, &grads, 1e-6, 1e-6).unwrap();
        // the second AD mode: the generic inverse on GVars takes the same branches
        let mut gy = GVar::with_grad(y, 1.0);
        let mut gx: Vec<GVar<f64>> = x.iter().map(|&v| GVar::new(v)).collect();
        clipped_sum_inv(&mut gy, &mut gx);
        for (a, b) in gx.iter().zip(&g) {
            prop_assert_eq!(a.g, b.g);
        }
    }
}

/// Gradient functions under names of one's choosing; the inverse keeps its own option.
#[i(grad = dnorm, vjp = norm_pullback, jacobian = norm_jac, hessian = norm_hess, inverse = unnorm)]
fn norm<T: Real>(out: &mut T, x: &mut [T]) {
    for k in 0..x.len() {
        out += square(x[k]);
    }
}

#[test]
fn gradient_functions_take_the_chosen_names() {
    let x = vec![1.0, -2.0, 0.5];
    let (_, g) = dnorm(Loss::arg(0), &mut 0.0, &mut x.clone()).unwrap();
    let grads: Vec<f64> = g.iter().map(|v| v.g).collect();
    assert_eq!(grads, vec![2.0, -4.0, 1.0]);
    let (mut out, mut out_grad, mut xs, mut xg) = (0.0, 1.0, x.clone(), vec![0.0; 3]);
    norm_pullback(&mut out, &mut out_grad, &mut xs, &mut xg);
    assert_eq!(xg, grads);
    let j = norm_jac(&mut 0.0, &mut x.clone()).unwrap();
    assert_eq!(j.row(0), &[1.0, 2.0, -4.0, 1.0]); // ∂out/∂(out, x)
    let rows = norm_jac_of(&[Loss::arg(0)], &mut 0.0, &mut x.clone()).unwrap();
    assert_eq!((rows.rows, rows.row(0)), (1, j.row(0)));
    let h = norm_hess(Loss::arg(0), &mut 0.0, &mut x.clone()).unwrap();
    for k in 0..3 {
        assert_eq!(h[(k + 1, k + 1)], 2.0);
    }
    let (mut y, mut xs) = (0.0, x.clone());
    norm(&mut y, &mut xs);
    unnorm(&mut y, &mut xs);
    assert_eq!((y, xs), (0.0, x));
}

/// A parameter named `loss` does not clash with the loss selector the gradient adds.
#[i]
fn named_loss<T: Real>(loss: &mut T, x: &mut T) {
    loss += exp(x);
}

#[test]
fn a_parameter_named_loss_keeps_working() {
    let (g_loss, g_x) = named_loss_grad(Loss::arg(0), &mut 0.0, &mut 0.5).unwrap();
    assert_eq!(g_loss.g, 1.0);
    assert_eq!(g_x.g, 0.5f64.exp());
}

#[test]
fn the_result_type_has_a_readable_name() {
    let (gy, gx): (WithGrad<f64, f64>, WithGrad<[f64], f64>) =
        grad_of_norm(&mut 0.0, &mut [3.0, 4.0]);
    assert_eq!(gy.g, 1.0);
    assert_eq!(gx.iter().map(|v| v.g).collect::<Vec<_>>(), vec![6.0, 8.0]);
}

fn grad_of_norm(y: &mut f64, x: &mut [f64]) -> (WithGrad<f64, f64>, WithGrad<[f64], f64>) {
    dnorm(Loss::arg(0), y, x).unwrap()
}

/// A function on `f64` itself, not generic: it gets `_vjp`, `_grad` and `_jacobian` too
/// (not `_hessian`, which runs the gradient on dual numbers).
#[i]
fn on_f64(y: &mut f64, x: &mut [f64]) {
    for k in 0..x.len() {
        y += sin(x[k]);
    }
    let c = 2.0;
    y += c * x[0];
    dealloc!(c = 2.0);
}

#[i]
fn on_generic<T: Real>(y: &mut T, x: &mut [T]) {
    for k in 0..x.len() {
        y += sin(x[k]);
    }
    y += 2.0 * x[0];
}

fn on_plain(x: &[f64]) -> f64 {
    x.iter().map(|v| v.sin()).sum::<f64>() + 2.0 * x[0]
}

proptest! {
    #[test]
    fn functions_on_f64_have_gradients(x in prop::collection::vec(-3.0f64..3.0, 1..5)) {
        let (mut y, mut xs) = (0.0, x.clone());
        let (_, g) = on_f64_grad(Loss::arg(0), &mut y, &mut xs).unwrap();
        prop_assert!((y - on_plain(&x)).abs() < 1e-12);
        let grads: Vec<f64> = g.iter().map(|v| v.g).collect();
        check_gradient(on_plain, &x, &grads, 1e-6, 1e-6).unwrap();
        let (_, generic) = on_generic_grad(Loss::arg(0), &mut 0.0, &mut x.clone()).unwrap();
        prop_assert_eq!(&g, &generic);
        let j = on_f64_jacobian(&mut 0.0, &mut x.clone()).unwrap();
        prop_assert_eq!(&j.row(0)[1..], &grads[..]);
    }
}

/// A primitive of one's own: `Unary` for every `Float`, and no bound on the function.
struct Softplus;

impl<T: Float> Unary<T> for Softplus {
    fn value(x: T) -> T {
        x.exp().ln_1p()
    }
    fn derivative(x: T) -> T {
        T::f_one() / (T::f_one() + (-x).exp())
    }
}

#[i]
fn softplus_sum<T: Real>(y: &mut T, x: &mut [T]) {
    for k in 0..x.len() {
        y += Softplus(x[k]);
    }
}

fn softplus_plain(x: &[f64]) -> f64 {
    x.iter().map(|v| v.exp().ln_1p()).sum()
}

proptest! {
    #[test]
    fn a_user_primitive_needs_no_bound(x in prop::collection::vec(-4.0f64..4.0, 1..5)) {
        let (mut y, mut xs) = (0.5, x.clone());
        softplus_sum(&mut y, &mut xs);
        prop_assert!((y - 0.5 - softplus_plain(&x)).abs() < 1e-12);
        softplus_sum_inv(&mut y, &mut xs);
        prop_assert!((y - 0.5).abs() < 1e-12);
        let (_, g) = softplus_sum_grad(Loss::arg(0), &mut 0.0, &mut x.clone()).unwrap();
        let grads: Vec<f64> = g.iter().map(|v| v.g).collect();
        check_gradient(softplus_plain, &x, &grads, 1e-6, 1e-6).unwrap();
        // the Hessian is diagonal: σ(x)(1 − σ(x))
        let h = softplus_sum_hessian(Loss::arg(0), &mut 0.0, &mut x.clone()).unwrap();
        for (k, v) in x.iter().enumerate() {
            let s = 1.0 / (1.0 + (-v).exp());
            prop_assert!((h[(k + 1, k + 1)] - s * (1.0 - s)).abs() < 1e-12);
        }
    }
}

#[i(expand)]
fn quartic<T: Real>(out: &mut T, x: &mut [T]) {
    for k in 0..x.len() {
        out += pow(x[k], 4);
    }
    for k in 1..x.len() {
        out += x[k - 1] * x[k];
    }
}

fn quartic_plain(x: &[f64]) -> f64 {
    let quartics: f64 = x.iter().map(|v| v.powi(4)).sum();
    quartics + x.windows(2).map(|w| w[0] * w[1]).sum::<f64>()
}

proptest! {
    #[test]
    fn closure_helpers_agree_with_the_generated_functions(
        x in prop::collection::vec(-2.0f64..2.0, 2..6),
        seed in prop::collection::vec(-1.0f64..1.0, 6),
    ) {
        let g = gradient(quartic_vjp, &x);
        check_gradient(quartic_plain, &x, &g, 1e-6, 1e-6).unwrap();
        let (_, w) = quartic_grad(Loss::arg(0), &mut 0.0, &mut x.clone()).unwrap();
        prop_assert_eq!(g.clone(), w.iter().map(|v| v.g).collect::<Vec<_>>());
        // a closure that fixes a read-only argument works the same
        let g2 = gradient(|o: &mut f64, og: &mut f64, xs: &mut [f64], xg: &mut [f64]| quartic_vjp(o, og, xs, xg), &x);
        prop_assert_eq!(&g, &g2);
        // H v against the dual-number Hessian (the output's row and column are first)
        let v = &seed[..x.len()];
        let hv = hessian_vector_product(quartic_vjp, &x, v);
        let h = quartic_hessian(Loss::arg(0), &mut 0.0, &mut x.clone()).unwrap();
        for i in 0..x.len() {
            let expected: f64 = (0..x.len()).map(|j| h[(i + 1, j + 1)] * v[j]).sum();
            prop_assert!((hv[i] - expected).abs() < 1e-10 * (1.0 + expected.abs()));
        }
    }
}

#[test]
#[should_panic(expected = "the point has 2 coordinates but the vector 3")]
fn hessian_vector_product_rejects_a_vector_of_another_length() {
    hessian_vector_product(quartic_vjp, &[1.0, 2.0], &[1.0, 0.0, 0.0]);
}

/// `out += Σ x[j] w[j]`.
#[i]
fn dot_into<T: Real>(out: &mut T, x: &[T], w: &mut [T]) {
    for j in 0..x.len() {
        out += x[j] * w[j];
    }
}

/// Each row of a read-only `x` handed to a call as it would be written in Rust without `&`:
/// `x[i * d..(i + 1) * d]` (a sub-slice of a read-only place is lent, not copied).
#[i]
fn row_dots<T: Real>(out: &mut [T], x: &[T], w: &mut [T], d: usize) {
    for i in 0..out.len() {
        dot_into(out[i], x[i * d..(i + 1) * d], w);
    }
}

#[test]
fn a_sub_slice_of_a_read_only_parameter_is_a_call_argument() {
    let (x, mut w) = ([1.0, 2.0, 3.0, 4.0], vec![0.5, 2.0]);
    let mut out = vec![0.0; 2];
    row_dots(&mut out, &x, &mut w, 2);
    assert_eq!(out, [4.5, 9.5]);
    // ∂(out[0] + out[1])/∂w = (1 + 3, 2 + 4), through the call's adjoint
    let (mut out_grad, mut w_grad) = (vec![1.0; 2], vec![0.0; 2]);
    row_dots_adjoint(&mut out, &mut out_grad, &x, (), &mut w, &mut w_grad, 2, ());
    assert_eq!((out, w_grad), (vec![0.0; 2], vec![4.0, 6.0]));
}

/// `a += Σ s`.
#[i]
fn add_all<T: Real>(a: &mut T, s: &mut [T]) {
    for j in 0..s.len() {
        a += s[j];
    }
}

/// An element beside a sub-slice of the same variable, in one call.
#[i]
fn head_plus_tail<T: Real>(p: &mut [T]) {
    add_all(p[0], p[1..p.len()]);
}

#[test]
fn an_element_beside_a_sub_slice_of_one_variable_is_a_call() {
    let mut p = vec![1.0, 2.0, 3.0];
    head_plus_tail(&mut p);
    assert_eq!(p, [6.0, 2.0, 3.0]);
    let mut p_grad = vec![1.0, 0.0, 0.0];
    head_plus_tail_adjoint(&mut p, &mut p_grad);
    assert_eq!((p, p_grad), (vec![1.0, 2.0, 3.0], vec![1.0, 1.0, 1.0]));
}

/// An element inside the sub-slice beside it: the same place twice.
#[i]
fn head_plus_itself<T: Real>(p: &mut [T]) {
    add_all(p[1], p[1..p.len()]);
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn an_element_inside_a_sub_slice_of_the_same_call_is_an_aliasing_error() {
    let mut p = vec![1.0, 2.0, 3.0];
    let e = nilang::catch(|| head_plus_itself(&mut p)).expect_err("aliasing");
    assert_eq!(e.kind, nilang::CheckKind::Aliasing);
    assert_eq!(e.variable, "p[1] and p[1..p.len()]");
    assert_eq!(p, [1.0, 2.0, 3.0], "nothing ran");
}

/// Rust's own spelling of lending a place to a call, `&mut place`: the same call as the place
/// written bare (a reborrow, an element, a sub-slice, a whole slice).
#[i]
fn lent_with_ampersands<T: Real>(a: &mut T, p: &mut [T], w: &[T], s: &mut [T]) {
    add_all(&mut *a, &mut p[1..3]);
    dot_into(&mut p[0], &w[..], &mut p[1..3]);
    add_all(&mut p[3], &mut s[..]);
}

#[test]
fn ampersand_mut_places_are_call_arguments() {
    let w = [0.5, 2.0];
    let (mut a, mut p, mut s) = (1.0, vec![1.0, 2.0, 3.0, 0.0], vec![4.0, 5.0]);
    lent_with_ampersands(&mut a, &mut p, &w, &mut s);
    assert_eq!(
        (a, &p),
        (6.0, &vec![1.0 + 0.5 * 2.0 + 2.0 * 3.0, 2.0, 3.0, 9.0])
    );
    // the gradient of a + p[0] + p[3] through the three calls' adjoints
    let (mut a_grad, mut p_grad, mut s_grad) = (1.0, vec![1.0, 0.0, 0.0, 1.0], vec![0.0; 2]);
    lent_with_ampersands_adjoint(
        &mut a,
        &mut a_grad,
        &mut p,
        &mut p_grad,
        &w,
        (),
        &mut s,
        &mut s_grad,
    );
    assert_eq!(
        (a, &p, &s),
        (1.0, &vec![1.0, 2.0, 3.0, 0.0], &vec![4.0, 5.0])
    );
    assert_eq!(
        (a_grad, p_grad, s_grad),
        (1.0, vec![1.0, 1.5, 3.0, 1.0], vec![1.0, 1.0])
    );
}

/// A primitive of a read-only value inside an operand (`exp(q[0])` of `q: &[T]`) is a nested
/// primitive, expanded into an ancilla like one of the state (before, rustc's "cannot find
/// function `exp`").
#[i(expand)]
fn scaled_by_exp<T: Real>(y: &mut T, x: &mut T, q: &[T]) {
    y += exp(q[0]) * x;
    y += x * sqrt(2.0);
}

#[test]
fn a_primitive_of_a_read_only_value_is_an_operand() {
    let (mut y, mut x, q) = (0.0, 3.0, [0.5]);
    scaled_by_exp(&mut y, &mut x, &q);
    let slope = 0.5f64.exp() + 2f64.sqrt();
    assert!((y - 3.0 * slope).abs() < 1e-14, "{y}");
    let (mut y_grad, mut x_grad) = (1.0, 0.0);
    scaled_by_exp_adjoint(&mut y, &mut y_grad, &mut x, &mut x_grad, &q, ());
    assert!(
        y.abs() < 1e-14 && (x_grad - slope).abs() < 1e-14,
        "{y} {x_grad}"
    );
}
