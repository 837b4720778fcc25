use nilang::i;

#[i]
fn f(y: &mut [f64], x: &mut [f64]) {
    y[..] += x[..] * x[..];
}

fn main() {}
