//! Higher-order operations over slices.
//!
//! ```
//! use nilang::stdlib::mapreduce::{i_filter, i_filter_inv};
//!
//! let (mut out, mut x) = (Vec::new(), vec![1.0, -2.0, 3.0]);
//! let positive = |v: f64| v > 0.0;
//! i_filter(&mut out, &mut x, &positive);
//! assert_eq!(out, vec![1.0, 3.0]);
//! i_filter_inv(&mut out, &mut x, &positive);
//! assert!(out.is_empty());
//! ```
//!
//! [`i_mapfoldl`] takes its map and fold as primitives passed by type (`Unary` types, such
//! as your own `struct Softplus;` or [`crate::prims::Identity`]) and folds by adding. With
//! reversible functions as map and fold (any reversible fold, as NiLang's `i_mapfoldl`), write
//! the statement `mapfoldl!(map, fold, out, x);` ([the language
//! guide](crate::guide::language#folds-with-reversible-functions-mapfoldl)).

use crate::{i, Real};

/// Pushes onto `out`, in order, the elements of `x` for which `keep` holds (NiLang's
/// `i_filter!`). `keep` sees each element's value as `f64` (so one predicate serves plain,
/// `GVar` and dual scalars) and must give the same answer when the inverse asks again.
///
/// Each kept element is copied into an ancilla (`y += x[i]`) that is then moved onto the
/// stack, so the gradient of a pushed value flows back to its element of `x`. Inverse: one
/// scan backwards, popping and checking each popped value against its element. Adjoint: one
/// scan.
///
/// ```
/// use nilang::stdlib::mapreduce::{i_filter, i_filter_inv};
///
/// let (mut out, mut x) = (Vec::new(), vec![1.0, -2.0, 3.0]);
/// let positive = |v: f64| v > 0.0;
/// i_filter(&mut out, &mut x, &positive);
/// assert_eq!(out, [1.0, 3.0]);
/// i_filter_inv(&mut out, &mut x, &positive);
/// assert!(out.is_empty());
/// ```
#[i]
pub fn i_filter<T: Real, F: Fn(f64) -> bool>(out: &mut Vec<T>, x: &mut [T], keep: &F) {
    for i in 0..x.len() {
        if keep(x[i].val()) {
            let y = T::zero();
            y += x[i];
            push!(out, y);
            dealloc!(y = T::zero());
        }
    }
}

/// NiLang's `i_mapfoldl(map, fold, out, xs)` with an additive fold: `out += F(M(x₀)) +
/// F(M(x₁)) + …`, one element at a time — `anc += M(xᵢ)`, `out += F(anc)`, `anc -= M(xᵢ)`
/// — so only one ancilla is live. `M` and `F` are primitives passed by type
/// (`i_mapfoldl::<T, M, F>`): types implementing [`crate::Unary`] for every float, as for
/// `y += MyPrim(x)` (NiLang's `i_sum(out, f, x)` is `F = Identity`). A primitive rather
/// than a reversible function, because the generated adjoint programs need the rule of `M`
/// on value–gradient pairs: the macro adds `M: Unary<T>` to them (and `M: Unary<Dual<T>>` to
/// `f_hessian`), which a primitive satisfies for every float; a reversible function passed by
/// type would need the four programs of a function (`f`, `f_inv`, `f_adjoint`,
/// `f_adjoint_inv`) behind one trait, which Rust cannot state for a function generic over its
/// scalar. Other folds, with reversible functions as map and fold, are the statement
/// `mapfoldl!(map, fold, out, x);` ([the language
/// guide](crate::guide::language#folds-with-reversible-functions-mapfoldl)).
///
/// Inverse: the same scan with `out -= F(anc)`. Adjoint: one scan, evaluating `M` twice and
/// `F` once per element, with their derivatives.
///
/// ```
/// use nilang::prims::{Identity, Square};
/// use nilang::stdlib::mapreduce::{i_mapfoldl, i_mapfoldl_grad, i_mapfoldl_inv};
/// use nilang::Loss;
///
/// // out += Σ xᵢ²  (NiLang: i_mapfoldl(abs2, PlusEq(identity), out, x))
/// let (mut out, mut x) = (0.0, vec![1.0, -2.0, 3.0]);
/// i_mapfoldl::<f64, Square, Identity>(&mut out, &mut x);
/// assert_eq!(out, 14.0);
/// i_mapfoldl_inv::<f64, Square, Identity>(&mut out, &mut x);
/// assert_eq!(out, 0.0);
/// let (_, gx) = i_mapfoldl_grad::<f64, Square, Identity>(Loss::arg(0), &mut 0.0, &mut x).unwrap();
/// assert_eq!(gx.iter().map(|g| g.g).collect::<Vec<_>>(), vec![2.0, -4.0, 6.0]);
/// ```
#[i]
pub fn i_mapfoldl<T: Real, M, F>(out: &mut T, x: &mut [T]) {
    let anc = T::zero();
    for i in 0..x.len() {
        anc += M(x[i]);
        out += F(anc);
        anc -= M(x[i]);
    }
    dealloc!(anc = T::zero());
}
