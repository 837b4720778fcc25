// The expressions #[differentiable] rejects, each with what to write instead.
use nilang::differentiable;

#[differentiable]
fn not_a_primitive(x: &[f64]) -> f64 {
    x[0].cbrt()
}

#[differentiable]
fn closure(x: &[f64]) -> f64 {
    let y = (|v: f64| v * 2.0)(x[0]);
    y
}

#[differentiable]
fn field(x: &[f64]) -> f64 {
    let p = (x[0], x[1]);
    p.0
}

#[differentiable]
fn macro_in_expression(x: &[f64]) -> f64 {
    x[0] + format!("{}", 1).len() as f64
}

#[differentiable]
fn block_if(x: &[f64]) -> f64 {
    let y = if x[0] > 0.0 {
        let t = x[0];
        t * 2.0
    } else {
        x[1]
    };
    y
}

#[differentiable]
fn iterator_chain(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter().skip(1) {
        s += v;
    }
    s
}

fn main() {}
