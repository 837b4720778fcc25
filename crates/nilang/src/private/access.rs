//! Reading and writing the places of a reversible function's body: an expression evaluated
//! read-only ([`read`]), a copy of a value, an operand stored back after an instruction, a zero
//! of a value's type. The loads themselves are the instruction traits' (`Accepts::load_like`,
//! re-exported beside these from `crate::instr`).

use crate::instr::{Accepts, Zeroable};

/// Stores an operand back after an instruction.
#[inline(always)]
pub fn store<Y: Accepts<X>, X>(x: &mut X, v: Y) {
    Y::store(x, v)
}

/// Evaluates an expression of a reversible function's body (an index, a condition, a value):
/// the closure must be `Fn`, so an expression that changes or moves a variable does not
/// compile (`nilang_macros`' `read_only`).
#[inline(always)]
pub fn read<R>(f: impl Fn() -> R) -> R {
    f()
}

/// A copy of a dataview's value.
#[inline(always)]
pub fn copy<X: Clone>(x: &X) -> X {
    x.clone()
}

/// A zero of the same type as `x`.
#[inline(always)]
pub fn zero_of<X: Zeroable>(x: &X) -> X {
    x.zero_like()
}

/// An ancilla vector `vec![value; n]`. A small one is allocated, then filled: glibc's `calloc`
/// (what `vec![0.0; n]` calls) never takes a block from the per-thread cache that `malloc`
/// serves from, and the guide's GMM gradient, which allocates its callee's two scratch vectors
/// per point and component, spent 18 % of its time in `calloc`, `_int_malloc` and `_int_free`.
/// A large one is `vec![value; n]` (fresh zeroed pages cost nothing to fill).
#[inline]
pub fn filled_vec<T: Clone>(value: T, n: usize) -> Vec<T> {
    const SMALL_BYTES: usize = 4096;
    if n.saturating_mul(core::mem::size_of::<T>()) <= SMALL_BYTES {
        let mut v = Vec::with_capacity(n);
        v.resize(n, value);
        v
    } else {
        vec![value; n]
    }
}
