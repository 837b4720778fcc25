use nilang::i;

#[i]
fn f(y: &mut [f64]) {
    for i in (0..y.len()).step_by(2).par() {
        y[i] += identity(1.0);
    }
}

fn main() {}
