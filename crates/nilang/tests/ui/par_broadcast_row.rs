use nilang::i;

#[i]
fn f(m: &mut [Vec<f64>], x: &mut [f64], k: usize) {
    par! {
        m[k][..] += identity(x[..]);
    }
}

fn main() {}
