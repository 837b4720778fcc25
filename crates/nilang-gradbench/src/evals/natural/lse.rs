//! `lse` as a natural program: LogSumExp, shifted by the maximum, as plain Rust.

use nilang::differentiable;

/// `log Σᵢ exp(xᵢ)`, shifted by the largest `xᵢ`.
#[differentiable]
pub fn logsumexp(x: &[f64]) -> f64 {
    let mut a = x[0];
    for v in x.iter() {
        a = a.max(*v);
    }
    let mut s = 0.0;
    for v in x.iter() {
        s += (v - a).exp();
    }
    a + s.ln()
}

/// LSE(x), the plain function.
pub fn primal(x: &[f64]) -> f64 {
    logsumexp(x)
}

/// ∇LSE(x) by `logsumexp_gradient`.
pub fn gradient(x: &[f64]) -> Vec<f64> {
    logsumexp_gradient(x).1
}
