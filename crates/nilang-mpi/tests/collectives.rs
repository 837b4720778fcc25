//! The reversible collectives on ranks as threads: forward, inverse (`uncall(call(x)) == x`),
//! adjoint against central differences, and bad input.

use nilang::{i, Real};
use nilang_mpi::{allreduce_add, allreduce_add_slice, root_seed, Comm, ThreadComm};

/// `z += (Σ_ranks x²)² + Σ_ranks sin(x)·v` with per-rank `x`, and `v` a replicated vector
/// statement: a nonlinear use of each replicated sum, so the adjoint has to move gradients
/// through both collectives and back into every rank's `x`.
#[i]
fn program<T: Real>(
    z: &mut T,
    y: &mut T,
    x2: &mut T,
    x: &mut T,
    s: &mut [T],
    sx: &mut [T],
    comm: &dyn Comm,
) {
    x2 += square(x);
    allreduce_add(y, x2, comm);
    z += square(y);
    sx[0] += sin(x);
    sx[1] += x * x2;
    allreduce_add_slice(s, sx, comm);
    z += s[0] * s[1];
}

/// The state of one rank: `x = 0.3 + 0.7·rank` (plus `dx` on rank `at`), everything else 0.
fn state(rank: usize, at: usize, dx: f64) -> (f64, f64, f64, f64, Vec<f64>, Vec<f64>) {
    let x = 0.3 + 0.7 * rank as f64 + if rank == at { dx } else { 0.0 };
    (0.0, 0.0, 0.0, x, vec![0.0; 2], vec![0.0; 2])
}

/// `z` with `x` on rank `at` moved by `dx`, on `p` ranks (the same on every rank).
fn z_of(p: usize, at: usize, dx: f64) -> f64 {
    let zs = ThreadComm::run(p, |c| {
        let (mut z, mut y, mut x2, mut x, mut s, mut sx) = state(c.rank(), at, dx);
        program(&mut z, &mut y, &mut x2, &mut x, &mut s, &mut sx, c);
        z
    });
    assert!(zs.iter().all(|z| z.to_bits() == zs[0].to_bits()));
    zs[0]
}

#[test]
fn forward_gives_every_rank_the_rank_ordered_sum() {
    for p in [1, 2, 4] {
        let z = z_of(p, 0, 0.0);
        // the same sums in plain Rust, in rank order
        let xs: Vec<f64> = (0..p).map(|r| 0.3 + 0.7 * r as f64).collect();
        let y: f64 = xs.iter().map(|x| x * x).fold(0.0, |a, b| a + b);
        let s0: f64 = xs.iter().map(|x| x.sin()).fold(0.0, |a, b| a + b);
        let s1: f64 = xs.iter().map(|x| x * (x * x)).fold(0.0, |a, b| a + b);
        assert_eq!(z, y * y + s0 * s1, "{p} ranks");
    }
}

#[test]
fn inverse_undoes_the_forward() {
    for p in [1, 2, 4] {
        let back = ThreadComm::run(p, |c| {
            let start = state(c.rank(), 0, 0.0);
            let (mut z, mut y, mut x2, mut x, mut s, mut sx) = start.clone();
            program(&mut z, &mut y, &mut x2, &mut x, &mut s, &mut sx, c);
            let z_forward = z;
            program_inv(&mut z, &mut y, &mut x2, &mut x, &mut s, &mut sx, c);
            (z_forward, (z, y, x2, x, s, sx), start)
        });
        for (z_forward, after, start) in back {
            // every place the collectives write is back to its bits; `z` took `z += a`,
            // `z += b`, `z −= b`, `z −= a`: ordinary instructions, within round-off of 0
            assert_eq!(
                (after.1, after.2, after.3),
                (start.1, start.2, start.3),
                "{p} ranks"
            );
            assert_eq!((&after.4, &after.5), (&start.4, &start.5), "{p} ranks");
            assert!(
                after.0.abs() <= 4.0 * f64::EPSILON * z_forward.abs(),
                "{p} ranks"
            );
        }
    }
}

#[test]
fn adjoint_matches_central_differences() {
    for p in [1, 2, 4] {
        let grads = ThreadComm::run(p, |c| {
            let (mut z, mut y, mut x2, mut x, mut s, mut sx) = state(c.rank(), 0, 0.0);
            let (mut zg, mut yg, mut x2g, mut xg) = (root_seed(c), 0.0, 0.0, 0.0);
            let (mut sg, mut sxg) = (vec![0.0; 2], vec![0.0; 2]);
            program_vjp(
                &mut z,
                &mut zg,
                &mut y,
                &mut yg,
                &mut x2,
                &mut x2g,
                &mut x,
                &mut xg,
                &mut s,
                &mut sg,
                &mut sx,
                &mut sxg,
                c,
                (),
            );
            xg
        });
        let h = 1e-6;
        for (rank, g) in grads.iter().enumerate() {
            let fd = (z_of(p, rank, h) - z_of(p, rank, -h)) / (2.0 * h);
            assert!(
                (g - fd).abs() <= 1e-7 * fd.abs().max(1.0),
                "{p} ranks, rank {rank}: adjoint {g}, central difference {fd}"
            );
        }
    }
}

#[test]
fn seeding_every_rank_counts_the_objective_once_per_rank() {
    // each copy of a replicated value has its own gradient: seeds of 1 on all p ranks sum to p
    let g = ThreadComm::run(4, |c| {
        let (mut y, mut yg, mut x, mut xg) = (0.0, 1.0, 2.0, 0.0);
        sum_vjp(&mut y, &mut yg, &mut x, &mut xg, c, ());
        xg
    });
    assert_eq!(g, [4.0; 4]);
}

#[i]
fn sum<T: Real>(y: &mut T, x: &mut T, comm: &dyn Comm) {
    allreduce_add(y, x, comm);
}

#[i]
fn sum_slices<T: Real>(y: &mut [T], x: &mut [T], comm: &dyn Comm) {
    allreduce_add_slice(y, x, comm);
}

/// The message of the panic `f` raises.
fn panic_message(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let e = std::panic::catch_unwind(f).expect_err("expected a panic");
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn ranks_with_slices_of_other_lengths_all_stop_with_the_lengths() {
    let msg = panic_message(|| {
        ThreadComm::run(3, |c| {
            let n = if c.rank() == 2 { 3 } else { 2 };
            sum_slices(&mut vec![0.0; n], &mut vec![1.0; n], c);
        });
    });
    assert!(
        msg.contains("every rank must pass 2 values") && msg.contains("[2, 2, 3]"),
        "{msg}"
    );
}

#[test]
fn y_and_x_of_other_lengths_are_refused() {
    let msg = panic_message(|| {
        ThreadComm::run(1, |c| sum_slices(&mut [0.0; 2], &mut [1.0; 3], c));
    });
    assert!(msg.contains("y (2 values) and x (3 values)"), "{msg}");
}

#[test]
fn a_rank_that_panics_stops_the_others_instead_of_a_hang() {
    let msg = panic_message(|| {
        ThreadComm::run(4, |c| {
            if c.rank() == 3 {
                panic!("rank 3 found no data");
            }
            sum(&mut 0.0, &mut 1.0, c);
        });
    });
    assert_eq!(msg, "rank 3 found no data");
}

#[test]
fn a_rank_that_returns_while_others_wait_stops_them() {
    let msg = panic_message(|| {
        ThreadComm::run(2, |c| {
            if c.rank() == 0 {
                sum(&mut 0.0, &mut 1.0, c);
            }
        });
    });
    assert_eq!(
        msg,
        "ThreadComm: rank 0 waited in a collective that rank 1 never joined: it returned"
    );
}

#[cfg(not(feature = "mpi"))]
#[test]
fn without_the_feature_mpi_is_an_error_that_says_how_to_get_it() {
    let e = nilang_mpi::MpiComm::init()
        .err()
        .expect("no MPI in this build");
    assert_eq!(e, nilang_mpi::WITHOUT_MPI);
    assert!(e.contains("--features mpi") && e.contains("libopenmpi-dev"));
}

/// `z += (Σ_ranks x)²·x` with the sum in an ancilla computed and uncomputed around its use:
/// the gradient's reverse sweep recomputes the routine, which runs the collective's
/// `adjoint_inv` with the nonzero gradient the use left on the ancilla.
#[i]
fn squared_sum_times_x<T: Real>(z: &mut T, x: &mut T, comm: &dyn Comm) {
    let y = T::zero();
    routine! {
        allreduce_add(y, x, comm);
    }
    expand! {
        z += square(y) * x;
    }
    uncompute!();
    dealloc!(y = T::zero());
}

#[test]
fn adjoint_inv_inside_an_uncomputed_routine_matches_central_differences() {
    let x_of =
        |rank: usize, at: usize, dx: f64| 0.5 + rank as f64 + if rank == at { dx } else { 0.0 };
    let z_of = |p: usize, at: usize, dx: f64| {
        ThreadComm::run(p, |c| {
            let (mut z, mut x) = (0.0, x_of(c.rank(), at, dx));
            squared_sum_times_x(&mut z, &mut x, c);
            z
        })
    };
    for p in [1, 2, 4] {
        let grads = ThreadComm::run(p, |c| {
            let (mut z, mut x) = (0.0, x_of(c.rank(), p, 0.0));
            let (mut zg, mut xg) = (1.0, 0.0);
            squared_sum_times_x_vjp(&mut z, &mut zg, &mut x, &mut xg, c, ());
            (xg, x)
        });
        let h = 1e-6;
        for (rank, (g, x)) in grads.iter().enumerate() {
            assert_eq!(*x, x_of(rank, p, 0.0), "x is restored");
            // objective Σ_ranks z_r, each rank seeded with 1
            let total = |dx: f64| z_of(p, rank, dx).iter().sum::<f64>();
            let fd = (total(h) - total(-h)) / (2.0 * h);
            assert!(
                (g - fd).abs() <= 1e-7 * fd.abs().max(1.0),
                "{p} ranks, rank {rank}: adjoint {g}, central difference {fd}"
            );
        }
    }
}

#[test]
fn split_and_gathered_sums_add_every_element_in_rank_order() {
    // values whose sums depend on the order of additions
    let value = |rank: usize, j: usize| {
        ((j * 7 + rank * 13) as f64).sin() * 10f64.powi(rank as i32 * 5 - 8)
    };
    for p in [1, 2, 3, 4] {
        // below and above SPLIT_FROM_PER_RANK·p values, blocks of unequal sizes, and none
        for n in [0, 7, 64 * p - 1, 64 * p, 1001] {
            let sums = ThreadComm::run(p, |c| {
                let local: Vec<f64> = (0..n).map(|j| value(c.rank(), j)).collect();
                nilang_mpi::rank_order_sum(c, &local).unwrap()
            });
            let expected: Vec<f64> = (0..n)
                .map(|j| (1..p).fold(value(0, j), |s, r| s + value(r, j)))
                .collect();
            for s in sums {
                let same = s
                    .iter()
                    .zip(&expected)
                    .all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same && s.len() == n, "{p} ranks, {n} values");
            }
        }
    }
}
