use nilang::i;

#[i]
fn f(m: &mut [Vec<f64>], x: &mut [f64]) {
    m[..][..] += identity(x[..]);
}

fn main() {}
