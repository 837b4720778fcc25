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
