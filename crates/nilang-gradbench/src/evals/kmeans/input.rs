//! `kmeans`'s input, checked into a [`Problem`].

use crate::evals::flatten;
use serde::Deserialize;

/// The `kmeans` input.
#[derive(Clone, Debug, Deserialize)]
pub struct Input {
    /// The points, one row each.
    pub points: Vec<Vec<f64>>,
    /// The centroids, one row each.
    pub centroids: Vec<Vec<f64>>,
}

/// A k-means problem, flattened row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Dimension.
    pub d: usize,
    /// Points, `n × d`.
    pub points: Vec<f64>,
    /// Centroids, `k × d`.
    pub centroids: Vec<f64>,
}

impl Problem {
    /// Checks and flattens an input.
    pub fn from_input(i: &Input) -> Result<Problem, String> {
        let d = i
            .centroids
            .first()
            .map(Vec::len)
            .ok_or("bad `kmeans` input: no centroids")?;
        if d == 0 {
            return Err("bad `kmeans` input: centroids have no coordinates".into());
        }
        Ok(Problem {
            d,
            points: flatten("points", &i.points, d)?,
            centroids: flatten("centroids", &i.centroids, d)?,
        })
    }
}
