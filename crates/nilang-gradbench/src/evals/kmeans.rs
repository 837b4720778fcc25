//! `kmeans`: the k-means cost `Σᵢ minⱼ ‖Cⱼ − Pᵢ‖²` and the Newton direction `J·H⁻¹`.
//!
//! The nearest centroid of each point is an integer ancilla computed from the primal values;
//! the point's squared distance to that centroid is added to the cost, and the index is pushed
//! on a stack (`push!`), so the inverse program pops it instead of searching all centroids
//! again: `n` integers of memory buy back the `O(nkd)` search in every reverse sweep. (The
//! derivative of `min` is that of the selected term, as for any tool.) The search, plain Rust
//! on primal values, reads the centroids transposed and measures eight at a time
//! ([`Centroids`]), with each distance summed in the same order as one at a time; on a
//! processor with AVX2 (detected at run time) in 4-lane registers.
//!
//! `dir` needs the gradient `J` and the diagonal of the Hessian `H`, which is all of `H`
//! here: the cost is a sum of squares of single centroid coordinates. One run of the gradient
//! program on dual numbers ([`nilang::Dual`]), every centroid coordinate with tangent 1, gives
//! both: the gradients' values are `J`, their tangents `H·1 = diag H`. Output `J / diag H`.

use super::{decode, flatten, rows, timed, unknown_function};
use crate::limits::{Need, ANSWER_NUMBER_BYTES};
use crate::runs::Timing;
use nilang::{i, Dual, Real};
use serde::Deserialize;
use serde_json::{json, Value};

/// The centroid nearest to point `i` (`d`-dimensional rows), by primal values (the plain
/// search, one centroid at a time; [`Centroids::nearest`] finds the same one faster).
pub fn nearest<T: Real>(points: &[f64], centroids: &[T], i: usize, d: usize) -> usize {
    let mut best = (f64::INFINITY, 0);
    for j in 0..centroids.len() / d {
        let mut dist = 0.0;
        for e in 0..d {
            let diff = centroids[j * d + e].val() - points[i * d + e];
            dist += diff * diff;
        }
        if dist < best.0 {
            best = (dist, j);
        }
    }
    best.1
}

/// How many centroids [`Centroids::nearest`] measures at once.
const LANES: usize = 8;

/// The centroids' primal values for the nearest-centroid search, transposed (`d × k`: row `e`
/// holds coordinate `e` of every centroid), so that the distances to `LANES` (8) consecutive
/// centroids are accumulated side by side from contiguous values.
#[derive(Clone, Debug, PartialEq)]
pub struct Centroids {
    k: usize,
    d: usize,
    t: Vec<f64>,
}

impl Centroids {
    /// The work of one point of [`kmeans_cost_par`]'s loop (its search among `k` centroids of
    /// `d` coordinates, and its distance) in units of `(a..b).par().weight(w)`, about a
    /// nanosecond: about `8 + k·d/6` on one thread (22 ns at k = 10, d = 8; 1.4 µs at k = 1000,
    /// d = 8).
    pub fn work_per_point(k: usize, d: usize) -> usize {
        8 + k * d / 6
    }

    /// The table for the `d`-dimensional rows of `c`.
    pub fn of<T: Real>(c: &[T], d: usize) -> Centroids {
        let k = c.len() / d;
        let mut t = vec![0.0; k * d];
        for j in 0..k {
            for e in 0..d {
                t[e * k + j] = c[j * d + e].val();
            }
        }
        Centroids { k, d, t }
    }

    /// The centroid nearest to `p`: the same one as [`nearest`] (each squared distance summed
    /// over the coordinates in the same order, the first of equal distances), with the
    /// distances to eight centroids accumulated at once.
    pub fn nearest(&self, p: &[f64]) -> usize {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2 (tested just above)
            return unsafe { self.nearest_avx2(p) };
        }
        self.nearest_portable(p)
    }

    /// [`Centroids::nearest`] compiled for AVX2: the eight distances in two 4-lane registers
    /// instead of four 2-lane ones. No fused multiply–add (not enabled), so every distance is
    /// the same sum of the same products, to the bit.
    ///
    /// # Safety
    /// The processor must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn nearest_avx2(&self, p: &[f64]) -> usize {
        self.nearest_portable(p)
    }

    /// The search of [`Centroids::nearest`], inlined into each instruction-set variant.
    #[inline(always)]
    fn nearest_portable(&self, p: &[f64]) -> usize {
        let (k, d) = (self.k, self.d);
        let p = &p[..d];
        let mut best = (f64::INFINITY, 0);
        let mut j0 = 0;
        while j0 + LANES <= k {
            let acc = self.distances::<LANES>(p, j0);
            Self::keep_nearest(&mut best, &acc, j0);
            j0 += LANES;
        }
        // the last centroids four, two, one at a time (side by side their sums are
        // independent chains; one centroid at a time, each was a chain of `d` additions)
        if j0 + 4 <= k {
            let acc = self.distances::<4>(p, j0);
            Self::keep_nearest(&mut best, &acc, j0);
            j0 += 4;
        }
        if j0 + 2 <= k {
            let acc = self.distances::<2>(p, j0);
            Self::keep_nearest(&mut best, &acc, j0);
            j0 += 2;
        }
        if j0 < k {
            let acc = self.distances::<1>(p, j0);
            Self::keep_nearest(&mut best, &acc, j0);
        }
        best.1
    }

    /// The squared distances from `p` to the `N` centroids from `j0`, each summed over the
    /// coordinates in order.
    #[inline(always)]
    fn distances<const N: usize>(&self, p: &[f64], j0: usize) -> [f64; N] {
        let k = self.k;
        let mut acc = [0.0; N];
        for (e, &pe) in p.iter().enumerate() {
            let row = &self.t[e * k + j0..e * k + j0 + N];
            for (a, &c) in acc.iter_mut().zip(row) {
                let diff = c - pe;
                *a += diff * diff;
            }
        }
        acc
    }

    /// `best` updated with the distances `acc` of the centroids from `j0` (the first of equal
    /// distances kept).
    #[inline(always)]
    fn keep_nearest(best: &mut (f64, usize), acc: &[f64], j0: usize) {
        for (l, &dist) in acc.iter().enumerate() {
            if dist < best.0 {
                *best = (dist, j0 + l);
            }
        }
    }
}

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
/// stored and reloaded at every coordinate: the cost at k = 10 took 1.6× as long). The
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

/// The gradient (values) and the Hessian diagonal (tangents) of a gradient on dual numbers.
fn gradient_and_tangents(g: &[Dual<f64>]) -> (Vec<f64>, Vec<f64>) {
    (
        g.iter().map(|v| v.re).collect(),
        g.iter().map(|v| v.eps).collect(),
    )
}

/// Whether the evals run their parallel variants: when the points' searches, split across the
/// current rayon pool (sized by the tool's `--threads`), are worth `loops` parallel loops
/// (`nilang::parallel::worth_splitting` of their work shared among them: the cost runs one
/// loop, the gradient two, the forward one with the searches and its adjoint, each waking the
/// pool). Otherwise the sequential program runs, which is faster than the parallel one run on
/// one thread (its sum over the coordinates is kept in a register) and gives the same bits.
fn parallel(p: &Problem, loops: usize) -> bool {
    let (n, k) = (p.points.len() / p.d, p.centroids.len() / p.d);
    let work = Centroids::work_per_point(k, p.d) / loops;
    nilang::parallel::worth_splitting(0, n, false, work)
}

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

    /// The cost, by running [`kmeans_cost`] forward ([`kmeans_cost_par`] on more than one
    /// thread).
    pub fn cost(&self) -> f64 {
        let (mut cost, mut c) = (0.0, self.centroids.clone());
        if parallel(self, 1) {
            let mut nearest_of = vec![0; self.points.len() / self.d];
            kmeans_cost_par(&mut cost, &mut c, &mut nearest_of, &self.points, self.d);
            return cost;
        }
        let mut nearest_of = Vec::with_capacity(self.points.len() / self.d);
        kmeans_cost(&mut cost, &mut c, &mut nearest_of, &self.points, self.d);
        cost
    }

    /// The gradient and the Hessian diagonal, by one [`kmeans_cost_vjp`] on dual numbers
    /// (forward over reverse, all tangents 1): values and gradients of type `Dual<f64>` in
    /// buffers of their own.
    pub fn gradient_and_hessian_diagonal(&self) -> Result<(Vec<f64>, Vec<f64>), String> {
        if parallel(self, 2) {
            return Ok(self.gradient_and_hessian_diagonal_par());
        }
        let (mut cost, mut cost_grad, mut c, mut c_grad) = self.dual_buffers();
        let n = self.points.len() / self.d;
        let (mut nearest_of, mut nearest_grad) = (Vec::with_capacity(n), Vec::with_capacity(n));
        kmeans_cost_vjp(
            &mut cost,
            &mut cost_grad,
            &mut c,
            &mut c_grad,
            &mut nearest_of,
            &mut nearest_grad,
            &self.points,
            (),
            self.d,
            (),
        );
        Ok(gradient_and_tangents(&c_grad))
    }

    /// [`Problem::gradient_and_hessian_diagonal`] by [`kmeans_cost_par_vjp`] (point `i`'s
    /// centroid in slot `i` of `n` zeros). A function of its own: with both programs in one,
    /// the sequential one ran about 1.7 times slower (measured at k = 10, n = 1000).
    #[inline(never)]
    fn gradient_and_hessian_diagonal_par(&self) -> (Vec<f64>, Vec<f64>) {
        let (mut cost, mut cost_grad, mut c, mut c_grad) = self.dual_buffers();
        let n = self.points.len() / self.d;
        let (mut nearest_of, mut nearest_grad) = (vec![0; n], vec![0; n]);
        kmeans_cost_par_vjp(
            &mut cost,
            &mut cost_grad,
            &mut c,
            &mut c_grad,
            &mut nearest_of,
            &mut nearest_grad,
            &self.points,
            (),
            self.d,
            (),
        );
        gradient_and_tangents(&c_grad)
    }

    /// The buffers of the gradient on dual numbers: the cost (zero) with its seed (1), the
    /// centroids with all tangents 1, their gradient (zero).
    #[allow(clippy::type_complexity)]
    fn dual_buffers(&self) -> (Dual<f64>, Dual<f64>, Vec<Dual<f64>>, Vec<Dual<f64>>) {
        let c: Vec<Dual<f64>> = self.centroids.iter().map(|&v| Dual::new(v, 1.0)).collect();
        let c_grad = vec![Dual::constant(0.0); c.len()];
        (Dual::constant(0.0), Dual::constant(1.0), c, c_grad)
    }

    /// The Newton direction `J·H⁻¹` (`k × d`, row-major).
    pub fn dir(&self) -> Result<Vec<f64>, String> {
        let (j, h) = self.gradient_and_hessian_diagonal()?;
        Ok(j.iter().zip(&h).map(|(j, h)| j / h).collect())
    }

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

/// The memory the `kmeans` functions need on `i` ([`Need`]): per point its coordinates
/// flattened and its centroid's index (and that index's gradient); per centroid coordinate its
/// copies (the search's table, the program's on dual numbers and their gradient, the
/// direction's two halves) and the answer.
pub fn need(i: &Input) -> Result<(), String> {
    let mut need = Need::new("kmeans");
    let d = i.centroids.first().map_or(0, Vec::len);
    need.add("points", &[i.points.len(), d + 2], 8)?;
    need.add(
        "centroids",
        &[i.centroids.len(), d],
        8 * 8 + ANSWER_NUMBER_BYTES,
    )
}

/// The `kmeans` functions: `cost` and `dir`.
pub fn evaluate(function: &str, input: &Value) -> Result<(Value, Vec<Timing>), String> {
    let i: Input = decode("kmeans", input)?;
    need(&i)?;
    let p = Problem::from_input(&i)?;
    let k = p.centroids.len() / p.d;
    match function {
        "cost" => timed(input, || Ok(p.cost()), |c| json!(c)),
        "dir" => timed(input, || p.dir(), |v| json!(rows(&v, k, p.d))),
        _ => Err(unknown_function("kmeans", function, &["cost", "dir"])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both instruction-set variants of the blocked search pick the same centroid as the plain
    /// search, ties included (whichever variant `nearest` dispatches to, the other is tested
    /// here too; tests/validate.rs checks `nearest` itself).
    #[test]
    fn every_search_variant_picks_the_plain_searchs_centroid() {
        let mut state = 7u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for (k, d) in [(1, 1), (3, 2), (10, 8), (17, 16), (64, 3)] {
            let mut c: Vec<f64> = (0..k * d).map(|_| next()).collect();
            if k > 2 {
                // centroid 2 repeats centroid 0: the first of equal distances must win
                let first: Vec<f64> = c[..d].to_vec();
                c[2 * d..3 * d].copy_from_slice(&first);
            }
            let points: Vec<f64> = (0..50 * d).map(|_| next()).chain(c.clone()).collect();
            let table = Centroids::of(&c, d);
            for i in 0..points.len() / d {
                let p = &points[i * d..(i + 1) * d];
                let want = nearest(&points, &c, i, d);
                assert_eq!(table.nearest_portable(p), want, "k {k}, d {d}, point {i}");
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the processor has AVX2
                    assert_eq!(
                        unsafe { table.nearest_avx2(p) },
                        want,
                        "k {k}, d {d}, point {i}"
                    );
                }
            }
        }
    }
}
