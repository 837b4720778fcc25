//! Loops that fold a value into one variable by `min` or `max` (`nilang_auto::reduction`):
//! the front end finds the chosen iteration on values and differentiates that iteration only.
//! Checked here: values equal the plain function's bit for bit (ties, NaN, empty ranges
//! included), the inverse restores the inputs, and gradients agree with central differences
//! (proptest).

use nilang::differentiable;
use proptest::prelude::*;

/// `Σᵢ minⱼ ‖cⱼ − pᵢ‖²`: the k-means cost, each point's nearest centroid by a `min` fold.
#[differentiable(wrt(centroids))]
fn nearest_cost(points: &[f64], centroids: &[f64], d: usize) -> f64 {
    let mut cost = 0.0;
    for i in 0..points.len() / d {
        let mut best = f64::INFINITY;
        for j in 0..centroids.len() / d {
            let mut dist = 0.0;
            for e in 0..d {
                dist += (points[i * d + e] - centroids[j * d + e]).powi(2);
            }
            best = dist.min(best);
        }
        cost += best;
    }
    cost
}

/// For each target `p` of `x` (rows of `d`), the nearest of the rows `lo..hi` of `c` (`d`
/// columns), searched four rows at a time or more (the search's inner loop jammed, on a table
/// of `c`'s values: the search runs once per target), with a weight computed before the inner
/// loop and a shift after it: `Σₚ d·min(100, minⱼ (wⱼ·‖cⱼ − xₚ‖² + ½))`, `wⱼ = 1 + ½cⱼ₀`.
#[differentiable(wrt(c, x))]
fn nearest_row(c: &[f64], x: &[f64], d: usize, lo: usize, hi: usize) -> f64 {
    let mut total = 0.0;
    for p in 0..x.len() / d {
        let mut best: f64 = 100.0;
        for j in lo..hi {
            let w = 1.0 + 0.5 * c[j * d];
            let mut dist = 0.0;
            for e in 0..d {
                let diff = c[j * d + e] - x[p * d + e];
                dist += w * diff * diff;
            }
            let shifted = dist + 0.5;
            best = best.min(shifted);
        }
        total += best * d as f64;
    }
    total
}

/// LogSumExp shifted by the largest element, found by a `max` fold over the elements (the
/// operands in the other order).
#[differentiable]
fn shifted_lse(x: &[f64]) -> f64 {
    let mut a = x[0];
    for v in x.iter() {
        a = v.max(a);
    }
    let mut s = 0.0;
    for v in x.iter() {
        s += (v - a).exp();
    }
    a + s.ln()
}

/// A fold whose starting value may win: `min(start, minⱼ xⱼ²)` over `0..n`.
#[differentiable]
fn capped(x: &[f64], start: f64, n: usize) -> f64 {
    let mut m = start;
    for j in 0..n {
        let sq = x[j] * x[j];
        m = m.min(sq);
    }
    m * 2.0
}

/// The largest `|xⱼ − t|`, as an `if` that improves a start.
#[differentiable]
fn farthest(x: &[f64], t: f64, start: f64) -> f64 {
    let mut far = start;
    for j in 0..x.len() {
        let d = (x[j] - t).abs();
        if far < d {
            far = d;
        }
    }
    far * far
}

#[test]
fn a_fold_written_as_an_if_chooses_what_the_plain_function_chooses() {
    let x = [0.5, -2.0, 1.5, -2.0];
    for start in [0.0, 10.0, -1.0] {
        let (value, (gx, gt, _)) = farthest_gradient(&x, 0.25, start);
        assert_eq!(
            value.to_bits(),
            farthest(&x, 0.25, start).to_bits(),
            "start {start}"
        );
        if start == 0.0 {
            // the first of the two farthest points: d = 2.25, d(d²)/dx₁ = 2·2.25·(−1)
            assert_eq!(gx, vec![0.0, -4.5, 0.0, 0.0]);
            assert_eq!(gt, 4.5);
        }
    }
}

#[test]
fn a_fold_chooses_what_the_plain_function_chooses() {
    let points = [0.0, 0.0, 1.0, 1.0, 5.0, -2.0];
    // two centroids at the same distance from the first point: a tie
    let centroids = [1.0, 0.0, 0.0, 1.0, 4.0, -2.0];
    let (value, grad) = nearest_cost_gradient(&points, &centroids, 2);
    assert_eq!(value, nearest_cost(&points, &centroids, 2));
    assert_eq!(grad.len(), centroids.len());
    // the start wins, an empty range, a NaN never chosen
    assert_eq!(capped_gradient(&[3.0, 2.0], 1.0, 2).0, 2.0);
    assert_eq!(capped_gradient(&[3.0, 2.0], 9.0, 0).0, 18.0);
    assert_eq!(
        capped_gradient(&[f64::NAN, 0.5], 9.0, 2).0,
        capped(&[f64::NAN, 0.5], 9.0, 2)
    );
    assert_eq!(
        capped_gradient(&[f64::NAN, 0.5], 9.0, 2).1 .0,
        vec![0.0, 2.0]
    );
    let x = [0.3, 2.5, -1.0, 2.5];
    assert_eq!(shifted_lse_gradient(&x).0, shifted_lse(&x));
}

#[test]
fn a_search_four_rows_at_a_time_chooses_the_first_of_equal_rows() {
    // rows 1, 2, 6, 17, 20 and 37 equal and nearest: the first of them in the range wins,
    // whichever group of sixteen, eight or four rows it falls in (on the search's table,
    // `nilang_auto::reduction::columns`) or the rows left over; row 3 is NaN, never chosen;
    // the gradient reaches the chosen row only
    let x = [0.5f64, -0.25];
    let mut c = vec![3.0f64; 2 * 41];
    for row in [1, 2, 6, 17, 20, 37] {
        c[2 * row..2 * row + 2].copy_from_slice(&[0.75, 0.25]);
    }
    c[2 * 3 + 1] = f64::NAN;
    let value_of = |j: usize| {
        let w = 1.0 + 0.5 * c[2 * j];
        w * ((c[2 * j] - x[0]).powi(2) + (c[2 * j + 1] - x[1]).powi(2)) + 0.5
    };
    for (lo, hi) in [
        (0, 9),
        (1, 9),
        (2, 9),
        (2, 8),
        (6, 7),
        (0, 1),
        (5, 5),
        (7, 3),
        (0, 41),
        (3, 41),
        (7, 41),
        (18, 41),
        (21, 41),
        (21, 37),
        (21, 38),
        (4, 20),
        (4, 21),
    ] {
        let (value, (gc, _)) = nearest_row_gradient(&c, &x, 2, lo, hi);
        assert_eq!(
            value.to_bits(),
            nearest_row(&c, &x, 2, lo, hi).to_bits(),
            "{lo}..{hi}"
        );
        let chosen = (lo..hi).fold(None, |best: Option<usize>, j| match best {
            Some(b) if value_of(b) <= value_of(j) => Some(b),
            _ if value_of(j) < 100.0 => Some(j),
            _ => best,
        });
        for (k, g) in gc.iter().enumerate() {
            assert_eq!(*g != 0.0, chosen == Some(k / 2), "{lo}..{hi}: c[{k}] = {g}");
        }
    }
}

#[test]
fn a_search_whose_distances_are_all_nan_chooses_nothing() {
    // six rows, all NaN (on the search's table: the blocks choose nothing better than ∞, and
    // the plain search from the start finds nothing either): the fold keeps its start
    let x = [0.5f64, -0.25];
    let c = vec![f64::NAN; 2 * 6];
    let (value, (gc, gx)) = nearest_row_gradient(&c, &x, 2, 0, 6);
    assert_eq!((value, nearest_row(&c, &x, 2, 0, 6)), (200.0, 200.0));
    assert_eq!((gc, gx), (vec![0.0; 12], vec![0.0; 2]));
    // one row not NaN, the last: chosen
    let mut c = c;
    c[10..12].copy_from_slice(&[0.75, 0.25]);
    let (value, (gc, _)) = nearest_row_gradient(&c, &x, 2, 0, 6);
    assert_eq!(value.to_bits(), nearest_row(&c, &x, 2, 0, 6).to_bits());
    assert!(value < 200.0);
    assert!(
        gc[..10].iter().all(|g| *g == 0.0) && gc[10] != 0.0,
        "{gc:?}"
    );
}

/// `min(10, minⱼ (1 + Σ_{e<m} c[j·stride + e]²)) + c₀`: with `m = 0` every distance loop is
/// empty and its offsets `j·stride` lie past `c`, which the plain function never indexes. The
/// search reads `c` through a window per loop (`nilang_auto::reduction::windows`), taken only
/// when the loop runs.
#[differentiable(wrt(c))]
fn empty_rows(c: &[f64], rows: usize, stride: usize, m: usize) -> f64 {
    let mut best: f64 = 10.0;
    for j in 0..rows {
        let mut dist = 1.0;
        for e in 0..m {
            dist += c[j * stride + e] * c[j * stride + e];
        }
        best = best.min(dist);
    }
    best + c[0]
}

#[test]
fn a_search_over_empty_distance_loops_reads_nothing() {
    let c = [0.5, 2.0];
    let (value, grad) = empty_rows_gradient(&c, 6, 100, 0);
    assert_eq!(value, empty_rows(&c, 6, 100, 0));
    assert_eq!((value, grad), (1.5, vec![1.0, 0.0]));
    // with rows of one column, stride 1: the nearest row is `c₀`'s
    let (value, grad) = empty_rows_gradient(&c, 2, 1, 1);
    assert_eq!((value, grad), (1.0 + 0.25 + 0.5, vec![2.0, 0.0]));
    assert_eq!(value, empty_rows(&c, 2, 1, 1));
    // twenty rows, four at a time, read nothing either
    assert_eq!(empty_rows_gradient(&c, 20, 100, 0), (1.5, vec![1.0, 0.0]));
}

#[test]
fn the_inverse_of_a_fold_restores_its_inputs() {
    let points = vec![0.5, -1.0, 2.0, 0.25, -3.0, 1.0];
    let centroids = vec![0.0, 0.0, 2.0, 0.0, -2.0, 1.0];
    let (mut out, mut p, mut c) = (0.0, points.clone(), centroids.clone());
    nearest_cost_rev(&mut out, &mut p, &mut c, 2);
    assert_eq!(out, nearest_cost(&points, &centroids, 2));
    nearest_cost_rev_inv(&mut out, &mut p, &mut c, 2);
    assert_eq!((out, p, c), (0.0, points, centroids));
}

fn central(f: impl Fn(&[f64]) -> f64, x: &[f64], k: usize) -> f64 {
    let e = 1e-6;
    let (mut up, mut down) = (x.to_vec(), x.to_vec());
    up[k] += e;
    down[k] -= e;
    (f(&up) - f(&down)) / (2.0 * e)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn fold_gradients_agree_with_central_differences(
        points in prop::collection::vec(-3.0f64..3.0, 12),
        centroids in prop::collection::vec(-3.0f64..3.0, 6),
        x in prop::collection::vec(-2.0f64..2.0, 1..8),
        rows in prop::collection::vec(-2i32..3, 2..80),
        lo in 0usize..4,
    ) {
        // rows of small integers (ties are frequent), 1–39 of them (from 4 on through the
        // search's table), searched from `lo`
        let n = rows.len() / 2;
        let c: Vec<f64> = rows[..2 * n].iter().map(|&v| f64::from(v) * 0.5).collect();
        let target = [0.25, -0.5];
        let f = |c: &[f64]| nearest_row(c, &target, 2, lo.min(n), n);
        let (value, (gc, gx)) = nearest_row_gradient(&c, &target, 2, lo.min(n), n);
        prop_assert_eq!(value.to_bits(), f(&c).to_bits());
        prop_assert_eq!(gx.len(), 2);
        for k in 0..2 * n {
            let fd = central(f, &c, k);
            // at a tie the central difference mixes two rows: compare where it is one-sided
            let mut up = c.clone();
            up[k] += 1e-6;
            if (fd - (f(&up) - value) / 1e-6).abs() < 1e-3 {
                prop_assert!((gc[k] - fd).abs() < 1e-5 * (1.0 + fd.abs()), "c[{k}]: {} vs {fd}", gc[k]);
            }
        }
        let (value, grad) = nearest_cost_gradient(&points, &centroids, 3);
        prop_assert_eq!(value, nearest_cost(&points, &centroids, 3));
        for k in 0..centroids.len() {
            let fd = central(|c| nearest_cost(&points, c, 3), &centroids, k);
            prop_assert!((grad[k] - fd).abs() < 1e-5 * (1.0 + fd.abs()), "{k}: {} vs {fd}", grad[k]);
        }
        let (value, (gx, _, _)) = farthest_gradient(&x, 0.1, 0.0);
        prop_assert_eq!(value, farthest(&x, 0.1, 0.0));
        for k in 0..x.len() {
            let fd = central(|v| farthest(v, 0.1, 0.0), &x, k);
            prop_assert!((gx[k] - fd).abs() < 1e-5 * (1.0 + fd.abs()), "{k}: {} vs {fd}", gx[k]);
        }
        let (value, grad) = shifted_lse_gradient(&x);
        prop_assert_eq!(value, shifted_lse(&x));
        for k in 0..x.len() {
            let fd = central(shifted_lse, &x, k);
            prop_assert!((grad[k] - fd).abs() < 1e-5 * (1.0 + fd.abs()), "{k}: {} vs {fd}", grad[k]);
        }
    }
}
