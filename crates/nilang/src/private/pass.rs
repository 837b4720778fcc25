//! Arguments of a call to another reversible function: a writable place handed as `&mut`, `&`
//! or a copy by the callee's parameter type ([`Pass`]), its gradient to a called adjoint
//! ([`PassShadow`]), a sub-slice copied beside another place of its variable ([`copy_slice`])
//! and whether the callee writes a parameter at all ([`writes`], from its published effects).

/// A sub-slice handed to a call beside another place of its variable (`g(p[0], p[1..3])`),
/// copied so that each argument is borrowed alone; [`store_slice`] puts it back.
#[inline]
pub fn copy_slice<T: Clone>(s: &[T]) -> Vec<T> {
    s.to_vec()
}

/// Puts back a sub-slice copied by [`copy_slice`].
#[inline]
pub fn store_slice<T: Clone>(to: &mut [T], from: &[T]) {
    to.clone_from_slice(from)
}

/// How a writable argument is handed to a called reversible function: as `&mut`, as `&`, or
/// as a copy, whichever the callee's parameter type asks for.
pub trait Pass<'a, X: ?Sized> {
    /// Converts the borrowed argument.
    fn pass(x: &'a mut X) -> Self;
}

impl<'a, X: ?Sized> Pass<'a, X> for &'a mut X {
    #[inline(always)]
    fn pass(x: &'a mut X) -> Self {
        x
    }
}

impl<'a, X: ?Sized> Pass<'a, X> for &'a X {
    #[inline(always)]
    fn pass(x: &'a mut X) -> Self {
        x
    }
}

impl<'a, X: Copy> Pass<'a, X> for X {
    #[inline(always)]
    fn pass(x: &'a mut X) -> Self {
        *x
    }
}

impl<'a, T> Pass<'a, Vec<T>> for &'a mut [T] {
    #[inline(always)]
    fn pass(x: &'a mut Vec<T>) -> Self {
        x
    }
}

impl<'a, T> Pass<'a, Vec<T>> for &'a [T] {
    #[inline(always)]
    fn pass(x: &'a mut Vec<T>) -> Self {
        x
    }
}

/// A pooled tape (`nilang::stack::Tape`) handed to a `&mut Vec<T>` parameter.
impl<'a, T: 'static> Pass<'a, crate::stack::Tape<T>> for &'a mut Vec<T> {
    #[inline(always)]
    fn pass(x: &'a mut crate::stack::Tape<T>) -> Self {
        x
    }
}

/// An array ancilla (`let s = [T::zero(); 3]`) handed to a slice parameter.
impl<'a, T, const N: usize> Pass<'a, [T; N]> for &'a mut [T] {
    #[inline(always)]
    fn pass(x: &'a mut [T; N]) -> Self {
        x
    }
}

impl<'a, T, const N: usize> Pass<'a, [T; N]> for &'a [T] {
    #[inline(always)]
    fn pass(x: &'a mut [T; N]) -> Self {
        x
    }
}

/// Hands a writable argument to a callee (see [`Pass`]).
#[inline(always)]
pub fn pass<'a, X: ?Sized, P: Pass<'a, X>>(x: &'a mut X) -> P {
    P::pass(x)
}

/// How the gradient of a writable argument is handed to a called adjoint program: as `&mut`
/// when the callee's parameter is `&mut` (the callee changes the gradient), as `()` when it is
/// read-only there (its gradient is not kept).
pub trait PassShadow<'a, X: ?Sized> {
    /// Converts the borrowed gradient.
    fn pass_shadow(g: &'a mut X) -> Self;
}

impl<'a, X: ?Sized> PassShadow<'a, X> for &'a mut X {
    #[inline(always)]
    fn pass_shadow(g: &'a mut X) -> Self {
        g
    }
}

impl<'a, T> PassShadow<'a, Vec<T>> for &'a mut [T] {
    #[inline(always)]
    fn pass_shadow(g: &'a mut Vec<T>) -> Self {
        g
    }
}

/// The gradients of a pooled tape handed to a `&mut Vec<G>` parameter.
impl<'a, T: 'static> PassShadow<'a, crate::stack::Tape<T>> for &'a mut Vec<T> {
    #[inline(always)]
    fn pass_shadow(g: &'a mut crate::stack::Tape<T>) -> Self {
        g
    }
}

/// The gradient of an array ancilla handed to a slice parameter.
impl<'a, T, const N: usize> PassShadow<'a, [T; N]> for &'a mut [T] {
    #[inline(always)]
    fn pass_shadow(g: &'a mut [T; N]) -> Self {
        g
    }
}

impl<'a, X: ?Sized> PassShadow<'a, X> for () {
    #[inline(always)]
    fn pass_shadow(_: &'a mut X) -> Self {}
}

/// Hands a writable argument's gradient to a called adjoint program (see [`PassShadow`]).
#[inline(always)]
pub fn pass_shadow<'a, X: ?Sized, P: PassShadow<'a, X>>(g: &'a mut X) -> P {
    P::pass_shadow(g)
}

/// Does a function whose effects are `mask` (its `WRITES`, see `nilang_ir::effects`) write its
/// parameter `k`? Parameters past the mask's width count as written.
#[inline(always)]
pub const fn writes(mask: u128, k: usize) -> bool {
    k >= 128 || (mask >> k) & 1 == 1
}

/// A slice of data (a parameter of a `#[differentiable]` function left out of `wrt`) handed to
/// a callee: it goes through as it is where the callee reads data, and is a compile error that
/// says what to write where the callee differentiates that parameter (a `&mut [T]`).
#[diagnostic::on_unimplemented(
    message = "a slice of data (a parameter not differentiated here) cannot be handed to a parameter the callee differentiates (`{Self}`)",
    label = "this argument is data here: a parameter left out of `wrt`",
    note = "copy it into a local vector first (`let mut v = vec![0.0; n];` and a loop), or differentiate it too (add it to `wrt`)"
)]
pub trait FromData<'a, E> {
    /// The argument as the callee's parameter takes it.
    fn from_data(x: &'a [E]) -> Self;
}

impl<'a, E> FromData<'a, E> for &'a [E] {
    #[inline(always)]
    fn from_data(x: &'a [E]) -> Self {
        x
    }
}

/// Hands a slice of data to a callee's parameter ([`FromData`]).
#[inline(always)]
pub fn data<'a, E, D: FromData<'a, E>>(x: &'a [E]) -> D {
    D::from_data(x)
}
