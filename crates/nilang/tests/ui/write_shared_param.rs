use nilang::i;

#[i]
fn f(y: &mut f64, x: &f64) {
    x += sin(y);
}

fn main() {}
