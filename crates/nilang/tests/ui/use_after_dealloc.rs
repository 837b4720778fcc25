use nilang::i;

#[i]
fn f(y: &mut f64, x: &mut f64) {
    let t = 0.0;
    t += sin(x);
    t -= sin(x);
    dealloc!(t = 0.0);
    y += cos(t);
}

fn main() {}
