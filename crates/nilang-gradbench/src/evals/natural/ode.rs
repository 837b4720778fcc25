//! `ode` as a natural program: GradBench's Runge–Kutta loop (`ode.hpp`) as plain Rust, the
//! right-hand side a function of its own as there, the last component of `y(2)` as the
//! objective.

use nilang::differentiable;

/// `z = f(y)`: `z₀ = x₀`, `zᵢ = xᵢ·yᵢ₋₁`.
#[differentiable(wrt(x, y))]
pub fn ode_fun(x: &[f64], y: &[f64], z: &mut [f64]) {
    z[0] = x[0];
    for i in 1..x.len() {
        z[i] = x[i] * y[i - 1];
    }
}

/// The last component of `y(2)` after `s` RK4 steps of `y' = f(y)` from 0.
#[differentiable(wrt(x))]
pub fn ode_last(x: &[f64], s: usize) -> f64 {
    let n = x.len();
    let h = 2.0 / s as f64;
    let mut y = vec![0.0; n];
    let (mut k1, mut k2, mut k3, mut k4) = (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let mut t = vec![0.0; n];
    for _ in 0..s {
        ode_fun(x, &y, &mut k1);
        for i in 0..n {
            t[i] = y[i] + h * k1[i] / 2.0;
        }
        ode_fun(x, &t, &mut k2);
        for i in 0..n {
            t[i] = y[i] + h * k2[i] / 2.0;
        }
        ode_fun(x, &t, &mut k3);
        for i in 0..n {
            t[i] = y[i] + h * k3[i];
        }
        ode_fun(x, &t, &mut k4);
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
