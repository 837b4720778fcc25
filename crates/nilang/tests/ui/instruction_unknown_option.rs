use nilang::instruction;

#[instruction(inverse = g_sub, adjoint = g_adj, jvp = g_jvp)]
fn g(out: &mut f64, x: &mut f64) {
    *out += *x;
}

fn main() {}
