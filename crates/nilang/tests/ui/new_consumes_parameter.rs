use nilang::{i, Real};

#[i]
fn f<T: Real>(y: &mut T, x: &mut T) {
    let b = T::zero();
    let t = new!((x, b));
    y += identity(t.1);
    let (c, b) = fields!(t);
    dealloc!(c = T::zero(), b = T::zero());
}

fn main() {}
