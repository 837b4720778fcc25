//! Gradients in fixed point: the inverse of a `FixedPoint` program run on `GVar<I21F43>` (and
//! on a 32-bit type) gives the f64 gradient of the same program within the round-off of its
//! adjoint products, and the gradient program is itself exactly reversible.

use fixed::types::{I16F16, I21F43};
use nilang::numbers::FixedPoint;
use nilang::{i, GVar, Loss, Real};

/// The program of the task: three instructions, one of each rounding kind.
#[i]
fn prog<T: FixedPoint>(y: &mut T, a: &mut T, x: &mut T) {
    y += a * x;
    y -= a / x;
    y += square(x);
}

/// The same program on floats, differentiated by the generated `f_grad`.
#[i]
fn prog_f64<T: Real>(y: &mut T, a: &mut T, x: &mut T) {
    y += a * x;
    y -= a / x;
    y += square(x);
}

/// `∂y/∂(a, x)` in fixed point by the generic path: forward on plain numbers, then the inverse
/// on `GVar`s with `ȳ = 1`; asserts that the inverse gives the inputs back bit for bit.
fn fixed_gradient<Q>(a0: f64, x0: f64) -> (Q, Q)
where
    Q: FixedPoint + fixed::traits::Fixed,
    GVar<Q>: FixedPoint,
{
    let (mut y, mut a, mut x) = (Q::ZERO, Q::from_num(a0), Q::from_num(x0));
    prog(&mut y, &mut a, &mut x);
    let (mut gy, mut ga, mut gx) = (
        GVar {
            x: y,
            g: Q::from_num(1),
        },
        GVar { x: a, g: Q::ZERO },
        GVar { x, g: Q::ZERO },
    );
    prog_inv(&mut gy, &mut ga, &mut gx);
    assert_eq!((gy.x, ga.x, gx.x), (Q::ZERO, a, x), "a = {a0}, x = {x0}");
    (ga.g, gx.g)
}

/// The f64 gradient at the very values the fixed-point inputs hold.
fn f64_gradient(a: f64, x: f64) -> (f64, f64) {
    let (_, ga, gx) =
        prog_f64_grad(Loss::arg(0), &mut 0.0, &mut a.clone(), &mut x.clone()).unwrap();
    (ga.g, gx.g)
}

/// The inputs of the comparisons: `a ∈ [−4, 4]`, `x ∈ ±[0.5, 8]`.
fn inputs() -> impl Iterator<Item = (f64, f64)> {
    (0..=16).flat_map(|i| {
        let a = -4.0 + 0.5 * i as f64 + 0.013;
        (0..=30).map(move |j| {
            let x = 0.5 + 0.25 * j as f64 + 0.0071;
            (a, if j % 2 == 0 { x } else { -x })
        })
    })
}

/// The bound on `|fixed − f64|` of each gradient, in units of the last place `u` of the fixed
/// type, derived rule by rule (ȳ = 1, so the products `ȳ·a`, `ȳ·x` of `y += a * x` are exact):
/// `ā` gets `p = ȳ/x` (one rounding: 1u); `x̄` gets `ȳ·2x` (exact), `ȳ·a` (exact) and `p·q`
/// with `q = a/x`, whose error is `|p|·u + |q|·u + u` (the two quotients and the product).
/// The f64 reference adds its own `≤ 2⁻⁵⁰ |g|`.
fn bounds(a: f64, x: f64, u: f64) -> (f64, f64) {
    let (p, q) = (1.0 / x.abs(), a.abs() / x.abs());
    (u, (1.0 + p + q + 1.0) * u)
}

fn compare<Q>(u: f64)
where
    Q: FixedPoint + fixed::traits::Fixed,
    GVar<Q>: FixedPoint,
{
    let mut worst: f64 = 0.0;
    for (a0, x0) in inputs() {
        let (ga, gx) = fixed_gradient::<Q>(a0, x0);
        // the reference at the rounded inputs, so only the gradient's round-off is compared
        let (a, x) = (
            Q::from_num(a0).to_num::<f64>(),
            Q::from_num(x0).to_num::<f64>(),
        );
        let (ra, rx) = f64_gradient(a, x);
        let (ba, bx) = bounds(a, x, u);
        let (ea, ex) = (
            (ga.to_num::<f64>() - ra).abs(),
            (gx.to_num::<f64>() - rx).abs(),
        );
        assert!(
            ea <= ba + ra.abs() * 2f64.powi(-50),
            "∂/∂a at a = {a}, x = {x}: {ea:e} > {ba:e}"
        );
        assert!(
            ex <= bx + rx.abs() * 2f64.powi(-50),
            "∂/∂x at a = {a}, x = {x}: {ex:e} > {bx:e}"
        );
        worst = worst.max(ea / u).max(ex / u);
    }
    // the bound is not vacuous: the adjoint's quotients do round
    assert!(worst > 0.0);
}

#[test]
fn fixed_gradient_is_the_f64_gradient_within_the_adjoint_round_off() {
    compare::<I21F43>(2f64.powi(-43));
}

#[test]
fn the_same_holds_on_a_32_bit_type() {
    compare::<I16F16>(2f64.powi(-16));
}

#[test]
fn a_known_gradient_is_exact_where_nothing_rounds() {
    // a = 1.5, x = 2: every quotient and product of the adjoint is a dyadic fraction
    let (ga, gx) = fixed_gradient::<I21F43>(1.5, 2.0);
    assert_eq!((ga, gx), (I21F43::from_num(1.5), I21F43::from_num(5.875)));
}

/// A long program: 2000 multiply–divide steps (the module's `spin`).
#[i]
fn spin<T: FixedPoint>(y: &mut T, x: &mut T, c: &mut T) {
    for _k in 0..1000 {
        y += x * c;
        x -= y / c;
    }
}

#[test]
fn the_gradient_program_is_exactly_reversible() {
    let fx = I21F43::from_num;
    let (mut y, mut x, mut c) = (fx(0.3), fx(-2.1), fx(1.7));
    spin(&mut y, &mut x, &mut c);
    let mut v = [
        GVar { x: y, g: fx(1.0) },
        GVar { x, g: fx(-0.25) },
        GVar { x: c, g: fx(0.0) },
    ];
    let outputs = v;
    let [gy, gx, gc] = &mut v;
    spin_inv(gy, gx, gc); // the gradient program: values back to the inputs
    assert_eq!((gy.x, gx.x, gc.x), (fx(0.3), fx(-2.1), fx(1.7)));
    assert_ne!(gc.g, fx(0.0));
    spin(gy, gx, gc); // its inverse: values and gradients back, bit for bit
    assert_eq!(v, outputs);
}

#[test]
fn gradient_accumulation_is_exact_fixed_point_addition() {
    // x̄ += ȳ and back: identity's adjoint only adds, so even a gradient near the range's end
    // comes back (wrapping, as the values do)
    #[i]
    fn twice<T: FixedPoint>(y: &mut T, x: &mut T) {
        y += identity(x);
        y += identity(x);
    }
    let big = I21F43::MAX;
    let (mut y, mut x) = (
        GVar {
            x: I21F43::ZERO,
            g: big,
        },
        GVar {
            x: I21F43::ONE,
            g: big,
        },
    );
    twice_inv(&mut y, &mut x);
    assert_eq!(x.g, big.wrapping_add(big).wrapping_add(big));
    twice(&mut y, &mut x);
    assert_eq!((y.g, x.g, x.x), (big, big, I21F43::ONE));
}
