//! The iteration space of a reversible `for` loop, walked forwards by the program and
//! backwards by its inverse (or by `.rev()`), exact over the whole range of any integer type.

use crate::check::{fail, CheckKind, Site};
use core::fmt::Debug;
use num_traits::PrimInt;

/// The iteration space of a reversible `for` loop: the values `start + k·step` for
/// `k = 0 … count−1`, visited upwards or (for the inverse, or `.rev()`) downwards.
#[derive(Clone, Copy, Debug)]
pub struct RevRange<I> {
    first: I,
    step: I,
    count: usize,
    rev: bool,
}

impl<I: PrimInt + Debug> RevRange<I> {
    /// The range `start..end` (or `start..=end`), stepped by `step`, possibly reversed.
    #[inline]
    pub fn new(start: I, end: I, inclusive: bool, step: I, rev: bool, site: &Site) -> Self {
        if step <= I::zero() {
            fail(
                site,
                CheckKind::BadStep,
                "step",
                "a positive step".into(),
                format!("{step:?}"),
            );
        }
        // in 128 bits: `end - start` overflows `I` for a range over more than half of a
        // signed type (`-128i8..=127`)
        let count = |last_offset: u128| {
            let steps = last_offset / wide(step);
            usize::try_from(steps).map_or(usize::MAX, |k| k.saturating_add(1))
        };
        let count = if inclusive {
            if start > end {
                0
            } else {
                count(wide(end).wrapping_sub(wide(start)))
            }
        } else if start >= end {
            0
        } else {
            count(wide(end).wrapping_sub(wide(start)) - 1)
        };
        RevRange {
            first: start,
            step,
            count,
            rev,
        }
    }

    /// The loop values in visiting order.
    #[inline(always)]
    pub fn iter(self) -> RevRangeIter<I> {
        let RevRange {
            first,
            step,
            count,
            rev,
        } = self;
        if count == 0 {
            return RevRangeIter {
                next: first,
                step,
                remaining: 0,
                rev,
            };
        }
        // `first + step·(count − 1)` lies in the range: computed in 128 bits, where the
        // product may not fit `I` (`count − 1` = 255 in an `i8` loop over every value)
        let offset = wide(step).wrapping_mul((count - 1) as u128);
        let last = narrow(wide(first).wrapping_add(offset));
        RevRangeIter {
            next: if rev { last } else { first },
            step,
            remaining: count,
            rev,
        }
    }
}

/// `x` as 128 bits in two's complement (the difference of two values of `I`, taken
/// modulo 2¹²⁸, is then the exact distance between them when it is non-negative).
#[inline(always)]
fn wide<I: PrimInt>(x: I) -> u128 {
    match x.to_i128() {
        Some(v) => v as u128,
        None => x.to_u128().expect("an integer fits in 128 bits"),
    }
}

/// The value of `I` whose [`wide`] form is `v` (`v` is one).
#[inline(always)]
fn narrow<I: PrimInt>(v: u128) -> I {
    I::from(v as i128)
        .or_else(|| I::from(v))
        .expect("a value of the loop's range")
}

/// Iterator over a [`RevRange`]: one addition or subtraction per step.
#[derive(Clone, Copy, Debug)]
pub struct RevRangeIter<I> {
    next: I,
    step: I,
    remaining: usize,
    rev: bool,
}

impl<I: PrimInt> Iterator for RevRangeIter<I> {
    type Item = I;
    #[inline(always)]
    fn next(&mut self) -> Option<I> {
        if self.remaining == 0 {
            return None;
        }
        let v = self.next;
        self.remaining -= 1;
        if self.remaining > 0 {
            self.next = if self.rev {
                v - self.step
            } else {
                v + self.step
            };
        }
        Some(v)
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}
