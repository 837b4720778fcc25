use nilang::i;

#[i]
fn f(y: &mut [f64], x: &mut [f64]) {
    y[..] += x[..] * y[..];
}

fn main() {}
