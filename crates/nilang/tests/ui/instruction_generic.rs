use nilang::instruction;

#[instruction(inverse = g_sub, adjoint = g_adj)]
fn g<T: Copy>(out: &mut T, x: &mut T) {}

fn main() {}
