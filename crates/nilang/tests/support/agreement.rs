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

/// What a program of one slice to a number is checked for (`agree!(&v, &dir, f, f_rev,
/// f_rev_inv, f_gradient)`): the reversible program's value is the plain function's bit for
/// bit, its inverse restores the input, and the gradient agrees with central differences and
/// with forward mode along `dir`. The caller imports `duals` and `nilang::Dual`.
#[allow(unused_macros)] // the tests that check other shapes of functions do not use it
macro_rules! agree {
    ($v:expr, $dir:expr, $f:ident, $rev:ident, $inv:ident, $gradient:ident) => {{
        let (v, dir): (&[f64], &[f64]) = ($v, $dir);
        let (mut x, mut out) = (v.to_vec(), 0.0);
        $rev(&mut out, &mut x);
        assert_eq!(out.to_bits(), $f(v).to_bits(), "f_rev's value");
        $inv(&mut out, &mut x);
        assert_eq!((&x[..], out), (v, 0.0), "f_rev_inv undoes f_rev");
        let (value, grad) = $gradient(v);
        assert_eq!(value.to_bits(), $f(v).to_bits(), "f_gradient's value");
        nilang::ad::check_gradient($f, v, &grad, 1e-6, 1e-5).unwrap();
        let mut x = duals(v, dir);
        let mut out = Dual { re: 0.0, eps: 0.0 };
        $rev(&mut out, &mut x);
        let along: f64 = grad.iter().zip(dir).map(|(g, d)| g * d).sum();
        assert!(
            (along - out.eps).abs() <= 1e-9 * (1.0 + out.eps.abs()),
            "{along} vs {}",
            out.eps
        );
    }};
}
