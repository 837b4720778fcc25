//! The instruction `r += f(z)` whose operand keeps its own type (`abs`, `abs2`, `angle` of a
//! complex `z` into a real `r`, [`crate::complex`]), called with the operand first. In code
//! generic over `T: Real` the bound `T: Acc1<Abs>` (an operand of type `T`) would decide
//! `<T as Acc1<Abs, _>>` before the operand's type is seen; given first, the operand's type
//! picks the instruction (`T: Acc1<Abs, Complex<T>>`).

use crate::instr::Acc1;

/// `y += f(x)`.
#[inline(always)]
pub fn add1<F, X, Y: Acc1<F, X>>(x: &mut X, y: &mut Y) {
    Y::add1(y, x)
}

/// `y -= f(x)`.
#[inline(always)]
pub fn sub1<F, X, Y: Acc1<F, X>>(x: &mut X, y: &mut Y) {
    Y::sub1(y, x)
}

/// `y -= f(x)` where `y` holds exactly `f(x)` ([`Acc1::sub1_released`]).
#[inline(always)]
pub fn sub1_released<F, X, Y: Acc1<F, X>>(x: &mut X, y: &mut Y) {
    Y::sub1_released(y, x)
}

/// [`Acc1::value_is_singular`] of the instruction on the target `y`'s type.
#[inline(always)]
pub fn value_is_singular<F, X, Y: Acc1<F, X>>(x: &X, y: &Y) -> bool {
    let _ = y;
    Y::value_is_singular(x)
}
