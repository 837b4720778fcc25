//! GMM and BA distributed over 1, 2 and 4 ranks as threads, against the single-process
//! programs of nilang-gradbench, and their refusals of inconsistent shards.

use nilang_gradbench::evals::{ba, gmm};
use nilang_mpi::{blocked_reference, BaShard, Comm, GmmShard, ThreadComm};

fn flat(g: &gmm::Gradient) -> Vec<f64> {
    [&g.alpha, &g.mu, &g.q, &g.l].map(|v| v.to_vec()).concat()
}

fn max_rel(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs() / x.abs().max(y.abs()).max(1e-300))
        .fold(0.0, f64::max)
}

/// Sizes with a partial block of points and a shard smaller than a block (n = 37), several
/// blocks (d = 3: 4·85 points per block), and more ranks than... a rank with no points.
const GMM_CASES: [(usize, usize, usize, u64); 4] = [
    (3, 4, 37, 1),
    (10, 5, 203, 2),
    (2, 3, 1400, 3),
    (4, 2, 3, 4),
];

#[test]
fn gmm_value_and_gradient_on_1_2_4_ranks() {
    for (d, k, n, seed) in GMM_CASES {
        let whole = gmm::Problem::random(d, k, n, seed);
        let (one_f, one_g) = (whole.objective(), flat(&whole.gradient().unwrap()));
        for p in [1, 2, 4] {
            let results = ThreadComm::run(p, |c| GmmShard::of(&whole, c).gradient(c).unwrap());
            let values = ThreadComm::run(p, |c| GmmShard::of(&whole, c).objective(c).unwrap());
            let (ref_f, ref_g) = blocked_reference(&whole, p);
            for ((f, g), v) in results.iter().zip(&values) {
                // the blocked reference's bits, on every rank, from the objective and the vjp
                assert_eq!(f.to_bits(), ref_f.to_bits(), "d{d} k{k} n{n}, {p} ranks");
                assert_eq!(v.to_bits(), ref_f.to_bits(), "d{d} k{k} n{n}, {p} ranks");
                assert_eq!(g, &ref_g, "d{d} k{k} n{n}, {p} ranks");
                // the single-process program's numbers, to round-off
                assert!(max_rel(&[*f], &[one_f]) <= 1e-12, "value, {p} ranks");
                assert!(max_rel(&flat(g), &one_g) <= 1e-12, "gradient, {p} ranks");
            }
            if p == 1 {
                assert_eq!(results[0].0.to_bits(), one_f.to_bits());
                assert_eq!(flat(&results[0].1), one_g);
            }
        }
    }
}

#[test]
fn ba_jacobian_on_1_2_4_ranks_is_the_single_process_one() {
    for (n, m, p_obs, seed) in [(4, 9, 31, 3), (2, 3, 3, 5)] {
        let whole = ba::Problem::random(n, m, p_obs, seed);
        let one = whole.jacobian().unwrap();
        for p in [1, 2, 4] {
            for j in ThreadComm::run(p, |c| BaShard::of(&whole, c).jacobian(c).unwrap()) {
                assert_eq!(j, one, "{p_obs} observations, {p} ranks");
            }
        }
    }
}

#[test]
fn gmm_shards_that_miss_points_are_refused_on_every_rank() {
    let whole = gmm::Problem::random(3, 2, 10, 1);
    let errors = ThreadComm::run(2, |c| {
        let mut s = GmmShard::of(&whole, c);
        if c.rank() == 1 {
            s.problem.n -= 1;
            s.problem.x.truncate(s.problem.n * 3);
        }
        s.gradient(c).unwrap_err()
    });
    for e in errors {
        assert_eq!(
            e,
            "the shards hold [5, 4] points, 9 in all, but the problem has 10"
        );
    }
}

#[test]
fn gmm_ranks_disagreeing_on_sizes_are_refused() {
    let errors = ThreadComm::run(2, |c| {
        let whole = gmm::Problem::random(3, 2 + c.rank(), 10, 1);
        GmmShard::of(&whole, c).objective(c).unwrap_err()
    });
    for e in errors {
        assert_eq!(
            e,
            "the ranks disagree on k: rank 0 has 2, the ranks have [2, 3]"
        );
    }
}

#[test]
fn gmm_points_of_the_wrong_length_are_refused() {
    let whole = gmm::Problem::random(3, 2, 10, 1);
    let e = ThreadComm::run(1, |c| {
        let mut s = GmmShard::of(&whole, c);
        s.problem.x.pop();
        s.objective(c).unwrap_err()
    });
    assert_eq!(
        e[0],
        "rank 0: gmm shard: x has 29 values, expected n·d = 10·3"
    );
}

#[test]
fn ba_shard_with_a_weight_too_many_is_refused_on_every_rank() {
    let whole = ba::Problem::random(2, 3, 8, 1);
    let errors = ThreadComm::run(2, |c| {
        let mut s = BaShard::of(&whole, c);
        if c.rank() == 1 {
            s.problem.w.push(1.0);
        }
        s.jacobian(c).unwrap_err()
    });
    for e in errors {
        assert_eq!(
            e,
            "rank 1: ba shard: 4 observations but 5 weights and 4 features"
        );
    }
}
