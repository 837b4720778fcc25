//! `nilang demo`: the papers' small examples, run forward, backward and through the gradient.

use nilang::{i, Loss, Real};

#[i]
fn multiplier<T: Real>(y: &mut T, a: &mut T, b: &mut T) {
    y += a * b;
}

/// Runs the examples and prints the results.
pub fn run() {
    let (mut y, mut a, mut b) = (2.0f64, 3.0f64, 5.0f64);
    multiplier(&mut y, &mut a, &mut b);
    println!("multiplier(2, 3, 5)       = ({y}, {a}, {b})");
    multiplier_inv(&mut y, &mut a, &mut b);
    println!("multiplier_inv(17, 3, 5)  = ({y}, {a}, {b})");
    let (mut y, mut a, mut b) = (2.0f64, 3.0f64, 5.0f64);
    let (gy, ga, gb) =
        multiplier_grad(Loss::arg(0), &mut y, &mut a, &mut b).expect("arg 0 is differentiable");
    println!("∂y/∂(y, a, b)             = ({}, {}, {})", gy.g, ga.g, gb.g);
}
