//! [`LocalStore`]: the storage of a vector ancilla of an unchecked reversible program
//! (`let t = vec![e; n];` that the body reaches only element by element or by sub-slice),
//! inline when short; the ancilla itself is a `&mut [T]` into it.
//!
//! A routine such as `sub_half_sqnorm` of the guide's GMM allocates two such vectors of `d`
//! values, and its adjoint two more for their gradients, at every call: the program runs once
//! per point and component, so at `d = 10` the allocator took a sixth of the gradient. Up to
//! 32 values live on the stack; longer vectors are an ordinary `Vec`. The ancilla is
//! a plain slice reference, so a loop over it keeps its pointer and length in registers, as it
//! would a `Vec`'s.
//!
//! The code generator uses it only where nothing can tell the difference
//! (`nilang_ir::local_vectors`): the body never names the vector whole, so no call, stack or
//! expression sees its type.

use super::shadow::Shadow;

/// The most values a `LocalStore` holds in its short inline array.
pub const INLINE: usize = 16;

/// The most values a `LocalStore` holds in its long inline array.
pub const INLINE_LONG: usize = 32;

/// Storage for one vector ancilla: inline up to 16 values (`INLINE`) or 32 (`INLINE_LONG`),
/// else on the heap. An array not used is `None` and costs only its stack space.
pub struct LocalStore<T> {
    short: Option<[T; INLINE]>,
    long: Option<[T; INLINE_LONG]>,
    heap: Vec<T>,
}

impl<T> Default for LocalStore<T> {
    fn default() -> Self {
        LocalStore::new()
    }
}

impl<T> LocalStore<T> {
    /// An empty storage; it allocates nothing.
    #[inline(always)]
    pub const fn new() -> LocalStore<T> {
        LocalStore {
            short: None,
            long: None,
            heap: Vec::new(),
        }
    }

    /// `len` copies of `value`, as `vec![value; len]`, stored here.
    #[inline]
    pub fn filled(&mut self, value: T, len: usize) -> &mut [T]
    where
        T: Clone,
    {
        self.store(len, |_| value.clone())
    }

    /// A copy of `x`, stored here.
    #[inline]
    pub fn copied(&mut self, x: &[T]) -> &mut [T]
    where
        T: Clone,
    {
        self.store(x.len(), |i| x[i].clone())
    }

    /// The zero gradients of the values `x` (each `Shadow::zero_grad`), stored here.
    #[inline]
    pub fn zero_grads<X: Shadow<L, Grad = T>, L>(&mut self, x: &[X]) -> &mut [T] {
        self.store(x.len(), |i| x[i].zero_grad())
    }

    /// `len` values, the `i`-th `make(i)`, in the smallest storage that holds them (the slots of
    /// an inline array past `len` hold copies of the last value and are never reached).
    #[inline(always)]
    fn store(&mut self, len: usize, make: impl Fn(usize) -> T) -> &mut [T] {
        if len == 0 {
            return &mut [];
        }
        let at = |i: usize| make(i.min(len - 1));
        if len <= INLINE {
            return &mut self.short.insert(core::array::from_fn(at))[..len];
        }
        if len <= INLINE_LONG {
            return &mut self.long.insert(core::array::from_fn(at))[..len];
        }
        self.heap = (0..len).map(make).collect();
        &mut self.heap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_vectors_are_inline_and_long_ones_on_the_heap() {
        for len in [0, 1, INLINE, INLINE + 1, INLINE_LONG, INLINE_LONG + 1, 100] {
            let mut store = LocalStore::new();
            let v = store.filled(2.5f64, len);
            assert_eq!(v.len(), len);
            assert!(v.iter().all(|&x| x == 2.5));
            if len > 0 {
                v[len - 1] = 1.0;
                assert_eq!(v[len - 1], 1.0);
            }
            let short = (1..=INLINE).contains(&len);
            let long = (INLINE + 1..=INLINE_LONG).contains(&len);
            assert_eq!((store.short.is_some(), store.long.is_some()), (short, long));
            assert_eq!(store.heap.len(), if len > INLINE_LONG { len } else { 0 });
            let mut other = LocalStore::new();
            assert_eq!(other.copied(store.filled(0.5, len)), &vec![0.5; len][..]);
        }
    }

    #[test]
    fn zero_gradients_match_the_values() {
        for len in [0, 3, INLINE, INLINE + 2, INLINE_LONG + 2] {
            let mut values = LocalStore::new();
            let x = values.filled(1.5f64, len);
            let mut grads = LocalStore::new();
            let g = grads.zero_grads::<f64, f64>(x);
            assert_eq!(g.len(), len);
            assert!(g.iter().all(|g| *g == 0.0 && g.is_sign_negative()));
        }
    }
}
