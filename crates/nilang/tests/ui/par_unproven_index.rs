use nilang::i;

#[i]
fn f(y: &mut [f64], x: &[f64], perm: &[usize]) {
    for i in (0..x.len()).par() {
        y[perm[i]] += sin(x[i]);
    }
}

fn main() {}
