//! [`LocalStore`]: the storage of a vector ancilla of an unchecked reversible program
//! (`let t = vec![e; n];` that the body reaches only element by element or by sub-slice),
//! inline when short; the ancilla itself is a `&mut [T]` into it.
//!
//! A routine such as `sub_half_sqnorm` of the guide's GMM allocates two such vectors of `d`
//! values, and its adjoint two more for their gradients, at every call: the program runs once
//! per point and component, so at `d = 10` the allocator took a sixth of the gradient. Up to
//! [`INLINE`] values live on the stack; longer vectors are an ordinary `Vec`. The ancilla is
//! a plain slice reference, so a loop over it keeps its pointer and length in registers, as it
//! would a `Vec`'s.
//!
//! The code generator uses it only where nothing can tell the difference
//! (`nilang_ir::local_vectors`): the body never names the vector whole, so no call, stack or
//! expression sees its type.

use super::shadow::Shadow;

/// The most values a `LocalStore` holds inline.
pub const INLINE: usize = 16;

/// Storage for one vector ancilla: inline up to 16 values (`INLINE`), else on the heap.
pub struct LocalStore<T> {
    inline: Option<[T; INLINE]>,
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
            inline: None,
            heap: Vec::new(),
        }
    }

    /// `len` copies of `value`, as `vec![value; len]`, stored here.
    #[inline]
    pub fn filled(&mut self, value: T, len: usize) -> &mut [T]
    where
        T: Clone,
    {
        if len > INLINE {
            self.heap = vec![value; len];
            return &mut self.heap;
        }
        &mut self.inline.insert(core::array::from_fn(|_| value.clone()))[..len]
    }

    /// A copy of `x`, stored here.
    #[inline]
    pub fn copied(&mut self, x: &[T]) -> &mut [T]
    where
        T: Clone,
    {
        let len = x.len();
        if len > INLINE {
            self.heap = x.to_vec();
            return &mut self.heap;
        }
        if len == 0 {
            return &mut [];
        }
        &mut self
            .inline
            .insert(core::array::from_fn(|i| x[i.min(len - 1)].clone()))[..len]
    }

    /// The zero gradients of the values `x` (each `Shadow::zero_grad`), stored here.
    #[inline]
    pub fn zero_grads<X: Shadow<L, Grad = T>, L>(&mut self, x: &[X]) -> &mut [T] {
        let len = x.len();
        if len > INLINE {
            self.heap = x.iter().map(Shadow::zero_grad).collect();
            return &mut self.heap;
        }
        if len == 0 {
            return &mut [];
        }
        // the slots past `len` hold copies of the last gradient and are never reached
        let grads = core::array::from_fn(|i| x[i.min(len - 1)].zero_grad());
        &mut self.inline.insert(grads)[..len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_vectors_are_inline_and_long_ones_on_the_heap() {
        for len in [0, 1, INLINE, INLINE + 1, 40] {
            let mut store = LocalStore::new();
            let v = store.filled(2.5f64, len);
            assert_eq!(v.len(), len);
            assert!(v.iter().all(|&x| x == 2.5));
            if len > 0 {
                v[len - 1] = 1.0;
                assert_eq!(v[len - 1], 1.0);
            }
            assert_eq!(store.inline.is_some(), len <= INLINE);
            assert_eq!(store.heap.len(), if len > INLINE { len } else { 0 });
            let mut other = LocalStore::new();
            assert_eq!(other.copied(store.filled(0.5, len)), &vec![0.5; len][..]);
        }
    }

    #[test]
    fn zero_gradients_match_the_values() {
        for len in [0, 3, INLINE, INLINE + 2] {
            let mut values = LocalStore::new();
            let x = values.filled(1.5f64, len);
            let mut grads = LocalStore::new();
            let g = grads.zero_grads::<f64, f64>(x);
            assert_eq!(g.len(), len);
            assert!(g.iter().all(|g| *g == 0.0 && g.is_sign_negative()));
        }
    }
}
