//! Stacks for `push!`/`pop!`: any type with push and pop; `Vec` is one.
//!
//! A stack keeps what a function computed so that nothing has to be uncomputed: the inverse
//! pops it back.
//!
//! ```
//! use nilang::{i, Real};
//!
//! #[i]
//! fn keep_square<T: Real>(y: &mut T, x: &mut T, tape: &mut Vec<T>) {
//!     let t = T::zero();
//!     t += square(x);
//!     y += identity(t);
//!     push!(tape, t); // t moves to the stack and is zero again
//!     dealloc!(t = T::zero());
//! }
//! let (mut y, mut x, mut tape) = (0.0, 3.0, Vec::new());
//! keep_square(&mut y, &mut x, &mut tape);
//! assert_eq!((y, tape.clone()), (9.0, vec![9.0]));
//! keep_square_inv(&mut y, &mut x, &mut tape);
//! assert_eq!((y, tape.len()), (0.0, 0));
//! ```

mod pooled;
pub use pooled::{release_pooled_tapes, Home, Tape, HOME_BYTES, POOLED};

/// A last-in first-out store that `push!` and `pop!` move values to and from.
///
/// ```
/// use nilang::{i, Real, Stack};
///
/// // a Vec is a stack
/// let mut s: Vec<f64> = Vec::new();
/// s.push_value(1.5);
/// assert_eq!((s.depth(), s.pop_value(), s.pop_value()), (1, Some(1.5), None));
///
/// // push! moves a value onto a stack (zeroing it), pop! moves it back
/// #[i]
/// fn stash<T: Real>(x: &mut T, s: &mut Vec<T>) {
///     push!(s, x);
/// }
/// let (mut x, mut s) = (2.0, Vec::new());
/// stash(&mut x, &mut s);
/// assert_eq!((x, s.clone()), (0.0, vec![2.0]));
/// stash_inv(&mut x, &mut s);
/// assert_eq!((x, s.len()), (2.0, 0));
/// ```
pub trait Stack<T> {
    /// Pushes a value.
    fn push_value(&mut self, v: T);
    /// Pops the last value pushed, if any.
    fn pop_value(&mut self) -> Option<T>;
    /// The number of values held.
    fn depth(&self) -> usize;
    /// Pushes clones of `values` in order (the last on top): a loop of
    /// [`push_value`](Stack::push_value), one copy of the slice on a `Vec` or a `Tape`.
    fn push_values(&mut self, values: &[T])
    where
        T: Clone,
    {
        for v in values {
            self.push_value(v.clone());
        }
    }
    /// Pops the top `out.len()` values into `out`, the top one into its last element, as a
    /// loop of [`pop_value`](Stack::pop_value) from the last element down; `false` when the
    /// stack held fewer (a reversibility error for the caller to report).
    fn pop_values(&mut self, out: &mut [T]) -> bool {
        for o in out.iter_mut().rev() {
            match self.pop_value() {
                Some(v) => *o = v,
                None => return false,
            }
        }
        true
    }
}

impl<T> Stack<T> for Vec<T> {
    /// A full vector grows out of line, in `push_growing`: the value is handed to that call,
    /// so it is never live across a call on the fast path. (`Vec::push` keeps it live across
    /// its `grow_one` call, and x86-64 has no callee-saved float registers: a loop that pushes
    /// once per iteration then kept its accumulator in memory.)
    #[inline]
    fn push_value(&mut self, v: T) {
        if self.len() == self.capacity() {
            return push_growing(self, v);
        }
        self.push(v)
    }
    fn pop_value(&mut self) -> Option<T> {
        self.pop()
    }
    fn depth(&self) -> usize {
        self.len()
    }
    fn push_values(&mut self, values: &[T])
    where
        T: Clone,
    {
        self.extend_from_slice(values)
    }
    fn pop_values(&mut self, out: &mut [T]) -> bool {
        let Some(at) = self.len().checked_sub(out.len()) else {
            return false;
        };
        for (o, v) in out.iter_mut().zip(self.drain(at..)) {
            *o = v;
        }
        true
    }
}

/// [`Stack::push_value`] on a full vector: grows it, then pushes.
#[cold]
#[inline(never)]
fn push_growing<T>(stack: &mut Vec<T>, v: T) {
    stack.reserve(1);
    stack.push(v)
}

/// A stack of the discrete facts a reversible program records to be undone — branch decisions
/// (`bool`) and integers (trip counts, saved counters) — that a function can leave to its
/// caller, beside a `Vec` of its saved real values.
///
/// `#[differentiable]` passes one down its calls (`g_rev_taped`), so each callee leaves what it
/// saved for the caller's inverse to pop instead of uncomputing it on return. Integers of
/// every width share one stack of 64-bit words (each pops back as the type it was pushed as,
/// last in first out); booleans have their own.
///
/// ```
/// use nilang::{i, stack::Decisions, Real, Stack};
///
/// let mut d = Decisions::new();
/// d.push_value(true);
/// d.push_value(-3i32);
/// d.push_value(7usize);
/// assert_eq!(d.len(), 3);
/// assert_eq!(Stack::<usize>::pop_value(&mut d), Some(7));
/// assert_eq!(Stack::<i32>::pop_value(&mut d), Some(-3));
/// assert_eq!(Stack::<bool>::pop_value(&mut d), Some(true));
/// assert!(d.is_empty());
///
/// // a reversible function records a decision there; its inverse pops it
/// #[i]
/// fn relu_kept<T: Real>(y: &mut T, x: &mut T, d: &mut Decisions) {
///     let taken = false;
///     taken ^= *x > T::zero();
///     if taken {
///         y += identity(x);
///     }
///     push!(d, taken);
///     dealloc!(taken = false);
/// }
/// let (mut y, mut x, mut d) = (0.0, 2.0, Decisions::new());
/// relu_kept(&mut y, &mut x, &mut d);
/// assert_eq!((y, d.len()), (2.0, 1));
/// relu_kept_inv(&mut y, &mut x, &mut d);
/// assert_eq!((y, d.is_empty()), (0.0, true));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decisions {
    flags: Vec<bool>,
    words: Vec<u64>,
}

impl Decisions {
    /// An empty stack.
    pub fn new() -> Decisions {
        Decisions::default()
    }

    /// How many values it holds, booleans and integers together.
    pub fn len(&self) -> usize {
        self.flags.len() + self.words.len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Stack<bool> for Decisions {
    fn push_value(&mut self, v: bool) {
        self.flags.push(v)
    }
    fn pop_value(&mut self) -> Option<bool> {
        self.flags.pop()
    }
    fn depth(&self) -> usize {
        self.len()
    }
}

/// Each integer type is stored as its bits in a `u64` word (`as` round-trips every width up to
/// 64 bits, sign included).
macro_rules! decision_words {
    ($($t:ty),*) => {$(
        impl Stack<$t> for Decisions {
            fn push_value(&mut self, v: $t) {
                self.words.push(v as u64)
            }
            fn pop_value(&mut self) -> Option<$t> {
                self.words.pop().map(|w| w as $t)
            }
            fn depth(&self) -> usize {
                self.len()
            }
        }
    )*};
}
decision_words!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl crate::check::Check for Decisions {
    fn check_eq(&self, other: &Self, _tol: f64) -> bool {
        self == other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_of_every_width_pop_back_as_pushed() {
        let mut d = Decisions::new();
        d.push_value(i64::MIN);
        d.push_value(u64::MAX);
        d.push_value(-1i8);
        d.push_value(false);
        assert_eq!(Stack::<bool>::pop_value(&mut d), Some(false));
        assert_eq!(Stack::<i8>::pop_value(&mut d), Some(-1));
        assert_eq!(Stack::<u64>::pop_value(&mut d), Some(u64::MAX));
        assert_eq!(Stack::<i64>::pop_value(&mut d), Some(i64::MIN));
        assert_eq!(Stack::<usize>::pop_value(&mut d), None);
    }
}
