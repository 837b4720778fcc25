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
}

impl<T> Stack<T> for Vec<T> {
    fn push_value(&mut self, v: T) {
        self.push(v)
    }
    fn pop_value(&mut self) -> Option<T> {
        self.pop()
    }
    fn depth(&self) -> usize {
        self.len()
    }
}
