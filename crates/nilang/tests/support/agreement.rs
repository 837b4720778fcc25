//! What the `#[differentiable]` tests share to compare reverse mode with forward mode: random
//! inputs with a direction, and those inputs as dual numbers seeded along it.

#![allow(dead_code)]

use nilang::Dual;
use proptest::prelude::*;

/// `n` inputs in `lo..hi` and a direction in `[-1, 1)ⁿ`.
pub fn inputs(n: usize, lo: f64, hi: f64) -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    (
        prop::collection::vec(lo..hi, n),
        prop::collection::vec(-1.0..1.0f64, n),
    )
}

/// `v` as dual numbers whose derivative parts are `dir`.
pub fn duals(v: &[f64], dir: &[f64]) -> Vec<Dual<f64>> {
    v.iter()
        .zip(dir)
        .map(|(&re, &eps)| Dual { re, eps })
        .collect()
}
