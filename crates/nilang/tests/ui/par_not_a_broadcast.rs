use nilang::i;

#[i]
fn f(s: &mut f64, y: &mut [f64], x: &mut [f64]) {
    par! {
        y[..] += identity(x[..]);
        s += identity(x[0]);
    }
}

fn main() {}
