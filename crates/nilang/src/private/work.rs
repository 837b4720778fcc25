//! [`Work`]: a buffer a generated gradient entry point (`f_gradient`, `f_jacobian` of
//! `#[differentiable]`) fills for one call — a working copy of a read-only slice input, a
//! zeroed output or gradient buffer — held inline when it is short, on a pooled [`Tape`]
//! when it is long.
//!
//! A gradient called once per observation of a large problem (a bundle adjustment's
//! reprojection, a residual of a few unknowns) would otherwise allocate and free a handful of
//! short vectors per call; a long buffer comes from the thread's pool of tapes, so a gradient
//! called in a loop does not fault its pages in again on every call.

use crate::stack::Tape;
use std::ops::{Deref, DerefMut};

/// The most values a [`Work`] buffer holds inline (without allocating).
pub const INLINE: usize = 16;

/// A buffer of `T`s for one call: inline up to [`INLINE`] values, on a pooled [`Tape`] beyond.
/// It dereferences to `[T]`.
pub enum Work<T: Copy + Default + 'static> {
    /// At most [`INLINE`] values: the first `len` of the array.
    Inline {
        /// The storage.
        values: [T; INLINE],
        /// How many are in use.
        len: usize,
    },
    /// More values, on a tape buffer from this thread's pool.
    Pooled(Tape<T>),
}

impl<T: Copy + Default + 'static> Work<T> {
    /// A copy of `values`.
    #[inline]
    pub fn copied(values: &[T]) -> Work<T> {
        let len = values.len();
        if len > INLINE {
            return Work::Pooled(Tape::copied_from(values));
        }
        let mut inline = [T::default(); INLINE];
        inline[..len].copy_from_slice(values);
        Work::Inline {
            values: inline,
            len,
        }
    }

    /// `len` copies of `value`.
    #[inline]
    pub fn filled(value: T, len: usize) -> Work<T> {
        if len > INLINE {
            return Work::Pooled(Tape::filled(value, len));
        }
        Work::Inline {
            values: [value; INLINE],
            len,
        }
    }
}

impl<T: Copy + Default + 'static> Deref for Work<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        match self {
            Work::Inline { values, len } => &values[..*len],
            Work::Pooled(tape) => tape,
        }
    }
}

impl<T: Copy + Default + 'static> DerefMut for Work<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Work::Inline { values, len } => &mut values[..*len],
            Work::Pooled(tape) => tape,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Work, INLINE};
    use crate::Lanes;

    #[test]
    fn copies_and_fills_short_and_long_buffers() {
        for len in [0, 1, INLINE - 1, INLINE, INLINE + 1, 1000] {
            let values: Vec<f64> = (0..len).map(|k| k as f64 + 0.5).collect();
            let mut copy = Work::copied(&values);
            assert_eq!(&copy[..], &values[..], "len {len}");
            assert_eq!(matches!(copy, Work::Inline { .. }), len <= INLINE);
            if len > 0 {
                copy[len - 1] = -1.0;
                assert_eq!(copy[len - 1], -1.0);
            }
            let zeros = Work::filled(Lanes::<f64, 4>::default(), len);
            assert_eq!(zeros.len(), len);
            assert!(zeros.iter().all(|l| l.0 == [0.0; 4]));
        }
    }

    #[test]
    fn a_long_buffer_reuses_a_pooled_one_emptied() {
        drop(Work::filled(7.0f64, 5000));
        let again = Work::filled(0.0f64, 3000);
        assert_eq!(again.len(), 3000);
        assert!(again.iter().all(|&v| v == 0.0));
    }
}
