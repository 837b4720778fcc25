// A parameter that is not differentiated is handed to several generated programs, so its
// type must be `Copy`: a `Vec` taken by value is an error at its type that says to take it
// by reference.
use nilang::differentiable;

#[differentiable(wrt(p))]
fn indexed_product(p: &[f64], idx: Vec<usize>) -> f64 {
    let mut s = 1.0;
    for k in 0..idx.len() {
        s = s * p[idx[k]] + 1.0;
    }
    s
}

fn main() {}
