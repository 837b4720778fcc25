use nilang::i;

#[i]
fn f(y: &mut f64, a: &mut f64, b: &mut f64) {
    y += sin(a, b);
}

fn main() {}
