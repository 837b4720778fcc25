//! The parallel loops' runtime that only generated code calls: [`Cells`], the slice a loop's
//! iterations write at disjoint elements, each chunk reaching its own [`Window`] of it (the
//! one `unsafe` of the parallel loops; its soundness argument is in ARCHITECTURE.md and
//! `tests/soundness.rs`), the check of an owned slot before the loop ([`check_slot`]), and the
//! chunks' gradient bookkeeping (a chunk's own gradients and copies, added back in chunk
//! order). The chunking itself is `crate::parallel`'s, public, re-exported here for generated
//! code: [`chunks`], [`run`], [`worth_splitting`].

use core::cell::UnsafeCell;
use core::ops::Add;
use num_traits::PrimInt;
use rayon::prelude::*;

use crate::check::Site;
pub use crate::parallel::{chunks, run, worth_splitting};

/// A slice whose elements the iterations of a parallel loop write, shared by all chunks:
/// each chunk reaches its elements through its own [`Window`], and the windows of different
/// chunks are disjoint, whatever the loop's index expressions compute.
pub struct Cells<'a, E>(&'a [UnsafeCell<E>]);

// SAFETY: `Cells` gives access to its elements only through `Cells::window`, whose contract
// (checked where generated code calls it) makes the windows alive on different threads
// disjoint, so no element is reached from two threads; sending `&mut E` across threads needs
// `E: Send`.
unsafe impl<E: Send> Sync for Cells<'_, E> {}
// SAFETY: as above.
unsafe impl<E: Send> Send for Cells<'_, E> {}

impl<'a, E> Cells<'a, E> {
    /// The cells of a slice borrowed for the whole loop.
    pub fn new(s: &'a mut [E]) -> Self {
        let len = s.len();
        let ptr = s.as_mut_ptr() as *mut UnsafeCell<E>;
        // SAFETY: `UnsafeCell<E>` has the layout of `E`, and the exclusive borrow of `s`
        // lasts as long as the cells.
        Cells(unsafe { core::slice::from_raw_parts(ptr, len) })
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The elements `slots` (clamped to the slice) of one chunk of iterations.
    ///
    /// # Safety
    /// No window overlapping this one is used on another thread while this one is alive.
    /// Generated loops give every chunk `[lo, hi)` of the iterations the window
    /// [`slots`]`(lo, hi, stride, shift)` with one `stride` and `shift` for all chunks,
    /// evaluated once before the loop: chunks are disjoint ([`chunks`]), so their windows are.
    #[inline(always)]
    pub unsafe fn window(&self, slots: core::ops::Range<usize>) -> Window<'_, E> {
        let len = self.0.len();
        let (lo, hi) = (slots.start.min(len), slots.end.min(len));
        Window {
            cells: self.0,
            lo,
            hi: hi.max(lo),
        }
    }
}

/// The elements `[s*lo + b, s*hi + b)` that the iterations `[lo, hi)` of a parallel loop own
/// at stride `s` and shift `b` (`y[s*i + o]` with `o` in `0..s`: `b` is 0; `y[i + b]`: `s` is
/// 1); an overflow or a negative bound fails with a message.
#[inline(always)]
pub fn slots<I: PrimInt>(lo: I, hi: I, stride: usize, shift: usize) -> core::ops::Range<usize> {
    let at = |k: I| {
        k.to_usize()
            .and_then(|k| k.checked_mul(stride))
            .and_then(|k| k.checked_add(shift))
    };
    match (at(lo), at(hi)) {
        (Some(a), Some(b)) => a..b,
        _ => slots_overflow(),
    }
}

#[cold]
#[inline(never)]
fn slots_overflow() -> ! {
    panic!(
        "a parallel loop's owned slots do not fit in `usize` (its stride times its iterations \
         overflows, or the loop variable is negative)"
    )
}

/// The elements one chunk of a parallel loop may reach in a place its iterations own
/// ([`Cells::window`]): every access outside it fails with a message, so no iteration of
/// another chunk can be reached, whatever an index expression computes.
pub struct Window<'c, E> {
    cells: &'c [UnsafeCell<E>],
    lo: usize,
    hi: usize,
}

impl<'c, E> Window<'c, E> {
    /// The length of the whole place (what `y.len()` reads in the loop's body).
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Whether the whole place is empty.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The elements this window may reach.
    #[inline(always)]
    pub fn bounds(&self) -> core::ops::Range<usize> {
        self.lo..self.hi
    }

    #[inline(always)]
    fn cell(&self, k: usize) -> &'c UnsafeCell<E> {
        if k < self.lo || k >= self.hi {
            outside_window(k, self.lo, self.hi, self.cells.len());
        }
        &self.cells[k]
    }

    /// Element `k` (in the window, else a panic).
    ///
    /// # Safety
    /// No other reference to element `k` (from `at`, `at_unchecked`, `range` or indexing) is
    /// alive while the result is: generated code uses each result within one statement, and
    /// hands places that share a root to one call through temporaries.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn at(&self, k: usize) -> &'c mut E {
        // SAFETY: `k` is in this window (`cell`), which no other thread reaches
        // (`Cells::window`); no other reference to it is alive (the caller's contract).
        unsafe { &mut *self.cell(k).get() }
    }

    /// Element `k`, without the window check.
    ///
    /// # Safety
    /// As [`Window::at`], and `k` lies in [`Window::bounds`]: generated code calls it only for
    /// an index that `check_hoisted_index` checked against those bounds before the chunk's loop
    /// (`nilang::__private::hoist`).
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn at_unchecked(&self, k: usize) -> &'c mut E {
        // SAFETY: the caller's contract: `lo <= k < hi <= len`.
        unsafe { &mut *self.cells.get_unchecked(k).get() }
    }

    /// The elements in `r` (in the window, else a panic).
    ///
    /// # Safety
    /// As [`Window::at`], for every element of `r`.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn range(&self, r: core::ops::Range<usize>) -> &'c mut [E] {
        if r.start > r.end || r.start < self.lo || r.end > self.hi {
            outside_window_range(r.clone(), self.lo, self.hi, self.cells.len());
        }
        let s = &self.cells[r];
        // SAFETY: the elements are in this window (checked just above), which no other thread
        // reaches; no other reference to them is alive (the caller's contract); `UnsafeCell<E>`
        // has the layout of `E`.
        unsafe { core::slice::from_raw_parts_mut(UnsafeCell::raw_get(s.as_ptr()), s.len()) }
    }
}

#[cold]
#[inline(never)]
fn outside_window(k: usize, lo: usize, hi: usize, len: usize) -> ! {
    if k >= len {
        panic!("index out of bounds: the len is {len} but the index is {k}");
    }
    panic!(
        "a parallel loop reached element {k} of a place its iterations own, outside the \
         elements {lo}..{hi} of this chunk of iterations: its index expressions do not compute \
         the slots the compile-time check saw"
    )
}

#[cold]
#[inline(never)]
fn outside_window_range(r: core::ops::Range<usize>, lo: usize, hi: usize, len: usize) -> ! {
    if r.start > r.end || r.end > len {
        panic!("range {r:?} out of bounds for a place of length {len}");
    }
    outside_window(if r.start < lo { r.start } else { r.end - 1 }, lo, hi, len)
}

/// Reads element `k` (what `expand!`'s `(y[i]).zero_like()` does inside a parallel loop).
impl<E> core::ops::Index<usize> for Window<'_, E> {
    type Output = E;
    fn index(&self, k: usize) -> &E {
        // SAFETY: `k` is in this window (`cell`), which no other thread reaches; generated
        // code reads an element only while no `&mut` to it (from `at`/`range`) is alive.
        unsafe { &*self.cell(k).get() }
    }
}

/// Reads the elements in a range (`&y[k*i..k*(i+1)]` in an expression of a parallel loop).
impl<E> core::ops::Index<core::ops::Range<usize>> for Window<'_, E> {
    type Output = [E];
    fn index(&self, r: core::ops::Range<usize>) -> &[E] {
        if r.start > r.end || r.start < self.lo || r.end > self.hi {
            outside_window_range(r.clone(), self.lo, self.hi, self.cells.len());
        }
        let s = &self.cells[r];
        // SAFETY: the elements are in this window (checked just above), which no other thread
        // reaches; generated code reads them only while no `&mut` to them is alive;
        // `UnsafeCell<E>` has the layout of `E`.
        unsafe { core::slice::from_raw_parts(s.as_ptr() as *const E, s.len()) }
    }
}

/// Checks before a parallel loop that an owned slot `y[s*i + lo]` (or the sub-slice
/// `y[s*i + lo .. s*i + hi]`) lies in `y[s*i .. s*(i+1)]`: `0 ≤ lo < s` (`0 ≤ lo ≤ hi ≤ s`),
/// so that different iterations touch different elements.
pub fn check_slot<I: PrimInt + core::fmt::Debug>(
    lo: I,
    hi: Option<I>,
    stride: I,
    site: &Site,
    text: &'static str,
) {
    let ok = match hi {
        None => I::zero() <= lo && lo < stride,
        Some(hi) => I::zero() <= lo && lo <= hi && hi <= stride,
    };
    if !ok {
        let offsets = match hi {
            None => format!("offset {lo:?}"),
            Some(hi) => format!("offsets {lo:?}..{hi:?}"),
        };
        panic!(
            "in `{}`, statement `{}`: the parallel loop's access `{text}` has stride {stride:?} \
             and {offsets}, which do not lie in 0..stride: iterations could write the same \
             element",
            site.function, site.statement
        );
    }
}

/// A zero gradient for every element of a slice (a chunk's own gradient of a place all
/// iterations read).
pub fn zero_grads<X: crate::__private::Shadow<L>, L>(x: &[X]) -> Vec<X::Grad> {
    x.iter().map(|v| v.zero_grad()).collect()
}

/// Adds the chunks' gradients (`parts`, in chunk order) into the real shadow `to`: each
/// element adds them in chunk order, which gives the bits of adding one chunk after another.
/// The elements are split across the current pool's threads ([`chunks`]) when the shadow is
/// long enough ([`worth_splitting`], a chunk's add one unit of work), since a shadow as large
/// as gmm's `L` (200 000 values at d = 64, k = 100, one copy per chunk) would otherwise be
/// summed by one thread after the loop.
///
/// ```
/// use nilang::__private::par::add_grads;
/// let mut to = vec![1.0, 2.0];
/// add_grads(&mut to, &[vec![0.5, 0.25], vec![0.125, -2.0]]);
/// assert_eq!(to, vec![1.625, 0.25]);
/// ```
pub fn add_grads<G: Copy + Add<Output = G> + Send + Sync>(to: &mut [G], parts: &[Vec<G>]) {
    let add = |first: usize, piece: &mut [G]| {
        for (k, t) in piece.iter_mut().enumerate() {
            for part in parts {
                *t = *t + part[first + k];
            }
        }
    };
    if !worth_splitting(0, to.len(), false, parts.len()) {
        return add(0, to);
    }
    let mut pieces = Vec::new();
    let mut rest = to;
    for (lo, hi) in chunks(0, rest.len(), false) {
        let (piece, tail) = rest.split_at_mut(hi - lo);
        pieces.push((lo, piece));
        rest = tail;
    }
    pieces
        .into_par_iter()
        .for_each(|(lo, piece)| add(lo, piece));
}

/// Adds a chunk's gradient into the real shadow.
pub fn add_grad<G: Copy + Add<Output = G>>(to: &mut G, from: G) {
    *to = *to + from;
}

/// A chunk's own copy of a place that the loop's iterations hand to calls which take it
/// `&mut` without writing it (`g(mu[c*d..(c+1)*d])`): `&mut` borrows cannot be shared between
/// threads, so each chunk hands out borrows of its copy.
pub fn own_copy<X: ToOwned + ?Sized>(x: &X) -> X::Owned {
    x.to_owned()
}

/// The copy made by [`own_copy`] borrowed as the original's type (`&mut [T]` for a slice's
/// `Vec<T>`); `like` only names that type.
pub fn reborrow_like<'a, X>(like: &X, own: &'a mut X::Owned) -> &'a mut X
where
    X: ToOwned + ?Sized,
    X::Owned: core::borrow::BorrowMut<X>,
{
    let _ = like;
    core::borrow::BorrowMut::borrow_mut(own)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panic_message(f: impl FnOnce()) -> String {
        let e = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_err();
        match e.downcast_ref::<&str>() {
            Some(s) => s.to_string(),
            None => e.downcast_ref::<String>().cloned().unwrap_or_default(),
        }
    }

    /// Every way into a window stays inside it: an element or a range outside fails with a
    /// message, past the slice as an ordinary bounds error.
    #[test]
    fn a_window_reaches_its_own_elements_only() {
        let mut v: Vec<f64> = (0..10).map(f64::from).collect();
        let cells = Cells::new(&mut v);
        // SAFETY: one window, on this thread only.
        let w = unsafe { cells.window(slots(1usize, 3, 2, 1)) };
        assert_eq!(w.bounds(), 3..7);
        assert_eq!(w.len(), 10);
        // SAFETY: no other reference to elements 3 and 4..6 is alive.
        unsafe { *w.at(3) += 0.5 };
        assert_eq!(unsafe { &*w.range(4..6) }, &[4.0, 5.0]);
        assert_eq!((w[3], &w[5..7]), (3.5, &[5.0, 6.0][..]));
        // SAFETY (each): the accesses fail before any reference is made.
        let outside = panic_message(|| unsafe {
            w.at(7);
        });
        assert!(
            outside.contains("element 7") && outside.contains("3..7"),
            "{outside}"
        );
        // SAFETY: the access fails before any reference is made.
        let below = panic_message(|| unsafe {
            w.range(2..4);
        });
        assert!(below.contains("element 2"), "{below}");
        assert!(panic_message(|| {
            let _read = w[9];
        })
        .contains("outside the elements 3..7"));
        let past = panic_message(|| {
            let _read = w[12];
        });
        assert!(past.contains("the len is 10 but the index is 12"), "{past}");
        // a window past the slice is clamped to it
        // SAFETY: as above.
        let end = unsafe { cells.window(slots(4usize, 9, 2, 0)) };
        assert_eq!(end.bounds(), 8..10);
    }

    #[test]
    fn slots_overflowing_usize_fail_with_a_message() {
        let m = panic_message(|| drop(slots(0usize, usize::MAX, 2, 0)));
        assert!(m.contains("do not fit in `usize`"), "{m}");
        let m = panic_message(|| drop(slots(-3i64, 2, 1, 0)));
        assert!(m.contains("negative"), "{m}");
    }
}
