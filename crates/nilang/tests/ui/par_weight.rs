use nilang::i;

#[i]
fn f(y: &mut [f64], n: usize) {
    for i in (0..y.len()).par().weight(i * n) {
        y[i] += identity(1.0);
    }
}

fn main() {}
