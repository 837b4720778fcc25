use nilang::i;

#[i]
fn f(y: &mut [f64], z: &mut [f64], k: usize) {
    for i in (0..z.len()).par() {
        y[i] += identity(2.0);
        z[i] += sin(y[k]);
    }
}

fn main() {}
