//! `#[differentiable]` on Rust idioms that are not loops a user writes out: a sum or product
//! of a mapped iterator (`x.iter().zip(&y).map(|(a, b)| a * b).sum::<f64>()`, enumerated, a
//! closure with statements, of data), `x.sin_cos()`, `recip`, `to_radians`, `to_degrees`,
//! `signum` and `floor` (plain values), and `match` on plain values (literals,
//! `|`, ranges, guards, a binding; as a statement and as a value), arrays taken by reference
//! (`&[f64; 3]`, `&mut [f64; 3]`) as slices are. On random inputs
//! (proptest): the reversible program's value equals the plain function's bit for bit,
//! `f_rev_inv` undoes `f_rev`, and the gradient agrees with central differences and with
//! forward mode.

use nilang::{differentiable, Dual};
use proptest::prelude::*;

#[path = "support/agreement.rs"]
#[macro_use]
mod agreement;
use agreement::{duals, inputs};

const W: [f64; 4] = [0.5, -1.0, 2.0, 0.25];

/// Sums and a product of mapped iterators (one of the squares of a constant table's
/// elements, which are floats though the table is no binding of the function's).
#[differentiable]
fn mapped(x: &[f64]) -> f64 {
    let n = x.len();
    let dot = x[..n / 2]
        .iter()
        .zip(x[n / 2..].iter())
        .map(|(a, b)| a * b)
        .sum::<f64>();
    let weighted: f64 = x.iter().zip(W.iter()).map(|(&a, &w)| w * a.sin()).sum();
    let ranked = x
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let t = v * (i as f64 + 1.0);
            t * t
        })
        .sum::<f64>();
    let scale: f64 = W.iter().map(|w| w * w).sum();
    // an element of a constant table squared, by itself and through a local
    let mut table = 0.0;
    for &w in W.iter() {
        let t = w * w;
        table += t * x[0] + w * w;
    }
    table + dot + weighted * ranked + scale * x.iter().map(|v| 1.0 + 0.1 * v).product::<f64>()
}

/// A rotation by `sin_cos` of an angle in degrees; `recip`, and the piecewise-constant
/// `signum` and `floor` (plain values: derivative zero); `log10` and `exp2`.
#[differentiable]
fn rotated(p: &[f64]) -> f64 {
    let (s, c) = (30.0 * p[0]).to_radians().sin_cos();
    let (x, y) = (c * p[1] - s * p[2], s * p[1] + c * p[2]);
    let back = (p[0].to_degrees() * 0.01).tanh();
    x * x * 0.5
        + y
        + (2.0 + y * y).recip()
        + p[2].signum() * p[2]
        + (3.0 * p[1]).floor() * p[0]
        + back
        + (1.5 + p[1] * p[1]).log10()
        + (0.5 * p[2]).exp2()
}

/// `match` on a plain index: a value with ranges and `|`, a statement with a guard and a
/// binding.
#[differentiable]
fn models(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..8 {
        let v = x[k % x.len()];
        s += match k {
            0 => v * v,
            1 | 2 => v.exp(),
            3..=4 => v.sin(),
            _ => 0.5 * v,
        };
        match k % 3 {
            0 if s > 1.0 => s *= 0.5,
            1 => s -= v,
            r => {
                let w = r as f64;
                s += w * v * v;
            }
        }
    }
    s
}

/// The cross product of arrays taken by reference, into an array.
#[differentiable]
fn cross(a: &[f64; 3], b: &[f64; 3], out: &mut [f64; 3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/// A caller of `cross` with local arrays.
#[differentiable]
fn crossed(p: &[f64]) -> f64 {
    let u = [p[0], p[1], p[2]];
    let v = [p[3], p[4], p[5]];
    let mut c = [0.0; 3];
    cross(&u, &v, &mut c);
    c[0] * c[1] + c[2]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn sums_of_mapped_iterators((v, dir) in inputs(6, -1.0, 1.0)) {
        agree!(&v, &dir, mapped, mapped_rev, mapped_rev_inv, mapped_gradient);
    }

    #[test]
    fn sin_cos_is_the_pair((v, dir) in inputs(3, -2.0, 2.0)) {
        agree!(&v, &dir, rotated, rotated_rev, rotated_rev_inv, rotated_gradient);
    }

    #[test]
    fn arrays_by_reference((v, dir) in inputs(6, -1.0, 1.0)) {
        agree!(&v, &dir, crossed, crossed_rev, crossed_rev_inv, crossed_gradient);
        let (a, b) = ([v[0], v[1], v[2]], [v[3], v[4], v[5]]);
        let (mut out, mut jacobian) = ([0.0; 3], [0.0; 18]);
        cross_jacobian(&a, &b, &mut out, &mut jacobian);
        let mut plain = [0.0; 3];
        cross(&a, &b, &mut plain);
        prop_assert_eq!(out, plain);
        for row in 0..3 {
            let f = |p: &[f64]| {
                let mut o = [0.0; 3];
                cross(&[p[0], p[1], p[2]], &[p[3], p[4], p[5]], &mut o);
                o[row]
            };
            nilang::ad::check_gradient(f, &v, &jacobian[row * 6..row * 6 + 6], 1e-6, 1e-6).unwrap();
        }
    }

    #[test]
    fn match_is_an_if_chain((v, dir) in inputs(3, -1.0, 1.0)) {
        agree!(&v, &dir, models, models_rev, models_rev_inv, models_gradient);
    }
}
