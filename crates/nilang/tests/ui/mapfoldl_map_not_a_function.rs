use nilang::{i, Real};

#[i]
fn add_into<T: Real>(out: &mut T, anc: &mut T) {
    out += identity(anc);
}

#[i]
fn f<T: Real>(out: &mut T, x: &mut [T]) {
    mapfoldl!(|a, b| a + b, add_into, out, x);
}

fn main() {}
