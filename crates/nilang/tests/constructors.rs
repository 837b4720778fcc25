//! Reversible constructors and destructors (`let z = new!(…);`, `let … = fields!(z);`):
//! forward values against plain Rust, `f_inv(f(x)) == x`, and gradients through the values
//! they move against central differences, the `GVar` program (`f_inv::<GVar<f64>>`) and the
//! adjoint on separate buffers (`f_vjp`), on random inputs.

use nilang::ad::check_gradient;
use nilang::{i, GVar, Loss, Real};
use nilang_dualrev::DualRev;
use num_complex::Complex;
use proptest::prelude::*;

/// A user struct, differentiable as a parameter through `#[derive(Scalars)]`.
#[derive(Clone, Copy, Debug, PartialEq, nilang::Scalars)]
pub struct Polar<T> {
    pub r: T,
    pub theta: T,
}

/// A user struct with plain fields and no derive: built and taken apart as an ancilla only.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair<T> {
    pub first: T,
    pub second: T,
}

/// `out += Re(z)·Im(z) + exp(Im(z))` for `z = x₀x₁ + i sin(x₂)`, with `z` a `Complex` built
/// from two ancillas.
#[i]
fn through_complex<T: Real>(out: &mut T, x: &mut [T]) {
    let a = T::zero();
    let b = T::zero();
    a += x[0] * x[1];
    b += sin(x[2]);
    let z = new!(Complex { re: a, im: b });
    out += z.re * z.im;
    out += exp(z.im);
    let Complex { re: a, im: b } = fields!(z);
    b -= sin(x[2]);
    a -= x[0] * x[1];
    dealloc!(a = T::zero(), b = T::zero());
}

fn through_complex_plain(x: &[f64]) -> f64 {
    let z = Complex::new(x[0] * x[1], x[2].sin());
    z.re * z.im + z.im.exp()
}

/// `q.r += r cos θ`, `q.theta += r sin θ` with `r = x₀²`, `θ = x₁`, through a `Polar` built
/// with field shorthand, and a `Pair` built in a nested block; the `Polar` is a `&mut`
/// parameter too (`#[derive(Scalars)]`).
#[i]
fn through_structs<T: Real>(q: &mut Polar<T>, x: &mut [T]) {
    let r = T::zero();
    let theta = T::zero();
    r += square(x[0]);
    theta += identity(x[1]);
    let p = new!(Polar { r, theta });
    expand! {
        q.r += p.r * cos(p.theta);
        q.theta += p.r * sin(p.theta);
    }
    if x.len() > 2 {
        let u = T::zero();
        let v = T::zero();
        u += identity(x[2]);
        let w = new!(Pair {
            first: u,
            second: v
        });
        w.second += p.r * w.first;
        q.r += w.second * x[2];
        w.second -= p.r * w.first;
        let Pair {
            first: u,
            second: v,
        } = fields!(w);
        u -= identity(x[2]);
        dealloc!(u = T::zero(), v = T::zero());
    }
    let Polar { r, theta } = fields!(p);
    theta -= identity(x[1]);
    r -= square(x[0]);
    dealloc!(r = T::zero(), theta = T::zero());
}

fn through_structs_plain(x: &[f64]) -> (f64, f64) {
    let (r, theta) = (x[0] * x[0], x[1]);
    let mut q = (r * theta.cos(), r * theta.sin());
    if x.len() > 2 {
        q.0 += r * x[2] * x[2];
    }
    q
}

/// A tuple exchanged field for field by taking it apart and building it again, no `swap`:
/// `out += t.0 · sin(t.1)` after `t = (x₀ + 1, x₁)` becomes `(x₁, x₀ + 1)`; the tuple also
/// carries an integer counter, which has no gradient.
#[i]
fn tuple_exchange<T: Real>(out: &mut T, x: &mut [T]) {
    let a = T::zero();
    let b = T::zero();
    let n = 0i64;
    a += identity(x[0]);
    inc(a);
    b += identity(x[1]);
    let t = new!((a, b, n));
    let (a, b, n) = fields!(t);
    inc(n);
    let t = new!((b, a, n));
    expand! {
        out += t.0 * sin(t.1);
    }
    let (b, a, n) = fields!(t);
    dec(n);
    b -= identity(x[1]);
    dec(a);
    a -= identity(x[0]);
    dealloc!(a = T::zero(), b = T::zero(), n = 0);
}

fn tuple_exchange_plain(x: &[f64]) -> f64 {
    x[1] * (x[0] + 1.0).sin()
}

/// Rotates `z` by `θ` in the plane of its fields.
#[i]
fn spin<T: Real>(z: &mut Complex<T>, theta: &mut T) {
    rot(z.re, z.im, theta);
}

/// A value built by a constructor passed on to a call (`&mut`, with its gradient in the
/// adjoint): `out += Re(w)·Im(w)` for `w = e^{iθ}(x₀ + i x₁)`, `θ = x₂`.
#[i]
fn passed_on<T: Real>(out: &mut T, x: &mut [T]) {
    let a = T::zero();
    let b = T::zero();
    a += identity(x[0]);
    b += identity(x[1]);
    let z = new!(Complex { re: a, im: b });
    spin(z, x[2]);
    out += z.re * z.im;
    uncall!(spin(z, x[2]));
    let Complex { re: a, im: b } = fields!(z);
    b -= identity(x[1]);
    a -= identity(x[0]);
    dealloc!(a = T::zero(), b = T::zero());
}

fn passed_on_plain(x: &[f64]) -> f64 {
    let w = Complex::new(x[0], x[1]) * Complex::new(x[2].cos(), x[2].sin());
    w.re * w.im
}

/// Two tuples built by constructors and swapped whole (their gradients pair field by
/// field): `out += x₁·x₀`.
#[i]
fn tuples_swapped<T: Real>(out: &mut T, x: &mut [T]) {
    let a = T::zero();
    let b = T::zero();
    let c = T::zero();
    let d = T::zero();
    a += identity(x[0]);
    d += identity(x[1]);
    let t = new!((a, b));
    let u = new!((c, d));
    swap(t, u);
    out += t.1 * u.0;
    swap(t, u);
    let (c, d) = fields!(u);
    let (a, b) = fields!(t);
    d -= identity(x[1]);
    a -= identity(x[0]);
    dealloc!(a = T::zero(), b = T::zero(), c = T::zero(), d = T::zero());
}

fn tuples_swapped_plain(x: &[f64]) -> f64 {
    x[1] * x[0]
}

/// A value with a counter, no derives at all (not `Clone`): built and taken apart only.
pub struct Tagged<Z> {
    pub value: Z,
    pub count: i64,
}

/// The compute–copy–uncompute shape with the constructors in the computation `P`: `z` (a
/// `Complex`) and `w` (a `Tagged` holding it and a counter) are live between `M` and `~P`,
/// so the fused `f_vjp` builds `w`'s zero gradient from its parts' (`Tagged` has no `Shadow`
/// impl and is not `Clone`). `out += x₀x₁ sin x₂ + exp(sin x₂)`.
#[i]
fn built_in_routine<T: Real>(out: &mut T, x: &mut [T]) {
    let a = T::zero();
    let b = T::zero();
    let n = 0i64;
    routine! {
        a += x[0] * x[1];
        b += sin(x[2]);
        inc(n);
        let z = new!(Complex { re: a, im: b });
        let w = new!(Tagged { value: z, count: n });
    }
    out += w.value.re * w.value.im;
    out += exp(w.value.im);
    uncompute!();
    dealloc!(a = T::zero(), b = T::zero(), n = 0);
}

fn built_in_routine_plain(x: &[f64]) -> f64 {
    let s = x[2].sin();
    x[0] * x[1] * s + s.exp()
}

/// The fused shape with a tuple built in `P` and taken apart again in `P`, so its parts are
/// live at the split in the other order: `out += (x₀ + x₁)·cos x₁`.
#[i]
fn rebuilt_in_routine<T: Real>(out: &mut T, x: &mut [T]) {
    let a = T::zero();
    let b = T::zero();
    routine! {
        a += x[0] + x[1];
        b += cos(x[1]);
        let t = new!((a, b));
        let (b, a) = fields!(t);
    }
    out += a * b;
    uncompute!();
    dealloc!(a = T::zero(), b = T::zero());
}

fn rebuilt_in_routine_plain(x: &[f64]) -> f64 {
    (x[0] + x[1]) * x[1].cos()
}

/// The gradient of `out += f(x)` by the tape engine (`nilang_dualrev`): the forward program
/// run on `GVar<DualRev>`, which records every primitive (no adjoint rule of `gvar.rs`).
fn tape_gradient(f: fn(&mut GVar<DualRev>, &mut [GVar<DualRev>]), x0: &[f64]) -> Vec<f64> {
    let (_, g) = nilang_dualrev::grad(
        |x: &[DualRev]| {
            let mut out = GVar::new(DualRev::constant(0.0));
            let mut x: Vec<GVar<DualRev>> = x.iter().map(|v| GVar::new(*v)).collect();
            f(&mut out, &mut x);
            out.x
        },
        x0,
    )
    .unwrap();
    g
}

fn wrap(x: &[f64]) -> Vec<GVar<f64>> {
    x.iter().map(|&v| GVar::new(v)).collect()
}

fn bits(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

/// The gradient of `out += f(x)` three ways: the GVar program (the inverse on `GVar`s after
/// the forward), `f_vjp` on separate buffers (bit for bit the same), and `f_grad`; checked
/// against central differences of the plain-Rust reference.
macro_rules! check_loss {
    ($x:expr, $f:ident, $f_inv:ident, $f_vjp:ident, $f_grad:ident, $plain:expr) => {{
        let x0: Vec<f64> = $x;
        let (mut out, mut x) = (0.0, x0.clone());
        $f(&mut out, &mut x);
        let reference: f64 = $plain(&x0);
        prop_assert!((out - reference).abs() <= 1e-12 * (1.0 + reference.abs()));
        prop_assert_eq!(bits(&x), bits(&x0));
        // the inverse restores the output
        $f_inv(&mut out, &mut x);
        prop_assert!(out.abs() <= 1e-12, "{}", out);
        // the GVar program
        let (mut out, mut x) = (0.0, x0.clone());
        $f(&mut out, &mut x);
        let (mut wo, mut wx) = (GVar::with_grad(out, 1.0), wrap(&x));
        $f_inv(&mut wo, &mut wx);
        let gvar: Vec<f64> = wx.iter().map(|v| v.g).collect();
        // the adjoint on separate buffers
        let (mut out, mut x) = (0.0, x0.clone());
        let (mut out_grad, mut x_grad) = (1.0, vec![0.0; x0.len()]);
        $f_vjp(&mut out, &mut out_grad, &mut x, &mut x_grad);
        prop_assert_eq!(bits(&x_grad), bits(&gvar));
        let (_, g) = $f_grad(Loss::arg(0), &mut 0.0, &mut x0.clone()).unwrap();
        let g: Vec<f64> = g.iter().map(|v| v.g).collect();
        prop_assert_eq!(bits(&g), bits(&gvar));
        let check = check_gradient($plain, &x0, &g, 1e-6, 1e-6);
        prop_assert!(check.is_ok(), "{:?}", check);
    }};
}

fn vector(n: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-2.0f64..2.0, n)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn complex_built_from_ancillas(x in vector(3)) {
        check_loss!(x, through_complex, through_complex_inv, through_complex_vjp,
            through_complex_grad, through_complex_plain);
    }

    #[test]
    fn fused_vjp_with_constructors_in_the_computation(x in vector(3)) {
        check_loss!(x.clone(), built_in_routine, built_in_routine_inv, built_in_routine_vjp,
            built_in_routine_grad, built_in_routine_plain);
        let (mut out, mut x1) = (0.0, x.clone());
        let (mut out_grad, mut x_grad) = (1.0, vec![0.0; 3]);
        built_in_routine_vjp(&mut out, &mut out_grad, &mut x1, &mut x_grad);
        let tape = tape_gradient(built_in_routine, &x);
        for (v, t) in x_grad.iter().zip(&tape) {
            prop_assert!((v - t).abs() <= 1e-12 * (1.0 + t.abs()), "{:?} vs {:?}", x_grad, tape);
        }
    }

    #[test]
    fn fused_vjp_with_a_value_taken_apart_in_the_computation(x in vector(2)) {
        check_loss!(x.clone(), rebuilt_in_routine, rebuilt_in_routine_inv,
            rebuilt_in_routine_vjp, rebuilt_in_routine_grad, rebuilt_in_routine_plain);
        let (mut out, mut x1) = (0.0, x.clone());
        let (mut out_grad, mut x_grad) = (1.0, vec![0.0; 2]);
        rebuilt_in_routine_vjp(&mut out, &mut out_grad, &mut x1, &mut x_grad);
        let tape = tape_gradient(rebuilt_in_routine, &x);
        for (v, t) in x_grad.iter().zip(&tape) {
            prop_assert!((v - t).abs() <= 1e-12 * (1.0 + t.abs()), "{:?} vs {:?}", x_grad, tape);
        }
    }

    #[test]
    fn a_built_value_passed_to_a_call(x in vector(3)) {
        check_loss!(x, passed_on, passed_on_inv, passed_on_vjp, passed_on_grad,
            passed_on_plain);
    }

    #[test]
    fn tuples_swapped_whole(x in vector(2)) {
        check_loss!(x, tuples_swapped, tuples_swapped_inv, tuples_swapped_vjp,
            tuples_swapped_grad, tuples_swapped_plain);
    }

    #[test]
    fn tuple_exchanged_without_swaps(x in vector(2)) {
        check_loss!(x, tuple_exchange, tuple_exchange_inv, tuple_exchange_vjp,
            tuple_exchange_grad, tuple_exchange_plain);
    }

    #[test]
    fn user_structs_built_from_ancillas(x in vector(3), n in 2usize..4, seed in (-1.0f64..1.0, -1.0f64..1.0)) {
        let x0: Vec<f64> = x[..n].to_vec();
        let q0 = Polar { r: seed.0, theta: seed.1 };
        let (mut q, mut x) = (q0, x0.clone());
        through_structs(&mut q, &mut x);
        let (dr, dt) = through_structs_plain(&x0);
        prop_assert!((q.r - q0.r - dr).abs() <= 1e-12 * (1.0 + dr.abs()));
        prop_assert!((q.theta - q0.theta - dt).abs() <= 1e-12 * (1.0 + dt.abs()));
        through_structs_inv(&mut q, &mut x);
        prop_assert!((q.r - q0.r).abs() <= 1e-12 && (q.theta - q0.theta).abs() <= 1e-12);
        prop_assert_eq!(bits(&x), bits(&x0));
        // a weighted loss 2 q.r + 3 q.theta, three ways
        let (mut q, mut x) = (q0, x0.clone());
        through_structs(&mut q, &mut x);
        let mut wq = Polar { r: GVar::with_grad(q.r, 2.0), theta: GVar::with_grad(q.theta, 3.0) };
        let mut wx = wrap(&x);
        through_structs_inv(&mut wq, &mut wx);
        let gvar: Vec<f64> = wx.iter().map(|v| v.g).collect();
        let (mut q, mut x) = (q0, x0.clone());
        let mut q_grad = Polar { r: 2.0, theta: 3.0 };
        let mut x_grad = vec![0.0; n];
        through_structs_vjp(&mut q, &mut q_grad, &mut x, &mut x_grad);
        prop_assert_eq!(bits(&x_grad), bits(&gvar));
        prop_assert_eq!((q_grad.r, q_grad.theta), (2.0, 3.0));
        let loss = |x: &[f64]| {
            let (dr, dt) = through_structs_plain(x);
            2.0 * dr + 3.0 * dt
        };
        let check = check_gradient(loss, &x0, &x_grad, 1e-6, 1e-6);
        prop_assert!(check.is_ok(), "{:?}", check);
    }
}
