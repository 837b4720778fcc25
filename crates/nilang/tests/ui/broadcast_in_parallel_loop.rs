// A broadcast inside a parallel loop adds `x` to all of `y` in every iteration: the iterations
// would race on `y`. Its loop once reused the name `i` and passed as this iteration's slot
// (issue 25, finding 2).
use nilang::i;

#[i]
fn f(y: &mut [f64], x: &[f64], n: usize) {
    for i in (0..n).par() {
        y[..] += identity(x[..]);
    }
}

fn main() {}
