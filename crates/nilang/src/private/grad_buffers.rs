//! The lengths of the gradient buffers a caller hands to a generated gradient function
//! (`f_vjp`, `f_adjoint`, `f_adjoint_inv`), checked on entry: `x_grad` must be as long as
//! `x`. A shorter buffer would fail at the first index past its end, with a bare "index out of
//! bounds" (or inside a parallel loop's chunk), and a longer one would be accepted silently.
//!
//! The generated code writes, for each `&mut x` and its `x_grad`,
//!
//! ```ignore
//! use ::nilang::__private::grad_buffers::{HasLength as _, NoLength as _};
//! (&GradBuffer { value: &*x, grad: &*x_grad }).check_length("f_vjp", "x", "x_grad");
//! ```
//!
//! and method resolution picks the check by the parameter's type, generic or not: a slice or
//! a `Vec` (and its gradient) has [`HasLength`], found without auto-reference; every other
//! type (a scalar, an array, whose length is its type's, a struct) only [`NoLength`] on a
//! reference, whose check is empty and compiles to nothing.

/// A parameter's value and its gradient buffer, as a generated function receives them.
pub struct GradBuffer<'a, X: ?Sized, G: ?Sized> {
    /// The value (`x`).
    pub value: &'a X,
    /// Its gradient buffer (`x_grad`).
    pub grad: &'a G,
}

/// The check of a value with a length: slices and vectors.
pub trait HasLength {
    /// Panics unless the gradient is as long as the value, naming `function`, the parameter
    /// `value` and its gradient `grad`.
    fn check_length(&self, function: &'static str, value: &'static str, grad: &'static str);
}

impl<X, G> HasLength for GradBuffer<'_, [X], [G]> {
    #[inline(always)]
    #[track_caller]
    fn check_length(&self, function: &'static str, value: &'static str, grad: &'static str) {
        check_grad_len(function, value, grad, self.value.len(), self.grad.len());
    }
}

impl<X, G> HasLength for GradBuffer<'_, Vec<X>, Vec<G>> {
    #[inline(always)]
    #[track_caller]
    fn check_length(&self, function: &'static str, value: &'static str, grad: &'static str) {
        check_grad_len(function, value, grad, self.value.len(), self.grad.len());
    }
}

/// Every other value: nothing to check.
pub trait NoLength {
    /// Does nothing.
    #[inline(always)]
    fn check_length(&self, _function: &'static str, _value: &'static str, _grad: &'static str) {}
}

impl<X: ?Sized, G: ?Sized> NoLength for &GradBuffer<'_, X, G> {}

/// Panics unless `grad_len == len` (the gradient buffer `grad` of the parameter `value` of
/// `function` is as long as the value).
#[inline(always)]
#[track_caller]
pub fn check_grad_len(
    function: &'static str,
    value: &'static str,
    grad: &'static str,
    len: usize,
    grad_len: usize,
) {
    if grad_len != len {
        grad_len_differs(function, value, grad, len, grad_len);
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn grad_len_differs(
    function: &'static str,
    value: &'static str,
    grad: &'static str,
    len: usize,
    grad_len: usize,
) -> ! {
    panic!(
        "`{function}`: the gradient buffer `{grad}` has length {grad_len}, but `{value}` has \
         length {len} (each gradient buffer must be as long as its value)"
    )
}

#[cfg(test)]
mod tests {
    use super::{GradBuffer, HasLength as _, NoLength as _};

    /// What the generated code does for a parameter of type `X`.
    fn check<X: ?Sized, G: ?Sized>(x: &X, g: &G) {
        // generic: only `NoLength` applies
        (&GradBuffer { value: x, grad: g }).check_length("f", "x", "x_grad");
    }

    #[test]
    fn slices_and_vectors_of_equal_lengths_pass() {
        let (x, g) = (vec![1.0, 2.0], vec![0.0f64; 2]);
        (&GradBuffer {
            value: &x[..],
            grad: &g[..],
        })
            .check_length("f", "x", "x_grad");
        (&GradBuffer {
            value: &x,
            grad: &g,
        })
            .check_length("f", "x", "x_grad");
    }

    #[test]
    #[should_panic(
        expected = "`f_vjp`: the gradient buffer `x_grad` has length 1, but `x` has length 2"
    )]
    fn a_shorter_slice_panics() {
        let (x, g) = (vec![1.0, 2.0], vec![0.0f64; 1]);
        (&GradBuffer {
            value: &x[..],
            grad: &g[..],
        })
            .check_length("f_vjp", "x", "x_grad");
    }

    #[test]
    #[should_panic(
        expected = "`f`: the gradient buffer `v_grad` has length 3, but `v` has length 2"
    )]
    fn a_longer_vector_panics() {
        let (x, g) = (vec![1.0, 2.0], vec![0.0f64; 3]);
        (&GradBuffer {
            value: &x,
            grad: &g,
        })
            .check_length("f", "v", "v_grad");
    }

    #[test]
    fn other_types_are_not_checked() {
        (&GradBuffer {
            value: &1.0,
            grad: &0.0,
        })
            .check_length("f", "x", "x_grad");
        (&GradBuffer {
            value: &[1.0; 2],
            grad: &[0.0; 2],
        })
            .check_length("f", "x", "x_grad");
        // a type parameter, even one that is a slice at run time
        check::<[f64], [f64]>(&[1.0, 2.0], &[0.0]);
    }
}
