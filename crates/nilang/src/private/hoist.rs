//! Indexing without bounds checks in an unchecked loop (`#[i(nocheck)]`, `nocheck!`) whose
//! indices were checked before it (`nilang_ir::bounds`).
//!
//! Generated code reaches a place `x` through [`Place`] / [`PlaceMut`] and two methods chosen
//! by the place's type at compile time (method resolution tries a method on the value before
//! one on a reference to it):
//!
//! - for a [`Contiguous`] type — a slice `[T]`, an array `[T; N]`, a `Vec<T>`, a `Box<[T]>` —
//!   `Place(&x).bounds()` is `Some(0..len)`, the length of the very slice that
//!   `Place(&x).get(i)` / `PlaceMut(&mut x).get(i)` then index without a check;
//! - for any other type that indexes by `usize` (a type of the user's, whose `len()` or
//!   `Deref` nothing here can trust), `bounds()` is `None`, nothing is checked before the
//!   loop, and `get` indexes with the type's own, checked, `Index`/`IndexMut`.
//!
//! Not a public API: generated code calls it through `nilang::__private::hoist`.

use core::cell::Cell;
use core::ops::{Deref, DerefMut, Index, IndexMut, Range};

mod sealed {
    pub trait Sealed {}
}

/// A type whose elements are one slice, reached and measured without user code, whose length
/// changes only through a `&mut` to the whole value. Sealed: implemented here only, for
/// `[T]`, `[T; N]`, `Vec<T>`, `Box<[T]>` and references to them.
pub trait Contiguous: sealed::Sealed {
    /// The element type.
    type Elem;
    /// The elements.
    fn elems(&self) -> &[Self::Elem];
}

/// A [`Contiguous`] type whose elements can be written.
pub trait ContiguousMut: Contiguous {
    /// The elements, writable.
    fn elems_mut(&mut self) -> &mut [Self::Elem];
}

macro_rules! contiguous {
    ($([$($g:tt)*] $t:ty),* $(,)?) => {$(
        impl<$($g)*> sealed::Sealed for $t {}
        impl<$($g)*> Contiguous for $t {
            type Elem = T;
            #[inline(always)]
            fn elems(&self) -> &[T] {
                &self[..]
            }
        }
        impl<$($g)*> ContiguousMut for $t {
            #[inline(always)]
            fn elems_mut(&mut self) -> &mut [T] {
                &mut self[..]
            }
        }
    )*};
}

contiguous!(
    [T] [T],
    [T, const N: usize] [T; N],
    [T] Vec<T>,
    [T] Box<[T]>,
);

impl<S: Contiguous + ?Sized> sealed::Sealed for &S {}
impl<S: Contiguous + ?Sized> Contiguous for &S {
    type Elem = S::Elem;
    #[inline(always)]
    fn elems(&self) -> &[S::Elem] {
        (**self).elems()
    }
}

impl<S: Contiguous + ?Sized> sealed::Sealed for &mut S {}
impl<S: Contiguous + ?Sized> Contiguous for &mut S {
    type Elem = S::Elem;
    #[inline(always)]
    fn elems(&self) -> &[S::Elem] {
        (**self).elems()
    }
}
impl<S: ContiguousMut + ?Sized> ContiguousMut for &mut S {
    #[inline(always)]
    fn elems_mut(&mut self) -> &mut [S::Elem] {
        (**self).elems_mut()
    }
}

/// A place read in an unchecked loop.
pub struct Place<'a, S: ?Sized>(&'a S);

/// A place written in an unchecked loop (its borrow taken out once, by the access).
pub struct PlaceMut<'a, S: ?Sized>(Cell<Option<&'a mut S>>);

impl<'a, S: ?Sized> PlaceMut<'a, S> {
    #[inline(always)]
    fn take(&self) -> &'a mut S {
        self.0.take().expect("a place is reached once")
    }
}

/// `x.__nilang_place()` / `x.__nilang_place_mut()` (names no type of the user's has): the
/// place `x` as [`Place`] / [`PlaceMut`], reached with the same auto-referencing as `x[i]` (a
/// `&mut [T]` binding gives its slice, a `Vec` itself).
pub trait Hoist {
    /// The place, read.
    #[inline(always)]
    fn __nilang_place(&self) -> Place<'_, Self> {
        Place(self)
    }
    /// The place, written.
    #[inline(always)]
    fn __nilang_place_mut(&mut self) -> PlaceMut<'_, Self> {
        PlaceMut(Cell::new(Some(self)))
    }
}

impl<S: ?Sized> Hoist for S {}

/// What generated code brings into scope: `(&&x.__nilang_place()).get(i)` then resolves, by
/// the place's type, to [`Trusted`] (a [`Contiguous`] place: unchecked), else [`ByIndex`] (a
/// type with its own `Index<usize>`: checked), else [`ByDeref`] (a type that derefs to one:
/// checked).
pub mod prelude {
    pub use super::{
        ByDeref as _, ByDerefMut as _, ByIndex as _, ByIndexMut as _, Hoist as _, Trusted as _,
        TrustedMut as _,
    };
}

/// The methods of a [`Contiguous`] place (on `&&Place`: tried first).
pub trait Trusted<'a> {
    /// The element type.
    type Elem: ?Sized;
    /// The indices the loop may reach without checks: `0..len` of the elements.
    fn bounds(self) -> Option<Range<usize>>;
    /// Element `i`, unchecked.
    ///
    /// # Safety
    /// `i` lies in [`Trusted::bounds`] of the same place, and the place's length has not
    /// changed since. Generated code calls it only for an index that [`check_hoisted_index`]
    /// checked against those bounds before the loop, at the loop's first and last iteration,
    /// for an index that is non-decreasing in the loop variable and built from locals bound
    /// before the loop, in a loop that never hands the place to anything that could resize it
    /// and whose expressions cannot change it (`nilang_ir::bounds`; ARCHITECTURE.md,
    /// "Soundness").
    unsafe fn get(self, i: usize) -> &'a Self::Elem;
}

/// The writable methods of a [`Contiguous`] place.
pub trait TrustedMut<'a> {
    /// The element type.
    type Elem: ?Sized;
    /// Element `i`, unchecked and writable.
    ///
    /// # Safety
    /// As [`Trusted::get`].
    unsafe fn get(self, i: usize) -> &'a mut Self::Elem;
}

impl<'a, S: Contiguous + ?Sized> Trusted<'a> for &&Place<'a, S> {
    type Elem = S::Elem;
    #[inline(always)]
    fn bounds(self) -> Option<Range<usize>> {
        Some(0..self.0.elems().len())
    }
    #[inline(always)]
    unsafe fn get(self, i: usize) -> &'a S::Elem {
        // SAFETY: the caller's precondition (`Trusted::get`): `i < elems().len()`.
        unsafe { self.0.elems().get_unchecked(i) }
    }
}

impl<'a, S: ContiguousMut + ?Sized> TrustedMut<'a> for &&PlaceMut<'a, S> {
    type Elem = S::Elem;
    #[inline(always)]
    unsafe fn get(self, i: usize) -> &'a mut S::Elem {
        // SAFETY: the caller's precondition (`Trusted::get`): `i < elems_mut().len()`.
        unsafe { self.take().elems_mut().get_unchecked_mut(i) }
    }
}

/// The methods of a place with its own `Index<usize>` (on `&Place`: tried second).
pub trait ByIndex<'a> {
    /// The element type.
    type Elem: ?Sized;
    /// `None`: nothing is checked before the loop.
    fn bounds(self) -> Option<Range<usize>>;
    /// Element `i`, through the type's own checked `Index`.
    ///
    /// # Safety
    /// None: `unsafe` only so that generated code calls every kind of place alike.
    unsafe fn get(self, i: usize) -> &'a Self::Elem;
}

/// The writable methods of a place with its own `IndexMut<usize>`.
pub trait ByIndexMut<'a> {
    /// The element type.
    type Elem: ?Sized;
    /// Element `i`, through the type's own checked `IndexMut`.
    ///
    /// # Safety
    /// None, as [`ByIndex::get`].
    unsafe fn get(self, i: usize) -> &'a mut Self::Elem;
}

impl<'a, S: Index<usize> + ?Sized> ByIndex<'a> for &Place<'a, S> {
    type Elem = S::Output;
    #[inline(always)]
    fn bounds(self) -> Option<Range<usize>> {
        None
    }
    #[inline(always)]
    unsafe fn get(self, i: usize) -> &'a S::Output {
        &self.0[i]
    }
}

impl<'a, S: IndexMut<usize> + ?Sized> ByIndexMut<'a> for &PlaceMut<'a, S> {
    type Elem = S::Output;
    #[inline(always)]
    unsafe fn get(self, i: usize) -> &'a mut S::Output {
        &mut self.take()[i]
    }
}

/// The methods of a place that derefs to something with `Index<usize>` (on `Place`, through
/// `&self`: tried last).
pub trait ByDeref<'a> {
    /// The element type.
    type Elem: ?Sized;
    /// `None`: nothing is checked before the loop.
    fn bounds(&self) -> Option<Range<usize>>;
    /// Element `i`, through the target's own checked `Index`.
    ///
    /// # Safety
    /// None, as [`ByIndex::get`].
    unsafe fn get(&self, i: usize) -> &'a Self::Elem;
}

/// The writable methods of a place that derefs to something with `IndexMut<usize>`.
pub trait ByDerefMut<'a> {
    /// The element type.
    type Elem: ?Sized;
    /// Element `i`, through the target's own checked `IndexMut`.
    ///
    /// # Safety
    /// None, as [`ByIndex::get`].
    unsafe fn get(&self, i: usize) -> &'a mut Self::Elem;
}

impl<'a, S> ByDeref<'a> for Place<'a, S>
where
    S: Deref + ?Sized,
    S::Target: Index<usize>,
{
    type Elem = <S::Target as Index<usize>>::Output;
    #[inline(always)]
    fn bounds(&self) -> Option<Range<usize>> {
        None
    }
    #[inline(always)]
    unsafe fn get(&self, i: usize) -> &'a Self::Elem {
        let s: &'a S = self.0;
        &(**s)[i]
    }
}

impl<'a, S> ByDerefMut<'a> for PlaceMut<'a, S>
where
    S: DerefMut + ?Sized,
    S::Target: IndexMut<usize>,
{
    type Elem = <S::Target as Index<usize>>::Output;
    #[inline(always)]
    unsafe fn get(&self, i: usize) -> &'a mut Self::Elem {
        &mut (**self.take())[i]
    }
}

/// Checks, before an unchecked loop, that an index it reaches without bounds checks lies in
/// the place's `bounds` (and, in an adjoint program, its gradient's `grad_bounds`) at the
/// first (`lo`) and the last (`hi`) iteration (`None`: the index overflowed). A place with
/// no bounds (`None`: not [`Contiguous`]) is indexed with checks, so nothing is checked for
/// it here. Inlined, so that a loop of a few iterations pays two comparisons; the message is
/// built out of line.
#[inline(always)]
pub fn check_hoisted_index(
    lo: Option<usize>,
    hi: Option<usize>,
    bounds: Option<Range<usize>>,
    grad_bounds: Option<Option<Range<usize>>>,
    site: &crate::check::Site,
    index: &'static str,
) {
    let fits = |b: &Option<Range<usize>>| match (b, lo, hi) {
        (None, ..) => true,
        (Some(b), Some(lo), Some(hi)) => b.start <= lo && lo <= hi && hi < b.end,
        _ => false,
    };
    if !(fits(&bounds) && grad_bounds.as_ref().is_none_or(fits)) {
        out_of_range(lo, hi, bounds, grad_bounds.flatten(), site, index);
    }
}

#[cold]
#[inline(never)]
fn out_of_range(
    lo: Option<usize>,
    hi: Option<usize>,
    bounds: Option<Range<usize>>,
    grad_bounds: Option<Range<usize>>,
    site: &crate::check::Site,
    index: &'static str,
) -> ! {
    let show = |b: Option<Range<usize>>| match b {
        Some(b) if b.start == 0 => format!("the length is {}", b.end),
        Some(b) => format!("this iteration may reach {b:?}"),
        None => "any".to_string(),
    };
    let lengths = match grad_bounds {
        Some(g) => format!(
            "{} for the value and {} for its gradient",
            show(bounds),
            show(Some(g))
        ),
        None => show(bounds),
    };
    panic!(
        "index out of range in `{}`: {} takes the values {:?} to {:?} in the loop of `{}`, \
         but {}",
        site.function, index, lo, hi, site.statement, lengths
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Logical {
        data: Vec<f64>,
    }

    impl Index<usize> for Logical {
        type Output = f64;
        fn index(&self, i: usize) -> &f64 {
            &self.data[i]
        }
    }

    impl IndexMut<usize> for Logical {
        fn index_mut(&mut self, i: usize) -> &mut f64 {
            &mut self.data[i]
        }
    }

    /// A type whose `len()` is a logical size, larger than the slice it derefs to.
    struct Padded(Vec<f64>);

    impl Padded {
        fn len(&self) -> usize {
            100
        }
    }

    impl Deref for Padded {
        type Target = [f64];
        fn deref(&self) -> &[f64] {
            &self.0
        }
    }

    impl DerefMut for Padded {
        fn deref_mut(&mut self) -> &mut [f64] {
            &mut self.0
        }
    }

    #[test]
    fn contiguous_places_have_bounds_and_others_none() {
        let v = vec![1.0, 2.0, 3.0];
        assert_eq!((&&v.__nilang_place()).bounds(), Some(0..3));
        assert_eq!((&&v[..2].__nilang_place()).bounds(), Some(0..2));
        assert_eq!((&&[0u8; 4].__nilang_place()).bounds(), Some(0..4));
        let l = Logical { data: vec![0.0; 2] };
        assert_eq!((&&l.__nilang_place()).bounds(), None);
        let p = Padded(vec![0.0; 2]);
        assert_eq!(p.len(), 100);
        assert_eq!((&&p.__nilang_place()).bounds(), None);
    }

    #[test]
    fn other_places_index_with_their_own_checks() {
        let mut l = Logical { data: vec![0.0; 2] };
        // SAFETY: `ByIndexMut::get` has no precondition.
        unsafe { *(&&l.__nilang_place_mut()).get(1) = 5.0 };
        assert_eq!(l.data[1], 5.0);
        let mut p = Padded(vec![0.0; 2]);
        // SAFETY: `ByDerefMut::get` has no precondition.
        unsafe { *(&&p.__nilang_place_mut()).get(0) = 7.0 };
        assert_eq!(p.0[0], 7.0);
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // SAFETY: as above: the index is checked by the slice `Padded` derefs to.
            unsafe { *(&&p.__nilang_place_mut()).get(7) = 1.0 };
        }));
        assert!(out.is_err());
    }

    #[test]
    #[should_panic(expected = "x[i + 1] takes the values Some(1) to Some(3)")]
    fn an_index_past_the_bounds_fails_before_the_loop() {
        let site = crate::check::Site {
            function: "f",
            statement: "for i in 0..3",
        };
        check_hoisted_index(Some(1), Some(3), Some(0..3), None, &site, "x[i + 1]");
    }
}
