//! [`DualRev`]: the dual number of the final algorithm.
//!
//! After §8.2 the transformed scalar type is `D[ℝ] = (ℝ, (Int, Contrib))`:
//! the primal value and the ID of its (defunctionalised) backpropagator. The
//! Contrib list itself lives on the tape at index ID, so the scalar only
//! carries the ID — plus the session tag described in [`crate::tape`] — and is
//! a 16-byte `Copy` value.
//!
//! Every primitive operation computes its primal result and its local partial
//! derivatives `∂ᵢop(x₁,…,xₙ)(1)` right away, and records the Contrib list
//! `[(id(x₁), ∂₁op), …]` under a fresh ID.

use core::cmp::Ordering;
use core::fmt;
use core::iter::{Product, Sum};
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use crate::scalar::{partials, Scalar};
use crate::tape::{with_active, Contrib, SINK};

/// A scalar of the efficient dual-numbers reverse AD engine: primal value plus
/// the ID of its backpropagator on the active tape (§8.2).
///
/// Create them only through [`grad`](crate::grad), [`record`](crate::record)
/// and friends (inputs) or [`Scalar::cst`] / `From<f64>` (constants).
/// Operations on `DualRev` outside a differentiation, or on scalars from a
/// different differentiation, are computed on values only, as constants.
#[derive(Clone, Copy)]
pub struct DualRev {
    pub(crate) value: f64,
    pub(crate) id: u32,
    pub(crate) tag: u32,
}

impl DualRev {
    /// A constant: tag 0 never matches a session, its ID is the sink.
    #[inline(always)]
    pub const fn constant(value: f64) -> DualRev {
        DualRev {
            value,
            id: SINK,
            tag: 0,
        }
    }

    /// The primal value.
    #[inline(always)]
    pub fn val(self) -> f64 {
        self.value
    }

    /// Whether this scalar is an active (recorded) variable of the
    /// differentiation running on the current thread.
    pub fn is_active(self) -> bool {
        self.id != SINK && with_active(|t| t.tag == self.tag).unwrap_or(false)
    }

    /// Record a unary primitive with result `value` and `∂value/∂a = da`.
    #[inline(always)]
    pub(crate) fn unary(value: f64, a: DualRev, da: f64) -> DualRev {
        with_active(|t| {
            if a.tag != t.tag {
                return DualRev::constant(value);
            }
            let id = t.push(Contrib {
                partials: [da, 0.0],
                parents: [a.id, SINK],
            });
            DualRev {
                value,
                id,
                tag: t.tag,
            }
        })
        .unwrap_or(DualRev::constant(value))
    }

    /// Record a binary primitive with result `value` and partials `da`, `db`.
    #[inline(always)]
    fn binary(value: f64, a: DualRev, da: f64, b: DualRev, db: f64) -> DualRev {
        with_active(|t| {
            let pa = if a.tag == t.tag { a.id } else { SINK };
            let pb = if b.tag == t.tag { b.id } else { SINK };
            if pa == SINK && pb == SINK {
                return DualRev::constant(value);
            }
            let id = t.push(Contrib {
                partials: [da, db],
                parents: [pa, pb],
            });
            DualRev {
                value,
                id,
                tag: t.tag,
            }
        })
        .unwrap_or(DualRev::constant(value))
    }
}

impl fmt::Debug for DualRev {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DualRev({} @ id {})", self.value, self.id)
    }
}

impl fmt::Display for DualRev {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.value, f)
    }
}

impl Default for DualRev {
    fn default() -> Self {
        DualRev::constant(0.0)
    }
}

impl From<f64> for DualRev {
    #[inline(always)]
    fn from(c: f64) -> Self {
        DualRev::constant(c)
    }
}

impl PartialEq for DualRev {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl PartialOrd for DualRev {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.value.partial_cmp(&other.value)
    }
}

impl PartialEq<f64> for DualRev {
    fn eq(&self, other: &f64) -> bool {
        self.value == *other
    }
}

impl PartialOrd<f64> for DualRev {
    fn partial_cmp(&self, other: &f64) -> Option<Ordering> {
        self.value.partial_cmp(other)
    }
}

// ---- arithmetic: the primitive operations with their partials -------------

impl Add for DualRev {
    type Output = DualRev;
    #[inline(always)]
    fn add(self, rhs: DualRev) -> DualRev {
        DualRev::binary(self.value + rhs.value, self, 1.0, rhs, 1.0)
    }
}

impl Sub for DualRev {
    type Output = DualRev;
    #[inline(always)]
    fn sub(self, rhs: DualRev) -> DualRev {
        DualRev::binary(self.value - rhs.value, self, 1.0, rhs, -1.0)
    }
}

impl Mul for DualRev {
    type Output = DualRev;
    #[inline(always)]
    fn mul(self, rhs: DualRev) -> DualRev {
        DualRev::binary(self.value * rhs.value, self, rhs.value, rhs, self.value)
    }
}

impl Div for DualRev {
    type Output = DualRev;
    #[inline(always)]
    fn div(self, rhs: DualRev) -> DualRev {
        // Primal results stay bit-identical to plain `f64` evaluation.
        let v = self.value / rhs.value;
        let inv = 1.0 / rhs.value;
        DualRev::binary(v, self, inv, rhs, -v * inv)
    }
}

impl Neg for DualRev {
    type Output = DualRev;
    #[inline(always)]
    fn neg(self) -> DualRev {
        DualRev::unary(-self.value, self, -1.0)
    }
}

impl Add<f64> for DualRev {
    type Output = DualRev;
    #[inline(always)]
    fn add(self, rhs: f64) -> DualRev {
        DualRev::unary(self.value + rhs, self, 1.0)
    }
}

impl Sub<f64> for DualRev {
    type Output = DualRev;
    #[inline(always)]
    fn sub(self, rhs: f64) -> DualRev {
        DualRev::unary(self.value - rhs, self, 1.0)
    }
}

impl Mul<f64> for DualRev {
    type Output = DualRev;
    #[inline(always)]
    fn mul(self, rhs: f64) -> DualRev {
        DualRev::unary(self.value * rhs, self, rhs)
    }
}

impl Div<f64> for DualRev {
    type Output = DualRev;
    #[inline(always)]
    fn div(self, rhs: f64) -> DualRev {
        DualRev::unary(self.value / rhs, self, 1.0 / rhs)
    }
}

impl Add<DualRev> for f64 {
    type Output = DualRev;
    #[inline(always)]
    fn add(self, rhs: DualRev) -> DualRev {
        rhs + self
    }
}

impl Sub<DualRev> for f64 {
    type Output = DualRev;
    #[inline(always)]
    fn sub(self, rhs: DualRev) -> DualRev {
        DualRev::unary(self - rhs.value, rhs, -1.0)
    }
}

impl Mul<DualRev> for f64 {
    type Output = DualRev;
    #[inline(always)]
    fn mul(self, rhs: DualRev) -> DualRev {
        rhs * self
    }
}

impl Div<DualRev> for f64 {
    type Output = DualRev;
    #[inline(always)]
    fn div(self, rhs: DualRev) -> DualRev {
        let v = self / rhs.value;
        DualRev::unary(v, rhs, -v / rhs.value)
    }
}

macro_rules! assign_ops {
    ($($tr:ident $m:ident $op:tt),*) => {$(
        impl $tr for DualRev {
            #[inline(always)]
            fn $m(&mut self, rhs: DualRev) { *self = *self $op rhs; }
        }
        impl $tr<f64> for DualRev {
            #[inline(always)]
            fn $m(&mut self, rhs: f64) { *self = *self $op rhs; }
        }
    )*};
}
assign_ops!(AddAssign add_assign +, SubAssign sub_assign -, MulAssign mul_assign *, DivAssign div_assign /);

impl Sum for DualRev {
    /// Sums without an initial constant `0` node: `a + b + c` records two
    /// additions.
    fn sum<I: Iterator<Item = DualRev>>(mut iter: I) -> DualRev {
        match iter.next() {
            None => DualRev::constant(0.0),
            Some(first) => iter.fold(first, Add::add),
        }
    }
}

impl<'a> Sum<&'a DualRev> for DualRev {
    fn sum<I: Iterator<Item = &'a DualRev>>(iter: I) -> DualRev {
        iter.copied().sum()
    }
}

impl Product for DualRev {
    fn product<I: Iterator<Item = DualRev>>(mut iter: I) -> DualRev {
        match iter.next() {
            None => DualRev::constant(1.0),
            Some(first) => iter.fold(first, Mul::mul),
        }
    }
}

impl<'a> Product<&'a DualRev> for DualRev {
    fn product<I: Iterator<Item = &'a DualRev>>(iter: I) -> DualRev {
        iter.copied().product()
    }
}

/// Unary methods of `DualRev` from the local partials: by name, or (the callback of
/// `nilang_prims::elementary!`) the primitive table's elementary rows.
macro_rules! unary_fns {
    ([] $(($ty:ident $name:ident $($row:tt)*))*) => {
        unary_fns!($($name),*);
    };
    ($($name:ident),*) => {$(
        #[inline]
        fn $name(self) -> Self {
            let (v, d) = partials::$name(self.value);
            DualRev::unary(v, self, d)
        }
    )*};
}

#[cfg_attr(not(feature = "reversible"), allow(unused_imports))]
pub(crate) use unary_fns;

impl Scalar for DualRev {
    #[inline(always)]
    fn cst(c: f64) -> Self {
        DualRev::constant(c)
    }
    #[inline(always)]
    fn value(self) -> f64 {
        self.value
    }

    unary_fns!(
        exp, ln, log10, sqrt, cbrt, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, abs, recip
    );

    #[inline]
    fn powi(self, n: i32) -> Self {
        let (v, d) = partials::powi(self.value, n);
        DualRev::unary(v, self, d)
    }
    #[inline]
    fn powf(self, n: Self) -> Self {
        let (v, dx, dy) = partials::powf(self.value, n.value);
        DualRev::binary(v, self, dx, n, dy)
    }
    #[inline]
    fn atan2(self, other: Self) -> Self {
        let (v, dy, dx) = partials::atan2(self.value, other.value);
        DualRev::binary(v, self, dy, other, dx)
    }
    #[inline]
    fn hypot(self, other: Self) -> Self {
        let (v, dx, dy) = partials::hypot(self.value, other.value);
        DualRev::binary(v, self, dx, other, dy)
    }
    #[inline]
    fn max(self, other: Self) -> Self {
        // Selecting an argument is an ordinary value: no new ID is needed.
        if other.value > self.value {
            other
        } else {
            self
        }
    }
    #[inline]
    fn min(self, other: Self) -> Self {
        if other.value < self.value {
            other
        } else {
            self
        }
    }
}
