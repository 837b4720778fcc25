//! `kmeans`'s reversible cost: [`kmeans_cost`] (the nearest centroids on a stack) and
//! [`kmeans_cost_par`] (in a parallel loop, each point's centroid in a slot of its own).

use super::Centroids;
use nilang::{i, Real};

/// `cost += Σᵢ minⱼ ‖c_j − p_i‖²` over the `d`-dimensional rows of `points` and `c`; `nearest`
/// receives the index of each point's nearest centroid (the inverse pops them).
///
/// The search reads a transposed copy of the centroids' values ([`Centroids`]), made once per
/// run: an ancilla holding constants, as the search itself works on primal values.
#[i(expand, nocheck)]
pub fn kmeans_cost<T: Real>(
    cost: &mut T,
    c: &mut [T],
    nearest_of: &mut Vec<usize>,
    points: &[f64],
    d: usize,
) {
    let table = Centroids::of(c, d);
    for i in 0..points.len() / d {
        let j = table.nearest(&points[i * d..(i + 1) * d]);
        add_squared_distance(cost, c[j * d..(j + 1) * d], &points[i * d..(i + 1) * d]);
        push!(nearest_of, j);
        dealloc!(j = 0);
    }
    dealloc!(table = Centroids::of(c, d));
}

/// `cost += ‖centroid − point‖²`. A function of its own, so that `cost` (a `&mut` parameter,
/// distinct from everything else) stays in a register across the coordinates, and the
/// point's coordinates are read within the bounds of its own row (inline, the accumulator was
/// stored and reloaded at every coordinate, which made the cost markedly slower). The
/// parallel [`kmeans_cost_par`] keeps the sum inline: its loop cannot hand the shared `cost`
/// and centroids to a call.
#[i(expand, nocheck)]
#[inline(always)]
pub fn add_squared_distance<T: Real>(cost: &mut T, centroid: &mut [T], point: &[f64]) {
    for e in 0..point.len() {
        cost += square(centroid[e] - T::lit(point[e]));
    }
}

/// [`kmeans_cost`] with the points in a parallel loop (`.par()`): each chunk of points sums
/// its own part of the cost, and in the adjoint program keeps its own gradient of the
/// centroids, both combined in chunk order (deterministic for a thread count; on one thread
/// the same bits as [`kmeans_cost`]). Point `i`'s nearest centroid goes to `nearest_of[i]`
/// (`n` zeros on entry: the iteration swaps it in) instead of a stack, which the iterations could
/// not share; the inverse swaps it back out, so it does not search again either.
#[i(expand, nocheck)]
pub fn kmeans_cost_par<T: Real>(
    cost: &mut T,
    c: &mut [T],
    nearest_of: &mut Vec<usize>,
    points: &[f64],
    d: usize,
) {
    let table = Centroids::of(c, d);
    for i in (0..points.len() / d)
        .par()
        .weight(Centroids::work_per_point(c.len() / d, d))
    {
        let j = table.nearest(&points[i * d..(i + 1) * d]);
        for e in 0..d {
            cost += square(c[j * d + e] - T::lit(points[i * d + e]));
        }
        swap(j, nearest_of[i]);
        dealloc!(j = 0);
    }
    dealloc!(table = Centroids::of(c, d));
}
