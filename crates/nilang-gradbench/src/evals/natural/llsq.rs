//! `llsq` as a natural program: `½ Σᵢ (sᵢ − Σⱼ xⱼ tᵢʲ)²` as plain Rust.

use nilang::differentiable;

/// `½ Σᵢ (sᵢ − Σⱼ xⱼ tᵢʲ)²`, `tᵢ = −1 + 2i/(n−1)`, `sᵢ = sign(tᵢ)`.
#[differentiable(wrt(x))]
pub fn llsq(x: &[f64], n: usize) -> f64 {
    let mut sum = 0.0;
    for i in 0..n {
        let ti = -1.0 + i as f64 * 2.0 / (n as f64 - 1.0);
        let mut r = if ti > 0.0 {
            1.0
        } else if ti < 0.0 {
            -1.0
        } else {
            0.0
        };
        let mut power = 1.0;
        for j in 0..x.len() {
            r -= x[j] * power;
            power *= ti;
        }
        sum += r * r;
    }
    sum / 2.0
}

/// `y(x)`, the plain function.
pub fn primal(x: &[f64], n: usize) -> f64 {
    llsq(x, n)
}

/// `∇y(x)` by `llsq_gradient`.
pub fn gradient(x: &[f64], n: usize) -> Vec<f64> {
    llsq_gradient(x, n).1
}
