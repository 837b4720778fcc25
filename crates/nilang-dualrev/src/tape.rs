//! The staging structure of §7 after the simplifications of §8.1 and §8.2.
//!
//! # How we got here (paper roadmap, in our own words)
//!
//! * **§3** pairs every scalar with a *backpropagator*: a linear function that
//!   maps the cotangent of this scalar to the cotangent of the whole input.
//!   Shared scalars make the backpropagators call each other many times (see
//!   [`crate::naive`]).
//! * **§4** stages those calls instead of performing them: each backpropagator
//!   gets an increasing runtime ID, and calls are collected per ID, summing
//!   the arguments (linear factoring, `f a + f b = f (a + b)`). Since a
//!   backpropagator only ever calls backpropagators created *before* it,
//!   processing IDs from the highest down guarantees every one runs at most
//!   once.
//! * **§5–§7** make every step constant-time: the cotangent collector and the
//!   staging map become mutable arrays indexed by ID.
//! * **§8.1** notices that the cotangent of input `i` is exactly the argument
//!   accumulated for input backpropagator `i`, so the separate collector array
//!   disappears: the gradient is read straight out of the staging array.
//! * **§8.2** defunctionalises the backpropagators. All of them have one of
//!   three shapes — input (does nothing more), constant (does nothing), or a
//!   primitive operation `op(x₁,…,xₙ)` (which forwards `z·∂ᵢop` to the
//!   backpropagator of each `xᵢ`). The third shape is fully described by a
//!   list of `(parent ID, partial derivative)` pairs — a `Contrib` list —
//!   and the partials can be computed during the primal pass.
//!
//! So the data structure is: a vector of `Contrib` lists indexed by ID in
//! creation order, filled during the primal run, plus a staging array of one
//! `f64` cotangent per ID, resolved from the highest ID downwards.
//!
//! # Representation choices
//!
//! * Primitive operations in this crate have at most two scalar arguments, so
//!   a Contrib list is stored inline as two `(parent, partial)` slots in one
//!   24-byte record; the whole tape is one contiguous `Vec<Contrib>`.
//! * All constant backpropagators are the same function (`λz. id`), so they
//!   share a single ID, `SINK` = 0, whose Contrib list is empty. Unused
//!   slots of unary operations also point at the sink with partial `0`.
//!   Resolution never processes ID 0, so whatever lands there is ignored.
//! * Input backpropagators are IDs `1..=n` with empty Contrib lists; after
//!   resolution their staging cells hold the gradient (§8.1).
//!
//! # Where the tape lives
//!
//! The tape being recorded is reached through a thread-local pointer, set for
//! the duration of one differentiation by an RAII guard and restored
//! afterwards. Each recording session gets a globally unique *tag*, and every
//! [`DualRev`](crate::DualRev) carries the tag of the session that created it.
//! A scalar whose tag does not match the active session (one captured from an
//! enclosing differentiation, created on another thread, or left over from a
//! finished one) is treated as a constant. Consequently independent
//! differentiations — on different threads, or nested on the same thread —
//! never read or write each other's tapes. (Nesting yields first-order
//! derivatives of the inner function; it does not give higher-order
//! derivatives of the outer one.)

use core::cell::Cell;
use core::sync::atomic::{AtomicU32, Ordering};

/// The ID shared by every constant backpropagator (`λz. id`, §8.2 form (2)).
pub(crate) const SINK: u32 = 0;

/// Largest number of IDs one tape may hand out (IDs are `u32`).
pub(crate) const MAX_IDS: usize = u32::MAX as usize;

/// The defunctionalised backpropagator of one scalar (§8.2).
///
/// Meaning: when this scalar's staged cotangent `z` is resolved, add
/// `z * partials[k]` to the staging cell of `parents[k]` for `k = 0, 1`.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub(crate) struct Contrib {
    pub(crate) partials: [f64; 2],
    pub(crate) parents: [u32; 2],
}

impl Contrib {
    /// The empty Contrib list (input and constant backpropagators).
    pub(crate) const EMPTY: Contrib = Contrib {
        partials: [0.0, 0.0],
        parents: [SINK, SINK],
    };
}

/// Counters describing one resolution (reverse sweep) of a tape.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResolveStats {
    /// How many backpropagators (Contrib lists) were invoked. Each is invoked
    /// at most once, and only if a non-zero cotangent was staged for it.
    pub backpropagator_calls: u64,
    /// Number of IDs on the tape, including the constant sink and the inputs.
    pub ids: usize,
}

/// One recording: Contrib lists by ID plus the reusable staging array.
#[derive(Debug)]
pub(crate) struct Tape {
    /// Tag of the current session; scalars with another tag are constants.
    pub(crate) tag: u32,
    /// Contrib list of every ID, in creation order. Index 0 is [`SINK`].
    pub(crate) contribs: Vec<Contrib>,
    /// Number of input IDs (`1..=n_inputs`).
    pub(crate) n_inputs: usize,
    /// Set when more than [`MAX_IDS`] IDs were requested.
    pub(crate) overflowed: bool,
    /// Staging array of §7 (one cotangent per ID), kept for reuse.
    stage: Vec<f64>,
}

thread_local! {
    /// The tape of the innermost active recording session on this thread.
    static ACTIVE: Cell<*mut Tape> = const { Cell::new(core::ptr::null_mut()) };
    /// A spare tape, so repeated differentiations reuse their allocations.
    static POOL: Cell<Option<Box<Tape>>> = const { Cell::new(None) };
    /// Block of session tags reserved by this thread: `(next, end)`.
    static TAGS: Cell<(u32, u32)> = const { Cell::new((0, 0)) };
}

/// Source of globally unique tag blocks. Tag 0 means "constant".
static NEXT_TAG_BLOCK: AtomicU32 = AtomicU32::new(1);
const TAG_BLOCK: u32 = 1 << 12;

fn fresh_tag() -> u32 {
    TAGS.with(|t| {
        let (mut next, mut end) = t.get();
        if next == end {
            next = NEXT_TAG_BLOCK.fetch_add(TAG_BLOCK, Ordering::Relaxed);
            if next == 0 {
                // Wrapped around after 2^32 sessions: skip the constant tag.
                next = NEXT_TAG_BLOCK.fetch_add(TAG_BLOCK, Ordering::Relaxed);
            }
            end = next.wrapping_add(TAG_BLOCK);
        }
        t.set((next.wrapping_add(1), end));
        next
    })
}

impl Tape {
    fn new() -> Tape {
        Tape {
            tag: 0,
            contribs: Vec::with_capacity(256),
            n_inputs: 0,
            overflowed: false,
            stage: Vec::new(),
        }
    }

    /// Take the pooled tape (or a fresh one) and start a session with `n`
    /// inputs: ID 0 is the sink, IDs `1..=n` are the inputs (the
    /// Interleave step of §3.3, numbering the input scalars as in §6).
    ///
    /// Tapes are boxed so that handing them between the pool, the recording
    /// and a [`Pullback`](crate::Pullback) moves a pointer, not the struct.
    pub(crate) fn begin(n: usize) -> Box<Tape> {
        let mut tape = POOL
            .with(|p| p.take())
            .unwrap_or_else(|| Box::new(Tape::new()));
        tape.tag = fresh_tag();
        tape.contribs.clear();
        tape.overflowed = n >= MAX_IDS;
        tape.n_inputs = if tape.overflowed { 0 } else { n };
        tape.contribs.reserve_exact(n + 1);
        tape.contribs.push(Contrib::EMPTY);
        tape.contribs.resize(tape.n_inputs + 1, Contrib::EMPTY);
        tape
    }

    /// Give the allocations back to this thread's pool.
    pub(crate) fn recycle(mut self: Box<Self>) {
        self.tag = 0;
        POOL.with(|p| {
            let old = p.take();
            // Keep whichever tape has more capacity.
            let keep = match old {
                Some(o) if o.contribs.capacity() > self.contribs.capacity() => o,
                _ => self,
            };
            p.set(Some(keep));
        });
    }

    /// Number of IDs handed out so far.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.contribs.len()
    }

    /// Append a Contrib list and return its fresh ID (or the sink, and mark
    /// the tape as overflowed, if IDs are exhausted).
    #[inline(always)]
    pub(crate) fn push(&mut self, c: Contrib) -> u32 {
        let id = self.contribs.len();
        if id == self.contribs.capacity() && !self.grow() {
            return SINK;
        }
        // `grow` guarantees spare capacity and at most MAX_IDS entries, so
        // this push never reallocates and `id` fits in a u32.
        self.contribs.push(c);
        id as u32
    }

    /// Slow path of [`push`](Self::push): make room, or report overflow.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) -> bool {
        let len = self.contribs.len();
        if len >= MAX_IDS {
            self.overflowed = true;
            return false;
        }
        let want = (len.max(64) * 2).min(MAX_IDS);
        self.contribs.reserve_exact(want - len);
        true
    }

    /// SResolve (§4) on the staging array (§7, §8.1) with defunctionalised
    /// backpropagators (§8.2).
    ///
    /// `seeds` are the initial staged calls, i.e. the output cotangents
    /// `(ID, cotangent)`. Afterwards the staging cells `1..=n_inputs` hold the
    /// input cotangent, which is returned.
    pub(crate) fn resolve(
        &mut self,
        seeds: impl IntoIterator<Item = (u32, f64)>,
    ) -> (&[f64], ResolveStats) {
        let n = self.contribs.len();
        let stage = &mut self.stage;
        stage.clear();
        stage.resize(n, 0.0);
        for (id, ct) in seeds {
            if let Some(cell) = stage.get_mut(id as usize) {
                *cell += ct;
            }
        }
        // IDs 0..=n_inputs have empty Contrib lists; skip them. Every parent
        // ID is smaller than its child's ID (IDs are handed out in creation
        // order and a scalar only refers to scalars that already existed), so
        // when we reach ID `i` all calls to it have been staged.
        let first_op = self.n_inputs + 1;
        let mut calls = 0u64;
        for i in (first_op..n).rev() {
            let z = stage[i];
            if z == 0.0 {
                // Nothing was staged: the backpropagator is never called.
                continue;
            }
            calls += 1;
            let c = self.contribs[i];
            stage[c.parents[0] as usize] += z * c.partials[0];
            stage[c.parents[1] as usize] += z * c.partials[1];
        }
        let stats = ResolveStats {
            backpropagator_calls: calls,
            ids: n,
        };
        (&stage[1..first_op], stats)
    }
}

/// RAII guard making a tape the active one on this thread (and restoring the
/// previous one — for nested sessions — when dropped, also on unwinding).
pub(crate) struct Active {
    prev: *mut Tape,
}

impl Active {
    /// Activate `tape`. The caller must keep `tape` alive and unmoved and must
    /// not touch it until the returned guard is dropped; [`record_with`]
    /// is the only user and guarantees this by scoping.
    fn new(tape: &mut Tape) -> Active {
        let prev = ACTIVE.with(|a| a.replace(tape as *mut Tape));
        Active { prev }
    }
}

impl Drop for Active {
    fn drop(&mut self) {
        ACTIVE.with(|a| a.set(self.prev));
    }
}

/// Run `body` with `tape` active and return its result.
pub(crate) fn record_with<R>(tape: &mut Tape, body: impl FnOnce() -> R) -> R {
    let _guard = Active::new(tape);
    body()
}

/// The active tape of this thread (null when no session is active).
///
/// Kept tiny so that it always inlines: the thread-local access then compiles
/// to a single segment-relative load instead of an out-of-line accessor call.
#[inline(always)]
pub(crate) fn active_ptr() -> *mut Tape {
    ACTIVE.with(|a| a.get())
}

/// Call `f` on the active tape of this thread, or return `None` when no
/// session is active.
#[inline(always)]
pub(crate) fn with_active<R>(f: impl FnOnce(&mut Tape) -> R) -> Option<R> {
    let p = active_ptr();
    if p.is_null() {
        None
    } else {
        // SAFETY: a non-null ACTIVE pointer was installed by `Active::new`
        // from a `&mut Tape` that `record_with` keeps exclusively borrowed
        // (and therefore alive and unmoved) until the guard resets the
        // pointer. Nothing else dereferences it concurrently: the pointer is
        // thread-local, and `f` is one of this crate's short recording
        // closures, which never re-enter user code, so no second `&mut` to
        // the tape exists while this one is live.
        Some(f(unsafe { &mut *p }))
    }
}

/// Frees this thread's pooled tape: the allocations that repeated differentiations reuse.
/// The next differentiation grows a tape again, so a program measuring its memory (or
/// done with large gradients) can count or return it.
///
/// ```
/// let (_, g) = nilang_dualrev::grad(|x| x[0] * x[1], &[2.0, 3.0]).unwrap();
/// assert_eq!(g, vec![3.0, 2.0]);
/// nilang_dualrev::release_pooled_tape(); // the tape's buffers go back to the allocator
/// ```
pub fn release_pooled_tape() {
    drop(POOL.with(|p| p.take()));
}
