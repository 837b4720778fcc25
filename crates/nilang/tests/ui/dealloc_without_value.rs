use nilang::i;

#[i]
fn f(y: &mut f64, x: &mut f64) {
    let t = 0.0;
    t += sin(x);
    y += t;
    t -= sin(x);
    dealloc!(t);
}

fn main() {}
