use nilang::{i, Real};

#[i]
fn f<T: Real>(y: &mut T) {
    let a = T::zero();
    let b = T::zero();
    let z = new!(num_complex::Complex { re: a, im: b });
    y += identity(a);
    let num_complex::Complex { re: a, im: b } = fields!(z);
    dealloc!(a = T::zero(), b = T::zero());
}

fn main() {}
