//! The ten-minute path of the guide (`nilang::guide::tutorial`), as a user crate: every step
//! checks its result, so `cargo run` fails if the public API stops doing what the guide says.

use nilang::ad::{check_gradient, gradient, hessian_vector_product};
use nilang::blas::idot; // a library function, imported by its name alone
use nilang::{catch, differentiable, i, Float, Loss, Real, Scalars, Unary};

/// Step 1: a reversible function, with an ancilla computed, used and uncomputed.
#[i]
fn softplus_norm<T: Real>(out: &mut T, x: &mut [T]) {
    let s = T::zero();
    routine! {
        for k in 0..x.len() {
            s += exp(x[k]);
        }
    }
    out += log1p(s);
    uncompute!();
    dealloc!(s = T::zero());
}

fn softplus_norm_plain(x: &[f64]) -> f64 {
    x.iter().map(|v| v.exp()).sum::<f64>().ln_1p()
}

/// Step 0 (`nilang::guide::ordinary`): the same function as ordinary Rust.
#[differentiable]
fn softplus_norm_ordinary(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter() {
        s += v.exp();
    }
    s.ln_1p()
}

/// Step 0, a long loop with a memory budget: √steps states kept (`#[checkpoint]`).
#[differentiable]
fn damped(x0: f64, k: f64, steps: usize) -> f64 {
    let (mut x, mut v) = (x0, 0.0);
    #[checkpoint]
    for _ in 0..steps {
        v -= 0.01 * (k * x + 0.2 * v);
        x += 0.01 * v;
    }
    x * x + v * v
}

/// Step 0, several results: residuals written into an output slice.
#[differentiable(wrt(p))]
fn line_residuals(p: &[f64], t: &[f64], y: &[f64], r: &mut [f64]) {
    for i in 0..t.len() {
        r[i] = p[0] * t[i] + p[1] - y[i];
    }
}

/// Step 0, functions calling functions: a distance in a module of its own.
mod geometry {
    use nilang::differentiable;

    /// `‖a[ka..ka+d] − b[kb..kb+d]‖²`.
    #[differentiable(wrt(a))]
    pub fn squared_distance(a: &[f64], ka: usize, b: &[f64], kb: usize, d: usize) -> f64 {
        let mut s = 0.0;
        for e in 0..d {
            let diff = a[ka + e] - b[kb + e];
            s += diff * diff;
        }
        s
    }

    /// Writes `v` (a 2-vector) rotated by the angle `theta[0]` into `out`.
    #[differentiable]
    pub fn rotate(theta: &[f64], v: &[f64], out: &mut [f64]) {
        let (c, s) = (theta[0].cos(), theta[0].sin());
        out[0] = c * v[0] - s * v[1];
        out[1] = s * v[0] + c * v[1];
    }
}

// a call from another module needs the function's taped program too
use geometry::{rotate, rotate_rev_taped, squared_distance, squared_distance_rev_taped};

/// Step 0, a call to a function that writes an output slice: how far the rotated points land
/// from their targets, one buffer reused for every point.
#[differentiable(wrt(theta))]
fn alignment_error(theta: &[f64], points: &[f64], targets: &[f64]) -> f64 {
    let mut moved = vec![0.0; 2];
    let mut total = 0.0;
    for i in 0..points.len() / 2 {
        let mut p = vec![0.0; 2];
        p[0] = points[2 * i];
        p[1] = points[2 * i + 1];
        rotate(theta, &p, &mut moved);
        total += (moved[0] - targets[2 * i]).powi(2) + (moved[1] - targets[2 * i + 1]).powi(2);
    }
    total
}

/// Step 0, a call to a function of another module: the squared distances of the points to
/// one center.
#[differentiable(wrt(center))]
fn spread(points: &[f64], center: &[f64], d: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..points.len() / d {
        total += squared_distance(center, 0, points, i * d, d);
    }
    total
}

/// Step 0, a nearest-centroid cost: a fold (`if dist < best { best = dist; }`), searched on
/// values (one distance differentiated per point).
#[differentiable(wrt(centroids))]
fn nearest_cost(points: &[f64], centroids: &[f64], d: usize) -> f64 {
    let mut cost = 0.0;
    for i in 0..points.len() / d {
        let mut best = f64::INFINITY;
        for j in 0..centroids.len() / d {
            let mut dist = 0.0;
            for e in 0..d {
                dist += (points[i * d + e] - centroids[j * d + e]).powi(2);
            }
            if dist < best {
                best = dist;
            }
        }
        cost += best;
    }
    cost
}

/// Step 3: a loss of a vector, for the Hessian and the closure-level helpers.
#[i(expand)]
fn rosenbrock<T: Real>(out: &mut T, x: &mut [T]) {
    for k in 1..x.len() {
        out += 100.0 * square(x[k] - square(x[k - 1]));
        out += square(1.0 - x[k - 1]);
    }
}

/// Step 4: a primitive of one's own.
struct Gd;

impl<T: Float> Unary<T> for Gd {
    fn value(x: T) -> T {
        T::from_f64(2.0) * (x / T::from_f64(2.0)).tanh().atan()
    }
    fn derivative(x: T) -> T {
        T::f_one() / x.cosh()
    }
}

#[i(grad = gd_gradient)]
fn with_gd<T: Real>(y: &mut T, x: &mut T) {
    y += Gd(x);
}

/// A struct of parameters.
#[derive(Clone, Copy, Debug, Scalars)]
struct Line<T> {
    slope: T,
    intercept: T,
}

#[i(expand)]
fn residual<T: Real>(loss: &mut T, p: &mut Line<T>, x: &T, y: &T) {
    loss += square(p.slope * *x + p.intercept - *y);
}

/// Step 7: a batched kernel.
#[i(nocheck, expand)]
fn batched<T: Real>(y: &mut [T], x: &mut [T]) {
    for k in (0..x.len()).par() {
        y[k] += sin(2.0 * x[k]);
    }
}

/// The library's `idot`, called and uncalled: `out += x·w − x·v`.
#[i]
fn dot_difference<T: Real>(out: &mut T, x: &mut [T], w: &mut [T], v: &mut [T]) {
    idot(out, x, w);
    uncall!(idot(out, x, v));
}

/// A runtime reversibility violation, caught.
#[i]
fn leaky<T: Real>(y: &mut T, x: &mut T) {
    let t = T::zero();
    t += exp(x);
    y += identity(t);
    dealloc!(t = T::zero());
}

fn main() {
    // 0. ordinary Rust and its gradient
    let (value, g) = softplus_norm_ordinary_gradient(&[0.3, -1.2, 2.0]);
    assert_eq!(value, softplus_norm_ordinary(&[0.3, -1.2, 2.0]));
    check_gradient(softplus_norm_plain, &[0.3, -1.2, 2.0], &g, 1e-6, 1e-7).unwrap();
    let (value, (dx0, dk)) = damped_gradient(1.0, 3.0, 5000);
    assert_eq!(value, damped(1.0, 3.0, 5000));
    let fd = |f: &dyn Fn(f64) -> f64, at: f64| (f(at + 1e-6) - f(at - 1e-6)) / 2e-6;
    assert!((dk - fd(&|k| damped(1.0, k, 5000), 3.0)).abs() < 1e-6);
    assert!((dx0 - fd(&|x| damped(x, 3.0, 5000), 1.0)).abs() < 1e-6);
    let (t, y, mut r) = ([0.0, 1.0, 2.0], [1.0, 2.5, 5.5], [0.0; 3]);
    let jt_r = line_residuals_gradient(&[2.0, 1.0], &t, &y, &mut r, &[1.0, 1.0, 1.0]);
    assert_eq!((r, jt_r), ([0.0, 0.5, -0.5], vec![0.0 + 1.0 + 2.0, 3.0]));
    let points = [0.0, 0.0, 1.0, 0.2, 4.0, 4.0];
    let centroids = [0.5, 0.0, 3.0, 3.5];
    let (value, gs) = spread_gradient(&points, &[1.0, 1.0], 2);
    assert_eq!(value, spread(&points, &[1.0, 1.0], 2));
    assert_eq!(gs, vec![2.0 * (3.0 - 5.0), 2.0 * (3.0 - 4.2)]);
    let targets = [0.1, 0.0, -0.2, 1.0, -4.0, 4.0];
    let (value, ga) = alignment_error_gradient(&[0.5], &points, &targets);
    assert_eq!(value, alignment_error(&[0.5], &points, &targets));
    let fa = fd(&|a| alignment_error(&[a], &points, &targets), 0.5);
    assert!((ga[0] - fa).abs() < 1e-6 * (1.0 + fa.abs()), "{} vs {fa}", ga[0]);
    let (value, gc) = nearest_cost_gradient(&points, &centroids, 2);
    assert_eq!(value, nearest_cost(&points, &centroids, 2));
    // two points nearest the first centroid, one the second: 2(c − p) summed over each's own
    assert_eq!(
        gc,
        vec![
            2.0 * (0.5 - 0.0) + 2.0 * (0.5 - 1.0),
            2.0 * (0.0 - 0.0) + 2.0 * (0.0 - 0.2),
            2.0 * (3.0 - 4.0),
            2.0 * (3.5 - 4.0)
        ]
    );

    // 1. forward and inverse
    let x0 = vec![0.3, -1.2, 2.0];
    let (mut out, mut x) = (0.0, x0.clone());
    softplus_norm(&mut out, &mut x);
    assert!((out - softplus_norm_plain(&x0)).abs() < 1e-14);
    softplus_norm_inv(&mut out, &mut x);
    assert_eq!((out, &x), (0.0, &x0));

    // 2. a gradient, three ways
    let (_, gx) = softplus_norm_grad(Loss::arg(0), &mut 0.0, &mut x0.clone()).unwrap();
    let g: Vec<f64> = gx.iter().map(|v| v.g).collect();
    check_gradient(softplus_norm_plain, &x0, &g, 1e-6, 1e-7).unwrap();
    let (mut o, mut og, mut xs, mut xg) = (0.0, 1.0, x0.clone(), vec![0.0; 3]);
    softplus_norm_vjp(&mut o, &mut og, &mut xs, &mut xg);
    assert_eq!(xg, g);
    assert_eq!(gradient(softplus_norm_vjp, &x0), g);
    println!("gradient of softplus_norm at {x0:?}: {}", gx[0]);

    // 3. Jacobian, Hessian, Hessian–vector product
    let at = [1.2, 0.8];
    let h = rosenbrock_hessian(Loss::arg(0), &mut 0.0, &mut at.to_vec()).unwrap();
    let hv = hessian_vector_product(rosenbrock_vjp, &at, &[0.0, 1.0]);
    assert!((hv[0] - h[(1, 2)]).abs() < 1e-9 && (hv[1] - h[(2, 2)]).abs() < 1e-9);
    assert_eq!(h[(2, 2)], 200.0);
    println!("Hessian of rosenbrock (out, x0, x1):\n{h:.1}");
    let j = softplus_norm_jacobian(&mut 0.0, &mut x0.clone()).unwrap();
    assert_eq!(&j.row(0)[1..], &g[..]);

    // 4. a primitive of one's own, under a chosen gradient name
    let (_, gd) = gd_gradient(Loss::arg(0), &mut 0.0, &mut 0.4).unwrap();
    assert!((gd.g - 1.0 / 0.4f64.cosh()).abs() < 1e-15);

    // a struct of parameters
    let mut line = Line {
        slope: 2.0,
        intercept: 0.5,
    };
    assert_eq!(line.count(), 2);
    let (_, gl) = residual_grad(Loss::arg(0), &mut 0.0, &mut line, &3.0, &1.0).unwrap();
    // r = 2·3 + 0.5 − 1 = 5.5; ∂r²/∂slope = 2r·3, ∂r²/∂intercept = 2r
    assert_eq!((gl.slope.g, gl.intercept.g), (33.0, 11.0));

    // a library function imported by name, in a function of one's own
    let (mut w, mut v) = (vec![1.0, 2.0, 3.0], vec![0.5, 0.5, 0.5]);
    let mut d = 0.0;
    dot_difference(&mut d, &mut x0.clone(), &mut w, &mut v);
    assert!((d - (0.3 * 0.5 - 1.2 * 1.5 + 2.0 * 2.5)).abs() < 1e-12);
    let (_, gx, _, _) =
        dot_difference_grad(Loss::arg(0), &mut 0.0, &mut x0.clone(), &mut w, &mut v).unwrap();
    assert_eq!(
        gx.iter().map(|g| g.g).collect::<Vec<_>>(),
        vec![0.5, 1.5, 2.5]
    ); // w − v

    // 7. a batched kernel and its adjoint
    let n = 5000;
    let (mut y, mut xb) = (vec![0.0; n], vec![0.25; n]);
    batched(&mut y, &mut xb);
    let (mut yg, mut xg) = (vec![1.0; n], vec![0.0; n]);
    batched_adjoint(&mut y, &mut yg, &mut xb, &mut xg);
    assert!(xg.iter().all(|g| (g - 2.0 * 0.5f64.cos()).abs() < 1e-15));
    assert!(y.iter().all(|v| *v == 0.0));

    // errors at run time are values
    let err = catch(|| leaky(&mut 0.0, &mut 1.0)).unwrap_err();
    assert_eq!(err.function, "leaky");
    println!("caught: {err}");
    println!("first-crate: every step of the tutorial checked");
}
