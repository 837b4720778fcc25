//! `#[differentiable]` on matrices: local ones (`[[0.0; 3]; 3]`, `vec![vec![0.0; n]; n]`,
//! `vec![[0.0; 2]; n]`, `[[c, -s], [s, c]]`) read and written by element, by row (`&m[i]`,
//! `&mut m[i]`, `m[i].iter()`, `m[i].to_vec()`, `let row = m[i];`) and by shape (`m.len()`,
//! `m[i].len()`), hidden by later bindings of the same name; named parts of vectors (`let
//! head = &x[..3];`, `&mut buf[1..=4]`, a row `&m[1]`) read, written, measured, walked and
//! passed on; data left out of `wrt` indexed twice (`points[i][j]`); and local closures
//! (`let rhs = |y| -k * y;`) called where they are visible. On random inputs (proptest): the reversible program's
//! value equals the plain function's bit for bit, `f_rev_inv` undoes `f_rev`, and the gradient
//! agrees with central differences and with forward mode.

// `fit_rows` is called only through `fit_rows_gradient`: no "never used" warning for it
#![deny(dead_code)]

use nilang::{differentiable, Dual};
use proptest::prelude::*;

#[path = "support/agreement.rs"]
#[macro_use]
mod agreement;
use agreement::{duals, inputs};

/// A rotation matrix listed by rows, applied to a point.
#[differentiable]
fn rotated(p: &[f64]) -> f64 {
    let (s, c) = p[0].sin_cos();
    let r = [[c, -s], [s, c]];
    let mut q = [0.0; 2];
    for i in 0..r.len() {
        for j in 0..r[i].len() {
            q[i] += r[i][j] * p[j + 1];
        }
    }
    q[0] * q[1] + q[1]
}

/// `‖v‖²`, called on rows of a matrix.
#[differentiable]
fn norm2(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum::<f64>()
}

/// `out = A v` for a `2 × 2` matrix `a` in row-major order.
#[differentiable]
fn apply(a: &[f64], v: &[f64], out: &mut [f64]) {
    out[0] = a[0] * v[0] + a[1] * v[1];
    out[1] = a[2] * v[0] + a[3] * v[1];
}

/// A grid whose shape is a variable that changes after the grid is made (its indices keep
/// the shape it was made with), filled by element, updated in place, and read by rows.
#[differentiable]
fn grid(x: &[f64]) -> f64 {
    let mut n = 3;
    let mut u = vec![vec![0.0; n]; n - 1];
    n += 1;
    for i in 0..u.len() {
        for j in 0..u[i].len() {
            u[i][j] = x[(i * 3 + j) % x.len()] * (j as f64 + 1.0);
        }
    }
    for i in 1..u.len() {
        for j in 0..3 {
            u[i][j] += 0.5 * u[i - 1][j].sin();
        }
    }
    let mut s = 0.0;
    for i in 0..u.len() {
        s += u[i].iter().sum::<f64>() * norm2(&u[i]);
    }
    for (i, row) in u.iter().enumerate() {
        s += row[i % 3] * row.len() as f64;
    }
    for row in u.iter_mut() {
        row[0] *= 0.5;
    }
    for row in &u {
        s += norm2(row);
    }
    s + n as f64
}

/// A matrix of fixed-size rows, written by a call into a row, copied by rows; a name that
/// hides it (a closure's parameter, a later `let`).
#[differentiable]
fn rows(x: &[f64]) -> f64 {
    let mut m = vec![[0.0; 2]; 3];
    let a = [[x[0], 1.0], [0.5, x[1]]];
    let mut flat = [0.0; 4];
    for i in 0..2 {
        for j in 0..2 {
            flat[i * 2 + j] = a[i][j];
        }
    }
    for k in 0..m.len() {
        m[k][0] = x[k];
        m[k][1] = x[(k + 1) % 3];
    }
    let mut out = [0.0; 2];
    apply(&flat, &m[1], &mut out);
    apply(&flat, &out, &mut m[2]);
    let copy = m[2];
    let also = m[0].to_vec();
    let hidden: f64 = copy.iter().map(|m| m * m).sum();
    let m = 2.0;
    hidden * m + also[1] + copy[0]
}

/// Named parts of vectors: windows of `x` read by index, by a part of them, by `len()`,
/// walked by `for` and passed to a call; a part of a local vector written through `&mut`; a
/// row of a matrix by name.
#[differentiable]
fn windows(x: &[f64]) -> f64 {
    let head = &x[..3];
    let tail = &x[2..];
    let mut s = 0.0;
    for k in 0..head.len() {
        s += head[k] * tail[tail.len() - 1 - k];
    }
    for v in tail {
        s += v.sin();
    }
    let mut buf = vec![0.0; 6];
    let w = &mut buf[1..=4];
    for k in 0..w.len() {
        w[k] = x[k] * 0.5 + s;
    }
    w[3] *= 2.0;
    let mut m = [[0.0; 3]; 2];
    m[1][2] = buf[4] * buf[1];
    m[1][0] = tail[1];
    let row = &m[1];
    s + norm2(&head[1..]) + norm2(row) + row[2] + norm2(tail) + buf.iter().sum::<f64>()
}

/// Data points left out of `wrt`, read by element.
#[differentiable(wrt(ab))]
fn fit(ab: &[f64], points: &[[f64; 2]]) -> f64 {
    let mut s = 0.0;
    for i in 0..points.len() {
        let r = ab[0] * points[i][0] + ab[1] - points[i][1];
        s += r * r;
    }
    s
}

/// The same fit over points kept as a `Vec` of `Vec`s, walked by a loop over the rows.
#[differentiable(wrt(ab))]
fn fit_rows(ab: &[f64], points: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for p in points.iter() {
        let r = ab[0] * p[0] + ab[1] - p[1];
        s += r * r;
    }
    s
}

/// RK4 on `y' = −k·y + a·sin y`, the right-hand side a closure reading `k` and `a`, whose
/// parameter `y` hides the state of the same name.
#[differentiable]
fn decay(p: &[f64]) -> f64 {
    let (k, a) = (p[0], p[1]);
    let rhs = |y: f64| -k * y + a * y.sin();
    let h = 0.05;
    let mut y = p[2];
    for _ in 0..20 {
        let k1 = rhs(y);
        let k2 = rhs(y + 0.5 * h * k1);
        let k3 = rhs(y + 0.5 * h * k2);
        let k4 = rhs(y + h * k3);
        y += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
    }
    y
}

/// Closures inside expressions (where precedence must hold), calling a closure, reading a
/// named part, a body whose `.map(|v| …)` binds the name an argument reads, and a body with
/// statements whose `let s` must not hide the caller's `s`.
#[differentiable]
fn closures(x: &[f64]) -> f64 {
    let head = &x[..2];
    let flip = |t: f64| -t + head[1];
    let sq = |t| t * t;
    let both = |s: f64, t: f64| sq(s) - flip(t) * 0.5;
    let weighted = |t: f64| x.iter().map(|v| v * t).sum::<f64>();
    let smooth = |t: f64| {
        let s = t.sin();
        let mut acc = s * s;
        for j in 0..head.len() {
            acc += head[j] * t;
        }
        acc
    };
    let s = 1.5;
    let first = smooth(x[2] * 2.0);
    let mut total = 3.0 * flip(x[0]) + both(x[1] - x[2], x[3]) + first * s;
    for v in x.iter() {
        total += weighted(*v) / sq(1.0 + v);
    }
    total
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn a_matrix_listed_by_rows((v, dir) in inputs(3, -2.0, 2.0)) {
        agree!(&v, &dir, rotated, rotated_rev, rotated_rev_inv, rotated_gradient);
    }

    #[test]
    fn a_grid_of_variable_shape((v, dir) in inputs(5, -1.0, 1.0)) {
        agree!(&v, &dir, grid, grid_rev, grid_rev_inv, grid_gradient);
    }

    #[test]
    fn rows_by_reference_and_copy((v, dir) in inputs(3, -1.0, 1.0)) {
        agree!(&v, &dir, rows, rows_rev, rows_rev_inv, rows_gradient);
    }

    #[test]
    fn named_parts((v, dir) in inputs(6, -1.0, 1.0)) {
        agree!(&v, &dir, windows, windows_rev, windows_rev_inv, windows_gradient);
    }

    #[test]
    fn closures_called_where_visible((v, dir) in inputs(4, -1.0, 1.0)) {
        agree!(&v, &dir, closures, closures_rev, closures_rev_inv, closures_gradient);
        let p = [v[0] + 1.5, v[1], v[2]];
        agree!(&p, &dir[..3], decay, decay_rev, decay_rev_inv, decay_gradient);
    }

    #[test]
    fn data_indexed_twice(ab in prop::collection::vec(-2.0..2.0f64, 2)) {
        let points = [[0.0, 1.0], [1.0, 2.9], [2.0, 5.2], [-1.0, -1.1]];
        let (value, grad) = fit_gradient(&ab, &points);
        prop_assert_eq!(value.to_bits(), fit(&ab, &points).to_bits());
        nilang::ad::check_gradient(|p| fit(p, &points), &ab, &grad, 1e-6, 1e-6).unwrap();
        let rows: Vec<Vec<f64>> = points.iter().map(|p| p.to_vec()).collect();
        prop_assert_eq!(fit_rows_gradient(&ab, &rows), (value, grad));
    }
}
