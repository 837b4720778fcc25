use nilang::i;

#[i]
fn f(y: &mut f64, x: &mut f64) {
    let (a, b) = (0.0, 0.0, 0.0);
    a += sin(x);
    y += a * b;
    a -= sin(x);
    dealloc!(a = 0.0, b = 0.0);
}

fn main() {}
