use nilang::i;

#[i]
fn f(y: &mut f64, x: &mut f64) -> f64 {
    y += sin(x);
}

fn main() {}
