//! The checks of a checked adjoint program: a gradient left in an ancilla at its deallocation
//! ([`check_dropped_gradient`]), an instruction that turns a finite value–gradient pair into a
//! NaN or an infinity ([`check_finite`], by [`Finite`]), a primitive applied where its value
//! is not finite ([`check_singular_value`]).

use crate::check::{fail, CheckKind, Site};
use core::fmt::Debug;

use super::shadow::Shadow;

/// Checked adjoint programs, where an ancilla whose declared value reads a differentiable
/// variable is deallocated (its allocation, run backwards): a gradient left in it would be
/// dropped, so it must be zero (`nilang_ir::dropped`; [`CheckKind::DroppedGradient`]).
#[inline]
pub fn check_dropped_gradient<X: Shadow<L>, L>(
    _x: &X,
    g: &X::Grad,
    site: &Site,
    variable: &'static str,
) where
    X::Grad: Debug,
{
    if !X::grad_is_zero(g) {
        fail(
            site,
            CheckKind::DroppedGradient,
            variable,
            "a zero gradient".into(),
            format!("gradient {g:?}"),
        );
    }
}

/// A value–gradient pair (an operand of an adjoint instruction) that can tell whether it is
/// finite: checked adjoint programs report an instruction that turns a finite pair into a
/// NaN or an infinity ([`CheckKind::NonFinite`]). Numbers that hold infinities by design
/// (`ULog`'s and `Tropical`'s zero) always count as finite.
pub trait Finite {
    /// Are the value and the gradient finite?
    fn is_finite_pair(&self) -> bool;
}

impl<T: crate::Float, G: crate::Grad<T>> Finite for crate::GVar<T, G> {
    #[inline]
    fn is_finite_pair(&self) -> bool {
        self.x.to_f64().is_finite() && self.g.is_finite()
    }
}

impl<X: Finite> Finite for num_complex::Complex<X> {
    #[inline]
    fn is_finite_pair(&self) -> bool {
        self.re.is_finite_pair() && self.im.is_finite_pair()
    }
}

macro_rules! finite_always {
    ($($t:ty),*) => {$(
        impl Finite for $t {
            #[inline]
            fn is_finite_pair(&self) -> bool { true }
        }
    )*};
}
finite_always!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, bool);

impl<X> Finite for crate::numbers::ULog<X> {
    fn is_finite_pair(&self) -> bool {
        true
    }
}

impl<X> Finite for crate::numbers::Tropical<X> {
    fn is_finite_pair(&self) -> bool {
        true
    }
}

/// Whether a pair is finite (see [`Finite`]).
#[inline(always)]
pub fn is_finite_pair<Y: Finite>(y: &Y) -> bool {
    y.is_finite_pair()
}

/// After an adjoint instruction: a pair that was finite before it (`was_finite`) must still
/// be ([`CheckKind::NonFinite`]).
#[inline]
pub fn check_finite<Y: Finite + Debug>(
    was_finite: bool,
    y: &Y,
    site: &Site,
    variable: &'static str,
) {
    if was_finite && !y.is_finite_pair() {
        fail(
            site,
            CheckKind::NonFinite,
            variable,
            "a finite value and gradient".into(),
            format!("{y:?}"),
        );
    }
}

/// Before an adjoint instruction: its primitive's value at the operands is not finite
/// although they are (`singular`, from `Acc1::value_is_singular`/`Acc2::value_is_singular`):
/// [`CheckKind::NonFinite`], naming the operands.
#[inline]
pub fn check_singular_value<Y: Debug>(
    singular: bool,
    operands: &[&Y],
    site: &Site,
    variables: &'static str,
) {
    if singular {
        fail(
            site,
            CheckKind::NonFinite,
            variables,
            "operands where the primitive has a finite value".into(),
            format!("{operands:?}, where its value is not finite"),
        );
    }
}
