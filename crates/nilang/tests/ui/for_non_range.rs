use nilang::i;

#[i]
fn f(y: &mut f64, xs: &[f64]) {
    for x in xs.iter() {
        y += identity(x);
    }
}

fn main() {}
