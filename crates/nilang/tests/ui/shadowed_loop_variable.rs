// A `let` that rebinds the loop variable: the bounds hoister once took the second `x[i]` to be
// the loop's `x[i]` and wrote `x[12]` without a check (issue 25, finding 1).
use nilang::i;

#[i(nocheck)]
fn f(x: &mut [f64]) {
    for i in 0..1 {
        x[i] += 1.0;
        let i = 12usize;
        x[i] += 100.0;
        dealloc!(i = 12usize);
    }
}

fn main() {}
