// The calls with outputs #[differentiable] rejects, each with what to write instead.
use nilang::differentiable;

#[differentiable]
fn double(x: &[f64], out: &mut [f64]) {
    out[0] = 2.0 * x[0];
}

#[differentiable]
fn split(x: &[f64], a: &mut [f64], b: &mut [f64]) {
    a[0] = x[0];
    b[0] = x[1];
}

#[differentiable]
fn square(x: f64) -> f64 {
    x * x
}

#[differentiable]
fn into_a_parameter(x: &[f64], y: &[f64]) -> f64 {
    double(x, &mut y);
    y[0]
}

#[differentiable]
fn into_a_scalar(x: &[f64]) -> f64 {
    let mut s = 0.0;
    double(x, &mut s);
    s
}

#[differentiable]
fn into_an_element(x: &[f64]) -> f64 {
    let mut v = vec![0.0; 2];
    double(x, &mut v[1]);
    v[1]
}

#[differentiable]
fn twice_into_one_vector(x: &[f64]) -> f64 {
    let mut v = vec![0.0; 2];
    split(x, &mut v[0..1], &mut v[1..2]);
    v[0]
}

#[differentiable]
fn value_dropped(x: &[f64]) -> f64 {
    square(x[0]);
    x[0]
}

fn main() {}
