//! Jacobian layout, vector–Jacobian products, error handling, and generic
//! Rust code shapes: closures, iterator chains, recursion, user structs and
//! enums, `Option`/`Result`, threads and nesting.
#![allow(clippy::redundant_closure)]

mod common;

use common::*;
use nilang_dualrev::{grad, jacobian, record, vjp, Deinterleave, DualRev, Error, Scalar};

fn polar<S: Scalar>(p: &[S]) -> Vec<S> {
    vec![p[0] * p[1].cos(), p[0] * p[1].sin(), p[0] * p[0]]
}

#[test]
fn jacobian_layout_is_rows_per_output() {
    let x = [2.0, 0.5];
    let (vals, j) = jacobian(|p| polar(p), &x).unwrap();
    assert_eq!(vals, polar(&x));
    assert_eq!(j.len(), 3, "one row per output");
    assert!(j.iter().all(|r| r.len() == 2), "one column per input");
    let (r, t) = (x[0], x[1]);
    let expect = [
        [t.cos(), -r * t.sin()],
        [t.sin(), r * t.cos()],
        [2.0 * r, 0.0],
    ];
    for i in 0..3 {
        assert_close(&j[i], &expect[i], 1e-15, "J[i][j] = d out_i / d in_j");
    }
}

#[test]
fn vjp_equals_cotangent_times_jacobian() {
    let x = [1.3, -0.4];
    let w = [0.5, -2.0, 3.0];
    let (vals, g) = vjp(|p| polar(p), &x, &w).unwrap();
    let (_, j) = jacobian(|p| polar(p), &x).unwrap();
    let expect: Vec<f64> = (0..2)
        .map(|c| (0..3).map(|r| w[r] * j[r][c]).sum())
        .collect();
    assert_eq!(vals, polar(&x));
    assert_close(&g, &expect, 1e-14, "vjp");
}

#[test]
fn bad_cotangent_length_is_an_error() {
    let err = vjp(|p| polar(p), &[1.0, 2.0], &[1.0, 2.0]).unwrap_err();
    assert_eq!(
        err,
        Error::CotangentLength {
            expected: 3,
            found: 2
        }
    );
    assert!(err.to_string().contains("3 output scalars"));
    let mut pb = record(|p| polar(p), &[1.0, 2.0]).unwrap();
    assert!(pb.vjp(&[]).is_err());
    assert_eq!(
        pb.gradient_of(3).unwrap_err(),
        Error::OutputIndex {
            index: 3,
            outputs: 3
        }
    );
    // The pullback is still usable after errors.
    assert_eq!(pb.gradient_of(2).unwrap(), vec![2.0, 0.0]);
}

#[test]
fn pullback_can_be_resolved_repeatedly() {
    let mut pb = record(|p| polar(p), &[2.0, 0.5]).unwrap();
    assert_eq!((pb.num_inputs(), pb.num_outputs()), (2, 3));
    let a = pb.vjp(&[1.0, 0.0, 0.0]).unwrap();
    let b = pb.vjp(&[1.0, 0.0, 0.0]).unwrap();
    assert_eq!(a, b);
    assert_eq!(pb.jacobian()[0], a);
    assert_eq!(pb.output()[2].value(), 4.0);
}

// ---- user structs, enums, Option, Result ----------------------------------

#[derive(Clone, Copy)]
struct Vec3<S> {
    x: S,
    y: S,
    z: S,
}

impl<S: Scalar> Vec3<S> {
    fn dot(self, o: Self) -> S {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    fn cross(self, o: Self) -> Self {
        Vec3 {
            x: self.y * o.z - self.z * o.y,
            y: self.z * o.x - self.x * o.z,
            z: self.x * o.y - self.y * o.x,
        }
    }
}

impl Deinterleave for Vec3<DualRev> {
    fn deinterleave(&self, out: &mut Vec<DualRev>) {
        out.extend([self.x, self.y, self.z]);
    }
}

enum Shape<S> {
    Circle { r: S },
    Rect { w: S, h: S },
}

impl<S: Scalar> Shape<S> {
    fn area(&self) -> S {
        match *self {
            Shape::Circle { r } => r * r * core::f64::consts::PI,
            Shape::Rect { w, h } => w * h,
        }
    }
}

fn shapes_area<S: Scalar>(x: &[S]) -> S {
    let shapes = [
        Shape::Circle { r: x[0] },
        Shape::Rect { w: x[1], h: x[2] },
        Shape::Circle { r: x[1] * x[2] },
    ];
    shapes.iter().map(Shape::area).sum()
}

#[test]
fn user_structs_and_enums() {
    let x = [0.5, 2.0, 3.0];
    let (v, g) = grad(|x| shapes_area(x), &x).unwrap();
    assert_eq!(v, shapes_area(&x));
    assert_close(&g, &fwd_grad(|x| shapes_area(x), &x), 1e-13, "shapes");

    // Struct-valued output: Jacobian of a cross product.
    let (vals, j) = jacobian(
        |p| {
            let a = Vec3 {
                x: p[0],
                y: p[1],
                z: p[2],
            };
            let b = Vec3 {
                x: p[3],
                y: p[4],
                z: p[5],
            };
            a.cross(b)
        },
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
    )
    .unwrap();
    assert_eq!(
        vals,
        vec![2.0 * 6.0 - 3.0 * 5.0, 3.0 * 4.0 - 6.0, 5.0 - 2.0 * 4.0]
    );
    // d(a×b)_x / d a = (0, b_z, -b_y)
    assert_eq!(j[0], vec![0.0, 6.0, -5.0, 0.0, -3.0, 2.0]);
    let (_, g) = grad(
        |p| {
            let a = Vec3 {
                x: p[0],
                y: p[1],
                z: p[2],
            };
            a.dot(a)
        },
        &[1.0, 2.0, 3.0],
    )
    .unwrap();
    assert_eq!(g, vec![2.0, 4.0, 6.0]);
}

fn safe_log_ratio<S: Scalar>(a: S, b: S) -> Option<S> {
    if b == 0.0 || (a / b) <= 0.0 {
        None
    } else {
        Some((a / b).ln())
    }
}

fn parse_and_scale<S: Scalar>(x: &[S]) -> Result<S, String> {
    let r = safe_log_ratio(x[0], x[1]).ok_or_else(|| "bad ratio".to_string())?;
    Ok(r * x[2])
}

#[test]
fn option_and_result_with_question_mark() {
    let (v, g) = grad(|x| parse_and_scale(x).unwrap(), &[3.0, 1.5, 2.0]).unwrap();
    assert_eq!(v, 2.0 * 2f64.ln());
    assert_close(&g, &[2.0 / 3.0, -2.0 / 1.5, 2f64.ln()], 1e-15, "Result");
    // Option outputs: None contributes no scalars.
    let (vals, j) = jacobian(|x| safe_log_ratio(x[0], x[1]), &[-1.0, 1.0]).unwrap();
    assert!(vals.is_empty() && j.is_empty());
    let (vals, j) = jacobian(|x| safe_log_ratio(x[0], x[1]), &[2.0, 1.0]).unwrap();
    assert_eq!(vals, vec![2f64.ln()]);
    assert_close(&j[0], &[0.5, -1.0], 1e-15, "Option");
}

// ---- closures, iterators, recursion, control flow --------------------------

fn horner<S: Scalar>(coeffs: &[S], x: S) -> S {
    // Recursive Horner evaluation.
    match coeffs.split_first() {
        None => S::zero(),
        Some((&c, rest)) => c + x * horner(rest, x),
    }
}

fn power_rec<S: Scalar>(x: S, n: u32) -> S {
    match n {
        0 => S::one(),
        n if n % 2 == 0 => {
            let h = power_rec(x, n / 2);
            h * h
        }
        n => x * power_rec(x, n - 1),
    }
}

#[test]
fn recursion() {
    let (v, g) = grad(|x| horner(&x[..3], x[3]), &[1.0, 2.0, 3.0, 0.5]).unwrap();
    assert_eq!(v, 1.0 + 2.0 * 0.5 + 3.0 * 0.25);
    assert_close(&g, &[1.0, 0.5, 0.25, 2.0 + 6.0 * 0.5], 1e-15, "horner");
    let (v, g) = grad(|x| power_rec(x[0], 13), &[1.1]).unwrap();
    assert_close(
        &[v, g[0]],
        &[1.1f64.powi(13), 13.0 * 1.1f64.powi(12)],
        1e-13,
        "pow",
    );
}

#[test]
fn closures_and_iterator_chains() {
    let weights = [0.5, -1.0, 2.0];
    let f = |x: &[DualRev]| {
        let scale = |s: DualRev| s * 2.0 + 1.0;
        let softplus = move |s: DualRev| (s.exp() + 1.0).ln();
        x.iter()
            .copied()
            .map(scale)
            .zip(weights.iter())
            .filter(|(_, &w)| w != 0.0)
            .map(|(s, &w)| softplus(s) * w)
            .fold(DualRev::cst(0.0), |acc, t| acc + t)
            + x.iter().copied().product::<DualRev>()
            + x.iter().copied().reduce(Scalar::max).unwrap()
    };
    let fwd = |x: &[Fwd]| {
        let scale = |s: Fwd| s * 2.0 + 1.0;
        let softplus = move |s: Fwd| (s.exp() + 1.0).ln();
        x.iter()
            .copied()
            .map(scale)
            .zip(weights.iter())
            .map(|(s, &w)| softplus(s) * w)
            .fold(Fwd::cst(0.0), |acc, t| acc + t)
            + x.iter().copied().product::<Fwd>()
            + x.iter().copied().reduce(Scalar::max).unwrap()
    };
    let x = [0.1, 0.7, -0.3];
    let (_, g) = grad(f, &x).unwrap();
    assert_close(&g, &fwd_grad(fwd, &x), 1e-13, "iterators");
}

#[test]
fn data_dependent_control_flow() {
    fn f<S: Scalar>(x: &[S]) -> S {
        let mut y = x[0];
        let mut steps = 0;
        while y < 10.0 && steps < 100 {
            y = if y > x[1] {
                y * x[1] + 1.0
            } else {
                y * 1.5 + x[1]
            };
            steps += 1;
        }
        y
    }
    let x = [0.3, 1.7];
    let (v, g) = grad(|x| f(x), &x).unwrap();
    assert_eq!(v, f(&x));
    assert_close(&g, &fwd_grad(|x| f(x), &x), 1e-12, "loops");
}

// ---- nesting and threads ---------------------------------------------------

#[test]
fn nested_differentiation_keeps_sessions_apart() {
    let x = [1.5, 2.0];
    let (v, g) = grad(
        |outer| {
            let y = outer[0] * outer[1];
            // An inner, independent differentiation in the middle of the outer
            // one. It captures the outer `y`, which it must treat as constant.
            let (iv, ig) = grad(|inner| inner[0] * inner[0] * y, &[3.0]).unwrap();
            assert_eq!(iv, 9.0 * 3.0);
            assert_eq!(ig, vec![6.0 * 3.0]);
            // The outer recording continues unaffected.
            y * outer[0] + iv
        },
        &x,
    )
    .unwrap();
    assert_eq!(v, 1.5 * 2.0 * 1.5 + 27.0);
    assert_eq!(g, vec![2.0 * 1.5 * 2.0, 1.5 * 1.5]);
}

#[test]
fn scalars_outside_a_session_are_plain_values() {
    let mut leaked = None;
    let _ = grad(
        |x| {
            leaked = Some(x[0]);
            x[0]
        },
        &[2.0],
    )
    .unwrap();
    let l = leaked.unwrap();
    // No session is active: the operation just computes the value.
    let y = l * 3.0 + l.sin();
    assert_eq!(y.value(), 6.0 + 2f64.sin());
    assert!(!y.is_active());
    // Inside a later session the leaked scalar is a constant.
    let (_, g) = grad(|x| x[0] * l, &[5.0]).unwrap();
    assert_eq!(g, vec![2.0]);
}

#[test]
fn two_threads_differentiate_independently() {
    let run = |seed: f64| {
        move || {
            let mut out = Vec::new();
            for k in 0..300 {
                let x: Vec<f64> = (0..20).map(|i| seed + 0.01 * (i + k) as f64).collect();
                let (_, g) = grad(|x| rosenbrock(x), &x).unwrap();
                let expect = fwd_grad(|x| rosenbrock(x), &x);
                assert_close(&g, &expect, 1e-10, "thread");
                out.push(g[0]);
            }
            out
        }
    };
    let a = std::thread::spawn(run(0.1));
    let b = std::thread::spawn(run(-0.5));
    let (ra, rb) = (a.join().unwrap(), b.join().unwrap());
    // Same results as computing sequentially on this thread.
    assert_eq!(ra, run(0.1)());
    assert_eq!(rb, run(-0.5)());
}

#[test]
fn f64_runs_the_same_generic_code() {
    let x = [0.3, 0.6, 0.9];
    assert_eq!(shapes_area(&x), grad(|x| shapes_area(x), &x).unwrap().0);
    assert_eq!(
        <f64 as Scalar>::max(1.0, 2.0) + <f64 as Scalar>::min(1.0, 2.0),
        3.0
    );
}
