use nilang::{i, Real};

#[i(nograd, grad = dsquare)]
fn square_into<T: Real>(y: &mut T, x: &mut T) {
    y += square(x);
}

fn main() {}
