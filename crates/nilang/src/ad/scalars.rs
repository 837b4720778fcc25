//! The scalars of a value in a fixed flat order: how gradient functions see their arguments.

use crate::float::Float;
use crate::gvar::GVar;

/// What `f_grad` returns for a differentiable argument of type `X` with scalars `T`: the
/// same shape holding [`GVar`]s (`Vec<GVar<f64>>` for `x: &mut [f64]` or `&mut Vec<f64>`,
/// `GVar<f64>` for `y: &mut f64`, `P<GVar<f64>>` for a `#[derive(Scalars)] struct P<T>`).
///
/// ```
/// use nilang::ad::WithGrad;
/// use nilang::{i, GVar, Loss, Real};
///
/// #[i]
/// fn f<T: Real>(y: &mut T, x: &mut [T]) {
///     y += x[0] * x[1];
/// }
/// // the return type of f_grad, spelled readably
/// let (dy, dx): (WithGrad<f64, f64>, WithGrad<[f64], f64>) =
///     f_grad(Loss::arg(0), &mut 0.0, &mut vec![2.0, 3.0]).unwrap();
/// let _: (GVar<f64>, Vec<GVar<f64>>) = (dy, dx.clone());
/// assert_eq!((dx[0].g, dx[1].g), (3.0, 2.0));
/// ```
pub type WithGrad<X, T> = <X as Scalars<T>>::Map<GVar<T>>;

/// A value made of scalars of type `T`, visited in a fixed flat order: a scalar, a slice, a
/// `Vec`, an array, a complex number, [`NoGrad`], or a user struct with
/// `#[derive(nilang::Scalars)]` (its fields in declaration order).
///
/// `Map<U>` is the same shape with scalars of type `U` (e.g. [`GVar`] for gradients).
///
/// ```
/// use nilang::{GVar, Scalars};
///
/// let x = vec![1.0, 2.0, 3.0];
/// assert_eq!(x.count(), 3);
/// // the same shape holding GVars, e.g. what f_grad returns for a Vec argument
/// let w: Vec<GVar<f64>> = x.map(&mut |i, v| GVar::with_grad(v, i as f64));
/// assert_eq!(w[2].g, 2.0);
/// assert_eq!(<Vec<f64> as Scalars<f64>>::get_mapped(&w, 1).x, 2.0);
/// // an array of complex numbers flattens element by element, real part first
/// let z = [num_complex::Complex::new(1.0, 2.0)];
/// assert_eq!(Scalars::<f64>::count(&z[..]), 2);
/// ```
pub trait Scalars<T> {
    /// The same shape holding `U` instead of `T`.
    type Map<U: Copy>;
    /// Number of differentiable scalars.
    fn count(&self) -> usize;
    /// The same shape with every scalar mapped by `f` (called in flat order with the index).
    fn map<U: Copy>(&self, f: &mut dyn FnMut(usize, T) -> U) -> Self::Map<U>;
    /// Scalar `i` of a mapped value.
    fn get_mapped<U: Copy>(m: &Self::Map<U>, i: usize) -> U;
    /// Replaces scalar `i` of a mapped value.
    fn set_mapped<U: Copy>(m: &mut Self::Map<U>, i: usize, v: U);
    /// Number of scalars of a mapped value (what [`Scalars::count`] is for the original).
    fn count_mapped<U: Copy>(m: &Self::Map<U>) -> usize;
    /// The same shape holding `T` again, seen as the original type: a gradient buffer
    /// (`Vec<T>` for a slice) handed to an adjoint program as `&mut Self`.
    fn as_value_mut(m: &mut Self::Map<T>) -> &mut Self
    where
        T: Copy;
}

impl<T: Float> Scalars<T> for T {
    type Map<U: Copy> = U;
    fn count(&self) -> usize {
        1
    }
    fn map<U: Copy>(&self, f: &mut dyn FnMut(usize, T) -> U) -> U {
        f(0, *self)
    }
    fn get_mapped<U: Copy>(m: &U, _: usize) -> U {
        *m
    }
    fn set_mapped<U: Copy>(m: &mut U, _: usize, v: U) {
        *m = v;
    }
    fn count_mapped<U: Copy>(_: &U) -> usize {
        1
    }
    fn as_value_mut(m: &mut T) -> &mut T {
        m
    }
}

impl<T: Float> Scalars<T> for [T] {
    type Map<U: Copy> = Vec<U>;
    fn count(&self) -> usize {
        self.len()
    }
    fn map<U: Copy>(&self, f: &mut dyn FnMut(usize, T) -> U) -> Vec<U> {
        self.iter().enumerate().map(|(i, &x)| f(i, x)).collect()
    }
    fn get_mapped<U: Copy>(m: &Vec<U>, i: usize) -> U {
        m[i]
    }
    fn set_mapped<U: Copy>(m: &mut Vec<U>, i: usize, v: U) {
        m[i] = v;
    }
    fn count_mapped<U: Copy>(m: &Vec<U>) -> usize {
        m.len()
    }
    fn as_value_mut(m: &mut Vec<T>) -> &mut [T] {
        m.as_mut_slice()
    }
}

impl<T: Float> Scalars<T> for Vec<T> {
    type Map<U: Copy> = Vec<U>;
    fn count(&self) -> usize {
        self.len()
    }
    fn map<U: Copy>(&self, f: &mut dyn FnMut(usize, T) -> U) -> Vec<U> {
        self.as_slice().map(f)
    }
    fn get_mapped<U: Copy>(m: &Vec<U>, i: usize) -> U {
        m[i]
    }
    fn set_mapped<U: Copy>(m: &mut Vec<U>, i: usize, v: U) {
        m[i] = v;
    }
    fn count_mapped<U: Copy>(m: &Vec<U>) -> usize {
        m.len()
    }
    fn as_value_mut(m: &mut Vec<T>) -> &mut Vec<T> {
        m
    }
}

impl<T: Float, const N: usize> Scalars<T> for [T; N] {
    type Map<U: Copy> = [U; N];
    fn count(&self) -> usize {
        N
    }
    fn map<U: Copy>(&self, f: &mut dyn FnMut(usize, T) -> U) -> [U; N] {
        core::array::from_fn(|i| f(i, self[i]))
    }
    fn get_mapped<U: Copy>(m: &[U; N], i: usize) -> U {
        m[i]
    }
    fn set_mapped<U: Copy>(m: &mut [U; N], i: usize, v: U) {
        m[i] = v;
    }
    fn count_mapped<U: Copy>(_: &[U; N]) -> usize {
        N
    }
    fn as_value_mut(m: &mut [T; N]) -> &mut [T; N] {
        m
    }
}

impl<T: Float> Scalars<T> for num_complex::Complex<T> {
    type Map<U: Copy> = num_complex::Complex<U>;
    fn count(&self) -> usize {
        2
    }
    fn map<U: Copy>(&self, f: &mut dyn FnMut(usize, T) -> U) -> num_complex::Complex<U> {
        num_complex::Complex {
            re: f(0, self.re),
            im: f(1, self.im),
        }
    }
    fn get_mapped<U: Copy>(m: &num_complex::Complex<U>, i: usize) -> U {
        if i == 0 {
            m.re
        } else {
            m.im
        }
    }
    fn set_mapped<U: Copy>(m: &mut num_complex::Complex<U>, i: usize, v: U) {
        if i == 0 {
            m.re = v
        } else {
            m.im = v
        }
    }
    fn count_mapped<U: Copy>(_: &num_complex::Complex<U>) -> usize {
        2
    }
    fn as_value_mut(m: &mut num_complex::Complex<T>) -> &mut num_complex::Complex<T> {
        m
    }
}

/// Slices and `Vec`s of elements that each hold a fixed number `WIDTH` of scalars (complex
/// numbers: 2, arrays `[T; N]`: `N`, logarithmic and tropical numbers: 1), flattened element
/// by element in each element's own order (a complex number's real part first).
macro_rules! scalars_of_elements {
    ($([$($g:tt)*] $elem:ty, $width:expr;)*) => {$(
        impl<$($g)*> Scalars<T> for [$elem] {
            type Map<U: Copy> = Vec<<$elem as Scalars<T>>::Map<U>>;
            fn count(&self) -> usize {
                $width * self.len()
            }
            fn map<U: Copy>(&self, f: &mut dyn FnMut(usize, T) -> U) -> Self::Map<U> {
                self.iter()
                    .enumerate()
                    .map(|(i, e)| e.map(&mut |j, x| f($width * i + j, x)))
                    .collect()
            }
            fn get_mapped<U: Copy>(m: &Self::Map<U>, i: usize) -> U {
                <$elem as Scalars<T>>::get_mapped(&m[i / $width], i % $width)
            }
            fn set_mapped<U: Copy>(m: &mut Self::Map<U>, i: usize, v: U) {
                <$elem as Scalars<T>>::set_mapped(&mut m[i / $width], i % $width, v)
            }
            fn count_mapped<U: Copy>(m: &Self::Map<U>) -> usize {
                $width * m.len()
            }
            fn as_value_mut(m: &mut Self::Map<T>) -> &mut Self {
                m.as_mut_slice()
            }
        }

        impl<$($g)*> Scalars<T> for Vec<$elem> {
            type Map<U: Copy> = Vec<<$elem as Scalars<T>>::Map<U>>;
            fn count(&self) -> usize {
                self.as_slice().count()
            }
            fn map<U: Copy>(&self, f: &mut dyn FnMut(usize, T) -> U) -> Self::Map<U> {
                self.as_slice().map(f)
            }
            fn get_mapped<U: Copy>(m: &Self::Map<U>, i: usize) -> U {
                <[$elem] as Scalars<T>>::get_mapped(m, i)
            }
            fn set_mapped<U: Copy>(m: &mut Self::Map<U>, i: usize, v: U) {
                <[$elem] as Scalars<T>>::set_mapped(m, i, v)
            }
            fn count_mapped<U: Copy>(m: &Self::Map<U>) -> usize {
                <[$elem] as Scalars<T>>::count_mapped(m)
            }
            fn as_value_mut(m: &mut Self::Map<T>) -> &mut Self {
                m
            }
        }
    )*};
}

scalars_of_elements! {
    [T: Float] num_complex::Complex<T>, 2;
    [T: Float, const N: usize] [T; N], N;
    [T: Float] crate::numbers::ULog<T>, 1;
    [T: Float] crate::numbers::Tropical<T>, 1;
}

/// An argument excluded from differentiation: its scalars are carried through the gradient
/// program (as values of the gradient type) but no gradient is reported for them, and they
/// are not rows or columns of Jacobians and Hessians.
///
/// ```
/// use nilang::{i, Loss, NoGrad, Real};
///
/// #[i]
/// fn weighted<T: Real>(y: &mut T, x: &mut T, w: &mut NoGrad<T>) {
///     y += x * w.0;
/// }
/// let j = weighted_jacobian(&mut 0.0, &mut 2.0, &mut NoGrad(3.0)).unwrap();
/// assert_eq!((j.rows, j.cols), (2, 2)); // y and x only
/// assert_eq!(j[(0, 1)], 3.0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NoGrad<X>(pub X);

impl<T: Float, X: Scalars<T, Map<T> = X>> Scalars<T> for NoGrad<X> {
    type Map<U: Copy> = NoGrad<X::Map<U>>;
    fn count(&self) -> usize {
        0
    }
    fn map<U: Copy>(&self, f: &mut dyn FnMut(usize, T) -> U) -> NoGrad<X::Map<U>> {
        NoGrad(self.0.map(f))
    }
    fn get_mapped<U: Copy>(m: &Self::Map<U>, i: usize) -> U {
        X::get_mapped(&m.0, i)
    }
    fn set_mapped<U: Copy>(m: &mut Self::Map<U>, i: usize, v: U) {
        X::set_mapped(&mut m.0, i, v)
    }
    fn count_mapped<U: Copy>(_: &Self::Map<U>) -> usize {
        0
    }
    fn as_value_mut(m: &mut NoGrad<X>) -> &mut NoGrad<X> {
        m
    }
}
