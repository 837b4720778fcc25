use nilang::i;

#[i]
fn f(y: &mut [f64], x: &[f64]) {
    for i in (0..x.len()).par() {
        y[i] += sin(x[i]);
        if y[0] > 0.0 {
            y[i] += cos(x[i]);
        }
    }
}

fn main() {}
