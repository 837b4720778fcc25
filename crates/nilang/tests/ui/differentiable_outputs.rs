// The output parameters #[differentiable] rejects, each with what to write instead.
use nilang::differentiable;

#[differentiable]
fn returns_and_writes(x: &[f64], r: &mut [f64]) -> f64 {
    r[0] = x[0];
    x[1]
}

#[differentiable(wrt(x, r))]
fn differentiates_an_output(x: &[f64], r: &mut [f64]) {
    r[0] = x[0] * x[1];
}

#[differentiable]
fn ends_with_a_value(x: &[f64], r: &mut [f64]) {
    r[0] = x[0] * x[1];
    x[0]
}

#[differentiable]
fn scalar_output(x: &[f64], r: &mut f64) {
    *r = x[0];
}

#[differentiable]
fn whole_output(x: &[f64], r: &mut [f64]) {
    r = x[0];
}

fn main() {}
