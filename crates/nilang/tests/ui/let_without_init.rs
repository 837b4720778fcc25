use nilang::i;

#[i]
fn f(y: &mut f64, x: &mut f64) {
    let t: f64;
    t += sin(x);
    y += t;
    t -= sin(x);
    dealloc!(t = 0.0);
}

fn main() {}
