//! `kmeans`'s cost in plain Rust, for the tests.

use super::Problem;

impl Problem {
    /// Plain Rust cost (the reference for tests).
    pub fn reference(&self, centroids: &[f64]) -> f64 {
        let d = self.d;
        (0..self.points.len() / d)
            .map(|i| {
                (0..centroids.len() / d)
                    .map(|j| {
                        (0..d)
                            .map(|e| (centroids[j * d + e] - self.points[i * d + e]).powi(2))
                            .sum::<f64>()
                    })
                    .fold(f64::INFINITY, f64::min)
            })
            .sum()
    }
}
