use nilang::i;

#[i]
fn f(y: &mut f64) {
    y += identity(1.0);
    dealloc!(t = 0.0);
}

fn main() {}
