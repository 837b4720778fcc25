use nilang::i;

#[i]
fn f(acc: &mut [f64], x: &[f64]) {
    for i in (0..x.len()).par() {
        acc[0] += sin(x[i]);
        acc[i + 1] += cos(x[i]);
    }
}

fn main() {}
