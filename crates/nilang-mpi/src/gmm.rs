//! GMM sharded by points: each rank runs nilang-gradbench's reversible
//! [`gmm_objective`](nilang_gradbench::evals::gmm::gmm_objective) on its points, and one
//! [`allreduce_add`] makes the replicated objective ([`gmm_sharded`]); its generated
//! `gmm_sharded_vjp` is the gradient of the shard plus the collective's adjoint, and one
//! [`sum_over_ranks`] adds the replicated parameters' gradients ([`GmmShard::gradient`]).
//!
//! Each shard's objective is `Σ_{i in shard} LSE_i − n_s·LSE(α)`; rank 0's adds the prior
//! (the Wishart terms and the constant for all `n` points), the others' a zero prior, so the
//! shards' objectives add up to the whole objective. The sum is taken in rank order, so the
//! result is the same bits on every rank and in every run for a given number of ranks and
//! rayon pool size per rank; at one rank it is the bits of
//! [`Problem::objective`](nilang_gradbench::evals::gmm::Problem::objective). The blocked
//! reference ([`blocked_reference`]) runs the same shards one after the other in one process
//! and adds them in the same order: the distributed value and gradient equal it bit for bit.

use crate::{
    agree, all_ok, allreduce_add, check_shards, root_seed, shard_range, sum_over_ranks, Comm,
};
use nilang::{i, Acc1, Real};
use nilang_gradbench::evals::gmm::{
    gmm_objective, Buffers, ExpUnderflowing, Gradient, Params, Prior, Problem,
};

/// `out += Σ_ranks f_s(α, μ, q, l)`: each rank's shard objective into `part` (by
/// [`gmm_objective`](nilang_gradbench::evals::gmm::gmm_objective) on its points `x`, with
/// its main terms and exponentials kept in `mt` and `e`), then the replicated sum.
///
/// ```
/// use nilang_gradbench::evals::gmm::Problem;
/// use nilang_mpi::{GmmShard, ThreadComm};
///
/// let whole = Problem::random(3, 2, 10, 7);
/// let f = ThreadComm::run(2, |c| GmmShard::of(&whole, c).objective(c));
/// let one = whole.objective();
/// assert!(f.iter().all(|f| (f.as_ref().unwrap() - one).abs() <= 1e-12 * one.abs()));
/// ```
#[i(nocheck)]
#[allow(clippy::too_many_arguments)]
pub fn gmm_sharded<T: Real>(
    out: &mut T,
    part: &mut T,
    mt: &mut [T],
    e: &mut [T],
    alpha: &mut [T],
    mu: &mut [T],
    q: &mut [T],
    l: &mut [T],
    x: &[f64],
    d: usize,
    k: usize,
    prior: Prior,
    comm: &dyn Comm,
) where
    T: Acc1<ExpUnderflowing>,
{
    gmm_objective(part, mt, e, alpha, mu, q, l, x, d, k, prior);
    allreduce_add(out, part, comm);
}

/// One rank's part of a GMM problem: its points (a [`Problem`] whose `x` and `n` are the
/// shard's), the prior its shard objective carries, and the whole problem's point count.
///
/// ```
/// use nilang_gradbench::evals::gmm::Problem;
/// use nilang_mpi::GmmShard;
///
/// let whole = Problem::random(3, 2, 10, 1);
/// let (first, second) = (GmmShard::at(&whole, 0, 2), GmmShard::at(&whole, 1, 2));
/// assert_eq!((first.problem.n, second.problem.n, second.n_total), (5, 5, 10));
/// assert_eq!((first.prior, second.prior.constant), (whole.prior(), 0.0));
/// ```
#[derive(Clone, Debug)]
pub struct GmmShard {
    /// The parameters (replicated) and this rank's points.
    pub problem: Problem,
    /// The whole prior on rank 0, zero on the others.
    pub prior: Prior,
    /// Points on all ranks.
    pub n_total: usize,
}

impl GmmShard {
    /// This rank's shard of `whole` ([`shard_range`] of the points). Every rank must call it
    /// on the same problem (as when each reads the same file or draws the same seed).
    ///
    /// ```
    /// use nilang_gradbench::evals::gmm::Problem;
    /// use nilang_mpi::{GmmShard, ThreadComm};
    ///
    /// let n = ThreadComm::run(3, |c| GmmShard::of(&Problem::random(2, 2, 10, 1), c).problem.n);
    /// assert_eq!(n, [4, 3, 3]);
    /// ```
    pub fn of(whole: &Problem, comm: &dyn Comm) -> GmmShard {
        GmmShard::at(whole, comm.rank(), comm.size())
    }

    /// The shard rank `rank` of `size` holds (what [`GmmShard::of`] returns on that rank).
    ///
    /// ```
    /// use nilang_gradbench::evals::gmm::Problem;
    /// use nilang_mpi::GmmShard;
    ///
    /// let whole = Problem::random(2, 2, 10, 1);
    /// assert_eq!(GmmShard::at(&whole, 2, 3).problem.x, whole.x[7 * 2..]);
    /// ```
    pub fn at(whole: &Problem, rank: usize, size: usize) -> GmmShard {
        let points = shard_range(whole.n, rank, size);
        let mut problem = whole.clone();
        problem.x = whole.x[points.start * whole.d..points.end * whole.d].to_vec();
        problem.n = points.len();
        let full = whole.prior();
        let prior = if rank == 0 {
            full
        } else {
            Prior {
                sign: 0.0,
                constant: 0.0,
                ..full
            }
        };
        GmmShard {
            problem,
            prior,
            n_total: whole.n,
        }
    }

    /// Checks, on every rank at once, that the ranks agree on the problem's sizes and that
    /// the shards hold `n_total` points; one error on every rank otherwise.
    fn check(&self, comm: &dyn Comm) -> Result<(), String> {
        let p = &self.problem;
        let local = if p.x.len() == p.n * p.d {
            Ok(())
        } else {
            Err(format!(
                "gmm shard: x has {} values, expected n·d = {}·{}",
                p.x.len(),
                p.n,
                p.d
            ))
        };
        all_ok(comm, local)?;
        let sizes = [("d", p.d), ("k", p.k), ("the length of l", p.l.len())];
        agree(comm, &sizes.map(|(w, v)| (w, v as u64)))?;
        check_shards(comm, "points", self.n_total, p.n)
    }

    /// Working memory with the parameters copied in and every output zero.
    fn buffers(&self) -> Buffers {
        let p = &self.problem;
        let mut b = p.buffers();
        b.params = Params {
            alpha: p.alpha.clone(),
            mu: p.mu.clone(),
            q: p.q.clone(),
            l: p.l.clone(),
        };
        b
    }

    /// The objective on every rank: [`gmm_sharded`] forward.
    ///
    /// ```
    /// use nilang_gradbench::evals::gmm::Problem;
    /// use nilang_mpi::{GmmShard, ThreadComm};
    ///
    /// let whole = Problem::random(2, 3, 9, 5);
    /// let f = ThreadComm::run(1, |c| GmmShard::of(&whole, c).objective(c).unwrap());
    /// assert_eq!(f[0].to_bits(), whole.objective().to_bits()); // one rank: the same bits
    /// ```
    pub fn objective(&self, comm: &dyn Comm) -> Result<f64, String> {
        self.check(comm)?;
        let (p, mut b) = (&self.problem, self.buffers());
        let (mut out, mut part) = (0.0, 0.0);
        let w = &mut b.params;
        gmm_sharded(
            &mut out,
            &mut part,
            &mut b.mt,
            &mut b.e,
            &mut w.alpha,
            &mut w.mu,
            &mut w.q,
            &mut w.l,
            &p.x,
            p.d,
            p.k,
            self.prior,
            comm,
        );
        Ok(out)
    }

    /// The objective and its gradient on every rank: `gmm_sharded_vjp` (the objective seeded
    /// on rank 0, [`root_seed`]), then one [`sum_over_ranks`] of the parameters' gradients.
    ///
    /// ```
    /// use nilang_gradbench::evals::gmm::Problem;
    /// use nilang_mpi::{GmmShard, ThreadComm};
    ///
    /// let whole = Problem::random(2, 3, 9, 5);
    /// let g = ThreadComm::run(3, |c| GmmShard::of(&whole, c).gradient(c).unwrap().1);
    /// let one = whole.gradient().unwrap();
    /// assert!(g[2].mu.iter().zip(&one.mu).all(|(a, b)| (a - b).abs() <= 1e-12 * b.abs().max(1.0)));
    /// ```
    pub fn gradient(&self, comm: &dyn Comm) -> Result<(f64, Gradient), String> {
        self.check(comm)?;
        let (p, mut b) = (&self.problem, self.buffers());
        let mut g = p.zero_gradient();
        let (mut out, mut out_grad, mut part, mut part_grad) = (0.0, root_seed(comm), 0.0, 0.0);
        let w = &mut b.params;
        let (value, _) = gmm_sharded_vjp(
            &mut out,
            &mut out_grad,
            &mut part,
            &mut part_grad,
            &mut b.mt,
            &mut b.mt_grad,
            &mut b.e,
            &mut b.e_grad,
            &mut w.alpha,
            &mut g.alpha,
            &mut w.mu,
            &mut g.mu,
            &mut w.q,
            &mut g.q,
            &mut w.l,
            &mut g.l,
            &p.x,
            (),
            p.d,
            (),
            p.k,
            (),
            self.prior,
            (),
            comm,
            (),
        );
        let mut flat = flatten(&g);
        sum_over_ranks(comm, &mut flat)?;
        Ok((value, unflatten(&flat, &g)))
    }
}

/// The gradient's four parts in one vector (one sum instead of four).
fn flatten(g: &Gradient) -> Vec<f64> {
    [&g.alpha[..], &g.mu, &g.q, &g.l].concat()
}

/// [`flatten`]'s inverse, into the shape of `like`.
fn unflatten(flat: &[f64], like: &Gradient) -> Gradient {
    let mut rest = flat;
    let mut take = |n: usize| {
        let (a, b) = rest.split_at(n);
        rest = b;
        a.to_vec()
    };
    Params {
        alpha: take(like.alpha.len()),
        mu: take(like.mu.len()),
        q: take(like.q.len()),
        l: take(like.l.len()),
    }
}

/// The distributed result computed in one process, as `size` ranks compute it: each shard's
/// objective and gradient ([`GmmShard::at`], by nilang-gradbench's own
/// [`Problem::objective`](nilang_gradbench::evals::gmm::Problem::objective)'s program and
/// `gmm_objective_vjp`), added in rank order from zero. [`GmmShard::objective`] and
/// [`GmmShard::gradient`] on `size` ranks give these bits (on rayon pools of one size).
///
/// ```
/// use nilang_gradbench::evals::gmm::Problem;
/// use nilang_mpi::{blocked_reference, GmmShard, ThreadComm};
///
/// let whole = Problem::random(2, 3, 9, 5);
/// let (f, g) = blocked_reference(&whole, 2);
/// let dist = ThreadComm::run(2, |c| GmmShard::of(&whole, c).gradient(c).unwrap());
/// assert!(dist.iter().all(|(df, dg)| df.to_bits() == f.to_bits() && dg == &g));
/// ```
pub fn blocked_reference(whole: &Problem, size: usize) -> (f64, Gradient) {
    let shards = (0..size).map(|rank| GmmShard::at(whole, rank, size).local_gradient());
    let (mut f, mut g) = (None::<f64>, None::<Vec<f64>>);
    for (fs, gs) in shards {
        let gs = flatten(&gs);
        f = Some(f.map_or(fs, |s| s + fs));
        g = Some(g.map_or(gs.clone(), |s| {
            s.iter().zip(&gs).map(|(a, b)| a + b).collect()
        }));
    }
    let zero = whole.zero_gradient();
    // `allreduce_add` adds the sum to `out = 0`; `sum_over_ranks` replaces the gradient
    let f = 0.0 + f.expect("blocked_reference: at least one rank");
    (f, unflatten(&g.expect("at least one rank"), &zero))
}

impl GmmShard {
    /// This shard's objective and gradient alone, by nilang-gradbench's `gmm_objective_vjp`
    /// (no collective).
    fn local_gradient(&self) -> (f64, Gradient) {
        let (p, mut b) = (&self.problem, self.buffers());
        let mut g = p.zero_gradient();
        let (mut out, mut out_grad) = (0.0, 1.0);
        let w = &mut b.params;
        let f = nilang_gradbench::evals::gmm::gmm_objective_vjp(
            &mut out,
            &mut out_grad,
            &mut b.mt,
            &mut b.mt_grad,
            &mut b.e,
            &mut b.e_grad,
            &mut w.alpha,
            &mut g.alpha,
            &mut w.mu,
            &mut g.mu,
            &mut w.q,
            &mut g.q,
            &mut w.l,
            &mut g.l,
            &p.x,
            (),
            p.d,
            (),
            p.k,
            (),
            self.prior,
            (),
        );
        (f, g)
    }
}
