//! The generated functions that take gradient buffers from their caller (`f_vjp`,
//! `f_adjoint`, `f_adjoint_inv`) check on entry that each slice's or vector's gradient is as
//! long as the value, and panic naming the function, the parameter and both lengths. A
//! shorter buffer failed with a bare "index out of bounds" (in a parallel loop's chunk, too),
//! and a longer one was accepted silently.

use nilang::parallel::set_min_parallel_work;
use nilang::{i, Real};

#[i]
fn weighted<T: Real>(out: &mut T, x: &mut [T], w: &mut Vec<T>) {
    for k in 0..x.len() {
        out += x[k] * w[k];
    }
}

#[i]
fn weighted_par<T: Real>(out: &mut T, x: &mut [T], w: &mut Vec<T>) {
    for k in (0..x.len()).par() {
        out += x[k] * w[k];
    }
}

/// Leaves the square of `x` on the stack `s` (whose gradient stack may be shorter).
#[i]
fn push_square<T: Real>(x: &mut T, s: &mut Vec<T>) {
    let t = T::zero();
    t += square(x);
    push!(s, t);
    dealloc!(t = T::zero());
}

type Vjp = fn(&mut f64, &mut f64, &mut [f64], &mut [f64], &mut Vec<f64>, &mut Vec<f64>) -> f64;

/// `vjp` on `x = [1, 2, 3]`, `w = [4, 5, 6]` with gradient buffers of lengths `lx` and `lw`,
/// on a pool of 2 threads whose parallel loops split; the gradients of `x` and `w`.
fn run(vjp: Vjp, lx: usize, lw: usize) -> (Vec<f64>, Vec<f64>) {
    set_min_parallel_work(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        let (mut out, mut x, mut w) = (0.0, vec![1.0, 2.0, 3.0], vec![4.0, 5.0, 6.0]);
        let (mut out_grad, mut x_grad, mut w_grad) = (1.0, vec![0.0; lx], vec![0.0; lw]);
        vjp(
            &mut out,
            &mut out_grad,
            &mut x,
            &mut x_grad,
            &mut w,
            &mut w_grad,
        );
        (x_grad, w_grad)
    })
}

#[test]
fn equal_lengths_give_the_gradient() {
    for vjp in [weighted_vjp as Vjp, weighted_par_vjp] {
        assert_eq!(run(vjp, 3, 3), (vec![4.0, 5.0, 6.0], vec![1.0, 2.0, 3.0]));
    }
}

#[test]
#[should_panic(
    expected = "`weighted_vjp`: the gradient buffer `x_grad` has length 2, but `x` has length 3"
)]
fn a_shorter_slice_gradient() {
    run(weighted_vjp, 2, 3);
}

#[test]
#[should_panic(
    expected = "`weighted_vjp`: the gradient buffer `x_grad` has length 4, but `x` has length 3"
)]
fn a_longer_slice_gradient() {
    run(weighted_vjp, 4, 3);
}

#[test]
#[should_panic(
    expected = "`weighted_vjp`: the gradient buffer `w_grad` has length 0, but `w` has length 3"
)]
fn a_shorter_vec_gradient() {
    run(weighted_vjp, 3, 0);
}

#[test]
#[should_panic(
    expected = "`weighted_par_vjp`: the gradient buffer `x_grad` has length 1, but `x` has length 3"
)]
fn a_shorter_slice_gradient_of_a_parallel_loop() {
    run(weighted_par_vjp, 1, 3);
}

#[test]
#[should_panic(
    expected = "`weighted_par_vjp`: the gradient buffer `w_grad` has length 5, but `w` has length 3"
)]
fn a_longer_vec_gradient_of_a_parallel_loop() {
    run(weighted_par_vjp, 3, 5);
}

#[test]
#[should_panic(
    expected = "`weighted_par_adjoint`: the gradient buffer `x_grad` has length 2, but `x` has length 3"
)]
fn the_adjoint_program_checks_too() {
    let (mut out, mut x, mut w) = (0.0, vec![1.0, 2.0, 3.0], vec![4.0, 5.0, 6.0]);
    weighted_par(&mut out, &mut x, &mut w);
    let (mut out_grad, mut x_grad, mut w_grad) = (1.0, vec![0.0; 2], vec![0.0; 3]);
    weighted_par_adjoint(
        &mut out,
        &mut out_grad,
        &mut x,
        &mut x_grad,
        &mut w,
        &mut w_grad,
    );
}

#[test]
#[should_panic(
    expected = "`weighted_adjoint_inv`: the gradient buffer `w_grad` has length 4, but `w` has length 3"
)]
fn the_adjoint_inverse_checks_too() {
    let (mut out, mut x, mut w) = (0.0, vec![1.0, 2.0, 3.0], vec![4.0, 5.0, 6.0]);
    let (mut out_grad, mut x_grad, mut w_grad) = (0.0, vec![0.0; 3], vec![0.0; 4]);
    weighted_adjoint_inv(
        &mut out,
        &mut out_grad,
        &mut x,
        &mut x_grad,
        &mut w,
        &mut w_grad,
    );
}

#[test]
fn a_gradient_stack_may_be_shorter_than_its_stack() {
    // an adjoint program may be handed an empty gradient stack: the values have no gradient
    let (mut x, mut s) = (3.0, vec![7.0]);
    push_square(&mut x, &mut s);
    assert_eq!(s, [7.0, 9.0]);
    let (mut x_grad, mut s_grad) = (0.0, Vec::new());
    push_square_adjoint(&mut x, &mut x_grad, &mut s, &mut s_grad);
    assert_eq!((x, x_grad, &s[..]), (3.0, 0.0, &[7.0][..]));
    // or the gradient of the top value only: the pushed square's
    push_square(&mut x, &mut s);
    let (mut x_grad, mut s_grad) = (0.0, vec![1.0]);
    push_square_adjoint(&mut x, &mut x_grad, &mut s, &mut s_grad);
    assert_eq!(
        (x, x_grad, &s[..], &s_grad[..]),
        (3.0, 6.0, &[7.0][..], &[][..])
    );
    // or one as deep, with the gradient of the pushed square on top
    push_square(&mut x, &mut s);
    let (mut x_grad, mut s_grad) = (0.0, vec![0.0, 1.0]);
    push_square_adjoint(&mut x, &mut x_grad, &mut s, &mut s_grad);
    assert_eq!((x, x_grad, &s[..]), (3.0, 6.0, &[7.0][..]));
}
