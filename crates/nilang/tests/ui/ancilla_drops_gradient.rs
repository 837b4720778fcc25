use nilang::{i, Real};

#[i]
fn f<T: Real>(z: &mut T, y: &mut T) {
    let x = *y;
    z += identity(x);
    dealloc!(x = *y);
}

fn main() {}
