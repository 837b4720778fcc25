//! `kmeans` as a natural program: the cost `Σᵢ minⱼ ‖Cⱼ − Pᵢ‖²` as plain Rust; `dir` from the
//! gradient of its reversible program run on dual numbers (forward over reverse), as the
//! expert program does: every centroid coordinate with tangent 1, the gradients' values are
//! `J`, their tangents `diag H` (all of `H`: the cost is a sum of squares of single
//! coordinates).

use crate::evals::kmeans::Problem;
use nilang::{differentiable, Dual};

/// `Σᵢ minⱼ ‖Cⱼ − Pᵢ‖²` over the points `points` and centroids `centroids` (`d` columns each).
#[differentiable(wrt(centroids))]
pub fn kmeans_cost(points: &[f64], centroids: &[f64], d: usize) -> f64 {
    let n = points.len() / d;
    let k = centroids.len() / d;
    let mut cost = 0.0;
    for i in 0..n {
        let mut best = f64::INFINITY;
        for j in 0..k {
            let mut dist = 0.0;
            for e in 0..d {
                let diff = centroids[j * d + e] - points[i * d + e];
                dist += diff * diff;
            }
            best = best.min(dist);
        }
        cost += best;
    }
    cost
}

impl Problem {
    /// The cost, the plain function.
    pub fn natural_cost(&self) -> f64 {
        kmeans_cost(&self.points, &self.centroids, self.d)
    }

    /// The Newton direction `J·H⁻¹` (`k × d`, row-major), by `kmeans_cost_rev_vjp` on dual
    /// numbers.
    pub fn natural_dir(&self) -> Vec<f64> {
        let mut c: Vec<Dual<f64>> = self.centroids.iter().map(|&v| Dual::new(v, 1.0)).collect();
        let mut c_grad = vec![Dual::constant(0.0); c.len()];
        let (mut cost, mut seed) = (Dual::constant(0.0), Dual::constant(1.0));
        kmeans_cost_rev_vjp(
            &mut cost,
            &mut seed,
            &self.points,
            (),
            &mut c,
            &mut c_grad,
            self.d,
            (),
        );
        c_grad.iter().map(|g| g.re / g.eps).collect()
    }
}
