//! `ode` over [`Scalar`]: GradBench's Runge–Kutta loop (`ode.hpp`), the last component of
//! `y(2)` as the objective.

use nilang_dualrev::Scalar;

/// `out[0] = x₀`, `out[i] = xᵢ·y[i−1]`: the right-hand side at `y`.
fn rhs<S: Scalar>(x: &[S], y: &[S], out: &mut [S]) {
    out[0] = x[0];
    for i in 1..x.len() {
        out[i] = x[i] * y[i - 1];
    }
}

/// The last component of `y(2)` after `s` RK4 steps of `y₀' = x₀`, `yᵢ' = xᵢ·yᵢ₋₁` from 0.
pub fn ode_last<S: Scalar>(x: &[S], s: usize) -> S {
    let n = x.len();
    let h = 2.0 / s as f64;
    let mut y = vec![S::zero(); n];
    let mut k = vec![vec![S::zero(); n]; 4];
    let mut t = vec![S::zero(); n];
    for _ in 0..s {
        rhs(x, &y, &mut k[0]);
        for (stage, scale) in [(1, h / 2.0), (2, h / 2.0), (3, h)] {
            for i in 0..n {
                t[i] = y[i] + k[stage - 1][i] * scale;
            }
            rhs(x, &t, &mut k[stage]);
        }
        for i in 0..n {
            y[i] += (k[0][i] + (k[1][i] + k[2][i]) * 2.0 + k[3][i]) * (h / 6.0);
        }
    }
    y[n - 1]
}

/// ∂y(2)ₙ₋₁/∂x by one reverse sweep.
pub fn gradient(x: &[f64], s: usize) -> Result<Vec<f64>, String> {
    super::need_tape("ode", &[s, x.len(), 16])?;
    super::gradient_of(|x| ode_last(x, s), x)
}
