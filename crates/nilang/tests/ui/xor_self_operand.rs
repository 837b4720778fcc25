// `b[0] ^= b[0]` clears `b[0]`: not reversible (issue 25, finding 5).
use nilang::i;

#[i]
fn f(b: &mut [bool]) {
    b[0] ^= b[0];
}

fn main() {}
