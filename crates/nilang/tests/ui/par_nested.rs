use nilang::i;

#[i]
fn f(y: &mut [f64], n: usize) {
    for i in (0..n).par() {
        for j in (0..n).par() {
            y[n * i + j] += identity(1.0);
        }
    }
}

fn main() {}
