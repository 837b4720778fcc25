//! Stacks for `push!`/`pop!`: any type with push and pop; `Vec` is one.

/// A last-in first-out store that `push!` and `pop!` move values to and from.
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
