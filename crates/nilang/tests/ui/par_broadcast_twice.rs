use nilang::i;

#[i]
fn f(y: &mut [f64], x: &mut [f64]) {
    par! {
        par! {
            y[..] += identity(x[..]);
        }
    }
}

fn main() {}
