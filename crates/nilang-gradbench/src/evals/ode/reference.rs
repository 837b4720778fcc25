//! `ode`'s solution in plain Rust, as GradBench's reference computes it, for the tests.

/// Plain Rust solution, as GradBench's reference computes it (the reference for tests).
pub fn reference(x: &[f64], s: usize) -> Vec<f64> {
    let n = x.len();
    let f = |y: &[f64]| -> Vec<f64> {
        (0..n)
            .map(|i| if i == 0 { x[0] } else { x[i] * y[i - 1] })
            .collect()
    };
    let h = 2.0 / s as f64;
    let mut y = vec![0.0; n];
    for _ in 0..s {
        let k1 = f(&y);
        let t: Vec<f64> = (0..n).map(|i| y[i] + h * k1[i] / 2.0).collect();
        let k2 = f(&t);
        let t: Vec<f64> = (0..n).map(|i| y[i] + h * k2[i] / 2.0).collect();
        let k3 = f(&t);
        let t: Vec<f64> = (0..n).map(|i| y[i] + h * k3[i]).collect();
        let k4 = f(&t);
        for i in 0..n {
            y[i] += h * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) / 6.0;
        }
    }
    y
}
