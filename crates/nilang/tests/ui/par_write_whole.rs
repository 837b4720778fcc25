use nilang::i;

#[i]
fn f(y: &mut [f64], s: &mut f64) {
    for i in (0..y.len()).par() {
        neg(s);
        y[i] += sin(s);
    }
}

fn main() {}
