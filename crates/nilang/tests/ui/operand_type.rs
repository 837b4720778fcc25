// An operand whose type the target does not accept is an error at the operand, naming both
// types (not nilang's internals).
use nilang::{i, Real};

#[i]
fn add_vector<T: Real>(y: &mut T, v: &mut Vec<T>) {
    y += v;
}

fn main() {}
