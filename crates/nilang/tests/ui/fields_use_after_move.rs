use nilang::{i, Real};

#[i]
fn f<T: Real>(y: &mut T) {
    let a = T::zero();
    let b = T::zero();
    let t = new!((a, b));
    let (a, b) = fields!(t);
    swap(y, t.0);
    dealloc!(a = T::zero(), b = T::zero());
}

fn main() {}
