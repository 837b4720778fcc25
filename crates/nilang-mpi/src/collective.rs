//! The reversible collectives, statements of `#[i]` code ([`allreduce_add`],
//! [`allreduce_add_slice`]: user instructions, decision 0036), and the two plain steps around
//! a distributed gradient: the seed of a replicated output ([`root_seed`]) and the sum of the
//! replicated parameters' gradients ([`sum_over_ranks`]).
//!
//! Every sum is [`rank_order_sum`]: rank 0's value plus rank 1's, and so on, the same bits on
//! every rank. One sum per statement run: the adjoint sums the values and the gradients
//! together.

use crate::{rank_order_sum, Comm};
use nilang::instruction;

/// `y += Σ_ranks x`: adds every rank's `x` (in rank order) to the replicated `y` on every
/// rank. Its inverse (`uncall!`) subtracts the same sum; its adjoint undoes the value and adds
/// the sum over ranks of `y`'s gradient to `x`'s gradient (the gradient of each rank's copy of
/// `y` is its own: seed a replicated objective on one rank, [`root_seed`]).
///
/// Every rank must run it (a collective); a rank in a different state (another statement,
/// slices of other lengths) makes every rank panic with the lengths found.
///
/// ```
/// use nilang::{i, Real};
/// use nilang_mpi::{allreduce_add, Comm, ThreadComm};
///
/// /// y += Σ_ranks x²
/// #[i]
/// fn total<T: Real>(y: &mut T, x2: &mut T, x: &mut T, comm: &dyn Comm) {
///     x2 += square(x);
///     allreduce_add(y, x2, comm);
/// }
/// let ys = ThreadComm::run(3, |c| {
///     let (mut y, mut x2, mut x) = (0.0, 0.0, 1.0 + c.rank() as f64);
///     total(&mut y, &mut x2, &mut x, c);
///     let y_after = y;
///     total_inv(&mut y, &mut x2, &mut x, c);
///     (y_after, y, x2)
/// });
/// assert!(ys.iter().all(|&r| r == (14.0, 0.0, 0.0)));
/// ```
#[instruction(
    inverse = allreduce_sub,
    adjoint = allreduce_add_adjoint,
    adjoint_inv = allreduce_add_adjoint_inv
)]
pub fn allreduce_add(y: &mut f64, x: &mut f64, comm: &dyn Comm) {
    add_sums(std::slice::from_mut(y), std::slice::from_ref(x), comm, true);
}

fn allreduce_sub(y: &mut f64, x: &mut f64, comm: &dyn Comm) {
    add_sums(
        std::slice::from_mut(y),
        std::slice::from_ref(x),
        comm,
        false,
    );
}

fn allreduce_add_adjoint(
    y: &mut f64,
    y_grad: &mut f64,
    x: &mut f64,
    x_grad: &mut f64,
    comm: &dyn Comm,
    _: (),
) {
    let one = std::slice::from_mut;
    adjoint_step(one(y), one(y_grad), one(x), one(x_grad), comm, false);
}

fn allreduce_add_adjoint_inv(
    y: &mut f64,
    y_grad: &mut f64,
    x: &mut f64,
    x_grad: &mut f64,
    comm: &dyn Comm,
    _: (),
) {
    let one = std::slice::from_mut;
    adjoint_step(one(y), one(y_grad), one(x), one(x_grad), comm, true);
}

/// `y[j] += Σ_ranks x[j]` for every `j` ([`allreduce_add`] element by element, one
/// collective for the whole slice); `y` and `x` have one length, the same on every rank.
///
/// ```
/// use nilang::{i, Real};
/// use nilang_mpi::{allreduce_add_slice, Comm, ThreadComm};
///
/// #[i]
/// fn gather_sum<T: Real>(y: &mut [T], x: &mut [T], comm: &dyn Comm) {
///     allreduce_add_slice(y, x, comm);
/// }
/// let ys = ThreadComm::run(2, |c| {
///     let (mut y, mut x) = (vec![0.5, 0.0], vec![1.0, c.rank() as f64]);
///     gather_sum(&mut y, &mut x, c);
///     y
/// });
/// assert!(ys.iter().all(|y| y == &[2.5, 1.0]));
/// ```
#[instruction(
    inverse = allreduce_sub_slice,
    adjoint = allreduce_add_slice_adjoint,
    adjoint_inv = allreduce_add_slice_adjoint_inv
)]
pub fn allreduce_add_slice(y: &mut [f64], x: &mut [f64], comm: &dyn Comm) {
    add_sums(y, x, comm, true);
}

fn allreduce_sub_slice(y: &mut [f64], x: &mut [f64], comm: &dyn Comm) {
    add_sums(y, x, comm, false);
}

fn allreduce_add_slice_adjoint(
    y: &mut [f64],
    y_grad: &mut [f64],
    x: &mut [f64],
    x_grad: &mut [f64],
    comm: &dyn Comm,
    _: (),
) {
    adjoint_step(y, y_grad, x, x_grad, comm, false);
}

fn allreduce_add_slice_adjoint_inv(
    y: &mut [f64],
    y_grad: &mut [f64],
    x: &mut [f64],
    x_grad: &mut [f64],
    comm: &dyn Comm,
    _: (),
) {
    adjoint_step(y, y_grad, x, x_grad, comm, true);
}

/// The sums over ranks of `local`, or a panic naming the statement and the ranks' lengths
/// (inside an instruction there is no error to return; every rank panics alike).
fn sums(comm: &dyn Comm, local: &[f64], what: &str) -> Vec<f64> {
    rank_order_sum(comm, local).unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// Panics unless `y` and `x` have one length.
fn same_length(y: usize, x: usize) {
    assert_eq!(
        y, x,
        "allreduce_add: y ({y} values) and x ({x} values) must have one length"
    );
}

/// `y += Σ x` (`add`) or `y −= Σ x`.
fn add_sums(y: &mut [f64], x: &[f64], comm: &dyn Comm, add: bool) {
    same_length(y.len(), x.len());
    let s = sums(comm, x, "allreduce_add");
    for (y, s) in y.iter_mut().zip(s) {
        if add {
            *y += s;
        } else {
            *y -= s;
        }
    }
}

/// The adjoint (`redo` false: `y −= Σ x`, `x̄ += Σ ȳ`) or its inverse (`redo`: `y += Σ x`,
/// `x̄ −= Σ ȳ`), with the values and the gradients in one sum.
fn adjoint_step(
    y: &mut [f64],
    y_grad: &mut [f64],
    x: &mut [f64],
    x_grad: &mut [f64],
    comm: &dyn Comm,
    redo: bool,
) {
    let n = x.len();
    same_length(y.len(), n);
    let both: Vec<f64> = x.iter().chain(y_grad.iter()).copied().collect();
    let s = sums(comm, &both, "allreduce_add (adjoint)");
    let (sx, sg) = s.split_at(n);
    for ((y, x_grad), (sx, sg)) in y.iter_mut().zip(x_grad).zip(sx.iter().zip(sg)) {
        if redo {
            *y += sx;
            *x_grad -= sg;
        } else {
            *y -= sx;
            *x_grad += sg;
        }
    }
}

/// The seed of a replicated objective's gradient on this rank: 1 on rank 0, 0 elsewhere.
/// Each rank's copy of a replicated value has its own gradient ([`allreduce_add`]'s adjoint
/// sums them), so seeding every copy with 1 would count the objective once per rank.
///
/// ```
/// use nilang_mpi::{root_seed, ThreadComm};
///
/// assert_eq!(ThreadComm::run(3, |c| root_seed(c)), [1.0, 0.0, 0.0]);
/// ```
pub fn root_seed(comm: &dyn Comm) -> f64 {
    if comm.rank() == 0 {
        1.0
    } else {
        0.0
    }
}

/// Replaces `g` on every rank by its sum over ranks ([`rank_order_sum`]): the gradient of a
/// parameter every rank holds a copy of (replicated, read by each rank's shard) is the sum of
/// the copies' gradients. An error, on every rank, when the ranks' lengths differ.
///
/// ```
/// use nilang_mpi::{sum_over_ranks, ThreadComm};
///
/// let g = ThreadComm::run(2, |c| {
///     let mut g = vec![1.0, 2.0];
///     sum_over_ranks(c, &mut g).map(|_| g)
/// });
/// assert!(g.iter().all(|g| g == &Ok(vec![2.0, 4.0])));
/// ```
pub fn sum_over_ranks(comm: &dyn Comm, g: &mut [f64]) -> Result<(), String> {
    let s = rank_order_sum(comm, g)?;
    g.copy_from_slice(&s);
    Ok(())
}
