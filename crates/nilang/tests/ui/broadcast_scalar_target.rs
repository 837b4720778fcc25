use nilang::i;

#[i]
fn f(s: &mut f64, x: &mut [f64]) {
    s += sin(x[..]);
}

fn main() {}
