use nilang::i;

#[i]
fn f(y: &mut [f64], x: &[f64]) {
    for i in (0..x.len()).par() {
        y[2 * i] += sin(x[i]);
        y[i] += cos(x[i]);
    }
}

fn main() {}
