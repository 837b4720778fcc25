// The assignments #[differentiable] rejects, each with what to write instead.
use nilang::differentiable;

#[differentiable]
fn writes_a_parameter(x: f64) -> f64 {
    x = x * 2.0;
    x
}

#[differentiable]
fn writes_a_loop_variable(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter() {
        v = 1.0;
        s += v;
    }
    s
}

#[differentiable]
fn overwrites_a_count(x: &[f64]) -> f64 {
    let mut n = 0;
    n = x.len();
    x[n - 1]
}

#[differentiable]
fn assigns_a_whole_vector(x: &[f64]) -> f64 {
    let mut v = vec![0.0; 2];
    v = vec![0.0; 3];
    v[0] + x[0]
}

#[differentiable]
fn vector_not_from_zeros(x: &[f64]) -> f64 {
    let v: Vec<f64> = Vec::with_capacity(x.len());
    v[0] + x[0]
}

#[differentiable]
fn writes_through_a_reference(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let r = &mut s;
    *r = x[0];
    s
}

#[differentiable]
fn count_from_itself(x: &[f64]) -> f64 {
    let mut k = 1;
    k += k;
    x[k]
}

fn main() {}
