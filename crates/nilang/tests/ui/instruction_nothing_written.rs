use nilang::instruction;

#[instruction(inverse = g_sub, adjoint = g_adj)]
fn g(x: &[f64], n: usize) {}

fn main() {}
