//! Values and their gradients (shadows, kept in separate buffers) paired for one instruction
//! of an adjoint program: the [`Shadow`] trait, by type, and the calls generated code makes of
//! it (join, split back, zero gradients, a copy's gradient added).

/// How a value and its shadow (its gradient, kept in a separate place) meet for one
/// instruction of an adjoint program, when the gradient of one scalar is an `L` (the scalar
/// itself for one loss, [`crate::Lanes`] for several): real numbers pair into a
/// [`crate::GVar`], whose instruction traits hold every adjoint rule (`nilang::gvar`, the one
/// table of them); integers and booleans carry no gradient and stay as they are; complex
/// numbers, arrays and `Vec`s pair element by element. The pair lives in registers only:
/// values and gradients stay in their own buffers.
pub trait Shadow<L>: Sized {
    /// The type of the gradient of a value of this type.
    type Grad;
    /// The value paired with its gradient.
    type Pair;
    /// Pairs a value with its gradient.
    fn join(x: Self, g: Self::Grad) -> Self::Pair;
    /// Splits a pair back into the value and the gradient.
    fn split(p: Self::Pair) -> (Self, Self::Grad);
    /// A zero gradient for this value (an ancilla's, when it is allocated).
    fn zero_grad(&self) -> Self::Grad;
    /// Whether a gradient of this type is zero (every lane of every scalar).
    fn grad_is_zero(g: &Self::Grad) -> bool;
    /// `g += d`: the gradient of a copy flowing back into the value it was copied from
    /// (`pop_copy!` in an adjoint program, the adjoint of `push_copy!`).
    fn add_grad(g: &mut Self::Grad, d: Self::Grad);
}

impl<T: crate::Float, L: crate::Grad<T>> Shadow<L> for T {
    type Grad = L;
    type Pair = crate::GVar<T, L>;
    #[inline(always)]
    fn join(x: T, g: L) -> crate::GVar<T, L> {
        crate::GVar { x, g }
    }
    #[inline(always)]
    fn split(p: crate::GVar<T, L>) -> (T, L) {
        (p.x, p.g)
    }
    /// `−0` in every lane: the gradient of an ancilla (or of a value popped without one) is
    /// only added to, and `−0 + g` is `g`, so the compiler drops the first addition.
    #[inline(always)]
    fn zero_grad(&self) -> L {
        -L::zero()
    }
    fn grad_is_zero(g: &L) -> bool {
        g.is_zero()
    }
    #[inline(always)]
    fn add_grad(g: &mut L, d: L) {
        *g = *g + d;
    }
}

macro_rules! shadow_without_gradient {
    ($($t:ty),*) => {$(
        impl<L> Shadow<L> for $t {
            type Grad = $t;
            type Pair = $t;
            #[inline(always)]
            fn join(x: $t, _: $t) -> $t { x }
            #[inline(always)]
            fn split(p: $t) -> ($t, $t) { (p, <$t>::default()) }
            #[inline(always)]
            fn zero_grad(&self) -> $t { <$t>::default() }
            fn grad_is_zero(_: &$t) -> bool { true }
            #[inline(always)]
            fn add_grad(_: &mut $t, _: $t) {}
        }
    )*};
}
shadow_without_gradient!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, bool);
// a stack of branch decisions and a search's table of values carry no gradient: the shadow is
// an empty one
shadow_without_gradient!(crate::stack::Decisions, super::search::SearchTable);

impl<L, X: Shadow<L>> Shadow<L> for num_complex::Complex<X> {
    type Grad = num_complex::Complex<X::Grad>;
    type Pair = num_complex::Complex<X::Pair>;
    #[inline(always)]
    fn join(x: Self, g: Self::Grad) -> Self::Pair {
        num_complex::Complex {
            re: X::join(x.re, g.re),
            im: X::join(x.im, g.im),
        }
    }
    #[inline(always)]
    fn split(p: Self::Pair) -> (Self, Self::Grad) {
        let (xr, gr) = X::split(p.re);
        let (xi, gi) = X::split(p.im);
        (
            num_complex::Complex { re: xr, im: xi },
            num_complex::Complex { re: gr, im: gi },
        )
    }
    #[inline(always)]
    fn zero_grad(&self) -> Self::Grad {
        num_complex::Complex {
            re: self.re.zero_grad(),
            im: self.im.zero_grad(),
        }
    }
    fn grad_is_zero(g: &Self::Grad) -> bool {
        X::grad_is_zero(&g.re) && X::grad_is_zero(&g.im)
    }
    #[inline(always)]
    fn add_grad(g: &mut Self::Grad, d: Self::Grad) {
        X::add_grad(&mut g.re, d.re);
        X::add_grad(&mut g.im, d.im);
    }
}

/// Tuples pair field by field (a tuple built by `new!` and swapped or stacked whole).
macro_rules! shadow_tuple {
    ($($x:ident $i:tt),+) => {
        impl<L, $($x: Shadow<L>),+> Shadow<L> for ($($x,)+) {
            type Grad = ($($x::Grad,)+);
            type Pair = ($($x::Pair,)+);
            #[inline(always)]
            fn join(x: Self, g: Self::Grad) -> Self::Pair {
                ($($x::join(x.$i, g.$i),)+)
            }
            #[inline(always)]
            fn split(p: Self::Pair) -> (Self, Self::Grad) {
                let parts = ($($x::split(p.$i),)+);
                (($(parts.$i.0,)+), ($(parts.$i.1,)+))
            }
            #[inline(always)]
            fn zero_grad(&self) -> Self::Grad {
                ($(self.$i.zero_grad(),)+)
            }
            fn grad_is_zero(g: &Self::Grad) -> bool {
                true $(&& $x::grad_is_zero(&g.$i))+
            }
            #[inline(always)]
            fn add_grad(g: &mut Self::Grad, d: Self::Grad) {
                $($x::add_grad(&mut g.$i, d.$i);)+
            }
        }
    };
}
shadow_tuple!(A 0);
shadow_tuple!(A 0, B 1);
shadow_tuple!(A 0, B 1, C 2);
shadow_tuple!(A 0, B 1, C 2, D 3);

impl<L, X: Shadow<L>, const N: usize> Shadow<L> for [X; N] {
    type Grad = [X::Grad; N];
    type Pair = [X::Pair; N];
    fn join(x: Self, g: Self::Grad) -> Self::Pair {
        let mut g = g.into_iter();
        x.map(|x| X::join(x, g.next().expect("same length")))
    }
    fn split(p: Self::Pair) -> (Self, Self::Grad) {
        let mut grads = Vec::with_capacity(N);
        let values = p.map(|p| {
            let (x, g) = X::split(p);
            grads.push(g);
            x
        });
        let grads: [X::Grad; N] = match grads.try_into() {
            Ok(g) => g,
            Err(_) => unreachable!("one gradient per element"),
        };
        (values, grads)
    }
    fn zero_grad(&self) -> Self::Grad {
        core::array::from_fn(|i| self[i].zero_grad())
    }
    fn grad_is_zero(g: &Self::Grad) -> bool {
        g.iter().all(X::grad_is_zero)
    }
    fn add_grad(g: &mut Self::Grad, d: Self::Grad) {
        g.iter_mut().zip(d).for_each(|(g, d)| X::add_grad(g, d));
    }
}

impl<L, X: Shadow<L>> Shadow<L> for Vec<X> {
    type Grad = Vec<X::Grad>;
    type Pair = Vec<X::Pair>;
    fn join(x: Self, g: Self::Grad) -> Self::Pair {
        x.into_iter().zip(g).map(|(x, g)| X::join(x, g)).collect()
    }
    fn split(p: Self::Pair) -> (Self, Self::Grad) {
        p.into_iter().map(X::split).unzip()
    }
    fn zero_grad(&self) -> Self::Grad {
        self.iter().map(Shadow::zero_grad).collect()
    }
    fn grad_is_zero(g: &Self::Grad) -> bool {
        g.iter().all(X::grad_is_zero)
    }
    fn add_grad(g: &mut Self::Grad, d: Self::Grad) {
        g.iter_mut().zip(d).for_each(|(g, d)| X::add_grad(g, d));
    }
}

/// A value and its gradient as one operand of an adjoint instruction (see [`Shadow`]).
#[inline(always)]
pub fn join<X: Shadow<L>, L>(x: X, g: X::Grad) -> X::Pair {
    X::join(x, g)
}

/// The pair of a read-only value: its gradient is not kept.
#[inline(always)]
pub fn join_constant<X: Shadow<L>, L>(x: X) -> X::Pair {
    let g = x.zero_grad();
    X::join(x, g)
}

/// `g += d` for the gradient `g` of the value `x` (see [`Shadow::add_grad`]).
#[inline(always)]
pub fn add_grad_into<X: Shadow<L>, L>(x: &X, g: &mut X::Grad, d: X::Grad) {
    let _ = x;
    X::add_grad(g, d);
}

/// Stores a pair back into a value's place and its gradient's place (see [`Shadow`]).
#[inline(always)]
pub fn split_into<X: Shadow<L>, L>(x: &mut X, g: &mut X::Grad, p: X::Pair) {
    let (v, d) = X::split(p);
    *x = v;
    *g = d;
}

/// Stores the gradient of a pair and drops its value: the place's value is dead after the
/// instruction that computed the pair (`nilang_ir::dead_values`), so it is left as it was and
/// the arithmetic that only fed the value goes unused.
#[inline(always)]
pub fn split_gradient_into<X: Shadow<L>, L>(x: &mut X, g: &mut X::Grad, p: X::Pair) {
    let _ = x;
    *g = X::split(p).1;
}

/// Stores the value of a pair and leaves its gradient's place as it was: after `y += f(x)` or
/// `y -= f(x)` run backwards, `ȳ` is unchanged (`∂(y ± f(x))/∂y = 1`), so writing it back
/// would only be a store the compiler cannot prove redundant.
#[inline(always)]
pub fn split_value_into<X: Shadow<L>, L>(x: &mut X, g: &mut X::Grad, p: X::Pair) {
    let _ = g;
    *x = X::split(p).0;
}

/// A zero gradient for a freshly allocated ancilla (see [`Shadow`]).
#[inline(always)]
pub fn zero_grad<X: Shadow<L>, L>(x: &X) -> X::Grad {
    x.zero_grad()
}
