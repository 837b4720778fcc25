//! What the generated gradient entry points (`f_vjp`, `f_grad`, `f_jacobian`,
//! `f_jacobian_of`, `f_hessian`) call around the adjoint program: arguments wrapped in `GVar`s
//! or dual numbers, zero or copied buffers, seeds, the gradients read back in flat order, the
//! labels of a Jacobian's scalars, the test for an all-zero gradient buffer.

use crate::ad::{GradError, Scalars};
use crate::dual::{Dual, DualN};
use crate::float::Float;
use crate::gvar::GVar;
use crate::lanes::Grad;

/// A copy of a `&mut` argument that has no gradient (integers, a stack of them, a user
/// type), for one sweep of a gradient function: a `Vec<i64>` for an `[i64]`, a clone of
/// a sized `Clone` type.
#[inline]
pub fn state_copy<X: ToOwned + ?Sized>(x: &X) -> X::Owned {
    x.to_owned()
}

/// A [`state_copy`] as the argument's own type (`&mut [i64]` for a `Vec<i64>` copy);
/// `like` is the argument, only for its type.
#[inline]
pub fn state_mut<'a, X: ToOwned + ?Sized>(copy: &'a mut X::Owned, like: &X) -> &'a mut X
where
    X::Owned: core::borrow::BorrowMut<X>,
{
    let _ = like;
    core::borrow::BorrowMut::borrow_mut(copy)
}

/// Wraps a differentiable argument's values in `GVar` with zero gradients.
#[inline]
pub fn wrap<T: Float, X: Scalars<T> + ?Sized>(x: &X) -> X::Map<GVar<T>> {
    x.map(&mut |_, v| GVar::new(v))
}

/// Lifts a differentiable argument into dual numbers, with tangent 1 on flat scalar
/// `seed - offset` when it falls inside this argument.
#[inline]
pub fn lift<T: Float, X: Scalars<T> + ?Sized>(
    x: &X,
    offset: usize,
    seed: usize,
) -> X::Map<Dual<T>> {
    x.map(&mut |i, v| {
        let tangent = if offset + i == seed && i < x.count() {
            T::f_one()
        } else {
            T::f_zero()
        };
        Dual::new(v, tangent)
    })
}

/// A read-only argument as dual numbers with zero tangents.
#[inline]
pub fn constant_dual<T: Float, X: Scalars<T> + ?Sized>(x: &X) -> X::Map<Dual<T>> {
    x.map(&mut |_, v| Dual::constant(v))
}

/// Seeds gradient `g` on scalar `index` of a wrapped argument.
#[inline]
pub fn seed<T: Float, X: Scalars<T> + ?Sized>(
    x: &X,
    w: &mut X::Map<GVar<T>>,
    index: usize,
    g: T,
    function: &'static str,
    arg: usize,
) -> Result<(), GradError> {
    let len = x.count();
    if len == 0 {
        return Err(GradError::NotDifferentiable { function, arg });
    }
    if index >= len {
        return Err(GradError::IndexOutOfRange {
            function,
            arg,
            index,
            len,
        });
    }
    let mut v = X::get_mapped(w, index);
    v.g = g;
    X::set_mapped(w, index, v);
    Ok(())
}

/// The gradients of a wrapped argument, appended in flat order.
#[inline]
pub fn grads<T: Float, X: Scalars<T> + ?Sized>(x: &X, w: &X::Map<GVar<T>>, out: &mut Vec<T>) {
    for i in 0..x.count() {
        out.push(X::get_mapped(w, i).g);
    }
}

/// The tangents of the gradients of a dual-wrapped argument, appended in flat order.
#[inline]
pub fn grad_tangents<T: Float, X: Scalars<T> + ?Sized>(
    x: &X,
    w: &<X as Scalars<T>>::Map<GVar<Dual<T>>>,
    out: &mut Vec<T>,
) {
    for i in 0..x.count() {
        out.push(X::get_mapped(w, i).g.eps);
    }
}

/// A zero gradient buffer of a differentiable argument's shape, with gradients of type
/// `L` (`T`, or `Lanes<T, N>` for `N` losses at once).
#[inline]
pub fn zero_shadow<T: Float, X: Scalars<T> + ?Sized, L: Grad<T>>(x: &X) -> X::Map<L> {
    x.map(&mut |_, _| L::zero())
}

/// A copy of a differentiable argument's values in a buffer of its own.
#[inline]
pub fn copy_values<T: Float, X: Scalars<T> + ?Sized>(x: &X) -> X::Map<T> {
    x.map(&mut |_, v| v)
}

/// A buffer of `T`s seen as the argument's own type (`&mut [T]` for a `Vec<T>`).
#[inline(always)]
pub fn as_value_mut<T: Float, X: Scalars<T> + ?Sized>(m: &mut X::Map<T>) -> &mut X {
    X::as_value_mut(m)
}

/// Sets lane `lane` of scalar `index` of a gradient buffer to `g` (a loss's seed).
#[inline]
pub fn seed_lane<T: Float, X: Scalars<T> + ?Sized, L: Grad<T>>(
    s: &mut X::Map<L>,
    index: usize,
    lane: usize,
    g: T,
) {
    let mut v = X::get_mapped(s, index);
    v.set_lane(lane, g);
    X::set_mapped(s, index, v);
}

/// Values and gradients zipped into `GVar`s (what `f_grad` returns).
#[inline]
pub fn zip<T: Float, X: Scalars<T> + ?Sized>(x: &X, s: &X::Map<T>) -> X::Map<GVar<T>> {
    x.map(&mut |i, v| GVar::with_grad(v, X::get_mapped(s, i)))
}

/// Lane `lane` of every scalar of a gradient buffer, appended in flat order (a row of a
/// Jacobian).
#[inline]
pub fn lane_grads<T: Float, X: Scalars<T> + ?Sized, L: Grad<T>>(
    x: &X,
    s: &X::Map<L>,
    lane: usize,
    out: &mut Vec<T>,
) {
    for i in 0..x.count() {
        out.push(X::get_mapped(s, i).lane(lane));
    }
}

/// Seeds one sweep of `#[differentiable]`'s `f_jacobian`: the sweep computes the Jacobian's
/// rows `first..first + lanes`, one per lane; `grad` is the gradient buffer of the output whose
/// entries are rows `offset..offset + grad.len()`, and each of those rows in the sweep gets a
/// unit seed in its lane.
#[inline]
pub fn seed_rows<T: Float, L: Grad<T>>(grad: &mut [L], offset: usize, first: usize, lanes: usize) {
    for k in 0..lanes {
        if let Some(g) = (first + k)
            .checked_sub(offset)
            .and_then(|i| grad.get_mut(i))
        {
            g.set_lane(k, T::f_one());
        }
    }
}

/// Reads one sweep of `#[differentiable]`'s `f_jacobian` into the row-major Jacobian `jac` of
/// `cols` columns: lane `k` of `grad` (the gradient buffer of the input whose scalars are the
/// columns `col..col + grad.len()`) into row `first + k`, for `k < lanes`.
#[inline]
pub fn read_rows<T: Float, L: Grad<T>>(
    jac: &mut [T],
    cols: usize,
    first: usize,
    lanes: usize,
    col: usize,
    grad: &[L],
) {
    for k in 0..lanes {
        let row = &mut jac[(first + k) * cols + col..][..grad.len()];
        for (o, g) in row.iter_mut().zip(grad) {
            *o = g.lane(k);
        }
    }
}

/// One input scalar of a forward sweep of `#[differentiable]`'s `f_jacobian`, which computes
/// the Jacobian's columns `first..first + N` (one per tangent): `v` with tangent 1 in lane
/// `col - first` when its column `col` is among them.
#[inline]
pub fn seeded_column<T: Float, const N: usize>(v: T, col: usize, first: usize) -> DualN<T, N> {
    let mut d = DualN::constant(v);
    if let Some(lane) = col.checked_sub(first).filter(|&k| k < N) {
        d.eps[lane] = T::f_one();
    }
    d
}

/// [`seeded_column`] for the scalars of a slice input, whose columns start at `col`.
#[inline]
pub fn seed_columns<T: Float, const N: usize>(
    values: &[T],
    col: usize,
    first: usize,
    out: &mut [DualN<T, N>],
) {
    for (k, (o, &v)) in out.iter_mut().zip(values).enumerate() {
        *o = seeded_column(v, col + k, first);
    }
}

/// Reads a forward sweep of `f_jacobian` into the row-major Jacobian `jac` of `cols` columns:
/// the tangents `0..lanes` of `outputs` (an output whose entries are the rows `row..`) into
/// the columns `first..first + lanes`.
#[inline]
pub fn read_columns<T: Float, const N: usize>(
    jac: &mut [T],
    cols: usize,
    row: usize,
    first: usize,
    lanes: usize,
    outputs: &[DualN<T, N>],
) {
    for (i, o) in outputs.iter().enumerate() {
        jac[(row + i) * cols + first..][..lanes].copy_from_slice(&o.eps[..lanes]);
    }
}

/// The values an output held on entry as dual numbers with zero tangents, for a forward
/// sweep of `f_jacobian`.
#[inline]
pub fn constants<T: Float, const N: usize>(values: &[T], out: &mut [DualN<T, N>]) {
    for (o, &v) in out.iter_mut().zip(values) {
        *o = DualN::constant(v);
    }
}

/// The values of an output computed by a forward sweep of `f_jacobian` (what `f` writes
/// there), into the caller's output.
#[inline]
pub fn read_values<T: Float, const N: usize>(output: &mut [T], values: &[DualN<T, N>]) {
    for (o, v) in output.iter_mut().zip(values) {
        *o = v.re;
    }
}

/// The label of scalar `index` of the parameter `name` in a Jacobian or Hessian: the name
/// alone for a parameter of the scalar type, `name[index]` for any other.
pub fn label(name: &str, scalar: bool, index: usize) -> String {
    if scalar {
        name.to_string()
    } else {
        format!("{name}[{index}]")
    }
}

/// The labels of every differentiable scalar of the argument `x` (the parameter `name`),
/// appended in flat order.
pub fn push_labels<T: Float, X: Scalars<T> + ?Sized>(
    name: &str,
    scalar: bool,
    x: &X,
    out: &mut Vec<String>,
) {
    out.extend((0..x.count()).map(|k| label(name, scalar, k)));
}

/// The error for a loss argument that is not differentiable.
pub fn not_differentiable(function: &'static str, arg: usize) -> GradError {
    GradError::NotDifferentiable { function, arg }
}

/// Whether every gradient in `g` is zero (`f_vjp`'s test for its fused path). The buffer is
/// tested in chunks of 16 with no early exit inside a chunk, so the comparisons vectorise; a
/// test element by element with an early exit stays scalar (9% of an `ode` gradient at
/// `n = 100 000`, `s = 1`).
pub fn all_zero<T, G: Grad<T>>(g: &[G]) -> bool {
    let mut chunks = g.chunks_exact(16);
    for chunk in &mut chunks {
        if !chunk.iter().fold(true, |all, x| all & x.is_zero()) {
            return false;
        }
    }
    chunks.remainder().iter().all(Grad::is_zero)
}

#[cfg(test)]
mod all_zero_tests {
    use super::all_zero;
    use crate::Lanes;

    #[test]
    fn finds_a_nonzero_in_the_chunks_and_in_the_remainder() {
        for len in [0, 1, 15, 16, 17, 40] {
            let zeros = vec![0.0f64; len];
            assert!(all_zero::<f64, f64>(&zeros), "len {len}");
            for at in 0..len {
                let mut g = zeros.clone();
                g[at] = 1e-300;
                assert!(!all_zero::<f64, f64>(&g), "len {len}, nonzero at {at}");
                g[at] = f64::NAN;
                assert!(!all_zero::<f64, f64>(&g), "len {len}, NaN at {at}");
                g[at] = -0.0;
                assert!(all_zero::<f64, f64>(&g), "len {len}, -0 at {at}");
            }
        }
    }

    #[test]
    fn tests_every_lane() {
        let mut g = vec![Lanes::<f64, 2>([0.0; 2]); 20];
        assert!(all_zero::<f64, _>(&g));
        g[18].0[1] = 2.0;
        assert!(!all_zero::<f64, _>(&g));
    }
}

/// A parameter that `#[differentiable]` does not differentiate (an index, a count, data): the
/// gradient entry points hand it to the taped program and to its adjoint, so it is used more
/// than once and must be `Copy`. `f_gradient` asks for this of each such parameter, so that a
/// `String` taken by value is an error that says why and what to write (a `Vec` taken by
/// value is the front end's error, at its type).
#[diagnostic::on_unimplemented(
    message = "`#[differentiable]` hands the parameter of type `{Self}` to several generated \
               programs, so its type must be `Copy`",
    label = "not `Copy`: take it by reference",
    note = "take it by reference: `&str` for a `String`, `&T` for a `T`"
)]
pub trait PlainParameter {}

impl<T: Copy> PlainParameter for T {}

/// Compiles only when the parameter's type `T` is a [`PlainParameter`].
#[inline(always)]
pub fn plain_parameter<T: PlainParameter>(parameter: T) {
    let _ = parameter;
}

/// The length `dst.copy_from_slice(src)` copies in the program `#[differentiable]` writes for
/// it (an element-by-element loop): `dst_len`, which must equal `src_len`.
///
/// # Panics
///
/// When the lengths differ, as `copy_from_slice` does, naming both.
#[inline]
#[track_caller]
pub fn copy_length(dst_len: usize, src_len: usize) -> usize {
    assert_eq!(
        dst_len, src_len,
        "copy_from_slice: the destination has length {dst_len}, the source {src_len}"
    );
    dst_len
}
