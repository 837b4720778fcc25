//! The communicator the collectives run on ([`Comm`]): one all-gather in rank order, and the
//! rank-ordered sum every reduction of this crate is made of ([`rank_order_sum`]).

use std::cell::Cell;
use std::time::Instant;

/// A group of ranks that run the same program (SPMD) and meet in collectives: the threads of
/// [`ThreadComm`](crate::ThreadComm), or the processes of an MPI job
/// ([`MpiComm`](crate::MpiComm)).
///
/// One operation is required, an all-gather in rank order; every collective of this crate is
/// built on it, so each is deterministic: its result depends on the ranks' data alone, never
/// on message timing or on an MPI library's choice of algorithm.
///
/// ```
/// use nilang_mpi::{Comm, ThreadComm};
///
/// let gathered = ThreadComm::run(3, |c| c.all_gather_f64(&vec![c.rank() as f64; c.rank()]));
/// for g in &gathered {
///     assert_eq!(g, &vec![vec![], vec![1.0], vec![2.0, 2.0]]);
/// }
/// ```
pub trait Comm {
    /// This rank, in `0..size()`.
    fn rank(&self) -> usize;
    /// The number of ranks.
    fn size(&self) -> usize;
    /// Every rank's `local` (lengths may differ), in rank order, on every rank. Every rank
    /// must call it (a collective).
    fn all_gather_u64(&self, local: &[u64]) -> Vec<Vec<u64>>;

    /// [`Comm::all_gather_u64`] of `f64` values, moved as their bits (exact, `−0` and NaN
    /// payloads included).
    fn all_gather_f64(&self, local: &[f64]) -> Vec<Vec<f64>> {
        let bits: Vec<u64> = local.iter().map(|x| x.to_bits()).collect();
        self.all_gather_u64(&bits)
            .into_iter()
            .map(|v| v.into_iter().map(f64::from_bits).collect())
            .collect()
    }
}

/// `Σ_ranks local`, element by element, on every rank, added in rank order from rank 0's
/// values (`((x₀ + x₁) + x₂) + …`, bit for bit the same on every rank and in every run).
///
/// The ranks must pass slices of one length: otherwise every rank returns the same error
/// naming each rank's length (no rank waits for another, and none adds mismatched data).
///
/// ```
/// use nilang_mpi::{rank_order_sum, Comm, ThreadComm};
///
/// let sums = ThreadComm::run(4, |c| rank_order_sum(c, &[1.0, c.rank() as f64]));
/// assert!(sums.iter().all(|s| s == &Ok(vec![4.0, 6.0])));
/// let bad = ThreadComm::run(2, |c| rank_order_sum(c, &vec![0.0; 1 + c.rank()]));
/// assert_eq!(bad[1], Err("rank_order_sum: every rank must pass 1 values (rank 0's length), \
///                          but the ranks passed [1, 2]".to_string()));
/// ```
pub fn rank_order_sum(comm: &dyn Comm, local: &[f64]) -> Result<Vec<f64>, String> {
    let all = comm.all_gather_f64(local);
    let lens: Vec<usize> = all.iter().map(Vec::len).collect();
    if lens.iter().any(|&n| n != lens[0]) {
        return Err(format!(
            "rank_order_sum: every rank must pass {} values (rank 0's length), but the ranks passed {lens:?}",
            lens[0]
        ));
    }
    let mut sum = all[0].clone();
    for part in &all[1..] {
        for (s, x) in sum.iter_mut().zip(part) {
            *s += x;
        }
    }
    Ok(sum)
}

/// A communicator that counts what passes through it: the bytes this rank sends into
/// all-gathers and receives from the other ranks, the number of collectives (the volume the
/// algorithms ask for, not what a network moves: an MPI library may route it through a tree
/// or a ring; [`MpiComm`](crate::MpiComm)'s exchange of the lengths is not counted), and the
/// seconds spent in them (moving data and waiting for the other ranks).
///
/// ```
/// use nilang_mpi::{rank_order_sum, Counted, ThreadComm};
///
/// let bytes = ThreadComm::run(4, |c| {
///     let counted = Counted::new(c);
///     rank_order_sum(&counted, &[0.0; 10]).unwrap();
///     assert!(counted.seconds() >= 0.0);
///     (counted.sent(), counted.received(), counted.calls())
/// });
/// // 10 doubles out; 3 other ranks' 10 doubles in
/// assert!(bytes.iter().all(|&b| b == (80, 240, 1)));
/// ```
pub struct Counted<'a> {
    inner: &'a dyn Comm,
    sent: Cell<u64>,
    received: Cell<u64>,
    calls: Cell<u64>,
    seconds: Cell<f64>,
}

impl<'a> Counted<'a> {
    /// Counts the collectives run through `inner` from now on.
    pub fn new(inner: &'a dyn Comm) -> Counted<'a> {
        Counted {
            inner,
            sent: Cell::new(0),
            received: Cell::new(0),
            calls: Cell::new(0),
            seconds: Cell::new(0.0),
        }
    }
    /// Bytes this rank contributed to all-gathers.
    pub fn sent(&self) -> u64 {
        self.sent.get()
    }
    /// Bytes this rank received from the other ranks.
    pub fn received(&self) -> u64 {
        self.received.get()
    }
    /// Collectives run.
    pub fn calls(&self) -> u64 {
        self.calls.get()
    }
    /// Seconds spent in collectives.
    pub fn seconds(&self) -> f64 {
        self.seconds.get()
    }
}

impl Comm for Counted<'_> {
    fn rank(&self) -> usize {
        self.inner.rank()
    }
    fn size(&self) -> usize {
        self.inner.size()
    }
    fn all_gather_u64(&self, local: &[u64]) -> Vec<Vec<u64>> {
        let start = Instant::now();
        let all = self.inner.all_gather_u64(local);
        self.seconds
            .set(self.seconds.get() + start.elapsed().as_secs_f64());
        let others: usize = all.iter().map(Vec::len).sum::<usize>() - local.len();
        self.sent.set(self.sent.get() + 8 * local.len() as u64);
        self.received.set(self.received.get() + 8 * others as u64);
        self.calls.set(self.calls.get() + 1);
        all
    }
}
