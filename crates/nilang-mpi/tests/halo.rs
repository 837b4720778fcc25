//! The halo exchange on ranks as threads: forward, inverse (`uncall(call(x)) == x`), adjoint
//! against central differences, bad input; and the distributed heat equation against the
//! same program on one rank (values bit for bit where the order is kept, gradients to 1e-12).

use nilang::{i, Real};
use nilang_mpi::{halo_add, Comm, HeatShard, ThreadComm};

/// `z += Σ_ranks Σ_j v[j]·sin(v[j])` after the halo of width `w` is filled, a nonlinear use of
/// the ghosts so that their gradients must travel back to the neighbours' cells.
#[i]
fn ghosts_used<T: Real>(z: &mut T, v: &mut [T], w: usize, comm: &dyn Comm) {
    routine! {
        halo_add(v, w, comm);
    }
    for j in 0..v.len() {
        expand! {
            z += v[j] * sin(v[j]);
        }
    }
    uncompute!();
}

/// Rank `rank`'s slice: `w` zero ghosts, `own` cells `0.1·(rank·own + k + 1)` (cell `at_cell`
/// of rank `at_rank` moved by `dx`), `w` zero ghosts.
fn slice(rank: usize, own: usize, w: usize, at: (usize, usize), dx: f64) -> Vec<f64> {
    let mut v = vec![0.0; own + 2 * w];
    for k in 0..own {
        v[w + k] = 0.1 * (rank * own + k + 1) as f64;
    }
    if rank == at.0 {
        v[w + at.1] += dx;
    }
    v
}

/// `Σ_ranks z` of [`ghosts_used`] with one cell moved.
fn total(p: usize, own: usize, w: usize, at: (usize, usize), dx: f64) -> f64 {
    ThreadComm::run(p, |c| {
        let mut v = slice(c.rank(), own, w, at, dx);
        let mut z = 0.0;
        ghosts_used(&mut z, &mut v, w, c);
        z
    })
    .iter()
    .sum()
}

#[test]
fn ghosts_get_the_neighbours_cells_and_the_inverse_takes_them_back() {
    for (p, own, w) in [(1, 3, 1), (2, 3, 1), (3, 4, 2), (4, 2, 2)] {
        let out = ThreadComm::run(p, |c| {
            let mut v = slice(c.rank(), own, w, (p, 0), 0.0);
            let before = v.clone();
            ghosts_used(&mut z_zero(), &mut v, w, c);
            assert_eq!(v, before, "the routine's uncomputation empties the ghosts");
            halo_add_only(&mut v, w, c);
            let filled = v.clone();
            halo_add_only_inv(&mut v, w, c);
            (filled, v == before)
        });
        for (r, (filled, restored)) in out.iter().enumerate() {
            assert!(restored, "p {p}: rank {r}: uncall(call(v)) == v");
            let left: Vec<f64> = if r > 0 {
                slice(r - 1, own, w, (p, 0), 0.0)[own..own + w].to_vec()
            } else {
                vec![0.0; w]
            };
            let right: Vec<f64> = if r + 1 < p {
                slice(r + 1, own, w, (p, 0), 0.0)[w..2 * w].to_vec()
            } else {
                vec![0.0; w]
            };
            assert_eq!(filled[..w], left[..], "p {p}: rank {r}: left ghosts");
            assert_eq!(
                filled[own + w..],
                right[..],
                "p {p}: rank {r}: right ghosts"
            );
        }
    }
}

fn z_zero() -> f64 {
    0.0
}

#[i]
fn halo_add_only<T: Real>(v: &mut [T], w: usize, comm: &dyn Comm) {
    halo_add(v, w, comm);
}

#[test]
fn the_adjoint_sends_the_ghosts_gradients_back() {
    for (p, own, w) in [(2, 3, 1), (3, 4, 2)] {
        let grads = ThreadComm::run(p, |c| {
            let mut v = slice(c.rank(), own, w, (p, 0), 0.0);
            let mut g = vec![0.0; v.len()];
            let (mut z, mut zg) = (0.0, 1.0);
            ghosts_used_vjp(&mut z, &mut zg, &mut v, &mut g, w, (), c, ());
            g
        });
        let h = 1e-6;
        for r in 0..p {
            for k in 0..own {
                let fd = (total(p, own, w, (r, k), h) - total(p, own, w, (r, k), -h)) / (2.0 * h);
                let g = grads[r][w + k];
                assert!(
                    (g - fd).abs() <= 1e-7 * (1.0 + fd.abs()),
                    "p {p}, rank {r}, cell {k}: adjoint {g}, central difference {fd}"
                );
            }
        }
    }
}

#[test]
fn too_few_cells_for_the_halo_is_refused_with_the_lengths() {
    let r = std::panic::catch_unwind(|| {
        ThreadComm::run(2, |c| {
            let mut v = vec![0.0; 5];
            halo_add_only(&mut v, 2, c);
        })
    });
    let e = r.expect_err("a slice of 5 values cannot hold 2 + 2 ghosts and 2 cells");
    let message = e
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(
        message.contains("it has 5 values for w = 2"),
        "message: {message}"
    );
}

/// A smooth initial state of `n` cells.
fn initial(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| (std::f64::consts::PI * (i as f64 + 0.5) / n as f64).sin() + 0.1 * i as f64)
        .collect()
}

#[test]
fn the_heat_equation_on_p_ranks_is_the_one_rank_program() {
    let (n, steps, r) = (23, 40, 0.4);
    let u0 = initial(n);
    let one = ThreadComm::run(1, |c| HeatShard::of(&u0, steps, r, c).gradient(c))
        .remove(0)
        .unwrap();
    let h = 1e-6;
    let f = |u: &[f64]| {
        ThreadComm::run(1, |c| HeatShard::of(u, steps, r, c).objective(c))
            .remove(0)
            .unwrap()
    };
    for k in [0, 7, n - 1] {
        let (mut up, mut down) = (u0.clone(), u0.clone());
        up[k] += h;
        down[k] -= h;
        let fd = (f(&up) - f(&down)) / (2.0 * h);
        assert!(
            (one.1[k] - fd).abs() <= 1e-6 * (1.0 + fd.abs()),
            "cell {k}: gradient {}, central difference {fd}",
            one.1[k]
        );
    }
    for p in [2, 3, 4] {
        let results = ThreadComm::run(p, |c| HeatShard::of(&u0, steps, r, c).gradient(c));
        let values: Vec<f64> = results.iter().map(|g| g.as_ref().unwrap().0).collect();
        assert!(
            values.iter().all(|v| v.to_bits() == values[0].to_bits()),
            "p {p}: every rank has the same bits: {values:?}"
        );
        assert!(
            (values[0] - one.0).abs() <= 1e-13 * one.0,
            "p {p}: {} vs one rank's {}",
            values[0],
            one.0
        );
        let grad: Vec<f64> = results.into_iter().flat_map(|g| g.unwrap().1).collect();
        for (k, (a, b)) in grad.iter().zip(&one.1).enumerate() {
            assert!(
                (a - b).abs() <= 1e-12 * a.abs().max(b.abs()),
                "p {p}, cell {k}: {a} vs one rank's {b}"
            );
        }
    }
}

#[test]
fn the_final_state_is_the_one_rank_state_bit_for_bit() {
    // the objective adds the ranks' parts in rank order; adding the one-rank final state's
    // squares block by block in the same order gives the same bits
    let (n, steps, r) = (17, 25, 0.3);
    let u0 = initial(n);
    let whole_final = {
        let mut u = u0.clone();
        for _ in 0..steps {
            let old = u.clone();
            for i in 0..n {
                let left = if i > 0 { old[i - 1] } else { 0.0 };
                let right = if i + 1 < n { old[i + 1] } else { 0.0 };
                u[i] = -0.0 + (old[i] + r * (left - 2.0 * old[i] + right));
            }
        }
        u
    };
    for p in [1, 2, 3] {
        let blocked: f64 = (0..p)
            .map(|rank| {
                let cells = nilang_mpi::shard_range(n, rank, p);
                whole_final[cells].iter().fold(0.0, |s, x| s + x * x)
            })
            .fold(0.0, |s, part| s + part);
        let f = ThreadComm::run(p, |c| HeatShard::of(&u0, steps, r, c).objective(c));
        for f in f {
            assert_eq!(f.unwrap().to_bits(), blocked.to_bits(), "p {p}");
        }
    }
}

#[test]
fn more_ranks_than_cells_is_an_error_on_every_rank() {
    let r = ThreadComm::run(3, |c| HeatShard::of(&[1.0, 2.0], 3, 0.25, c).objective(c));
    for e in r {
        assert_eq!(
            e,
            Err("rank 2: no cell on this rank: 2 cells over 3 ranks".to_string())
        );
    }
}

#[test]
fn a_halo_exchange_moves_w_values_to_each_neighbour() {
    use nilang_mpi::Counted;
    let (own, w) = (4, 2);
    let counts = ThreadComm::run(3, |c| {
        let counted = Counted::new(c);
        let mut v = slice(c.rank(), own, w, (3, 0), 0.0);
        halo_add_only(&mut v, w, &counted);
        (counted.sent(), counted.received(), counted.calls())
    });
    // the middle rank sends w values each way and receives as many; the ends one side only
    let one_side = 8 * w as u64;
    assert_eq!(
        counts,
        [
            (one_side, one_side, 1),
            (2 * one_side, 2 * one_side, 1),
            (one_side, one_side, 1)
        ]
    );
}
