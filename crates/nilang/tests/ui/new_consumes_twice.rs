use nilang::{i, Real};

#[i]
fn f<T: Real>(y: &mut T) {
    let a = T::zero();
    let t = new!((a, a));
    let (a, b) = fields!(t);
    dealloc!(a = T::zero(), b = T::zero());
}

fn main() {}
