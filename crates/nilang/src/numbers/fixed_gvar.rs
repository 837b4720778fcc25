//! `GVar` over fixed-point numbers: a fixed-point value with a fixed-point gradient, so that the
//! inverse of a [`FixedPoint`] program run on `GVar`s moves gradients (reverse-mode AD) in
//! fixed point.
//!
//! A generic function `#[i] fn f<T: FixedPoint>(…)` gets no `f_grad` (the gradient functions
//! are generated for `T: Real` scalars, and fixed point has no `exp`, `sin`, … instructions, so
//! it is not `Real`). Its gradient is the papers' own recipe, the generic path: run `f` on the
//! fixed-point inputs, then `f_inv` on `GVar`s holding the outputs with the loss's gradient
//! seeded (`g = 1`). `f_inv` restores the values and leaves `∂loss/∂input` in each `g`.
//!
//! ```
//! use nilang::i;
//! use nilang::numbers::{FixedPoint, I21F43};
//! use nilang::GVar;
//!
//! #[i]
//! fn f<T: FixedPoint>(y: &mut T, a: &mut T, x: &mut T) {
//!     y += a * x;
//!     y -= a / x;
//!     y += square(x);
//! }
//! let fx = I21F43::from_num;
//! let (mut y, mut a, mut x) = (fx(0.0), fx(1.5), fx(2.0));
//! f(&mut y, &mut a, &mut x); // y = 1.5·2 − 1.5/2 + 4
//! let seed = |v: I21F43, g: f64| GVar { x: v, g: fx(g) };
//! let (mut gy, mut ga, mut gx) = (seed(y, 1.0), seed(a, 0.0), seed(x, 0.0));
//! f_inv(&mut gy, &mut ga, &mut gx);
//! assert_eq!((gy.x, ga.x, gx.x), (fx(0.0), fx(1.5), fx(2.0))); // the inputs, bit for bit
//! assert_eq!(ga.g, fx(1.5)); // ∂y/∂a = x − 1/x
//! assert_eq!(gx.g, fx(5.875)); // ∂y/∂x = a + a/x² + 2x
//! ```
//!
//! **What is exact and what rounds.** Every adjoint rule adds to or subtracts from a gradient
//! with the wrapping `+`/`-` of fixed point, the same instructions as the values: a gradient
//! accumulated (`x̄ += ȳ`) is taken back out bit for bit (`x̄ -= ȳ`), and the rules of the
//! linear instructions (`identity`, `neg`, `+`, `-`, `neg(x)`, `inc`) round nothing. So the
//! `GVar` program is itself exactly reversible: `f_inv` then `f` on `GVar`s restores values
//! *and* gradients bit for bit, however long the program. What rounds (to the fixed grid, the
//! same way every time) are the products and quotients inside a rule: `ȳ·b` and `ȳ·a` for
//! `y += a * b`, `p = ȳ/b` and `p·(a/b)` for `y += a / b`, `ȳ·2x` for `y += square(x)`. Each
//! is within one unit of the last place (2⁻⁴³ for [`crate::numbers::I21F43`]) of the exact
//! product of its operands, so a gradient is within a few units per rule of the f64 gradient
//! of the same program (`tests/fixed_grad.rs` derives the bound rule by rule and checks it).
//!
//! The gradient products round toward zero (the quotients already do), so that negating a
//! gradient negates every term it produces, exactly. A deallocated ancilla drops its gradient,
//! so a program with ancillas is exactly reversible on `GVar`s only when running it forward
//! from zero ancilla gradients takes back what its inverse added: that holds for
//! compute–copy–uncompute, the shape of [`crate::numbers::fixed_math`]'s series, whose forward
//! `GVar` program recomputes the inverse's terms with the opposite sign (odd rounding makes
//! them the same bits), and its tests check the inputs' gradients come back bit for bit.
//!
//! Gradients are fixed-point numbers too: a gradient outside the type's range wraps, as a value
//! would (`(ln x)′ = 1/x` for `x < 2⁻²⁰` on `I21F43`).
//!
//! `GVar { x, g }` (a struct literal) builds a fixed-point `GVar`: [`crate::GVar::new`] is for
//! floats.

use crate::gvar::GVar;
use crate::instr::*;
use crate::numbers::FixedPoint;
use crate::prims;
use fixed::types::extra::{LeEqU32, LeEqU64};
use fixed::{FixedI32, FixedI64};

// Each rule pair mirrors `gvar.rs`: `sub*` is the adjoint (uncompute the value, accumulate the
// operands' gradients), `add*` its exact inverse (the same terms, subtracted). The terms are
// computed from operands the instruction does not change, so both directions compute the same
// bits and wrapping addition undoes them exactly.
macro_rules! fixed_gvar_instructions {
    ($fx:ident, $bound:ident) => {
        impl<Frac: $bound> Acc1<prims::Identity> for GVar<$fx<Frac>> {
            #[inline(always)]
            fn add1(y: &mut Self, x: &mut Self) {
                y.x = y.x.wrapping_add(x.x);
                x.g = x.g.wrapping_sub(y.g);
            }
            /// Adjoint rule: y ← y − x; x̄ ← x̄ + ȳ (exact).
            #[inline(always)]
            fn sub1(y: &mut Self, x: &mut Self) {
                y.x = y.x.wrapping_sub(x.x);
                x.g = x.g.wrapping_add(y.g);
            }
        }
        impl<Frac: $bound> Acc1<prims::Neg> for GVar<$fx<Frac>> {
            #[inline(always)]
            fn add1(y: &mut Self, x: &mut Self) {
                y.x = y.x.wrapping_sub(x.x);
                x.g = x.g.wrapping_add(y.g);
            }
            /// Adjoint rule: y ← y + x; x̄ ← x̄ − ȳ (exact).
            #[inline(always)]
            fn sub1(y: &mut Self, x: &mut Self) {
                y.x = y.x.wrapping_add(x.x);
                x.g = x.g.wrapping_sub(y.g);
            }
        }
        impl<Frac: $bound> Acc1<prims::Abs> for GVar<$fx<Frac>> {
            #[inline(always)]
            fn add1(y: &mut Self, x: &mut Self) {
                y.x = y.x.wrapping_add(x.x.wrapping_abs());
                x.g = x.g.wrapping_sub(signed(y.g, x.x));
            }
            /// Adjoint rule: y ← y − |x|; x̄ ← x̄ + ȳ·sign(x) (exact; 0 at 0, as on floats).
            #[inline(always)]
            fn sub1(y: &mut Self, x: &mut Self) {
                y.x = y.x.wrapping_sub(x.x.wrapping_abs());
                x.g = x.g.wrapping_add(signed(y.g, x.x));
            }
        }
        impl<Frac: $bound> Acc1<prims::Square> for GVar<$fx<Frac>> {
            #[inline(always)]
            fn add1(y: &mut Self, x: &mut Self) {
                y.x = y.x.wrapping_add(x.x.wrapping_mul(x.x));
                x.g = x.g.wrapping_sub(grad_mul(y.g, x.x.wrapping_add(x.x)));
            }
            /// Adjoint rule: y ← y − x²; x̄ ← x̄ + ȳ·2x (the product rounds).
            #[inline(always)]
            fn sub1(y: &mut Self, x: &mut Self) {
                y.x = y.x.wrapping_sub(x.x.wrapping_mul(x.x));
                x.g = x.g.wrapping_add(grad_mul(y.g, x.x.wrapping_add(x.x)));
            }
        }
        impl<Frac: $bound> Acc2<prims::Add> for GVar<$fx<Frac>> {
            #[inline(always)]
            fn add2(y: &mut Self, a: &mut Self, b: &mut Self) {
                y.x = y.x.wrapping_add(a.x.wrapping_add(b.x));
                a.g = a.g.wrapping_sub(y.g);
                b.g = b.g.wrapping_sub(y.g);
            }
            /// Adjoint rule: y ← y − (a + b); ā ← ā + ȳ; b̄ ← b̄ + ȳ (exact).
            #[inline(always)]
            fn sub2(y: &mut Self, a: &mut Self, b: &mut Self) {
                y.x = y.x.wrapping_sub(a.x.wrapping_add(b.x));
                a.g = a.g.wrapping_add(y.g);
                b.g = b.g.wrapping_add(y.g);
            }
        }
        impl<Frac: $bound> Acc2<prims::Sub> for GVar<$fx<Frac>> {
            #[inline(always)]
            fn add2(y: &mut Self, a: &mut Self, b: &mut Self) {
                y.x = y.x.wrapping_add(a.x.wrapping_sub(b.x));
                a.g = a.g.wrapping_sub(y.g);
                b.g = b.g.wrapping_add(y.g);
            }
            /// Adjoint rule: y ← y − (a − b); ā ← ā + ȳ; b̄ ← b̄ − ȳ (exact).
            #[inline(always)]
            fn sub2(y: &mut Self, a: &mut Self, b: &mut Self) {
                y.x = y.x.wrapping_sub(a.x.wrapping_sub(b.x));
                a.g = a.g.wrapping_add(y.g);
                b.g = b.g.wrapping_sub(y.g);
            }
        }
        impl<Frac: $bound> Acc2<prims::Mul> for GVar<$fx<Frac>> {
            #[inline(always)]
            fn add2(y: &mut Self, a: &mut Self, b: &mut Self) {
                y.x = y.x.wrapping_add(a.x.wrapping_mul(b.x));
                a.g = a.g.wrapping_sub(grad_mul(y.g, b.x));
                b.g = b.g.wrapping_sub(grad_mul(y.g, a.x));
            }
            /// Adjoint rule: y ← y − a·b; ā ← ā + ȳ·b; b̄ ← b̄ + ȳ·a (the products round).
            #[inline(always)]
            fn sub2(y: &mut Self, a: &mut Self, b: &mut Self) {
                y.x = y.x.wrapping_sub(a.x.wrapping_mul(b.x));
                a.g = a.g.wrapping_add(grad_mul(y.g, b.x));
                b.g = b.g.wrapping_add(grad_mul(y.g, a.x));
            }
        }
        impl<Frac: $bound> Acc2<prims::Div> for GVar<$fx<Frac>> {
            /// Panics when `b` is zero.
            #[inline(always)]
            fn add2(y: &mut Self, a: &mut Self, b: &mut Self) {
                let (q, p) = (a.x.wrapping_div(b.x), y.g.wrapping_div(b.x));
                y.x = y.x.wrapping_add(q);
                a.g = a.g.wrapping_sub(p);
                b.g = b.g.wrapping_add(grad_mul(p, q));
            }
            /// Adjoint rule, with q = a/b and p = ȳ/b (both rounded): y ← y − q; ā ← ā + p;
            /// b̄ ← b̄ − p·q (∂(a/b)/∂b = −q/b). Panics when `b` is zero.
            #[inline(always)]
            fn sub2(y: &mut Self, a: &mut Self, b: &mut Self) {
                let (q, p) = (a.x.wrapping_div(b.x), y.g.wrapping_div(b.x));
                y.x = y.x.wrapping_sub(q);
                a.g = a.g.wrapping_add(p);
                b.g = b.g.wrapping_sub(grad_mul(p, q));
            }
        }
        impl<Frac: $bound> Negate for GVar<$fx<Frac>> {
            /// Adjoint rule: x̄ ← −x̄ (negation is linear and its own inverse).
            #[inline(always)]
            fn negate(&mut self) {
                self.x = self.x.wrapping_neg();
                self.g = self.g.wrapping_neg();
            }
        }
        impl<Frac: $bound> Step for GVar<$fx<Frac>> {
            /// Adding a constant leaves the gradient unchanged.
            #[inline(always)]
            fn inc(&mut self) {
                self.x.inc();
            }
            #[inline(always)]
            fn dec(&mut self) {
                self.x.dec();
            }
        }
        impl<Frac: $bound> Conjugate for GVar<$fx<Frac>> {
            #[inline(always)]
            fn conjugate(&mut self) {}
        }
        impl<Frac: $bound> Zeroable for GVar<$fx<Frac>> {
            fn zero_like(&self) -> Self {
                GVar {
                    x: $fx::ZERO,
                    g: $fx::ZERO,
                }
            }
            /// Whether the value is zero (as on float `GVar`s: what `dealloc!` checks).
            fn is_zero(&self) -> bool {
                self.x == $fx::<Frac>::ZERO
            }
        }
        impl<Frac: $bound> Accepts<GVar<$fx<Frac>>> for GVar<$fx<Frac>> {
            #[inline(always)]
            fn load(x: &Self) -> Self {
                *x
            }
            #[inline(always)]
            fn store(x: &mut Self, v: Self) {
                *x = v;
            }
        }
        fixed_gvar_accepts!($fx, $bound: f64, f32, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
        impl<Frac: $bound> FixedPoint for GVar<$fx<Frac>> {
            /// A constant with a zero gradient.
            #[inline]
            fn lit(v: f64) -> Self {
                GVar {
                    x: $fx::from_num(v),
                    g: $fx::ZERO,
                }
            }
            #[inline]
            fn val(&self) -> f64 {
                self.x.to_num::<f64>()
            }
            #[inline]
            fn int_bits() -> u32 {
                $fx::<Frac>::INT_NBITS
            }
        }
    };
}

/// `g·v` rounded toward zero, the product of every gradient rule: rounding is odd in `g`
/// (`−g` gives exactly the negated term), so a gradient program run forward from the negated
/// seed its inverse left behind takes back the same bits. The `fixed` crate's own product
/// rounds toward −∞, which is not odd.
#[inline(always)]
fn grad_mul<F: fixed::traits::FixedSigned>(g: F, v: F) -> F {
    let p = g.wrapping_abs().wrapping_mul(v.wrapping_abs());
    if g.is_negative() != v.is_negative() {
        p.wrapping_neg()
    } else {
        p
    }
}

/// `g · sign(x)` without a multiplication (a type with no integer bits cannot hold 1).
#[inline(always)]
fn signed<T: FixedPoint + Negate>(g: T, x: T) -> T {
    match x.val() {
        v if v > 0.0 => g,
        v if v < 0.0 => {
            let mut n = g;
            n.negate();
            n
        }
        _ => g.zero_like(),
    }
}

macro_rules! fixed_gvar_accepts {
    ($fx:ident, $bound:ident: $($from:ty),*) => {$(
        impl<Frac: $bound> Accepts<$from> for GVar<$fx<Frac>> {
            /// A constant operand (rounded to the nearest representable value): its gradient
            /// is not kept.
            #[inline(always)]
            fn load(x: &$from) -> Self {
                GVar { x: $fx::from_num(*x), g: $fx::ZERO }
            }
            #[inline(always)]
            fn store(_: &mut $from, _: Self) {}
        }
    )*};
}

fixed_gvar_instructions!(FixedI64, LeEqU64);
fixed_gvar_instructions!(FixedI32, LeEqU32);
