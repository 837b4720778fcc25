// Rebinding a parallel loop's variable in its body: the planner once took `y[i]` below to be
// this iteration's slot, and the iterations raced on `y[0]` (issue 25, finding 2).
use nilang::i;

#[i]
fn f(y: &mut [f64], x: &[f64]) {
    for i in (0..x.len()).par() {
        let i = 0usize;
        y[i] += identity(x[i]);
        dealloc!(i = 0usize);
    }
}

fn main() {}
