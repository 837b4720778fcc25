//! `ode` as a natural program: GradBench's Runge–Kutta loop (`ode.hpp`) as plain Rust, the
//! last component of `y(2)` as the objective.

use nilang::differentiable;

/// The last component of `y(2)` after `s` RK4 steps of `y₀' = x₀`, `yᵢ' = xᵢ·yᵢ₋₁` from 0.
#[differentiable(wrt(x))]
pub fn ode_last(x: &[f64], s: usize) -> f64 {
    let n = x.len();
    let h = 2.0 / s as f64;
    let mut y = vec![0.0; n];
    let mut k1 = vec![0.0; n];
    let mut k2 = vec![0.0; n];
    let mut k3 = vec![0.0; n];
    let mut k4 = vec![0.0; n];
    let mut t = vec![0.0; n];
    for _ in 0..s {
        k1[0] = x[0];
        for i in 1..n {
            k1[i] = x[i] * y[i - 1];
        }
        for i in 0..n {
            t[i] = y[i] + h * k1[i] / 2.0;
        }
        k2[0] = x[0];
        for i in 1..n {
            k2[i] = x[i] * t[i - 1];
        }
        for i in 0..n {
            t[i] = y[i] + h * k2[i] / 2.0;
        }
        k3[0] = x[0];
        for i in 1..n {
            k3[i] = x[i] * t[i - 1];
        }
        for i in 0..n {
            t[i] = y[i] + h * k3[i];
        }
        k4[0] = x[0];
        for i in 1..n {
            k4[i] = x[i] * t[i - 1];
        }
        for i in 0..n {
            y[i] += h * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) / 6.0;
        }
    }
    y[n - 1]
}

/// ∂y(2)ₙ₋₁/∂x by `ode_last_gradient`.
pub fn gradient(x: &[f64], s: usize) -> Vec<f64> {
    ode_last_gradient(x, s).1
}
