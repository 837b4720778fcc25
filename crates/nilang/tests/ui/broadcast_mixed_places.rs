use nilang::i;

#[i]
fn f(a: &mut [f64], b: &mut f64) {
    swap(a[..], b);
}

fn main() {}
