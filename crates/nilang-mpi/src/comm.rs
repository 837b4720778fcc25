//! The communicator the collectives run on ([`Comm`]): one all-gather in rank order, and the
//! rank-ordered sum every reduction of this crate is made of ([`rank_order_sum`]).

use std::cell::Cell;
use std::time::Instant;

/// A group of ranks that run the same program (SPMD) and meet in collectives: the threads of
/// [`ThreadComm`](crate::ThreadComm), or the processes of an MPI job
/// ([`MpiComm`](crate::MpiComm)).
///
/// Two operations are required, an all-gather and an all-to-all, both of raw data in rank
/// order (a third, the exchange with the neighbouring ranks of a stencil's halo,
/// [`Comm::neighbours_u64`], has a default built on the all-to-all); every collective of this
/// crate is built on them and adds in rank order itself, so
/// each is deterministic: its result depends on the ranks' data alone, never on message
/// timing or on an MPI library's choice of algorithm.
///
/// ```
/// use nilang_mpi::{Comm, ThreadComm};
///
/// let gathered = ThreadComm::run(3, |c| c.all_gather_f64(&vec![c.rank() as f64; c.rank()]));
/// for g in &gathered {
///     assert_eq!(g, &vec![vec![], vec![1.0], vec![2.0, 2.0]]);
/// }
/// // rank r sends `10·r + s` to rank s
/// let got = ThreadComm::run(3, |c| {
///     let parts: Vec<Vec<u64>> = (0..3).map(|s| vec![10 * c.rank() as u64 + s]).collect();
///     c.all_to_all_u64(&parts)
/// });
/// assert_eq!(got[2], [vec![2], vec![12], vec![22]]);
/// ```
pub trait Comm {
    /// This rank, in `0..size()`.
    fn rank(&self) -> usize;
    /// The number of ranks.
    fn size(&self) -> usize;
    /// Every rank's `local` (lengths may differ), in rank order, on every rank. Every rank
    /// must call it (a collective).
    fn all_gather_u64(&self, local: &[u64]) -> Vec<Vec<u64>>;
    /// Sends `parts[r]` to rank `r` (one part per rank, lengths may differ) and returns, in
    /// rank order, the part every rank sent to this one. Every rank must call it; a number of
    /// parts other than [`Comm::size`] panics (before any message moves).
    fn all_to_all_u64(&self, parts: &[Vec<u64>]) -> Vec<Vec<u64>>;

    /// Sends `to_prev` to rank − 1 and `to_next` to rank + 1 (the ranks that exist) and
    /// returns what those two sent this rank, `[from_prev, from_next]` (empty at the ends of
    /// the line): the exchange of a stencil's halo. Every rank must call it. By default one
    /// [`Comm::all_to_all_u64`] with empty parts for the other ranks;
    /// [`MpiComm`](crate::MpiComm) sends to and receives from the two neighbours alone.
    ///
    /// ```
    /// use nilang_mpi::{Comm, ThreadComm};
    ///
    /// let got = ThreadComm::run(3, |c| {
    ///     let r = c.rank() as u64;
    ///     c.neighbours_u64(&[10 * r], &[10 * r + 1, 7])
    /// });
    /// assert_eq!(got[0], [vec![], vec![10]]);
    /// assert_eq!(got[1], [vec![1, 7], vec![20]]);
    /// assert_eq!(got[2], [vec![11, 7], vec![]]);
    /// ```
    fn neighbours_u64(&self, to_prev: &[u64], to_next: &[u64]) -> [Vec<u64>; 2] {
        let neighbours = neighbour_ranks(self.rank(), self.size());
        let mut parts = vec![Vec::new(); self.size()];
        for (r, part) in neighbours.iter().zip([to_prev, to_next]) {
            if let Some(r) = r {
                parts[*r] = part.to_vec();
            }
        }
        let mut got = self.all_to_all_u64(&parts);
        neighbours.map(|r| r.map_or_else(Vec::new, |r| std::mem::take(&mut got[r])))
    }

    /// [`Comm::all_gather_u64`] of `f64` values, moved as their bits (exact, `−0` and NaN
    /// payloads included).
    fn all_gather_f64(&self, local: &[f64]) -> Vec<Vec<f64>> {
        let all = self.all_gather_u64(&bits(local));
        all.iter().map(|v| floats(v)).collect()
    }
}

/// From this many values per rank on, [`rank_order_sum`] splits the elements among the ranks
/// (each rank adds one block in rank order, then the blocks are gathered: a ring
/// all-reduce's volume); below it, every rank gathers everything and adds (one collective
/// less).
///
/// ```
/// use nilang_mpi::{rank_order_sum, Counted, ThreadComm, SPLIT_FROM_PER_RANK};
///
/// let sent = ThreadComm::run(2, |c| {
///     let counted = Counted::new(c);
///     rank_order_sum(&counted, &vec![1.0; 2 * SPLIT_FROM_PER_RANK]).unwrap();
///     counted.sent()
/// });
/// // the length, the other rank's half of the values, then the sums of this rank's half
/// assert_eq!(sent, [8 + 8 * 64 + 8 * 64; 2]);
/// ```
pub const SPLIT_FROM_PER_RANK: usize = 64;

/// `Σ_ranks local`, element by element, on every rank, added in rank order from rank 0's
/// values (`((x₀ + x₁) + x₂) + …`, bit for bit the same on every rank and in every run).
///
/// First the ranks' lengths are gathered: unless they are one length, every rank returns the
/// same error naming each rank's length (no rank waits for another, and none adds mismatched
/// data). Then, for fewer than [`SPLIT_FROM_PER_RANK`] values per rank, every rank gathers all
/// values and adds them (each rank receives `(p − 1)·8n` bytes); from it on, rank `r` receives
/// block `r` of the elements ([`shard_range`](crate::shard_range)) from every rank
/// ([`Comm::all_to_all_u64`]), adds it in rank order, and the sums are gathered (each rank
/// receives `2(p − 1)/p·8n` bytes, a ring all-reduce's volume). Both add every element in the
/// same order, so both give the same bits.
///
/// ```
/// use nilang_mpi::{rank_order_sum, Comm, ThreadComm};
///
/// let sums = ThreadComm::run(4, |c| rank_order_sum(c, &[1.0, c.rank() as f64]));
/// assert!(sums.iter().all(|s| s == &Ok(vec![4.0, 6.0])));
/// let long = ThreadComm::run(3, |c| rank_order_sum(c, &vec![0.1 * c.rank() as f64; 1000]));
/// assert!(long.iter().all(|s| s.as_ref().unwrap() == &vec![0.1 + 0.2; 1000]));
/// let bad = ThreadComm::run(2, |c| rank_order_sum(c, &vec![0.0; 1 + c.rank()]));
/// assert_eq!(bad[1], Err("rank_order_sum: every rank must pass 1 values (rank 0's length), \
///                          but the ranks passed [1, 2]".to_string()));
/// ```
pub fn rank_order_sum(comm: &dyn Comm, local: &[f64]) -> Result<Vec<f64>, String> {
    let lens: Vec<u64> = comm
        .all_gather_u64(&[local.len() as u64])
        .iter()
        .map(|v| v[0])
        .collect();
    if lens.iter().any(|&n| n != lens[0]) {
        return Err(format!(
            "rank_order_sum: every rank must pass {} values (rank 0's length), but the ranks passed {lens:?}",
            lens[0]
        ));
    }
    let (n, p) = (local.len(), comm.size());
    if n < SPLIT_FROM_PER_RANK * p {
        return Ok(add_in_rank_order(&comm.all_gather_f64(local)));
    }
    let blocks: Vec<Vec<u64>> = (0..p)
        .map(|r| bits(&local[crate::shard_range(n, r, p)]))
        .collect();
    let mine: Vec<Vec<f64>> = comm
        .all_to_all_u64(&blocks)
        .iter()
        .map(|b| floats(b))
        .collect();
    Ok(comm.all_gather_f64(&add_in_rank_order(&mine)).concat())
}

/// The element-by-element sum of `parts` (one length), rank 0's first.
fn add_in_rank_order(parts: &[Vec<f64>]) -> Vec<f64> {
    let mut sum = parts[0].clone();
    for part in &parts[1..] {
        for (s, x) in sum.iter_mut().zip(part) {
            *s += x;
        }
    }
    sum
}

/// `f64` values as their bits.
fn bits(x: &[f64]) -> Vec<u64> {
    x.iter().map(|x| x.to_bits()).collect()
}

/// Bits back as `f64` values.
fn floats(b: &[u64]) -> Vec<f64> {
    b.iter().map(|&b| f64::from_bits(b)).collect()
}

/// Panics unless an all-to-all has one part per rank.
pub(crate) fn check_parts(parts: usize, size: usize) {
    assert_eq!(
        parts, size,
        "all_to_all_u64: one part per rank: {size} ranks, {parts} parts"
    );
}

/// A communicator that counts what passes through it: the bytes this rank sends to the other
/// ranks and receives from them (an all-gather sends its values to each other rank), the
/// number of collectives (the volume the
/// algorithms ask for, not what a network moves: an MPI library may route it through a tree
/// or a ring; [`MpiComm`](crate::MpiComm)'s exchange of the lengths is not counted), and the
/// seconds spent in them (moving data and waiting for the other ranks).
///
/// ```
/// use nilang_mpi::{rank_order_sum, Counted, ThreadComm};
///
/// let bytes = ThreadComm::run(4, |c| {
///     let counted = Counted::new(c);
///     rank_order_sum(&counted, &[0.0; 10]).unwrap(); // the lengths, then the values
///     assert!(counted.seconds() >= 0.0);
///     (counted.sent(), counted.received(), counted.calls())
/// });
/// // 1 + 10 doubles to each of 3 other ranks, and from each
/// assert!(bytes.iter().all(|&b| b == (264, 264, 2)));
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

impl Counted<'_> {
    /// Adds one collective: `sent` and `received` values (to and from other ranks), and the
    /// seconds since `start`.
    fn count(&self, sent: usize, received: usize, start: Instant) {
        self.sent.set(self.sent.get() + 8 * sent as u64);
        self.received.set(self.received.get() + 8 * received as u64);
        self.calls.set(self.calls.get() + 1);
        let seconds = start.elapsed().as_secs_f64();
        self.seconds.set(self.seconds.get() + seconds);
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
        let from_others: usize = all.iter().map(Vec::len).sum::<usize>() - local.len();
        self.count(local.len() * (all.len() - 1), from_others, start);
        all
    }
    fn neighbours_u64(&self, to_prev: &[u64], to_next: &[u64]) -> [Vec<u64>; 2] {
        let start = Instant::now();
        let got = self.inner.neighbours_u64(to_prev, to_next);
        let neighbours = neighbour_ranks(self.rank(), self.size());
        let sent = [to_prev, to_next]
            .iter()
            .zip(neighbours)
            .filter_map(|(part, r)| r.map(|_| part.len()))
            .sum();
        self.count(sent, got[0].len() + got[1].len(), start);
        got
    }
    fn all_to_all_u64(&self, parts: &[Vec<u64>]) -> Vec<Vec<u64>> {
        let start = Instant::now();
        let got = self.inner.all_to_all_u64(parts);
        let me = self.rank();
        let others = |v: &[Vec<u64>]| -> usize {
            v.iter()
                .enumerate()
                .filter(|&(r, _)| r != me)
                .map(|(_, p)| p.len())
                .sum()
        };
        self.count(others(parts), others(&got), start);
        got
    }
}

/// The ranks next to `rank` on a line of `size` ranks, `[rank − 1, rank + 1]`, `None` past
/// either end: the neighbours of [`Comm::neighbours_u64`].
pub(crate) fn neighbour_ranks(rank: usize, size: usize) -> [Option<usize>; 2] {
    [rank.checked_sub(1), Some(rank + 1).filter(|&r| r < size)]
}
