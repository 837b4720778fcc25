use nilang::instruction;

fn g_sub(out: &mut f64, x: &mut f64) {
    *out -= *x;
}

#[instruction(inverse = g_sub)]
fn g(out: &mut f64, x: &mut f64) {
    *out += *x;
}

fn main() {}
