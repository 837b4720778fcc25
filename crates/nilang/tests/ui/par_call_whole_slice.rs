use nilang::i;

#[i]
fn g(y: &mut [f64], k: usize) {
    y[k] += 1.0;
}

#[i]
fn f(y: &mut [f64]) {
    for i in (0..y.len()).par() {
        g(y, i);
    }
}

fn main() {}
