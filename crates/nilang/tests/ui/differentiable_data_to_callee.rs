// A slice of data (not differentiated) handed to a parameter a callee differentiates: the
// error says to copy it into a local vector or to differentiate it too.
use nilang::differentiable;

#[differentiable]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

#[differentiable(wrt(w))]
fn score(w: &[f64], data: &[f64]) -> f64 {
    dot(w, data)
}

fn main() {}
