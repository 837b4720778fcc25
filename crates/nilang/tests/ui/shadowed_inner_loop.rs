// An inner loop over the outer loop's name: its `x[i]` once reused the outer loop's hoisted,
// unchecked access and wrote past the slice (issue 25, finding 1).
use nilang::i;

#[i(nocheck)]
fn f(x: &mut [f64], n: usize) {
    for i in 0..1 {
        x[i] += 1.0;
        for i in (0..n).step_by(1) {
            x[i] += 100.0;
        }
    }
}

fn main() {}
