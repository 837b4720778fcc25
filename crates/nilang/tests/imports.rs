//! A reversible function imported by its name alone — from this crate's own module, from the
//! `nilang` library, declared inside a function body — can be called, uncalled and
//! differentiated from another reversible function: the struct `#[i]` defines beside each
//! function carries its inverse and adjoint programs (`nilang_ir::companions`), and the `use`
//! brings it along. Gradients are checked against central differences and against the
//! generic inverse run on `GVar`s.

use nilang::ad::check_gradient;
use nilang::{i, GVar, Loss, Real};

mod library {
    use nilang::{i, Real};

    /// `y += sin(x)`, with a chosen inverse name (callers still reach it as `add_sin::inv`).
    #[i(inverse = sub_sin)]
    pub fn add_sin<T: Real>(y: &mut T, x: &mut T) {
        y += sin(x);
    }
}

// the names alone: no `add_sin_inv`, `sub_sin`, `idot_adjoint_inv`, …
use library::add_sin;
use nilang::blas::idot;

/// `out += x·y + sin(x₁)` through two imported functions, with an uncall in between.
#[i]
fn uses_imports<T: Real>(out: &mut T, x: &mut [T], y: &mut [T]) {
    let s = T::zero();
    add_sin(s, x[0]);
    uncall!(add_sin(s, x[0]));
    add_sin(s, x[1]);
    idot(out, x, y);
    out += s;
    uncall!(add_sin(s, x[1]));
    dealloc!(s = T::zero());
}

fn plain(v: &[f64]) -> f64 {
    v[0] * v[2] + v[1] * v[3] + v[1].sin()
}

#[test]
fn imported_functions_run_forward_and_backward() {
    let (mut x, mut y) = (vec![2.0, 3.0], vec![5.0, 7.0]);
    let mut out = 1.0;
    uses_imports(&mut out, &mut x, &mut y);
    assert_eq!(out, 1.0 + 2.0 * 5.0 + 3.0 * 7.0 + 3f64.sin());
    uses_imports_inv(&mut out, &mut x, &mut y);
    assert!((out - 1.0).abs() < 1e-14); // floating-point addition is undone up to rounding
    assert_eq!((x, y), (vec![2.0, 3.0], vec![5.0, 7.0]));
    // the chosen inverse name is what `add_sin::inv` forwards to
    let (mut s, mut a) = (4.0, 3.0);
    library::sub_sin(&mut s, &mut a);
    assert_eq!(s, 4.0 - 3f64.sin());
    let r = nilang::rev!(add_sin::<f64>);
    nilang::Reversible::uncall(&r, (&mut s, &mut a));
    assert_eq!(s, 4.0 - 3f64.sin() - 3f64.sin());
}

#[test]
fn imported_functions_have_gradients() {
    let v = [2.0, 3.0, 5.0, 7.0];
    let (mut x, mut y) = (v[..2].to_vec(), v[2..].to_vec());
    let (_, gx, gy) = uses_imports_grad(Loss::arg(0), &mut 0.0, &mut x, &mut y).unwrap();
    let grads: Vec<f64> = gx.iter().chain(&gy).map(|g| g.g).collect();
    check_gradient(plain, &v, &grads, 1e-6, 1e-6).unwrap();
    // the second AD mode: the inverse program on GVars
    let mut out = GVar::with_grad(plain(&v), 1.0);
    let mut xs: Vec<GVar<f64>> = v[..2].iter().map(|&a| GVar::new(a)).collect();
    let mut ys: Vec<GVar<f64>> = v[2..].iter().map(|&a| GVar::new(a)).collect();
    uses_imports_inv(&mut out, &mut xs, &mut ys);
    let second: Vec<f64> = xs.iter().chain(&ys).map(|g| g.g).collect();
    assert_eq!(grads, second);
}

#[test]
fn functions_declared_in_a_function_body_call_each_other() {
    #[i]
    fn twice<T: Real>(y: &mut T, x: &mut T) {
        y += x;
        y += x;
    }
    #[i]
    fn four_times<T: Real>(y: &mut T, x: &mut T) {
        twice(y, x);
        twice(y, x);
        uncall!(twice(y, x));
        twice(y, x);
    }
    let (mut y, mut x) = (0.0, 1.5);
    four_times(&mut y, &mut x);
    assert_eq!(y, 6.0);
    let (_, gx) = four_times_grad(Loss::arg(0), &mut 0.0, &mut x).unwrap();
    assert_eq!(gx.g, 4.0);
}
