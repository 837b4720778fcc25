// An ancilla named as a parameter: after its `dealloc!` the checker took `k` to be the
// parameter again while the generated code still read the ancilla, and the inverse did not
// undo the forward (issue 25, finding 5).
use nilang::i;

#[i]
fn f(x: &mut [f64], k: usize) {
    let k = 1usize;
    x[k] += 1.0;
    dealloc!(k = 1usize);
    x[k] += 10.0;
}

fn main() {}
