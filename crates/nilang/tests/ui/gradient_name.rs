// `x_grad` is the name the gradient programs give to the gradient of `x`.
use nilang::{i, Real};

#[i]
fn f<T: Real>(y: &mut T, x: &mut T) {
    let x_grad = T::zero();
    x_grad += identity(x);
    y += identity(x_grad);
    x_grad -= identity(x);
    dealloc!(x_grad = T::zero());
}

fn main() {}
