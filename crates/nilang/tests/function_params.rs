//! Reversible functions passed as parameters (`f: &F` with `F: Reversible<(…)>`): called,
//! uncalled and differentiated through, against the same programs with the callee named.

use nilang::ad::{check_gradient, numeric_gradient};
use nilang::{i, rev, GVar, Inverted, Loss, Real, Reversible};
use proptest::prelude::*;

#[i]
fn add_sin<T: Real>(y: &mut T, x: &mut T) {
    y += sin(x);
}

#[i]
fn add_sin_named<T: Real>(y: &mut T, x: &mut T) {
    y += sin(x);
}

#[i]
fn add_exp<T: Real>(y: &mut T, x: &mut T) {
    y += exp(x);
}

/// `y += c · x` with `c` read-only: its gradient is not kept (`()` in the adjoint's tuple).
#[i]
fn add_scaled<T: Real>(y: &mut T, x: &mut T, c: &T) {
    y += x * c;
}

#[i]
fn apply_scaled<T: Real, F: Reversible<(&mut T, &mut T, &T)>>(f: &F, y: &mut T, x: &mut T, c: &T) {
    f(y, x, c);
    f(y, x, c);
}

/// `y += f(x)` twice, the second time on `y`'s copy in an ancilla computed and uncomputed
/// around it.
#[i]
fn twice<T: Real, F: Reversible<(&mut T, &mut T)>>(f: &F, y: &mut T, x: &mut T) {
    f(y, x);
    let t = T::zero();
    routine! {
        t += identity(x);
        t += identity(x);
    }
    f(y, t);
    uncompute!();
    dealloc!(t = T::zero());
}

/// The same program, calling `add_sin_named` by name.
#[i]
fn twice_named<T: Real>(y: &mut T, x: &mut T) {
    add_sin_named(y, x);
    let t = T::zero();
    routine! {
        t += identity(x);
        t += identity(x);
    }
    add_sin_named(y, t);
    uncompute!();
    dealloc!(t = T::zero());
}

/// A map over elements, and an uncall through the parameter.
#[i]
fn map_then_undo_first<T: Real, F>(f: &F, y: &mut [T], x: &mut [T])
where
    F: Reversible<(&mut T, &mut T)>,
{
    for k in 0..y.len() {
        f(y[k], x[k]);
    }
    uncall!(f(y[0], x[0]));
    y[0] += identity(x[0]);
}

/// A function taking a function, passed on to another.
#[i]
fn twice_twice<T: Real, F: Reversible<(&mut T, &mut T)>>(f: &F, y: &mut T, x: &mut T) {
    twice(f, y, x);
    twice(f, y, x);
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
}

#[test]
fn a_call_through_a_parameter_runs_the_function_and_its_inverse() {
    let (mut y, mut x) = (0.25, 0.7);
    twice(&rev!(add_sin), &mut y, &mut x);
    assert!(close(y, 0.25 + 0.7f64.sin() + 1.4f64.sin()));
    twice_inv(&rev!(add_sin), &mut y, &mut x);
    assert_eq!((y, x), (0.25, 0.7));
}

#[test]
fn values_equal_the_program_with_the_callee_named() {
    for x0 in [-1.3, 0.0, 0.4, 2.2] {
        let (mut a, mut b) = (0.5, 0.5);
        twice(&rev!(add_sin), &mut a, &mut x0.clone());
        twice_named(&mut b, &mut x0.clone());
        assert_eq!(a, b);
    }
}

#[test]
fn gradients_through_a_parameter_equal_the_named_programs_and_differences() {
    for x0 in [-1.3, 0.1, 0.4, 2.2] {
        let (_, through) =
            twice_grad(Loss::arg(1), &rev!(add_sin), &mut 0.5, &mut x0.clone()).unwrap();
        let (_, named) = twice_named_grad(Loss::arg(0), &mut 0.5, &mut x0.clone()).unwrap();
        assert_eq!(through.g, named.g);
        assert!(
            close(through.g, x0.cos() + 2.0 * (2.0 * x0).cos()),
            "{} {}",
            through.g,
            x0.cos() + 2.0 * (2.0 * x0).cos()
        );
        let numeric = numeric_gradient(
            |v: &[f64]| {
                let (mut y, mut x) = (v[0], v[1]);
                twice(&rev!(add_sin), &mut y, &mut x);
                y
            },
            &[0.5, x0],
            1e-6,
        );
        assert!(
            (numeric[1] - through.g).abs() < 1e-7,
            "{numeric:?} {}",
            through.g
        );
    }
}

#[test]
fn the_vjp_the_jacobian_and_the_hessian_go_through_the_parameter() {
    let f = rev!(add_sin);
    let (mut y, mut gy, mut x, mut gx) = (0.5, 1.0, 0.3, 0.0);
    twice_vjp(&f, (), &mut y, &mut gy, &mut x, &mut gx);
    assert!(close(y, 0.5) && x == 0.3); // f_vjp restores the inputs
    assert!(close(gx, 0.3f64.cos() + 2.0 * 0.6f64.cos()));
    let j = twice_jacobian(&f, &mut 0.5, &mut 0.3).unwrap();
    assert!(close(j[(0, 1)], gx));
    let h = twice_hessian(Loss::arg(1), &f, &mut 0.5, &mut 0.3).unwrap();
    assert!(close(h[(1, 1)], -0.3f64.sin() - 4.0 * 0.6f64.sin()));
}

#[test]
fn a_map_with_an_uncall_through_the_parameter_is_differentiated() {
    let f = rev!(add_exp);
    let x0 = vec![0.2, -0.4, 0.9];
    let mut y = vec![1.0, 2.0, 3.0];
    let mut x = x0.clone();
    map_then_undo_first(&f, &mut y, &mut x);
    assert!(close(y[0], 1.0 + 0.2));
    assert!(close(y[1], 2.0 + (-0.4f64).exp()));
    map_then_undo_first_inv(&f, &mut y, &mut x);
    assert!(y.iter().zip([1.0, 2.0, 3.0]).all(|(a, b)| close(*a, b)));
    assert_eq!(x, x0);
    // the loss Σ y after the map, as a function of (y, x)
    let loss = |v: &[f64]| {
        let (mut y, mut x) = (v[..3].to_vec(), v[3..].to_vec());
        map_then_undo_first(&f, &mut y, &mut x);
        y.iter().sum::<f64>()
    };
    let v0 = [1.0, 2.0, 3.0, 0.2, -0.4, 0.9];
    let (mut y, mut x) = (v0[..3].to_vec(), v0[3..].to_vec());
    let (mut gy, mut gx) = (vec![1.0; 3], vec![0.0; 3]);
    map_then_undo_first_vjp(&f, (), &mut y, &mut gy, &mut x, &mut gx);
    let grad: Vec<f64> = gy.into_iter().chain(gx).collect();
    check_gradient(loss, &v0, &grad, 1e-6, 1e-7).unwrap();
}

#[test]
fn a_function_parameter_passed_on_and_an_inverted_function() {
    let (mut a, mut b) = (0.5, 0.5);
    twice_twice(&rev!(add_sin), &mut a, &mut 0.3);
    twice(&rev!(add_sin), &mut b, &mut 0.3);
    twice(&rev!(add_sin), &mut b, &mut 0.3);
    assert_eq!(a, b);
    let (_, g) = twice_twice_grad(Loss::arg(1), &rev!(add_sin), &mut 0.5, &mut 0.3).unwrap();
    assert!(close(g.g, 2.0 * (0.3f64.cos() + 2.0 * 0.6f64.cos())));
    // `~add_sin` subtracts: the same program run with the inverse as its parameter
    let sub = Inverted(rev!(add_sin));
    let mut c = 0.5;
    twice(&sub, &mut c, &mut 0.3);
    assert!(close(c, 0.5 - 0.3f64.sin() - 0.6f64.sin()));
    let (_, g) = twice_grad(Loss::arg(1), &sub, &mut 0.5, &mut 0.3).unwrap();
    assert!(close(g.g, -(0.3f64.cos() + 2.0 * 0.6f64.cos())));
}

#[test]
fn a_scheduler_takes_the_same_value() {
    // `rev!` gives one value for plain Rust code too
    let f = rev!(add_exp);
    let (mut y, mut x) = (2.0, 0.5);
    f.call((&mut y, &mut x));
    assert!(close(y, 2.0 + 0.5f64.exp()));
    f.uncall((&mut y, &mut x));
    assert!(close(y, 2.0));
}

#[test]
fn a_read_only_argument_passes_through_with_no_gradient() {
    let f = rev!(add_scaled);
    let (mut y, mut x) = (1.0, 0.5);
    apply_scaled(&f, &mut y, &mut x, &3.0);
    assert_eq!(y, 4.0);
    apply_scaled_inv(&f, &mut y, &mut x, &3.0);
    assert_eq!(y, 1.0);
    let (_, gx) = apply_scaled_grad(Loss::arg(1), &f, &mut 1.0, &mut 0.5, &3.0).unwrap();
    assert_eq!(gx.g, 6.0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Through a parameter: `uncall(call(x)) == x`, and the gradient of the adjoint programs
    /// equals the inverse run on `GVar`s (the second AD mode, through the same parameter at
    /// `T = GVar<f64>`), the named program's, and central differences.
    #[test]
    fn random_points_agree_in_both_modes(y0 in -2.0f64..2.0, x0 in -3.0f64..3.0) {
        let f = rev!(add_sin);
        let (mut y, mut x) = (y0, x0);
        twice_twice(&f, &mut y, &mut x);
        let out = y;
        twice_twice_inv(&f, &mut y, &mut x);
        prop_assert!(close(y, y0) && x == x0);
        let (mut y, mut gy, mut x, mut gx) = (y0, 1.0, x0, 0.0);
        twice_twice_vjp(&f, (), &mut y, &mut gy, &mut x, &mut gx);
        let (mut vy, mut vx) = (GVar::with_grad(out, 1.0), GVar::new(x0));
        twice_twice_inv(&f, &mut vy, &mut vx);
        prop_assert!(close(vx.g, gx), "{} {}", vx.g, gx);
        let (_, named) = twice_named_grad(Loss::arg(0), &mut y0.clone(), &mut x0.clone()).unwrap();
        prop_assert!(close(gx, 2.0 * named.g));
        let numeric = numeric_gradient(
            |v: &[f64]| {
                let (mut y, mut x) = (v[0], v[1]);
                twice_twice(&f, &mut y, &mut x);
                y
            },
            &[y0, x0],
            1e-6,
        );
        prop_assert!((numeric[1] - gx).abs() < 1e-6 * (1.0 + gx.abs()));
    }
}

/// A step that reads a model of the user's type: a value as any other.
struct Model {
    rate: f64,
}

#[i]
fn relax<T: Real>(out: &mut T, inp: &mut T, m: &Model) {
    out += inp * m.rate;
}

#[i]
fn relax_twice<T: Real, F: Reversible<(&mut T, &mut T, &Model)>>(
    f: &F,
    a: &mut T,
    b: &mut T,
    m: &Model,
) {
    f(a, b, m);
    f(a, b, m);
}

#[test]
fn a_step_with_a_model_parameter_is_a_value() {
    let m = Model { rate: 0.5 };
    let (mut a, mut b) = (0.0, 2.0);
    relax_twice(&rev!(relax), &mut a, &mut b, &m);
    assert_eq!(a, 2.0);
    let (_, gb) = relax_twice_grad(Loss::arg(1), &rev!(relax), &mut 0.0, &mut 2.0, &m).unwrap();
    assert_eq!(gb.g, 1.0);
}
