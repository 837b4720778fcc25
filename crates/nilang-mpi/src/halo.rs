//! Point-to-point: the halo exchange of a stencil split over the ranks ([`halo_add`], a
//! statement of `#[i]` code with its inverse and adjoint), and a real program built on it, the
//! explicit heat equation on a line split into blocks of cells ([`HeatShard`]).
//!
//! A rank holds its cells between two ghost cells of width `w` on each side: `[ghosts (w) |
//! own cells | ghosts (w)]`. `halo_add` adds to the left ghosts the last `w` own cells of the
//! rank to the left, and to the right ghosts the first `w` own cells of the rank to the right;
//! the outer ghosts of the first and last rank get nothing (the domain's boundary). As a
//! reversible statement its ghosts start at zero and it adds into them, so its inverse is the
//! same exchange subtracting, and its adjoint sends the ghosts' gradients back to the cells
//! they were copied from: a neighbour's message in the forward program, a message the other
//! way in the gradient, and nothing stored.

use crate::{all_ok, allreduce_add, check_shards, root_seed, shard_range, Comm};
use nilang::{i, instruction, Real};

/// `v[..w] += (left neighbour's last w own cells)` and `v[len − w..] += (right neighbour's
/// first w own cells)`, where a rank's `v` is `[ghosts (w) | own cells | ghosts (w)]` with at
/// least `w` own cells. One exchange with each neighbour (two messages of `w` values); rank 0's
/// left ghosts and the last rank's right ghosts are left as they are. Its inverse subtracts
/// the same values; its adjoint undoes the values and adds each ghost's gradient to the
/// gradient of the cell it came from, on the neighbour (the messages go the other way).
///
/// Every rank must run it with the same `w`; a rank with too few cells panics naming its
/// lengths (a statement has no error to return).
///
/// ```
/// use nilang::{i, Real};
/// use nilang_mpi::{halo_add, Comm, ThreadComm};
///
/// /// Each rank's two cells, with one ghost on each side, filled from its neighbours.
/// #[i]
/// fn fill<T: Real>(v: &mut [T], comm: &dyn Comm) {
///     halo_add(v, 1, comm);
/// }
/// let ghosts = ThreadComm::run(3, |c| {
///     let r = c.rank() as f64;
///     let mut v = vec![0.0, 10.0 * r + 1.0, 10.0 * r + 2.0, 0.0];
///     fill(&mut v, c);
///     let filled = v.clone();
///     fill_inv(&mut v, c);
///     (filled, v[0] == 0.0 && v[3] == 0.0)
/// });
/// assert_eq!(ghosts[0].0, [0.0, 1.0, 2.0, 11.0]);
/// assert_eq!(ghosts[1].0, [2.0, 11.0, 12.0, 21.0]);
/// assert_eq!(ghosts[2].0, [12.0, 21.0, 22.0, 0.0]);
/// assert!(ghosts.iter().all(|g| g.1)); // the inverse empties the ghosts again
/// ```
#[instruction(
    inverse = halo_sub,
    adjoint = halo_add_adjoint,
    adjoint_inv = halo_add_adjoint_inv
)]
pub fn halo_add(v: &mut [f64], w: usize, comm: &dyn Comm) {
    exchange_values(v, w, comm, 1.0);
}

fn halo_sub(v: &mut [f64], w: usize, comm: &dyn Comm) {
    exchange_values(v, w, comm, -1.0);
}

fn halo_add_adjoint(v: &mut [f64], v_grad: &mut [f64], w: usize, _: (), comm: &dyn Comm, _: ()) {
    adjoint_step(v, v_grad, w, comm, -1.0);
}

fn halo_add_adjoint_inv(
    v: &mut [f64],
    v_grad: &mut [f64],
    w: usize,
    _: (),
    comm: &dyn Comm,
    _: (),
) {
    adjoint_step(v, v_grad, w, comm, 1.0);
}

/// The cells of `v` this rank sends (its first and last `w` own cells) and the ghosts it
/// fills, as ranges; a panic naming the lengths when `v` holds fewer than `w` own cells.
struct Layout {
    first_own: std::ops::Range<usize>,
    last_own: std::ops::Range<usize>,
    left_ghosts: std::ops::Range<usize>,
    right_ghosts: std::ops::Range<usize>,
}

impl Layout {
    fn of(len: usize, w: usize) -> Layout {
        assert!(
            w > 0 && len >= 3 * w,
            "halo_add: a rank's slice is [ghosts (w) | own cells (at least w) | ghosts (w)], \
             but it has {len} values for w = {w}"
        );
        Layout {
            first_own: w..2 * w,
            last_own: len - 2 * w..len - w,
            left_ghosts: 0..w,
            right_ghosts: len - w..len,
        }
    }
}

/// Sends `to_left` to rank − 1 and `to_right` to rank + 1 (where they exist) and returns what
/// the left and right neighbours sent this rank (empty at the domain's ends):
/// [`Comm::neighbours_u64`] of the values' bits.
fn neighbour_exchange(comm: &dyn Comm, to_left: &[f64], to_right: &[f64]) -> [Vec<f64>; 2] {
    let bits = |v: &[f64]| -> Vec<u64> { v.iter().map(|x| x.to_bits()).collect() };
    comm.neighbours_u64(&bits(to_left), &bits(to_right))
        .map(|m| m.into_iter().map(f64::from_bits).collect())
}

/// Adds `sign ×` the received values into the ghosts they fill.
fn add_into(v: &mut [f64], ghosts: std::ops::Range<usize>, received: &[f64], sign: f64) {
    if received.is_empty() {
        return;
    }
    assert_eq!(
        received.len(),
        ghosts.len(),
        "halo_add: a neighbour sent {} values for {} ghosts (every rank must pass the same w)",
        received.len(),
        ghosts.len()
    );
    for (g, x) in v[ghosts].iter_mut().zip(received) {
        *g += sign * x;
    }
}

/// The forward exchange (`sign` 1) or its inverse (−1).
fn exchange_values(v: &mut [f64], w: usize, comm: &dyn Comm, sign: f64) {
    let at = Layout::of(v.len(), w);
    let [from_left, from_right] =
        neighbour_exchange(comm, &v[at.first_own.clone()], &v[at.last_own.clone()]);
    add_into(v, at.left_ghosts, &from_left, sign);
    add_into(v, at.right_ghosts, &from_right, sign);
}

/// The adjoint (`sign` −1: the values undone, each ghost's gradient added to its source
/// cell's) or its inverse (1), the values and the gradients in one exchange: to the left go
/// this rank's first own cells and its left ghosts' gradients, to the right its last own cells
/// and its right ghosts' gradients.
fn adjoint_step(v: &mut [f64], v_grad: &mut [f64], w: usize, comm: &dyn Comm, sign: f64) {
    assert_eq!(
        v.len(),
        v_grad.len(),
        "halo_add: the gradient has {} values for {}",
        v_grad.len(),
        v.len()
    );
    let at = Layout::of(v.len(), w);
    let to_left = [&v[at.first_own.clone()], &v_grad[at.left_ghosts.clone()]].concat();
    let to_right = [&v[at.last_own.clone()], &v_grad[at.right_ghosts.clone()]].concat();
    let [from_left, from_right] = neighbour_exchange(comm, &to_left, &to_right);
    // from the left: its last own cells (values of my left ghosts) and its right ghosts'
    // gradients (which came from my first own cells); from the right, the mirror
    let split = |m: &[f64]| -> (Vec<f64>, Vec<f64>) {
        if m.is_empty() {
            return (Vec::new(), Vec::new());
        }
        (m[..m.len() / 2].to_vec(), m[m.len() / 2..].to_vec())
    };
    let (left_values, left_grads) = split(&from_left);
    let (right_values, right_grads) = split(&from_right);
    add_into(v, at.left_ghosts, &left_values, sign);
    add_into(v, at.right_ghosts, &right_values, sign);
    add_into(v_grad, at.first_own, &left_grads, -sign);
    add_into(v_grad, at.last_own, &right_grads, -sign);
}

/// `out += Σ_ranks Σ_own u_T²`: `steps` explicit Euler steps of the heat equation
/// `u_t = u_xx` (`u[i] += r·(u[i−1] − 2u[i] + u[i+1])`, `r = Δt/Δx²`) on this rank's `m`
/// cells, with zero at the domain's ends. `u` keeps the trajectory, `steps + 1` rows of
/// `m + 2` values (a ghost on each side of the own cells): row 0 is the initial state (its
/// ghosts zero); each step fills row `s`'s ghosts from the neighbours ([`halo_add`]), computes
/// row `s + 1`'s own cells from it, and empties the ghosts again. `part` receives this rank's
/// sum, `out` the replicated one.
///
/// ```
/// use nilang_mpi::{HeatShard, ThreadComm};
///
/// let u0: Vec<f64> = (0..12).map(|i| (i as f64 * 0.5).sin()).collect();
/// let one = ThreadComm::run(1, |c| HeatShard::of(&u0, 5, 0.25, c).objective(c))[0].clone();
/// let three = ThreadComm::run(3, |c| HeatShard::of(&u0, 5, 0.25, c).objective(c));
/// let one = one.unwrap();
/// assert!(three.iter().all(|f| (f.as_ref().unwrap() - one).abs() <= 1e-14 * one));
/// ```
#[i]
pub fn heat_sharded<T: Real>(
    out: &mut T,
    part: &mut T,
    u: &mut [T],
    m: usize,
    steps: usize,
    r: f64,
    comm: &dyn Comm,
) {
    let w = m + 2;
    for s in 0..steps {
        routine! {
            halo_add(u[s * w..(s + 1) * w], 1, comm);
        }
        for i in 1..m + 1 {
            expand! {
                u[(s + 1) * w + i] += u[s * w + i] + r * (u[s * w + i - 1] - 2.0 * u[s * w + i] + u[s * w + i + 1]);
            }
        }
        uncompute!();
    }
    for i in 1..m + 1 {
        part += square(u[steps * w + i]);
    }
    allreduce_add(out, part, comm);
    dealloc!(w = m + 2);
}

/// One rank's block of a heat-equation problem: its cells' initial values and the problem's
/// sizes ([`heat_sharded`]).
///
/// ```
/// use nilang_mpi::{HeatShard, ThreadComm};
///
/// // ∂(Σ u_T²)/∂u₀ on two ranks, each holding the gradient of its own cells
/// let u0 = [0.0, 1.0, 2.0, 1.0, 0.0];
/// let g = ThreadComm::run(2, |c| HeatShard::of(&u0, 3, 0.25, c).gradient(c).unwrap().1);
/// let one = ThreadComm::run(1, |c| HeatShard::of(&u0, 3, 0.25, c).gradient(c).unwrap().1);
/// let g = g.concat();
/// assert!(g.iter().zip(&one[0]).all(|(a, b)| (a - b).abs() <= 1e-12 * b.abs().max(1.0)));
/// ```
#[derive(Clone, Debug)]
pub struct HeatShard {
    /// This rank's initial values ([`shard_range`] of the cells).
    pub u0: Vec<f64>,
    /// Cells on all ranks.
    pub n_total: usize,
    /// Time steps.
    pub steps: usize,
    /// `Δt/Δx²` (the scheme is stable for `r ≤ 1/2`).
    pub r: f64,
}

impl HeatShard {
    /// This rank's block of the initial state `u0` (every rank passes the whole state, as when
    /// each reads the same file).
    ///
    /// ```
    /// use nilang_mpi::{HeatShard, ThreadComm};
    ///
    /// let cells = ThreadComm::run(2, |c| HeatShard::of(&[1.0, 2.0, 3.0], 1, 0.5, c).u0);
    /// assert_eq!(cells, [vec![1.0, 2.0], vec![3.0]]);
    /// ```
    pub fn of(u0: &[f64], steps: usize, r: f64, comm: &dyn Comm) -> HeatShard {
        let cells = shard_range(u0.len(), comm.rank(), comm.size());
        HeatShard {
            u0: u0[cells].to_vec(),
            n_total: u0.len(),
            steps,
            r,
        }
    }

    /// The trajectory buffer: row 0 the initial state between zero ghosts, the others zero.
    fn trajectory(&self) -> Vec<f64> {
        let w = self.u0.len() + 2;
        let mut u = vec![0.0; (self.steps + 1) * w];
        u[1..w - 1].copy_from_slice(&self.u0);
        u
    }

    /// Checks, on every rank together, that the shards hold the problem's cells and that each
    /// has at least one cell (a halo of width 1 needs one own cell to send).
    fn check(&self, comm: &dyn Comm) -> Result<(), String> {
        check_shards(comm, "cells", self.n_total, self.u0.len())?;
        let own = if self.u0.is_empty() {
            Err(format!(
                "no cell on this rank: {} cells over {} ranks",
                self.n_total,
                comm.size()
            ))
        } else {
            Ok(())
        };
        all_ok(comm, own)
    }

    /// `Σ u_T²` over all cells, the same bits on every rank (added in rank order).
    pub fn objective(&self, comm: &dyn Comm) -> Result<f64, String> {
        self.check(comm)?;
        let (mut out, mut part, mut u) = (0.0, 0.0, self.trajectory());
        heat_sharded(
            &mut out,
            &mut part,
            &mut u,
            self.u0.len(),
            self.steps,
            self.r,
            comm,
        );
        Ok(out)
    }

    /// The objective and its gradient with respect to this rank's initial cells, by the
    /// generated `heat_sharded_vjp`: the shard's adjoint, with the halo exchanges' adjoints
    /// sending the ghosts' gradients back to their neighbours.
    pub fn gradient(&self, comm: &dyn Comm) -> Result<(f64, Vec<f64>), String> {
        self.check(comm)?;
        let m = self.u0.len();
        let (mut out, mut part, mut u) = (0.0, 0.0, self.trajectory());
        let (mut out_g, mut part_g, mut u_g) = (root_seed(comm), 0.0, vec![0.0; u.len()]);
        let (value, _) = heat_sharded_vjp(
            &mut out,
            &mut out_g,
            &mut part,
            &mut part_g,
            &mut u,
            &mut u_g,
            m,
            (),
            self.steps,
            (),
            self.r,
            (),
            comm,
            (),
        );
        Ok((value, u_g[1..m + 1].to_vec()))
    }
}
