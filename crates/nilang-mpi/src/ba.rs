//! BA's Jacobian sharded by observations: each rank runs nilang-gradbench's
//! [`Problem::jacobian_into`](nilang_gradbench::evals::ba::Problem::jacobian_into) (rows by
//! reversal) on its observations, and the row blocks are gathered in rank order
//! ([`BaShard::jacobian`]). The Jacobian's rows are disjoint, so no sum is needed (a gather,
//! not a reduction: docs/scaling.md): the result is the single-process Jacobian bit for bit,
//! at every number of ranks.

use crate::{agree, all_ok, check_shards, shard_range, Comm};
use nilang_gradbench::evals::ba::{Csr, Problem, NCAM};

/// One rank's part of a BA problem: every camera and point (replicated), its observations
/// with their weights and features, and where they start among all observations.
///
/// ```
/// use nilang_gradbench::evals::ba::Problem;
/// use nilang_mpi::BaShard;
///
/// let whole = Problem::random(3, 5, 10, 1);
/// let s = BaShard::at(&whole, 1, 2);
/// assert_eq!((s.problem.cams.len(), &s.problem.w[..], s.first), (3, &whole.w[5..], 5));
/// ```
#[derive(Clone, Debug)]
pub struct BaShard {
    /// The cameras, points and this rank's observations.
    pub problem: Problem,
    /// The index of this rank's first observation.
    pub first: usize,
    /// Observations on all ranks.
    pub p_total: usize,
}

/// A block of CSR rows: each row's length, then all their columns and values.
struct Rows {
    lens: Vec<u64>,
    cols: Vec<u64>,
    vals: Vec<f64>,
}

impl BaShard {
    /// The shard rank `rank` of `size` holds ([`shard_range`] of the observations).
    ///
    /// ```
    /// use nilang_gradbench::evals::ba::Problem;
    /// use nilang_mpi::BaShard;
    ///
    /// let s = BaShard::at(&Problem::random(3, 5, 10, 1), 1, 2);
    /// assert_eq!((s.first, s.problem.obs.len(), s.p_total), (5, 5, 10));
    /// ```
    pub fn at(whole: &Problem, rank: usize, size: usize) -> BaShard {
        let obs = shard_range(whole.obs.len(), rank, size);
        let mut problem = whole.clone();
        problem.w = whole.w[obs.clone()].to_vec();
        problem.obs = whole.obs[obs.clone()].to_vec();
        problem.feats = whole.feats[obs.clone()].to_vec();
        BaShard {
            problem,
            first: obs.start,
            p_total: whole.obs.len(),
        }
    }

    /// This rank's shard of `whole` ([`BaShard::at`] at this rank).
    ///
    /// ```
    /// use nilang_gradbench::evals::ba::Problem;
    /// use nilang_mpi::{BaShard, ThreadComm};
    ///
    /// let whole = Problem::random(3, 5, 10, 1);
    /// let firsts = ThreadComm::run(3, |c| BaShard::of(&whole, c).first);
    /// assert_eq!(firsts, [0, 4, 7]);
    /// ```
    pub fn of(whole: &Problem, comm: &dyn Comm) -> BaShard {
        BaShard::at(whole, comm.rank(), comm.size())
    }

    /// The whole Jacobian on every rank: this shard's rows by
    /// [`Problem::jacobian_into`](nilang_gradbench::evals::ba::Problem::jacobian_into), its
    /// weight columns moved to the shard's place, then the reprojection rows of every rank
    /// and the weight rows of every rank, gathered in rank order (the single-process layout).
    ///
    /// ```
    /// use nilang_gradbench::evals::ba::Problem;
    /// use nilang_mpi::{BaShard, ThreadComm};
    ///
    /// let whole = Problem::random(3, 5, 10, 1);
    /// let j = ThreadComm::run(3, |c| BaShard::of(&whole, c).jacobian(c).unwrap());
    /// assert_eq!(j[1], whole.jacobian().unwrap()); // bit for bit
    /// ```
    pub fn jacobian(&self, comm: &dyn Comm) -> Result<Csr, String> {
        let p = &self.problem;
        let local = if p.w.len() == p.obs.len() && p.feats.len() == p.obs.len() {
            Ok(())
        } else {
            Err(format!(
                "ba shard: {} observations but {} weights and {} features",
                p.obs.len(),
                p.w.len(),
                p.feats.len()
            ))
        };
        all_ok(comm, local)?;
        let sizes = [("cameras", p.cams.len()), ("points", p.x.len())];
        agree(comm, &sizes.map(|(w, v)| (w, v as u64)))?;
        check_shards(comm, "observations", self.p_total, p.obs.len())?;
        let mut local = Csr::default();
        p.jacobian_into(&mut local);
        let (reproj, weight) = self.split(&local);
        let (reproj, weight) = (gather(comm, reproj), gather(comm, weight));
        Ok(assemble(
            NCAM * p.cams.len() + 3 * p.x.len() + self.p_total,
            [reproj, weight],
        ))
    }

    /// The shard's Jacobian as its two blocks of rows (the `2p` reprojection rows, the `p`
    /// weight rows), with the weight columns made global (`+ first`).
    fn split(&self, j: &Csr) -> (Rows, Rows) {
        let w_col = (NCAM * self.problem.cams.len() + 3 * self.problem.x.len()) as u64;
        let global = |c: &usize| {
            let c = *c as u64;
            if c >= w_col {
                c + self.first as u64
            } else {
                c
            }
        };
        let block = |rows: std::ops::Range<usize>| {
            let (a, b) = (j.rows[rows.start], j.rows[rows.end]);
            Rows {
                lens: j.rows[rows.clone()]
                    .iter()
                    .zip(&j.rows[rows.start + 1..=rows.end])
                    .map(|(s, e)| (e - s) as u64)
                    .collect(),
                cols: j.cols[a..b].iter().map(global).collect(),
                vals: j.vals[a..b].to_vec(),
            }
        };
        let p = self.problem.obs.len();
        (block(0..2 * p), block(2 * p..3 * p))
    }
}

/// Every rank's block, concatenated in rank order (three all-gathers).
fn gather(comm: &dyn Comm, mine: Rows) -> Rows {
    Rows {
        lens: comm.all_gather_u64(&mine.lens).concat(),
        cols: comm.all_gather_u64(&mine.cols).concat(),
        vals: comm.all_gather_f64(&mine.vals).concat(),
    }
}

/// The CSR matrix of `ncols` columns whose rows are the blocks' rows, in order.
fn assemble(ncols: usize, blocks: [Rows; 2]) -> Csr {
    let mut j = Csr {
        ncols,
        rows: vec![0],
        ..Csr::default()
    };
    for b in blocks {
        for len in b.lens {
            j.rows.push(j.rows[j.rows.len() - 1] + len as usize);
        }
        j.cols.extend(b.cols.iter().map(|&c| c as usize));
        j.vals.extend(b.vals);
    }
    j
}
