use nilang::i;

#[i(check, nocheck)]
fn f(y: &mut f64, x: &f64) {
    y += x;
}

fn main() {}
