// Names that start with `__` belong to the generated code.
use nilang::i;

#[i]
fn f(y: &mut f64, __x: f64) {
    y += identity(__x);
}

fn main() {}
