use nilang::{i, Real};

// `f` is a closure, not a reversible function: its type is not bounded by `Reversible`
#[i]
fn apply<T: Real, F: Fn(&mut T)>(f: &F, y: &mut T) {
    f(y);
}

fn main() {}
