// Whole-vector operations #[differentiable] rejects, each with what to write instead.
use nilang::differentiable;

#[differentiable]
fn vector_method(x: &[f64]) -> f64 {
    let m = x.iter().cloned().fold(0.0, f64::max);
    m
}

#[differentiable(wrt(x))]
fn copy_from_data(x: &[f64], data: &[f64]) -> f64 {
    let mut y = vec![0.0; x.len()];
    y.copy_from_slice(data);
    y[0] * x[0]
}

#[differentiable]
fn iterator_chain(x: &[f64]) -> f64 {
    x.iter().fold(0.0, |s, v| s + v * v)
}

#[differentiable]
fn pushes(x: &[f64]) -> f64 {
    let mut v = vec![0.0; 1];
    v.push(x[0]);
    v[0]
}

fn main() {}
