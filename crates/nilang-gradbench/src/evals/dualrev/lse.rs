//! `lse` over [`Scalar`]: LogSumExp, shifted by the maximum.

use nilang_dualrev::Scalar;

/// `log Σᵢ exp(xᵢ)`, shifted by the largest `xᵢ`. The shift is taken as a constant: the sum
/// does not depend on it, so its derivative is zero and nothing needs recording for it.
pub fn logsumexp<S: Scalar>(x: &[S]) -> S {
    let a = x.iter().fold(f64::NEG_INFINITY, |a, v| a.max(v.value()));
    let s: S = x.iter().map(|&v| (v - a).exp()).sum();
    s.ln() + a
}

/// LSE(x) on `f64`.
pub fn primal(x: &[f64]) -> f64 {
    logsumexp(x)
}

/// ∇LSE(x) by one reverse sweep.
pub fn gradient(x: &[f64]) -> Result<Vec<f64>, String> {
    super::need_tape("lse", &[x.len(), 3])?;
    super::gradient_of(|x| logsumexp(x), x)
}
