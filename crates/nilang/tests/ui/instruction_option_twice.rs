use nilang::instruction;

#[instruction(inverse = g_sub, adjoint = g_adj, inverse = g_sub)]
fn g(out: &mut f64, x: &mut f64) {
    *out += *x;
}

fn main() {}
