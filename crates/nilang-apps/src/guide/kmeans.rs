//! The k-means cost as ordinary Rust under `#[differentiable]`: each point's squared distance
//! to its nearest centroid, summed, and its gradient with respect to the centroids. The loop
//! over centroids folds by `<` into `best`, so the front end searches the nearest centroid on
//! values (sixteen centroids a vector pass, on a transposed table, decision 0045) and
//! differentiates that one distance per point.

use nilang::differentiable;

/// `Σᵢ minⱼ ‖pᵢ − cⱼ‖²` over the points `points` and centroids `centroids` (`d` coordinates
/// each, row by row).
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
                let diff = points[i * d + e] - centroids[j * d + e];
                dist += diff * diff;
            }
            if dist < best {
                best = dist;
            }
        }
        cost += best;
    }
    cost
}

/// An instance: `n` points and `k` centroids of `d` coordinates, uniform in `[0, 1)`.
#[derive(Clone, Debug)]
pub struct Problem {
    /// The points, `n × d`, row by row.
    pub points: Vec<f64>,
    /// The centroids, `k × d`, row by row.
    pub centroids: Vec<f64>,
    /// The coordinates of a point.
    pub d: usize,
}

impl Problem {
    /// A random instance from `seed`.
    pub fn random(n: usize, k: usize, d: usize, seed: u64) -> Problem {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let points = (0..n * d).map(|_| next()).collect();
        let centroids = (0..k * d).map(|_| next()).collect();
        Problem {
            points,
            centroids,
            d,
        }
    }

    /// The cost, by the plain function.
    pub fn native(&self) -> f64 {
        kmeans_cost(&self.points, &self.centroids, self.d)
    }

    /// The cost, by the reversible program the front end wrote (`kmeans_cost_rev`).
    pub fn forward(&self, centroids: &mut [f64]) -> f64 {
        let mut out = 0.0;
        kmeans_cost_rev(&mut out, &self.points, centroids, self.d);
        out
    }

    /// The cost and its gradient with respect to the centroids.
    pub fn gradient(&self) -> (f64, Vec<f64>) {
        kmeans_cost_gradient(&self.points, &self.centroids, self.d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nilang::ad::check_gradient;

    #[test]
    fn the_gradient_is_the_derivative_of_the_plain_cost() {
        // 40 centroids: the search runs sixteen, sixteen, eight at a time on its table
        let p = Problem::random(300, 40, 3, 5);
        let (value, grad) = p.gradient();
        assert_eq!(value.to_bits(), p.native().to_bits());
        assert_eq!(
            p.forward(&mut p.centroids.clone()).to_bits(),
            value.to_bits()
        );
        let cost = |c: &[f64]| kmeans_cost(&p.points, c, p.d);
        check_gradient(cost, &p.centroids, &grad, 1e-6, 1e-6).unwrap();
    }

    #[test]
    fn the_inverse_undoes_the_program() {
        let p = Problem::random(50, 20, 2, 9);
        let (mut out, mut c) = (0.0, p.centroids.clone());
        kmeans_cost_rev(&mut out, &p.points, &mut c, p.d);
        assert_eq!(out, p.native());
        kmeans_cost_rev_inv(&mut out, &p.points, &mut c, p.d);
        assert_eq!((out, c), (0.0, p.centroids));
    }
}
