//! `llsq` over [`Scalar`]: `½ Σᵢ (sᵢ − Σⱼ xⱼ tᵢʲ)²`.

use nilang_dualrev::Scalar;

/// `½ Σᵢ (sᵢ − Σⱼ xⱼ tᵢʲ)²`, `tᵢ = −1 + 2i/(n−1)`, `sᵢ = sign(tᵢ)` (`n ≥ 2`).
pub fn llsq<S: Scalar>(x: &[S], n: usize) -> S {
    let mut sum = S::zero();
    for i in 0..n {
        let ti = -1.0 + i as f64 * 2.0 / (n as f64 - 1.0);
        let mut r = S::cst(if ti > 0.0 {
            1.0
        } else if ti < 0.0 {
            -1.0
        } else {
            0.0
        });
        let mut power = 1.0;
        for &xj in x {
            r -= xj * power;
            power *= ti;
        }
        sum += r * r;
    }
    sum / 2.0
}

/// `y(x)` on `f64`.
pub fn primal(x: &[f64], n: usize) -> f64 {
    llsq(x, n)
}

/// `∇y(x)` by one reverse sweep.
pub fn gradient(x: &[f64], n: usize) -> Result<Vec<f64>, String> {
    super::need_tape("llsq", &[n, x.len() + 1, 2])?;
    super::gradient_of(|x| llsq(x, n), x)
}
