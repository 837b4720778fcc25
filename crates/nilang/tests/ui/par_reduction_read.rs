use nilang::i;

#[i]
fn f(out: &mut f64, y: &mut [f64], x: &[f64]) {
    for i in (0..x.len()).par() {
        out += sin(x[i]);
        y[i] += cos(out);
    }
}

fn main() {}
