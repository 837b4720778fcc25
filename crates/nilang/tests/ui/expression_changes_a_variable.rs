// An index expression that resizes the vector an unchecked loop indexes without checks: an
// expression only reads (the loop's checks before it would otherwise not hold).
use nilang::i;

#[i(nocheck)]
fn f(y: &mut [f64], n: usize) {
    let v = vec![0.0; n];
    for i in 0..n {
        v[i] += 1.0;
        y[{ v.clear(); 0 }] += 1.0;
    }
    for i in 0..n {
        v[i] -= 1.0;
    }
    dealloc!(v = vec![0.0; n]);
}

fn main() {}
