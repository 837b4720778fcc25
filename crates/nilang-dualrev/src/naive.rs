//! The naive dual-numbers reverse AD of §3 — a reference implementation.
//!
//! Every scalar is paired with a backpropagator, here a reference-counted
//! closure `ℝ ⊸ c` mapping the scalar's cotangent to a full input cotangent
//! `c` (a `Vec<f64>` of length `n`). An operation's backpropagator simply calls
//! its arguments' backpropagators with the scaled cotangent and adds the
//! resulting vectors (Fig. 1(c) / Fig. 6); an input's backpropagator builds a
//! one-hot vector (Interleave, Fig. 7); a constant's returns the zero vector.
//!
//! This is correct but, as §3.4 explains, a backpropagator is invoked once per
//! *use* of its scalar rather than once overall, so sharing causes exponential
//! blow-up (Fig. 2: `xᵢ₊₁ = xᵢ + xᵢ` calls `dx₀` `2ⁿ` times). It exists only
//! as an independent oracle for tests and to demonstrate that blow-up;
//! [`grad`] reports the number of backpropagator invocations.
//!
//! To make [`NaiveDual`] `Copy` (so the same generic [`Scalar`] code runs on
//! it), the scalar stores an index into a thread-local list of the session's
//! closures; the closures themselves capture their parents' closures directly,
//! exactly as in the paper.

use core::cell::{Cell, RefCell};
use core::cmp::Ordering;
use core::fmt;
use core::iter::{Product, Sum};
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};
use std::rc::Rc;

use crate::scalar::{partials, Scalar};

/// A backpropagator `ℝ ⊸ c` of the naive transformation.
type Backprop = Rc<dyn Fn(f64) -> Vec<f64>>;

struct Session {
    tag: u32,
    dim: usize,
    bps: Vec<Backprop>,
}

thread_local! {
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
    static CALLS: Cell<u64> = const { Cell::new(0) };
    static NEXT_TAG: Cell<u32> = const { Cell::new(1) };
}

/// A scalar of the naive §3 transformation: a value paired with (a handle to)
/// its backpropagator closure.
#[derive(Clone, Copy)]
pub struct NaiveDual {
    value: f64,
    idx: u32,
    tag: u32,
}

impl NaiveDual {
    fn constant(value: f64) -> NaiveDual {
        NaiveDual {
            value,
            idx: 0,
            tag: 0,
        }
    }

    /// The backpropagator of `d` in the given session (`λz. 0̲` for constants
    /// and foreign scalars).
    fn backprop(s: &Session, d: NaiveDual) -> Backprop {
        if d.tag == s.tag {
            s.bps[d.idx as usize].clone()
        } else {
            let dim = s.dim;
            Rc::new(move |_z| {
                CALLS.with(|c| c.set(c.get() + 1));
                vec![0.0; dim]
            })
        }
    }

    fn push(s: &mut Session, value: f64, bp: Backprop) -> NaiveDual {
        s.bps.push(bp);
        NaiveDual {
            value,
            idx: (s.bps.len() - 1) as u32,
            tag: s.tag,
        }
    }

    fn unary(value: f64, a: NaiveDual, da: f64) -> NaiveDual {
        SESSION.with(|s| {
            let mut s = s.borrow_mut();
            let Some(s) = s.as_mut() else {
                return NaiveDual::constant(value);
            };
            let ba = Self::backprop(s, a);
            // λz. ba (da · z)
            let bp: Backprop = Rc::new(move |z| {
                CALLS.with(|c| c.set(c.get() + 1));
                ba(da * z)
            });
            Self::push(s, value, bp)
        })
    }

    fn binary(value: f64, a: NaiveDual, da: f64, b: NaiveDual, db: f64) -> NaiveDual {
        SESSION.with(|s| {
            let mut s = s.borrow_mut();
            let Some(s) = s.as_mut() else {
                return NaiveDual::constant(value);
            };
            let ba = Self::backprop(s, a);
            let bb = Self::backprop(s, b);
            // λz. ba (da · z) + bb (db · z), with + on the input cotangent c.
            let bp: Backprop = Rc::new(move |z| {
                CALLS.with(|c| c.set(c.get() + 1));
                let mut ca = ba(da * z);
                let cb = bb(db * z);
                for (x, y) in ca.iter_mut().zip(cb) {
                    *x += y;
                }
                ca
            });
            Self::push(s, value, bp)
        })
    }
}

/// Result of a naive differentiation.
#[derive(Clone, Debug, PartialEq)]
pub struct NaiveResult {
    /// Primal output values.
    pub values: Vec<f64>,
    /// `J[i][j] = ∂ output_i / ∂ x_j` (one backpropagator call per output).
    pub jacobian: Vec<Vec<f64>>,
    /// Total number of backpropagator closure invocations.
    pub backpropagator_calls: u64,
}

/// Differentiate `f: ℝⁿ → ℝᵐ` with the naive §3 algorithm, calling the
/// top-level backpropagator once per output.
///
/// Sessions on one thread must not be nested (the inner one would hide the
/// outer one's scalars); scalars of other sessions act as constants.
pub fn jacobian<F>(f: F, x: &[f64]) -> NaiveResult
where
    F: FnOnce(&[NaiveDual]) -> Vec<NaiveDual>,
{
    let tag = NEXT_TAG.with(|t| {
        let v = t.get();
        t.set(v.wrapping_add(1).max(1));
        v
    });
    let n = x.len();
    // Interleave (Fig. 7): input i gets the one-hot backpropagator.
    let mut bps: Vec<Backprop> = Vec::with_capacity(n);
    let mut xs = Vec::with_capacity(n);
    for (i, &v) in x.iter().enumerate() {
        bps.push(Rc::new(move |z| {
            CALLS.with(|c| c.set(c.get() + 1));
            let mut e = vec![0.0; n];
            e[i] = z;
            e
        }));
        xs.push(NaiveDual {
            value: v,
            idx: i as u32,
            tag,
        });
    }
    let prev = SESSION.with(|s| s.replace(Some(Session { tag, dim: n, bps })));
    let out = f(&xs);
    let session = SESSION
        .with(|s| s.replace(prev))
        .expect("naive session still installed");
    let start = CALLS.with(|c| c.get());
    let jac = out
        .iter()
        .map(|&d| NaiveDual::backprop(&session, d)(1.0))
        .collect();
    let calls = CALLS.with(|c| c.get()) - start;
    NaiveResult {
        values: out.iter().map(|d| d.value).collect(),
        jacobian: jac,
        backpropagator_calls: calls,
    }
}

/// Value, gradient and number of backpropagator invocations of a scalar
/// function, with the naive §3 algorithm.
pub fn grad<F>(f: F, x: &[f64]) -> (f64, Vec<f64>, u64)
where
    F: FnOnce(&[NaiveDual]) -> NaiveDual,
{
    let mut r = jacobian(|xs| vec![f(xs)], x);
    (r.values[0], r.jacobian.remove(0), r.backpropagator_calls)
}

impl fmt::Debug for NaiveDual {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NaiveDual({})", self.value)
    }
}

impl fmt::Display for NaiveDual {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.value, f)
    }
}

impl Default for NaiveDual {
    fn default() -> Self {
        NaiveDual::constant(0.0)
    }
}

impl From<f64> for NaiveDual {
    fn from(c: f64) -> Self {
        NaiveDual::constant(c)
    }
}

impl PartialEq for NaiveDual {
    fn eq(&self, o: &Self) -> bool {
        self.value == o.value
    }
}
impl PartialOrd for NaiveDual {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        self.value.partial_cmp(&o.value)
    }
}
impl PartialEq<f64> for NaiveDual {
    fn eq(&self, o: &f64) -> bool {
        self.value == *o
    }
}
impl PartialOrd<f64> for NaiveDual {
    fn partial_cmp(&self, o: &f64) -> Option<Ordering> {
        self.value.partial_cmp(o)
    }
}

impl Add for NaiveDual {
    type Output = Self;
    fn add(self, r: Self) -> Self {
        Self::binary(self.value + r.value, self, 1.0, r, 1.0)
    }
}
impl Sub for NaiveDual {
    type Output = Self;
    fn sub(self, r: Self) -> Self {
        Self::binary(self.value - r.value, self, 1.0, r, -1.0)
    }
}
impl Mul for NaiveDual {
    type Output = Self;
    fn mul(self, r: Self) -> Self {
        Self::binary(self.value * r.value, self, r.value, r, self.value)
    }
}
impl Div for NaiveDual {
    type Output = Self;
    fn div(self, r: Self) -> Self {
        let v = self.value / r.value;
        Self::binary(v, self, 1.0 / r.value, r, -v / r.value)
    }
}
impl Neg for NaiveDual {
    type Output = Self;
    fn neg(self) -> Self {
        Self::unary(-self.value, self, -1.0)
    }
}
impl Add<f64> for NaiveDual {
    type Output = Self;
    fn add(self, r: f64) -> Self {
        Self::unary(self.value + r, self, 1.0)
    }
}
impl Sub<f64> for NaiveDual {
    type Output = Self;
    fn sub(self, r: f64) -> Self {
        Self::unary(self.value - r, self, 1.0)
    }
}
impl Mul<f64> for NaiveDual {
    type Output = Self;
    fn mul(self, r: f64) -> Self {
        Self::unary(self.value * r, self, r)
    }
}
impl Div<f64> for NaiveDual {
    type Output = Self;
    fn div(self, r: f64) -> Self {
        Self::unary(self.value / r, self, 1.0 / r)
    }
}

macro_rules! naive_assign_ops {
    ($($tr:ident $m:ident $op:tt),*) => {$(
        impl $tr for NaiveDual {
            fn $m(&mut self, rhs: NaiveDual) { *self = *self $op rhs; }
        }
        impl $tr<f64> for NaiveDual {
            fn $m(&mut self, rhs: f64) { *self = *self $op rhs; }
        }
    )*};
}
naive_assign_ops!(AddAssign add_assign +, SubAssign sub_assign -, MulAssign mul_assign *, DivAssign div_assign /);

impl Sum for NaiveDual {
    fn sum<I: Iterator<Item = Self>>(mut iter: I) -> Self {
        match iter.next() {
            None => NaiveDual::constant(0.0),
            Some(first) => iter.fold(first, Add::add),
        }
    }
}
impl Product for NaiveDual {
    fn product<I: Iterator<Item = Self>>(mut iter: I) -> Self {
        match iter.next() {
            None => NaiveDual::constant(1.0),
            Some(first) => iter.fold(first, Mul::mul),
        }
    }
}

macro_rules! naive_unary_fns {
    ($($name:ident),*) => {$(
        fn $name(self) -> Self {
            let (v, d) = partials::$name(self.value);
            NaiveDual::unary(v, self, d)
        }
    )*};
}

impl Scalar for NaiveDual {
    fn cst(c: f64) -> Self {
        NaiveDual::constant(c)
    }
    fn value(self) -> f64 {
        self.value
    }
    naive_unary_fns!(
        exp, ln, log10, sqrt, cbrt, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, abs, recip
    );
    fn powi(self, n: i32) -> Self {
        let (v, d) = partials::powi(self.value, n);
        NaiveDual::unary(v, self, d)
    }
    fn powf(self, n: Self) -> Self {
        let (v, dx, dy) = partials::powf(self.value, n.value);
        NaiveDual::binary(v, self, dx, n, dy)
    }
    fn atan2(self, other: Self) -> Self {
        let (v, dy, dx) = partials::atan2(self.value, other.value);
        NaiveDual::binary(v, self, dy, other, dx)
    }
    fn hypot(self, other: Self) -> Self {
        let (v, dx, dy) = partials::hypot(self.value, other.value);
        NaiveDual::binary(v, self, dx, other, dy)
    }
    fn max(self, other: Self) -> Self {
        if other.value > self.value {
            other
        } else {
            self
        }
    }
    fn min(self, other: Self) -> Self {
        if other.value < self.value {
            other
        } else {
            self
        }
    }
}
