use nilang::{i, Real};

#[i]
fn f<T: Real>(y: &mut T, x: &mut T) {
    y += x.sin();
}

fn main() {}
