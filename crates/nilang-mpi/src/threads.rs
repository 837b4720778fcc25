//! Ranks as threads of one process ([`ThreadComm`]): the communicator of the tests and of
//! users without MPI.

use crate::{check_parts, Comm};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Condvar, Mutex, MutexGuard};

/// `size` ranks as scoped threads of this process, meeting at a barrier: the in-process
/// [`Comm`] (no MPI needed). A rank that panics, or returns, while others wait in a
/// collective makes them panic, naming it, instead of leaving them waiting;
/// [`ThreadComm::run`] then panics with the first failed rank's message.
///
/// ```
/// use nilang_mpi::{Comm, ThreadComm};
///
/// assert_eq!(ThreadComm::run(3, |c| (c.rank(), c.size())), [(0, 3), (1, 3), (2, 3)]);
/// ```
pub struct ThreadComm<'a> {
    rank: usize,
    shared: &'a Shared,
}

/// What the ranks share: the slots of the all-gather in progress and the barrier's state.
struct Shared {
    size: usize,
    state: Mutex<State>,
    turn: Condvar,
}

struct State {
    /// Ranks arrived at the barrier of this generation.
    arrived: usize,
    /// Barriers completed.
    generation: u64,
    /// The first rank that panicked.
    failed: Option<usize>,
    /// The first rank that returned (a rank still waiting in a collective would wait for it
    /// forever).
    left: Option<usize>,
    /// Each rank's messages of the exchange in progress (one for all ranks in an all-gather,
    /// one per rank in an all-to-all).
    slots: Vec<Vec<Vec<u64>>>,
}

impl ThreadComm<'_> {
    /// Runs `f` on `size` ranks, each a thread with its communicator, and returns their
    /// results in rank order. Panics when `size` is 0, and when a rank panics: with the
    /// panic of the first rank that did (the ranks it left waiting in a collective panic too,
    /// naming it).
    ///
    /// ```
    /// use nilang_mpi::{Comm, ThreadComm};
    ///
    /// let r = std::panic::catch_unwind(|| ThreadComm::run(2, |c| {
    ///     if c.rank() == 1 { panic!("bad shard") }
    ///     c.all_gather_f64(&[1.0])
    /// }));
    /// assert!(r.is_err()); // rank 0 does not wait for rank 1 forever
    /// ```
    pub fn run<R: Send>(size: usize, f: impl Fn(&ThreadComm<'_>) -> R + Sync) -> Vec<R> {
        assert!(
            size >= 1,
            "ThreadComm::run: a communicator needs at least one rank, got 0"
        );
        let shared = &Shared {
            size,
            state: Mutex::new(State {
                arrived: 0,
                generation: 0,
                failed: None,
                left: None,
                slots: vec![Vec::new(); size],
            }),
            turn: Condvar::new(),
        };
        let outcomes: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..size)
                .map(|rank| {
                    let f = &f;
                    s.spawn(move || {
                        let comm = ThreadComm { rank, shared };
                        let out = catch_unwind(AssertUnwindSafe(|| f(&comm)));
                        shared.leave(rank, out.is_err());
                        out
                    })
                })
                .collect();
            let joined = handles.into_iter().map(|h| h.join());
            joined.map(|j| j.unwrap_or_else(|e| Err(e))).collect()
        });
        let first_failed = shared.lock().failed;
        let mut results = Vec::with_capacity(size);
        for (rank, out) in outcomes.into_iter().enumerate() {
            match out {
                Ok(r) => results.push(r),
                Err(e) if Some(rank) == first_failed => resume_unwind(e),
                Err(_) => {}
            }
        }
        assert_eq!(results.len(), size, "ThreadComm::run: a rank failed");
        results
    }
}

impl Shared {
    /// The state, whether or not a panicking rank poisoned the lock (the state stays
    /// consistent: no rank panics while changing it).
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records that `rank` returned or (`panicked`) failed, and wakes the ranks waiting at
    /// the barrier.
    fn leave(&self, rank: usize, panicked: bool) {
        let mut s = self.lock();
        if panicked {
            s.failed.get_or_insert(rank);
        } else {
            s.left.get_or_insert(rank);
        }
        self.turn.notify_all();
    }

    /// Waits until every rank has arrived (then `s` is the state after the barrier), or
    /// panics naming the rank that failed.
    fn barrier<'a>(&'a self, mut s: MutexGuard<'a, State>, me: usize) -> MutexGuard<'a, State> {
        let generation = s.generation;
        s.arrived += 1;
        if s.arrived == self.size {
            s.arrived = 0;
            s.generation += 1;
            self.turn.notify_all();
        }
        while s.generation == generation && s.failed.is_none() && s.left.is_none() {
            s = self.turn.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        if s.generation != generation {
            return s;
        }
        let (failed, left) = (s.failed, s.left);
        drop(s);
        match (failed, left) {
            (Some(r), _) => panic!("ThreadComm: rank {me} waited in a collective for rank {r}, which panicked"),
            (_, Some(r)) => panic!("ThreadComm: rank {me} waited in a collective that rank {r} never joined: it returned"),
            _ => unreachable!("the barrier's wait ends on a new generation, a failure or a departure"),
        }
    }
}

impl Comm for ThreadComm<'_> {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.shared.size
    }
    fn all_gather_u64(&self, local: &[u64]) -> Vec<Vec<u64>> {
        self.exchange(vec![local.to_vec()], |msgs| msgs[0].clone())
    }
    fn all_to_all_u64(&self, parts: &[Vec<u64>]) -> Vec<Vec<u64>> {
        check_parts(parts.len(), self.size());
        self.exchange(parts.to_vec(), |msgs| msgs[self.rank].clone())
    }
}

impl ThreadComm<'_> {
    /// Puts this rank's messages in its slot and returns, in rank order, what `pick` takes
    /// from every rank's slot, once every rank has put its own.
    fn exchange(
        &self,
        mine: Vec<Vec<u64>>,
        pick: impl Fn(&[Vec<u64>]) -> Vec<u64>,
    ) -> Vec<Vec<u64>> {
        let sh = self.shared;
        let mut s = sh.lock();
        s.slots[self.rank] = mine;
        let s = sh.barrier(s, self.rank);
        let all = s.slots.iter().map(|msgs| pick(msgs)).collect();
        // nobody writes the slots again before every rank has read them
        drop(sh.barrier(s, self.rank));
        all
    }
}
