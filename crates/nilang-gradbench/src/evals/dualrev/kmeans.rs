//! `kmeans` over a number type with `+ − ×` and an order: the cost `Σᵢ minⱼ ‖Cⱼ − Pᵢ‖²`;
//! `dir` by reverse over forward: the cost run on [`Tangent`]s of [`DualRev`] with every
//! centroid coordinate's tangent 1, so one recording holds the cost and its derivative along
//! the all-ones direction, `Σₘ ∂cost/∂Cₘ`. Its two reverse sweeps give `J` and `H·1`, which is
//! `diag H` (the cost is a sum of squares of single coordinates: `H` is diagonal).

use crate::evals::kmeans::Problem;
use core::ops::{Add, Mul, Sub};
use nilang_dualrev::{record, DualRev, Scalar};

/// The operations [`kmeans_cost`] needs of its number type.
pub trait Ring:
    Copy + PartialOrd + From<f64> + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self>
{
}

impl<T> Ring for T where
    T: Copy + PartialOrd + From<f64> + Add<Output = T> + Sub<Output = T> + Mul<Output = T>
{
}

/// A forward-mode dual number over `S`: a value and its tangent (`From<f64>`: a constant).
/// Comparisons look at the value only.
#[derive(Clone, Copy, Debug)]
pub struct Tangent<S> {
    /// The value.
    pub v: S,
    /// The tangent.
    pub t: S,
}

impl<S: Scalar> From<f64> for Tangent<S> {
    fn from(c: f64) -> Self {
        Tangent {
            v: S::cst(c),
            t: S::zero(),
        }
    }
}

impl<S: Scalar> PartialEq for Tangent<S> {
    fn eq(&self, other: &Self) -> bool {
        self.v == other.v
    }
}

impl<S: Scalar> PartialOrd for Tangent<S> {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        self.v.partial_cmp(&other.v)
    }
}

impl<S: Scalar> Add for Tangent<S> {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Tangent {
            v: self.v + o.v,
            t: self.t + o.t,
        }
    }
}

impl<S: Scalar> Sub for Tangent<S> {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        Tangent {
            v: self.v - o.v,
            t: self.t - o.t,
        }
    }
}

impl<S: Scalar> Mul for Tangent<S> {
    type Output = Self;
    fn mul(self, o: Self) -> Self {
        Tangent {
            v: self.v * o.v,
            t: self.v * o.t + self.t * o.v,
        }
    }
}

/// `Σᵢ minⱼ ‖Cⱼ − Pᵢ‖²` over the points `points` and centroids `centroids` (`d` columns
/// each, at least one centroid).
pub fn kmeans_cost<S: Ring>(points: &[f64], centroids: &[S], d: usize) -> S {
    let mut cost = S::from(0.0);
    for p in points.chunks(d) {
        let dist = |c: &[S]| {
            c.iter().zip(p).fold(S::from(0.0), |acc, (&ce, &pe)| {
                let diff = ce - S::from(pe);
                acc + diff * diff
            })
        };
        let mut js = centroids.chunks(d);
        let first = dist(js.next().expect("at least one centroid"));
        cost = cost
            + js.map(dist)
                .fold(first, |best, v| if v < best { v } else { best });
    }
    cost
}

impl Problem {
    /// The cost on `f64`.
    pub fn dualrev_cost(&self) -> f64 {
        kmeans_cost(&self.points, &self.centroids, self.d)
    }

    /// The Newton direction `J·H⁻¹` (`k × d`, row-major), reverse over forward.
    pub fn dualrev_dir(&self) -> Result<Vec<f64>, String> {
        let (n, k) = (self.points.len() / self.d, self.centroids.len() / self.d);
        super::need_tape("kmeans", &[n, k, self.d, 12])?;
        let mut p = record(
            |c: &[DualRev]| {
                let c: Vec<_> = c.iter().map(|&v| Tangent { v, t: 1.0.into() }).collect();
                let cost = kmeans_cost(&self.points, &c, self.d);
                [cost.v, cost.t]
            },
            &self.centroids,
        )
        .map_err(|e| format!("kmeans: {e}"))?;
        let j = p.vjp(&[1.0, 0.0]).map_err(|e| format!("kmeans: {e}"))?;
        let h = p.vjp(&[0.0, 1.0]).map_err(|e| format!("kmeans: {e}"))?;
        Ok(j.iter().zip(&h).map(|(j, h)| j / h).collect())
    }
}
