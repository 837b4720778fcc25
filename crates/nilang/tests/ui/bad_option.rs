use nilang::i;

#[i(nochecks)]
fn f(y: &mut f64, x: &mut f64) {
    y += sin(x);
}

fn main() {}
