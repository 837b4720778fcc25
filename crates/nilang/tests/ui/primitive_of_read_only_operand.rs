use nilang::{i, Real};

// `exp` of a read-only value inside an operand is a nested primitive like any other
#[i]
fn f<T: Real>(y: &mut T, x: &mut T, q: &[T]) {
    y += exp(q[0]) * x;
}

fn main() {}
