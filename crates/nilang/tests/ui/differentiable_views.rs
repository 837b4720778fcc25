// What `#[differentiable]` does not accept of local matrices and named parts of vectors: each
// error names the construct and says what to write instead.
use nilang::differentiable;

#[differentiable]
fn norm2(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum::<f64>()
}

#[differentiable]
fn passed_whole(x: &[f64]) -> f64 {
    let mut m = vec![vec![0.0; 2]; 2];
    m[0][1] = x[0];
    norm2(&m.concat())
}

#[differentiable]
fn iterated_whole(x: &[f64]) -> f64 {
    let mut m = [[0.0; 2]; 2];
    m[1][1] = x[0];
    m.iter().map(|row| row[0]).sum::<f64>()
}

#[differentiable]
fn row_by_value(x: &[f64]) -> f64 {
    let mut m = [[0.0; 2]; 2];
    m[1][1] = x[0];
    let mut s = 0.0;
    for v in m[1] {
        s += v;
    }
    s
}

#[differentiable]
fn row_method(x: &[f64]) -> f64 {
    let mut m = [[0.0; 2]; 2];
    m[1][1] = x[0];
    m[1].iter().rev().sum::<f64>() + m[0].first().unwrap()
}

#[differentiable]
fn three_dimensions(x: &[f64]) -> f64 {
    let mut t = [[[0.0; 2]; 2]; 2];
    t[0][1][1] = x[0];
    t[0][1][1]
}

#[differentiable]
fn repeated_rows(x: &[f64]) -> f64 {
    let m = vec![[x[0], x[1]]; 3];
    m[2][1]
}

#[differentiable]
fn inside_a_tuple(x: &[f64]) -> f64 {
    let (a, m) = (x[0], [[0.0; 2]; 2]);
    a + m[0][0]
}

#[differentiable]
fn part_of_a_shadowed_vector(x: &[f64]) -> f64 {
    let v = x.to_vec();
    let head = &v[..2];
    let v = 2.0;
    head[1] * v
}

#[differentiable]
fn moved_closure(x: &[f64]) -> f64 {
    let k = x[0];
    let f = move |y: f64| k * y;
    f(x[1])
}

#[differentiable]
fn closure_with_statements(x: &[f64]) -> f64 {
    let f = |y: f64| {
        let s = y.sin();
        s * s
    };
    f(x[0])
}

#[differentiable]
fn closure_returning(x: &[f64]) -> f64 {
    let f = |y: f64| {
        if y > 1.0 {
            return 1.0;
        }
        y
    };
    let v = f(x[0]);
    v
}

#[differentiable]
fn closure_of_a_slice(x: &[f64]) -> f64 {
    let f = |v: &[f64]| v[0] * v[1];
    f(x)
}

#[differentiable]
fn closure_passed_on(x: &[f64]) -> f64 {
    let f = |y: f64| 2.0 * y;
    let g = f;
    g(x[0])
}

#[differentiable]
fn closure_given_too_few(x: &[f64]) -> f64 {
    let f = |a: f64, b: f64| a * b;
    f(x[0])
}

#[differentiable]
fn capture_declared_again(x: &[f64]) -> f64 {
    let k = x[0];
    let f = |y: f64| k * y;
    let k = 2.0;
    f(x[1]) + k
}

fn main() {}
