// The statements #[differentiable] rejects, each with what to write instead.
use nilang::differentiable;

#[differentiable]
fn no_value(x: &[f64]) -> f64 {
    let _y = x[0];
}

#[differentiable]
fn return_inside_a_value(x: &[f64]) -> f64 {
    let y = if x[0] > 0.0 { return x[0]; } else { x[1] };
    y
}

#[differentiable]
fn break_with_label(x: &[f64]) -> f64 {
    let mut s = 0.0;
    'outer: for i in 0..x.len() {
        while s < 1.0 {
            s += x[i];
            if s > 0.5 {
                break 'outer;
            }
        }
    }
    s
}

#[differentiable]
fn endless_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    loop {
        s += x[0];
    }
    s
}

#[differentiable]
fn checkpoint_with_break(x: &[f64]) -> f64 {
    let mut s = 0.0;
    #[checkpoint]
    for i in 0..100 {
        s = s * x[0] + 1.0;
        if s > 10.0 {
            break;
        }
    }
    s
}

#[differentiable]
fn prints(x: &[f64]) -> f64 {
    println!("{}", x[0]);
    x[0]
}

#[differentiable]
fn inner_item(x: &[f64]) -> f64 {
    fn helper() {}
    x[0]
}

#[differentiable]
fn uninitialised(x: &[f64]) -> f64 {
    let y: f64;
    x[0]
}

#[differentiable]
fn unused_expression(x: &[f64]) -> f64 {
    x[0] + 1.0;
    x[0]
}

#[differentiable]
fn integer_result(x: &[f64]) -> f64 {
    x.len()
}

#[differentiable]
fn labelled(x: &[f64]) -> f64 {
    let mut s = 0.0;
    'outer: for i in 0..x.len() {
        s += x[i];
    }
    s
}

#[differentiable]
fn tuple_from_call(x: &[f64]) -> f64 {
    let (a, b) = pair(x[0]);
    a + b
}

fn pair(v: f64) -> (f64, f64) {
    (v, v)
}

#[differentiable]
fn struct_pattern(x: &[f64]) -> f64 {
    let [a, b] = [x[0], x[1]];
    a + b
}

#[differentiable]
fn array_of_indices(x: &[f64]) -> f64 {
    let idx = [0, 2];
    x[idx[0]] * x[idx[1]]
}

#[differentiable]
fn field_of_a_differentiable_value(x: &[f64]) -> f64 {
    let y = x[0];
    y.re
}

#[differentiable(wrt(x))]
fn field_of_a_call(x: &[f64], s: &[usize]) -> f64 {
    x[pick(s).0]
}

fn pick(s: &[usize]) -> (usize, usize) {
    (s[0], s[1])
}

#[derive(PartialEq)]
pub enum Kind {
    Linear,
    Cubic,
}

#[differentiable(wrt(x))]
fn match_on_an_enum(x: &[f64], kind: &Kind) -> f64 {
    match kind {
        Kind::Linear => x[0],
        Kind::Cubic => x[0] * x[0] * x[0],
    }
}

#[differentiable]
fn guard_on_a_binding(x: &[f64]) -> f64 {
    match x.len() {
        n if n > 2 => x[2],
        _ => x[0],
    }
}

fn main() {}
