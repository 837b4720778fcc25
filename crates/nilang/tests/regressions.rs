//! Bugs of the macro's output found by hand or by the random programs, one named test each,
//! with the program that showed it.

use nilang::{i, Loss, Real};

/// `x[(k + 1) % x.len()]` reads `x` in an index: the adjoint stored the pair with
/// `split_into(&mut x[i], &mut x_grad[(k + 1) % x.len()], ..)`, reading `x` while it was
/// borrowed mutably (E0502). Index expressions are now evaluated before the statement borrows.
#[i]
fn ring_products<T: Real>(out: &mut T, x: &mut [T]) {
    for k in 0..x.len() {
        *out += x[k] * x[(k + 1) % x.len()];
    }
}

/// The same index in a call's argument and on integers (whose adjoint programs exist too).
#[i]
fn add_into<T: Real>(a: &mut T, b: &mut T) {
    *a += *b;
}

#[i]
fn ring_calls<T: Real>(x: &mut [T]) {
    for k in 0..x.len() - 1 {
        add_into(x[k], x[(k + 1) % x.len()]);
    }
}

#[i]
fn ring_integers(out: &mut i64, x: &mut [i64]) {
    for k in 0..x.len() {
        *out += x[(k + 1) % x.len()];
    }
}

/// A sub-slice whose range reads the variable it slices, handed to a call.
#[i]
fn add_first_into_rest<T: Real>(x: &mut [T]) {
    for k in 1..x.len() {
        x[k] += x[0];
    }
}

#[i]
fn tail_calls<T: Real>(x: &mut [T]) {
    add_first_into_rest(x[1..x.len()]);
}

#[test]
fn index_that_reads_a_borrowed_variable() {
    let x0 = [1.0, 2.0, 3.0, 4.0];
    let (mut out, mut x) = (0.5, x0.to_vec());
    ring_products(&mut out, &mut x);
    assert_eq!(out, 0.5 + 2.0 + 6.0 + 12.0 + 4.0);
    ring_products_inv(&mut out, &mut x);
    assert_eq!((out, x.as_slice()), (0.5, &x0[..]));
    // d out / d x_k = x_(k-1) + x_(k+1), cyclically
    let (mut out, mut x) = (0.0, x0.to_vec());
    let (_, gx) = ring_products_grad(Loss::arg(0), &mut out, &mut x).unwrap();
    let expected = [6.0, 4.0, 6.0, 4.0];
    assert_eq!(gx.iter().map(|g| g.g).collect::<Vec<_>>(), expected);
    // the shadow gradient agrees
    let (mut out, mut out_grad, mut x, mut x_grad) = (0.0, 1.0, x0.to_vec(), vec![0.0; 4]);
    ring_products_vjp(&mut out, &mut out_grad, &mut x, &mut x_grad);
    assert_eq!(x_grad, expected);
}

#[test]
fn index_that_reads_a_borrowed_variable_in_calls() {
    let x0 = [1.0, 2.0, 3.0, 4.0];
    let mut x = x0.to_vec();
    ring_calls(&mut x);
    assert_eq!(x, [3.0, 5.0, 7.0, 4.0]);
    ring_calls_inv(&mut x);
    assert_eq!(x, x0);
    // x_1 ends as x_1 + x_2
    let mut x = x0.to_vec();
    let (gx,) = ring_calls_grad(Loss::elem(0, 1), &mut x).unwrap();
    assert_eq!(
        gx.iter().map(|g| g.g).collect::<Vec<_>>(),
        [0.0, 1.0, 1.0, 0.0]
    );

    let (mut out, mut x) = (0, vec![1, 2, 3]);
    ring_integers(&mut out, &mut x);
    assert_eq!(out, 6);
    ring_integers_inv(&mut out, &mut x);
    assert_eq!(out, 0);

    let mut x = vec![1.0, 2.0, 3.0, 4.0];
    tail_calls(&mut x);
    assert_eq!(x, [1.0, 2.0, 5.0, 6.0]);
    tail_calls_inv(&mut x);
    assert_eq!(x, [1.0, 2.0, 3.0, 4.0]);
    let mut x = vec![1.0, 2.0, 3.0, 4.0];
    // x_3 ends as x_3 + x_1
    let (gx,) = tail_calls_grad(Loss::elem(0, 3), &mut x).unwrap();
    assert_eq!(
        gx.iter().map(|g| g.g).collect::<Vec<_>>(),
        [0.0, 1.0, 0.0, 1.0]
    );
}

/// A method marked `#[i]` on its own inside an `impl` that is not `#[i]`: the function's
/// effects struct was emitted inside the `impl` ("struct is not supported in impls"). A
/// function that takes `self` or names `Self` is now generated as a method.
pub struct Accumulator<T> {
    pub total: T,
}

impl<T: Real> Accumulator<T> {
    #[i]
    pub fn add(&mut self, x: &T) {
        self.total += *x;
    }

    #[i]
    pub fn add_twice(acc: &mut Self, x: &T) {
        acc.total += *x;
        acc.total += *x;
    }
}

#[test]
fn method_marked_alone_in_a_plain_impl() {
    let mut a = Accumulator { total: 1.0 };
    a.add(&2.0);
    assert_eq!(a.total, 3.0);
    Accumulator::add_twice(&mut a, &0.5);
    assert_eq!(a.total, 4.0);
    Accumulator::add_twice_inv(&mut a, &0.5);
    a.add_inv(&2.0);
    assert_eq!(a.total, 1.0);
}

/// A `&mut` parameter without gradient whose type is unsized (`n: &mut [i64]`): the gradient
/// functions copied it with `Clone::clone(&*n)` (`[i64]: Clone` is not satisfied, at `#[i]`).
/// Found by the compiled corpus, whose programs all take `n: &mut [i64]`; the copy is now
/// `ToOwned` (a `Vec<i64>`), seen as the parameter's own type.
#[i]
fn counted_sin<T: Real>(x: &mut [T], n: &mut [i64]) {
    x[0] += sin(x[1]);
    inc(n[0]);
}

#[test]
fn integer_slice_beside_a_differentiable_one() {
    let (mut x, mut n) = (vec![0.5, 0.25], vec![3, 7]);
    let (gx,) = counted_sin_grad(Loss::elem(0, 0), &mut x, &mut n).unwrap();
    assert_eq!([gx[0].g, gx[1].g], [1.0, 0.25f64.cos()]);
    let (mut x, mut n) = (vec![0.5, 0.25], vec![3, 7]);
    let (mut xg, mut ng) = (vec![1.0, 0.0], n.clone());
    counted_sin_vjp(&mut x, &mut xg, &mut n, &mut ng);
    assert_eq!(
        (x, n, xg),
        (vec![0.5, 0.25], vec![3, 7], vec![1.0, 0.25f64.cos()])
    );
    let (mut x, mut n) = (vec![0.5, 0.25], vec![3, 7]);
    let h = counted_sin_hessian(Loss::elem(0, 0), &mut x, &mut n).unwrap();
    assert_eq!(h.get(1, 1), -(0.25f64.sin()));
}
