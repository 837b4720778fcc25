//! User instructions (`#[instruction]`, decision 0036) and the linear-algebra instructions of
//! `nilang::linalg`: forward and inverse, gradients of `#[i]` callers against central
//! differences and against the scalar reversible versions, the inverse adjoint that runs when
//! a routine is undone under a gradient, and the panics for what an instruction over `f64`
//! cannot do.

use nilang::linalg::{det, logdet, matinv};
use nilang::{i, instruction, GVar, Loss, Real};
use proptest::prelude::*;

/// Central differences of `f` at `a`, entry by entry.
fn central(f: impl Fn(&[f64]) -> f64, a: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    (0..a.len())
        .map(|k| {
            let (mut p, mut m) = (a.to_vec(), a.to_vec());
            p[k] += h;
            m[k] -= h;
            (f(&p) - f(&m)) / (2.0 * h)
        })
        .collect()
}

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= tol * (1.0 + y.abs()))
}

/// A well-conditioned matrix: diagonal dominance added to `raw`.
fn conditioned(n: usize, raw: &[f64]) -> Vec<f64> {
    let mut a = raw[..n * n].to_vec();
    for i in 0..n {
        a[i * n + i] += n as f64 + 1.0;
    }
    a
}

#[i]
fn with_logdet<T: Real>(loss: &mut T, a: &mut [T]) {
    logdet(loss, a);
}

#[i]
fn with_det<T: Real>(loss: &mut T, a: &mut [T]) {
    det(loss, a);
}

/// The scalar reversible determinant of a 3 × 3 matrix.
#[i]
fn det3<T: Real>(out: &mut T, a: &mut [T]) {
    let m = T::zero();
    routine! {
        m += a[4] * a[8];
        m -= a[5] * a[7];
    }
    out += a[0] * m;
    uncompute!();
    dealloc!(m = T::zero());
    let m = T::zero();
    routine! {
        m += a[3] * a[8];
        m -= a[5] * a[6];
    }
    out -= a[1] * m;
    uncompute!();
    dealloc!(m = T::zero());
    let m = T::zero();
    routine! {
        m += a[3] * a[7];
        m -= a[4] * a[6];
    }
    out += a[2] * m;
    uncompute!();
    dealloc!(m = T::zero());
}

/// loss += tr(A⁻¹ W) with the instruction.
#[i]
fn with_matinv<T: Real>(loss: &mut T, a: &mut [T], w: &[T]) {
    let y = vec![T::zero(); a.len()];
    routine! {
        matinv(y, a);
    }
    for k in 0..y.len() {
        loss += y[k] * w[k];
    }
    uncompute!();
    dealloc!(y = vec![T::zero(); a.len()]);
}

/// loss += tr(A⁻¹ W) with the scalar reversible inverse (`stdlib::linalg::i_inv`).
#[i]
fn with_i_inv<T: Real>(loss: &mut T, a: &mut [T], w: &[T], n: usize) {
    let y = vec![T::zero(); a.len()];
    routine! {
        nilang::stdlib::linalg::i_inv(y, a, n);
    }
    for k in 0..y.len() {
        loss += y[k] * w[k];
    }
    uncompute!();
    dealloc!(y = vec![T::zero(); a.len()]);
}

/// loss += (log|det A|)² + a₀²: the log-determinant is computed into an ancilla in a routine
/// and uncomputed, so the reverse sweep recomputes it (`logdet::adjoint_inv`) while `a`'s
/// gradient is already nonzero.
#[i]
fn squared_logdet<T: Real>(loss: &mut T, a: &mut [T]) {
    let t = T::zero();
    routine! {
        logdet(t, a);
    }
    loss += square(t);
    uncompute!();
    dealloc!(t = T::zero());
    loss += square(a[0]);
}

fn plain_logdet(a: &[f64]) -> f64 {
    let mut out = 0.0;
    logdet(&mut out, &mut a.to_vec());
    out
}

fn plain_det(a: &[f64]) -> f64 {
    let mut out = 0.0;
    det(&mut out, &mut a.to_vec());
    out
}

#[test]
fn forward_and_inverse_restore() {
    let a0 = vec![4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0];
    let (mut out, mut a) = (0.25, a0.clone());
    logdet(&mut out, &mut a);
    det(&mut out, &mut a);
    uncall_both(&mut out, &mut a);
    assert!((out - 0.25).abs() < 1e-12);
    assert_eq!(a, a0);
    let mut y = vec![1.0; 9];
    matinv(&mut y, &mut a);
    matinv::inv(&mut y, &mut a);
    assert!(close(&y, &[1.0; 9], 1e-12));
}

#[i]
fn both<T: Real>(out: &mut T, a: &mut [T]) {
    logdet(out, a);
    det(out, a);
}

fn uncall_both(out: &mut f64, a: &mut [f64]) {
    // the inverse of an `#[i]` function that calls the instructions runs them backwards
    both(out, a);
    both_inv(out, a);
    det::inv(out, a);
    logdet::inv(out, a);
}

#[test]
fn logdet_gradient_matches_differences() {
    let a = vec![4.0, 1.0, 0.5, -1.0, 3.0, 0.2, 0.5, 0.2, -2.0];
    let (_, ga) = with_logdet_grad(Loss::arg(0), &mut 0.0, &mut a.clone()).unwrap();
    let ga: Vec<f64> = ga.iter().map(|g| g.g).collect();
    assert!(close(&ga, &central(plain_logdet, &a), 1e-6), "{ga:?}");
}

#[test]
fn det_gradient_matches_the_scalar_reversible_determinant() {
    let a = vec![4.0, 1.0, 0.5, -1.0, 3.0, 0.2, 0.5, 0.2, -2.0];
    let (_, ga) = with_det_grad(Loss::arg(0), &mut 0.0, &mut a.clone()).unwrap();
    let (_, gs) = det3_grad(Loss::arg(0), &mut 0.0, &mut a.clone()).unwrap();
    let (ga, gs): (Vec<f64>, Vec<f64>) = (
        ga.iter().map(|g| g.g).collect(),
        gs.iter().map(|g| g.g).collect(),
    );
    assert!(close(&ga, &gs, 1e-12), "{ga:?} {gs:?}");
    assert!(close(&ga, &central(plain_det, &a), 1e-6));
    let mut v = 0.0;
    det3(&mut v, &mut a.clone());
    assert!((v - plain_det(&a)).abs() < 1e-12);
}

#[test]
fn det_gradient_of_a_singular_matrix_is_the_cofactor_matrix() {
    let a = vec![1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 1.0, 0.0, 1.0]; // row 1 = 2 · row 0
    let (_, ga) = with_det_grad(Loss::arg(0), &mut 0.0, &mut a.clone()).unwrap();
    let (_, gs) = det3_grad(Loss::arg(0), &mut 0.0, &mut a.clone()).unwrap();
    let (ga, gs): (Vec<f64>, Vec<f64>) = (
        ga.iter().map(|g| g.g).collect(),
        gs.iter().map(|g| g.g).collect(),
    );
    assert!(close(&ga, &gs, 1e-12), "{ga:?} {gs:?}");
}

#[test]
fn matinv_gradient_matches_the_scalar_reversible_inverse() {
    let n = 3;
    let a = conditioned(n, &[0.3, -0.2, 0.1, 0.5, 0.0, -0.4, 0.2, 0.7, 0.1]);
    let w = vec![1.0, -2.0, 0.5, 0.3, 1.5, -0.7, 2.0, 0.1, -1.0];
    let (_, ga) = with_matinv_grad(Loss::arg(0), &mut 0.0, &mut a.clone(), &w).unwrap();
    let (_, gs) = with_i_inv_grad(Loss::arg(0), &mut 0.0, &mut a.clone(), &w, n).unwrap();
    let (ga, gs): (Vec<f64>, Vec<f64>) = (
        ga.iter().map(|g| g.g).collect(),
        gs.iter().map(|g| g.g).collect(),
    );
    assert!(close(&ga, &gs, 1e-10), "{ga:?} {gs:?}");
}

#[test]
fn the_inverse_adjoint_runs_in_a_routine_under_a_gradient() {
    let a = vec![4.0, 1.0, 0.5, -1.0, 3.0, 0.2, 0.5, 0.2, -2.0];
    let f = |a: &[f64]| plain_logdet(a).powi(2) + a[0] * a[0];
    let (_, ga) = squared_logdet_grad(Loss::arg(0), &mut 0.0, &mut a.clone()).unwrap();
    let ga: Vec<f64> = ga.iter().map(|g| g.g).collect();
    assert!(close(&ga, &central(f, &a), 1e-6), "{ga:?}");
    // the adjoint program itself: from the outputs back to the inputs
    let (mut loss, mut x) = (0.0, a.clone());
    squared_logdet(&mut loss, &mut x);
    let (mut loss_grad, mut x_grad) = (1.0, vec![0.0; 9]);
    squared_logdet_adjoint(&mut loss, &mut loss_grad, &mut x, &mut x_grad);
    assert!(loss.abs() < 1e-12 && close(&x, &a, 0.0));
    assert!(close(&x_grad, &ga, 1e-12));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn gradients_match_differences(n in 1usize..5, raw in prop::collection::vec(-1.0f64..1.0, 16)) {
        let a = conditioned(n, &raw);
        let (_, gl) = with_logdet_grad(Loss::arg(0), &mut 0.0, &mut a.clone()).unwrap();
        let gl: Vec<f64> = gl.iter().map(|g| g.g).collect();
        prop_assert!(close(&gl, &central(plain_logdet, &a), 1e-5));
        let (_, gd) = with_det_grad(Loss::arg(0), &mut 0.0, &mut a.clone()).unwrap();
        let gd: Vec<f64> = gd.iter().map(|g| g.g).collect();
        prop_assert!(close(&gd, &central(plain_det, &a), 1e-5));
        let (_, gs) = squared_logdet_grad(Loss::arg(0), &mut 0.0, &mut a.clone()).unwrap();
        let gs: Vec<f64> = gs.iter().map(|g| g.g).collect();
        let f = |a: &[f64]| plain_logdet(a).powi(2) + a[0] * a[0];
        prop_assert!(close(&gs, &central(f, &a), 1e-5));
    }
}

// ---- a user instruction without `adjoint_inv` ----

/// out += x³
#[instruction(inverse = cube_sub, adjoint = cube_adjoint)]
fn cube(out: &mut f64, x: &mut f64) {
    *out += x.powi(3);
}

fn cube_sub(out: &mut f64, x: &mut f64) {
    *out -= x.powi(3);
}

fn cube_adjoint(out: &mut f64, out_g: &mut f64, x: &mut f64, x_g: &mut f64) {
    *out -= x.powi(3);
    *x_g += 3.0 * x.powi(2) * *out_g;
}

#[i]
fn cubes<T: Real>(y: &mut T, x: &mut T) {
    cube(y, x);
    cube(y, x);
}

/// The instruction undone inside a routine while `x`'s gradient is still zero.
#[i]
fn cube_in_routine<T: Real>(y: &mut T, x: &mut T) {
    let t = T::zero();
    routine! {
        cube(t, x);
    }
    y += square(t);
    uncompute!();
    dealloc!(t = T::zero());
}

/// The same, with a later use of `x` that makes its gradient nonzero there.
#[i]
fn cube_in_routine_then_x<T: Real>(y: &mut T, x: &mut T) {
    cube_in_routine(y, x);
    y += square(x);
}

#[test]
fn an_instruction_without_adjoint_inv_differentiates() {
    let (_, gx) = cubes_grad(Loss::arg(0), &mut 0.0, &mut 1.5).unwrap();
    assert_eq!(gx.g, 6.0 * 1.5 * 1.5);
    // zero gradients when the routine is recomputed: the forward on values is right
    let (_, gx) = cube_in_routine_grad(Loss::arg(0), &mut 0.0, &mut 1.5).unwrap();
    assert!((gx.g - 6.0 * 1.5f64.powi(5)).abs() < 1e-9);
    let (mut y, mut x) = (0.0, 2.0);
    cubes(&mut y, &mut x);
    assert_eq!(y, 16.0);
    uncall_cubes(&mut y, &mut x);
    assert_eq!((y, x), (0.0, 2.0));
}

#[i]
fn uncall_cubes<T: Real>(y: &mut T, x: &mut T) {
    uncall!(cubes(y, x));
}

#[test]
#[should_panic(expected = "was declared without `adjoint_inv`")]
fn an_instruction_without_adjoint_inv_refuses_a_nonzero_gradient() {
    let _ = cube_in_routine_then_x_grad(Loss::arg(0), &mut 0.0, &mut 1.5);
}

#[test]
#[should_panic(expected = "runs on f64 values and f64 gradients only")]
fn an_instruction_refuses_gvar_values() {
    // the generic inverse on GVar values (`NiLang`'s way to a gradient) would need a rule
    // for GVar: the instruction refuses instead of giving a wrong number
    let mut y = GVar { x: 1.0, g: 1.0 };
    let mut x = GVar { x: 1.0, g: 0.0 };
    cubes_inv(&mut y, &mut x);
}

#[test]
fn an_instruction_runs_lane_by_lane() {
    // two losses at once (`Lanes`): the user's adjoint runs once per lane on copies of the
    // values, and the values come back once
    let a0 = vec![2.0, 1.0, 1.0, 3.0];
    let (mut loss, mut a) = (0.0, a0.clone());
    with_logdet(&mut loss, &mut a);
    let mut lg = nilang::Lanes::<f64, 2>([1.0, -2.0]);
    let mut ag = vec![nilang::Lanes::<f64, 2>::default(); 4];
    with_logdet_adjoint(&mut loss, &mut lg, &mut a, &mut ag);
    assert!(loss.abs() < 1e-15 && a == a0);
    let inv_t = [0.6, -0.2, -0.2, 0.4];
    for k in 0..4 {
        assert!((ag[k].0[0] - inv_t[k]).abs() < 1e-12);
        assert!((ag[k].0[1] + 2.0 * inv_t[k]).abs() < 1e-12);
    }
}

/// Two outputs from one matrix: log|det A| and det A.
#[i]
fn two_outputs<T: Real>(y: &mut [T], a: &mut [T]) {
    logdet(y[0], a);
    det(y[1], a);
}

/// Two outputs, the instruction inside a routine undone under a gradient.
#[i]
fn two_routine_outputs<T: Real>(y: &mut [T], a: &mut [T]) {
    squared_logdet(y[0], a);
    y[1] += a[1] * a[2];
}

#[test]
fn the_jacobian_runs_through_instructions() {
    let a = vec![4.0, 1.0, 0.5, -1.0, 3.0, 0.2, 0.5, 0.2, -2.0];
    let j = two_outputs_jacobian(&mut vec![0.0; 2], &mut a.clone()).unwrap();
    assert!(close(&j.row(0)[2..], &central(plain_logdet, &a), 1e-6));
    assert!(close(&j.row(1)[2..], &central(plain_det, &a), 1e-6));
    let j = two_routine_outputs_jacobian(&mut vec![0.0; 2], &mut a.clone()).unwrap();
    let f = |a: &[f64]| plain_logdet(a).powi(2) + a[0] * a[0];
    assert!(close(&j.row(0)[2..], &central(f, &a), 1e-6));
    assert!(close(&j.row(1)[2..], &central(|a| a[1] * a[2], &a), 1e-6));
}

#[test]
#[should_panic(expected = "was declared without `adjoint_inv`")]
fn an_instruction_without_adjoint_inv_refuses_a_nonzero_gradient_in_lanes() {
    let _ = cube_in_routine_then_x_jacobian(&mut 0.0, &mut 1.5);
}

/// A caller written on `f64` (no type parameter) gets its gradient too.
#[i]
fn on_f64(loss: &mut f64, a: &mut [f64]) {
    logdet(loss, a);
}

#[test]
fn a_caller_on_f64_differentiates() {
    let a = vec![2.0, 1.0, 1.0, 3.0];
    let (_, ga) = on_f64_grad(Loss::arg(0), &mut 0.0, &mut a.clone()).unwrap();
    let ga: Vec<f64> = ga.iter().map(|g| g.g).collect();
    assert!(close(&ga, &[0.6, -0.2, -0.2, 0.4], 1e-12), "{ga:?}");
}

#[test]
#[should_panic(expected = "runs on f64 values and f64 gradients only")]
fn an_instruction_refuses_the_hessian_dual_numbers() {
    let _ = with_logdet_hessian(Loss::arg(0), &mut 0.0, &mut vec![2.0, 0.0, 0.0, 3.0]);
}

/// out += k · Σ wᵢ xᵢ: read-only parameters (`&[f64]`, `usize`) carry no gradient.
#[instruction(inverse = weighted_sub, adjoint = weighted_adjoint, adjoint_inv = weighted_adjoint_inv)]
fn weighted(out: &mut f64, x: &mut [f64], w: &[f64], k: usize) {
    *out += k as f64 * x.iter().zip(w).map(|(x, w)| x * w).sum::<f64>();
}

fn weighted_sub(out: &mut f64, x: &mut [f64], w: &[f64], k: usize) {
    *out -= k as f64 * x.iter().zip(w).map(|(x, w)| x * w).sum::<f64>();
}

fn weighted_pullback(out_g: f64, x_g: &mut [f64], w: &[f64], k: usize) {
    for (g, w) in x_g.iter_mut().zip(w) {
        *g += k as f64 * w * out_g;
    }
}

#[allow(clippy::too_many_arguments)]
fn weighted_adjoint(
    out: &mut f64,
    out_g: &mut f64,
    x: &mut [f64],
    x_g: &mut [f64],
    w: &[f64],
    _: (),
    k: usize,
    _: (),
) {
    weighted_sub(out, x, w, k);
    weighted_pullback(*out_g, x_g, w, k);
}

#[allow(clippy::too_many_arguments)]
fn weighted_adjoint_inv(
    out: &mut f64,
    out_g: &mut f64,
    x: &mut [f64],
    x_g: &mut [f64],
    w: &[f64],
    _: (),
    k: usize,
    _: (),
) {
    weighted(out, x, w, k);
    weighted_pullback(-*out_g, x_g, w, k);
}

#[i]
fn two_weighted<T: Real>(y: &mut [T], x: &mut [T], w: &[T]) {
    weighted(y[0], x, w, 2);
    weighted(y[1], x, w, 3);
}

#[test]
fn read_only_parameters_pass_through() {
    let (x, w) = (vec![1.0, 2.0], vec![0.5, -1.0]);
    let mut y = vec![0.0; 2];
    two_weighted(&mut y, &mut x.clone(), &w);
    assert_eq!(y, vec![-3.0, -4.5]);
    let j = two_weighted_jacobian(&mut vec![0.0; 2], &mut x.clone(), &w).unwrap();
    assert_eq!(
        (&j.row(0)[2..4], &j.row(1)[2..4]),
        (&[1.0, -2.0][..], &[1.5, -3.0][..])
    );
}
