// The signatures #[differentiable] rejects, each with what to write instead.
use nilang::differentiable;

#[differentiable]
fn generic<T: Copy>(x: &[T]) -> T {
    x[0]
}

#[differentiable]
fn returns_nothing(x: &[f64]) {
    let _ = x;
}

#[differentiable]
fn writes_its_input(x: &mut [f64]) -> f64 {
    x[0]
}

#[differentiable]
fn nested_vectors(x: &[Vec<f64>]) -> f64 {
    x[0][0]
}

#[differentiable]
fn array_by_value(p: [f64; 3]) -> f64 {
    p[0] * p[1]
}

#[differentiable]
fn with_lifetime<'a>(x: &'a [f64]) -> f64 {
    x[0]
}

#[differentiable]
fn pattern_parameter((a, b): (f64, f64)) -> f64 {
    a + b
}

#[differentiable(wrt(y))]
fn unknown_wrt(x: &[f64]) -> f64 {
    x[0]
}

#[differentiable(fast)]
fn unknown_option(x: &[f64]) -> f64 {
    x[0]
}

#[differentiable(store, uncompute)]
fn two_policies(x: &[f64]) -> f64 {
    x[0]
}

#[differentiable]
async fn asynchronous(x: &[f64]) -> f64 {
    x[0]
}

fn main() {}
