use nilang::i;

#[i]
fn f(a: &mut [f64]) {
    swap(a[..], a[..]);
}

fn main() {}
