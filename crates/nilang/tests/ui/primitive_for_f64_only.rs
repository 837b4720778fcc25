use nilang::{i, Real, Unary};

// implemented for `f64` alone: the gradient programs (on `GVar<T>` for any float `T`) and the
// Hessian (on dual numbers) cannot use it
struct Cube;

impl Unary<f64> for Cube {
    fn value(x: f64) -> f64 {
        x * x * x
    }
    fn derivative(x: f64) -> f64 {
        3.0 * x * x
    }
}

#[i]
fn cubed<T: Real>(y: &mut T, x: &mut T) {
    y += Cube(x);
}

fn main() {
    let (mut y, mut x) = (0.0, 2.0);
    cubed(&mut y, &mut x);
}
