//! What the functions `#[instruction]` generates call: the `f64` views of the generic
//! arguments of a user instruction (`nilang::instruction`), and the panics when the scalar or
//! gradient type is not `f64`.

use crate::Grad;
use core::any::{type_name, TypeId};

#[cold]
#[inline(never)]
fn not_f64<X>(instr: &str, what: &str) -> ! {
    panic!(
        "the instruction `{instr}` runs on f64 values and f64 gradients only, and was called \
         with {what} of type `{}`: its user functions are written over f64 and have no rule \
         for dual numbers (forward mode, Hessians) or GVar",
        type_name::<X>()
    )
}

/// `x` as `&mut f64` (`X` is `f64`), else a panic naming the instruction.
#[inline(always)]
pub fn scalar_mut<'a, X: 'static>(x: &'a mut X, instr: &str, what: &str) -> &'a mut f64 {
    match (x as &mut dyn core::any::Any).downcast_mut::<f64>() {
        Some(v) => v,
        None => not_f64::<X>(instr, what),
    }
}

/// `x` as `&f64` (`X` is `f64`), else a panic naming the instruction.
#[inline(always)]
pub fn scalar<'a, X: 'static>(x: &'a X, instr: &str, what: &str) -> &'a f64 {
    match (x as &dyn core::any::Any).downcast_ref::<f64>() {
        Some(v) => v,
        None => not_f64::<X>(instr, what),
    }
}

/// `x` as `&mut [f64]` (`X` is `f64`), else a panic naming the instruction.
#[inline(always)]
pub fn slice_mut<'a, X: 'static>(x: &'a mut [X], instr: &str, what: &str) -> &'a mut [f64] {
    if TypeId::of::<X>() != TypeId::of::<f64>() {
        not_f64::<X>(instr, what)
    }
    // SAFETY: `X` is `f64` (same type id), so the slice is a slice of f64
    unsafe { &mut *(x as *mut [X] as *mut [f64]) }
}

/// `x` as `&[f64]` (`X` is `f64`), else a panic naming the instruction.
#[inline(always)]
pub fn slice<'a, X: 'static>(x: &'a [X], instr: &str, what: &str) -> &'a [f64] {
    if TypeId::of::<X>() != TypeId::of::<f64>() {
        not_f64::<X>(instr, what)
    }
    // SAFETY: `X` is `f64` (same type id), so the slice is a slice of f64
    unsafe { &*(x as *const [X] as *const [f64]) }
}

/// A gradient, scalar or slice, that must be zero.
pub trait AllZero {
    /// Whether every entry is zero.
    fn all_zero(&self) -> bool;
}

impl AllZero for f64 {
    fn all_zero(&self) -> bool {
        *self == 0.0
    }
}

impl AllZero for [f64] {
    fn all_zero(&self) -> bool {
        self.iter().all(|g| *g == 0.0)
    }
}

/// The check of `g::adjoint_inv` for an instruction declared without `adjoint_inv`: running
/// the forward on values is its inverse adjoint only while the gradients are zero.
#[track_caller]
pub fn zero_gradient<X: AllZero + ?Sized>(g: &X, instr: &str, param: &str) {
    if !g.all_zero() {
        panic!(
            "the instruction `{instr}` ran its inverse adjoint (a call undone inside a \
             routine, under a gradient) with a nonzero gradient `{param}`, and was declared \
             without `adjoint_inv`: give `#[instruction(adjoint_inv = f)]`, the inverse of its \
             adjoint on values and gradients"
        )
    }
}

/// Whether the gradient type is `f64` itself (one loss, the user's functions run on the
/// gradients in place); otherwise the adjoints run lane by lane on copies.
#[inline(always)]
pub fn plain_gradient<G: 'static>() -> bool {
    TypeId::of::<G>() == TypeId::of::<f64>()
}

/// The number of lanes of the gradient type `G` of scalars `T` (`T` must be `f64`).
pub fn lanes<T: 'static, G: Grad<T>>(instr: &str) -> usize {
    if TypeId::of::<T>() != TypeId::of::<f64>() {
        not_f64::<T>(instr, "values")
    }
    G::LANES
}

/// Lane `k` of a gradient, as `f64` (`T` is `f64`).
pub fn lane_of<T: 'static, G: Grad<T>>(g: &G, k: usize, instr: &str) -> f64 {
    *scalar(&g.lane(k), instr, "values")
}

/// Sets lane `k` of a gradient from an `f64` (`T` is `f64`).
pub fn set_lane_of<T: 'static, G: Grad<T>>(g: &mut G, k: usize, v: f64, instr: &str) {
    let mut t = g.lane(k);
    *scalar_mut(&mut t, instr, "values") = v;
    g.set_lane(k, t);
}

/// Lane `k` of a slice of gradients, as `f64`s.
pub fn lanes_of<T: 'static, G: Grad<T>>(g: &[G], k: usize, instr: &str) -> Vec<f64> {
    g.iter().map(|g| lane_of(g, k, instr)).collect()
}

/// Sets lane `k` of a slice of gradients.
pub fn set_lanes_of<T: 'static, G: Grad<T>>(g: &mut [G], k: usize, v: &[f64], instr: &str) {
    for (g, v) in g.iter_mut().zip(v) {
        set_lane_of(g, k, *v, instr);
    }
}

/// The check of `g::adjoint_inv` for an instruction declared without `adjoint_inv`, on
/// gradients of any type: every lane of every entry must be zero.
#[track_caller]
pub fn zero_gradients<T, G: Grad<T>>(g: &[G], instr: &str, param: &str) {
    if !g.iter().all(Grad::is_zero) {
        zero_gradient(&1.0, instr, param)
    }
}
