//! What the `#[differentiable]` front end's nearest-candidate searches run on: a transposed
//! copy of the values of the table they search ([`SearchTable`]), and [`dispatch`], which runs
//! a search compiled for the widest vector instructions the processor has.
//!
//! A search `for j in lo..hi { let mut s = 0.0; for e in a..b { … c[j * stride + e] … }
//! best = best.min(s); }` reads candidate `j`'s coordinates `d` apart; side by side, `W`
//! candidates read `c[j * stride + e]` for `j` in `at..at + W`, one load per candidate. The
//! table holds them transposed, row `e − a` holding coordinate `e` of every candidate, so the
//! `W` values of one coordinate are contiguous: one vector load, and `W` sums in vector lanes
//! (`nilang_auto::reduction::columns`).

use crate::real::Real;
use core::cell::{Cell, Ref, RefCell};

/// The transposed values of a search's table, built on the first search of a call and reused
/// by the next ones while they search the same slice over the same ranges. A cache, not
/// program state: it is an ancilla of the reversible program only to live as long as the
/// call, and every table checks equal to every other at deallocation.
#[derive(Clone, Debug, Default)]
pub struct SearchTable {
    /// What the values held are of.
    key: Cell<Option<Key>>,
    values: RefCell<Vec<f64>>,
}

/// The slice (address and length), candidates, coordinates and stride of a table's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key {
    address: usize,
    len: usize,
    candidates: (usize, usize),
    coordinates: (usize, usize),
    stride: usize,
}

impl SearchTable {
    /// An empty table.
    pub fn new() -> SearchTable {
        SearchTable::default()
    }

    /// The values `c[j · stride + e]` for `j` in `lo..hi` and `e` in `a..b`, transposed: the
    /// value of `(j, e)` at `(e − a) · (hi − lo) + (j − lo)`. Built when the slice or a bound
    /// differs from the previous call's (the front end calls it only with bounds fixed for a
    /// whole call of the function, over a slice the function cannot write), so that a search
    /// per point pays for one transposition per call. Panics where the plain search's reads
    /// would: an index past the slice's end.
    pub fn columns<T: Real>(
        &self,
        c: &[T],
        (lo, hi): (usize, usize),
        (a, b): (usize, usize),
        stride: usize,
    ) -> Ref<'_, [f64]> {
        let key = Key {
            address: c.as_ptr() as usize,
            len: c.len(),
            candidates: (lo, hi),
            coordinates: (a, b),
            stride,
        };
        if self.key.get() != Some(key) {
            let (k, n) = (hi.saturating_sub(lo), b.saturating_sub(a));
            let mut values = self.values.borrow_mut();
            values.clear();
            values.resize(k * n, 0.0);
            for j in lo..hi {
                for e in a..b {
                    values[(e - a) * k + (j - lo)] = c[j * stride + e].val();
                }
            }
            self.key.set(Some(key));
        }
        Ref::map(self.values.borrow(), Vec::as_slice)
    }
}

/// A table holds no value of the program: any two are equal.
impl crate::check::Check for SearchTable {
    fn check_eq(&self, _: &Self, _tol: f64) -> bool {
        true
    }
}

/// `search()`, compiled for AVX2 where the processor has it (four `f64` lanes a vector
/// instead of SSE2's two), else as the crate is compiled. The closure must be
/// `#[inline(always)]`, so that it is compiled inside each variant. Neither variant enables
/// fused multiply–add, so both compute the same sums, to the bit.
#[inline(always)]
pub fn dispatch<R>(search: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: `in_avx2` needs a processor with AVX2, detected just above.
        return unsafe { in_avx2(search) };
    }
    search()
}

/// Runs `f` compiled for AVX2.
///
/// # Safety
/// The processor must support AVX2 (checked by [`dispatch`], its only caller).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn in_avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_transpose_the_candidates_and_rebuild_on_a_new_key() {
        // three candidates of stride 3, coordinates 1..3
        let c: Vec<f64> = (0..9).map(f64::from).collect();
        let t = SearchTable::new();
        assert_eq!(
            &*t.columns(&c, (0, 3), (1, 3), 3),
            &[1.0, 4.0, 7.0, 2.0, 5.0, 8.0]
        );
        // another range of candidates: rebuilt
        assert_eq!(&*t.columns(&c, (1, 3), (0, 1), 3), &[3.0, 6.0]);
        // another slice at another address: rebuilt
        let d: Vec<f64> = c.iter().map(|v| -v).collect();
        assert_eq!(&*t.columns(&d, (1, 3), (0, 1), 3), &[-3.0, -6.0]);
    }

    #[test]
    #[should_panic(expected = "index out of bounds")]
    fn a_read_past_the_slice_panics_as_the_plain_search_would() {
        let c = [1.0, 2.0, 3.0];
        SearchTable::new().columns(&c, (0, 2), (0, 2), 2);
    }

    #[test]
    fn dispatch_runs_the_search() {
        assert_eq!(
            dispatch(
                #[inline(always)]
                || 6 * 7
            ),
            42
        );
    }
}
