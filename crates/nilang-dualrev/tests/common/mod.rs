//! Shared test oracles: a tiny forward-mode dual number, Richardson-
//! extrapolated central differences, and a battery of generic test functions.
#![allow(dead_code, clippy::type_complexity)]

use core::cmp::Ordering;
use core::fmt;
use core::iter::{Product, Sum};
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use nilang_dualrev::Scalar;

/// Forward-mode dual number `v + d ε` (independent oracle: its rules are
/// written out here, not shared with the crate).
#[derive(Clone, Copy, Debug, Default)]
pub struct Fwd {
    pub v: f64,
    pub d: f64,
}

impl Fwd {
    fn chain(self, v: f64, dv: f64) -> Fwd {
        Fwd { v, d: dv * self.d }
    }
}

impl fmt::Display for Fwd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{}e", self.v, self.d)
    }
}
impl From<f64> for Fwd {
    fn from(v: f64) -> Fwd {
        Fwd { v, d: 0.0 }
    }
}
impl PartialEq for Fwd {
    fn eq(&self, o: &Fwd) -> bool {
        self.v == o.v
    }
}
impl PartialOrd for Fwd {
    fn partial_cmp(&self, o: &Fwd) -> Option<Ordering> {
        self.v.partial_cmp(&o.v)
    }
}
impl PartialEq<f64> for Fwd {
    fn eq(&self, o: &f64) -> bool {
        self.v == *o
    }
}
impl PartialOrd<f64> for Fwd {
    fn partial_cmp(&self, o: &f64) -> Option<Ordering> {
        self.v.partial_cmp(o)
    }
}
impl Add for Fwd {
    type Output = Fwd;
    fn add(self, o: Fwd) -> Fwd {
        Fwd {
            v: self.v + o.v,
            d: self.d + o.d,
        }
    }
}
impl Sub for Fwd {
    type Output = Fwd;
    fn sub(self, o: Fwd) -> Fwd {
        Fwd {
            v: self.v - o.v,
            d: self.d - o.d,
        }
    }
}
impl Mul for Fwd {
    type Output = Fwd;
    fn mul(self, o: Fwd) -> Fwd {
        Fwd {
            v: self.v * o.v,
            d: self.d * o.v + self.v * o.d,
        }
    }
}
impl Div for Fwd {
    type Output = Fwd;
    fn div(self, o: Fwd) -> Fwd {
        Fwd {
            v: self.v / o.v,
            d: (self.d * o.v - self.v * o.d) / (o.v * o.v),
        }
    }
}
impl Neg for Fwd {
    type Output = Fwd;
    fn neg(self) -> Fwd {
        Fwd {
            v: -self.v,
            d: -self.d,
        }
    }
}
macro_rules! fwd_f64_ops {
    ($($tr:ident $m:ident $atr:ident $am:ident),*) => {$(
        impl $tr<f64> for Fwd {
            type Output = Fwd;
            fn $m(self, o: f64) -> Fwd { self.$m(Fwd::from(o)) }
        }
        impl $atr for Fwd {
            fn $am(&mut self, o: Fwd) { *self = (*self).$m(o); }
        }
        impl $atr<f64> for Fwd {
            fn $am(&mut self, o: f64) { *self = (*self).$m(Fwd::from(o)); }
        }
    )*};
}
fwd_f64_ops!(Add add AddAssign add_assign, Sub sub SubAssign sub_assign, Mul mul MulAssign mul_assign, Div div DivAssign div_assign);
impl Sum for Fwd {
    fn sum<I: Iterator<Item = Fwd>>(it: I) -> Fwd {
        it.fold(Fwd::from(0.0), Add::add)
    }
}
impl Product for Fwd {
    fn product<I: Iterator<Item = Fwd>>(it: I) -> Fwd {
        it.fold(Fwd::from(1.0), Mul::mul)
    }
}

impl Scalar for Fwd {
    fn cst(c: f64) -> Fwd {
        Fwd::from(c)
    }
    fn value(self) -> f64 {
        self.v
    }
    fn exp(self) -> Fwd {
        self.chain(self.v.exp(), self.v.exp())
    }
    fn ln(self) -> Fwd {
        self.chain(self.v.ln(), 1.0 / self.v)
    }
    fn log10(self) -> Fwd {
        self.chain(self.v.log10(), 1.0 / (self.v * 10f64.ln()))
    }
    fn sqrt(self) -> Fwd {
        self.chain(self.v.sqrt(), 1.0 / (2.0 * self.v.sqrt()))
    }
    fn cbrt(self) -> Fwd {
        self.chain(self.v.cbrt(), self.v.cbrt() / (3.0 * self.v))
    }
    fn sin(self) -> Fwd {
        self.chain(self.v.sin(), self.v.cos())
    }
    fn cos(self) -> Fwd {
        self.chain(self.v.cos(), -self.v.sin())
    }
    fn tan(self) -> Fwd {
        self.chain(self.v.tan(), 1.0 / self.v.cos().powi(2))
    }
    fn asin(self) -> Fwd {
        self.chain(self.v.asin(), 1.0 / (1.0 - self.v * self.v).sqrt())
    }
    fn acos(self) -> Fwd {
        self.chain(self.v.acos(), -1.0 / (1.0 - self.v * self.v).sqrt())
    }
    fn atan(self) -> Fwd {
        self.chain(self.v.atan(), 1.0 / (1.0 + self.v * self.v))
    }
    fn sinh(self) -> Fwd {
        self.chain(self.v.sinh(), self.v.cosh())
    }
    fn cosh(self) -> Fwd {
        self.chain(self.v.cosh(), self.v.sinh())
    }
    fn tanh(self) -> Fwd {
        self.chain(self.v.tanh(), 1.0 / self.v.cosh().powi(2))
    }
    fn abs(self) -> Fwd {
        self.chain(self.v.abs(), self.v.signum())
    }
    fn recip(self) -> Fwd {
        self.chain(1.0 / self.v, -1.0 / (self.v * self.v))
    }
    fn powi(self, n: i32) -> Fwd {
        self.chain(self.v.powi(n), n as f64 * self.v.powi(n - 1))
    }
    fn powf(self, n: Fwd) -> Fwd {
        // x^y = exp(y ln x)
        (n * self.ln()).exp()
    }
    fn atan2(self, x: Fwd) -> Fwd {
        let r2 = x.v * x.v + self.v * self.v;
        Fwd {
            v: self.v.atan2(x.v),
            d: (x.v * self.d - self.v * x.d) / r2,
        }
    }
    fn hypot(self, o: Fwd) -> Fwd {
        (self * self + o * o).sqrt()
    }
    fn max(self, o: Fwd) -> Fwd {
        if o.v > self.v {
            o
        } else {
            self
        }
    }
    fn min(self, o: Fwd) -> Fwd {
        if o.v < self.v {
            o
        } else {
            self
        }
    }
}

/// Gradient of a scalar function by `n` forward-mode passes.
pub fn fwd_grad(f: impl Fn(&[Fwd]) -> Fwd, x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|j| {
            let xs: Vec<Fwd> = x
                .iter()
                .enumerate()
                .map(|(i, &v)| Fwd {
                    v,
                    d: if i == j { 1.0 } else { 0.0 },
                })
                .collect();
            f(&xs).d
        })
        .collect()
}

/// Central differences with one Richardson extrapolation step (error O(h⁴)).
pub fn fd_grad(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    let d = |j: usize, h: f64| {
        let mut xp = x.to_vec();
        let mut xm = x.to_vec();
        xp[j] += h;
        xm[j] -= h;
        (f(&xp) - f(&xm)) / (2.0 * h)
    };
    (0..x.len())
        .map(|j| {
            let h = 1e-3 * (1.0 + x[j].abs());
            (4.0 * d(j, h / 2.0) - d(j, h)) / 3.0
        })
        .collect()
}

/// `|a - b| <= tol * max(1, |a|, |b|)` elementwise, with a helpful message.
pub fn assert_close(a: &[f64], b: &[f64], tol: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: length mismatch");
    for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
        let scale = 1f64.max(x.abs()).max(y.abs());
        assert!(
            (x - y).abs() <= tol * scale,
            "{what}: component {i}: {x} vs {y} (tol {tol})\n  left  = {a:?}\n  right = {b:?}"
        );
    }
}

// ---- generic test functions (inputs expected in [0.2, 0.9]) ---------------

pub fn rosenbrock<S: Scalar>(x: &[S]) -> S {
    x.windows(2)
        .map(|w| (S::one() - w[0]).powi(2) + (w[1] - w[0] * w[0]).powi(2) * 100.0)
        .sum()
}

pub fn elementary<S: Scalar>(x: &[S]) -> S {
    let (a, b, c) = (x[0], x[1], x[2]);
    a.exp() * b.ln() + b.sqrt() * c.sin() / a.cos() + (c * 0.3).tan() + a.tanh() + (b * 0.5).sinh()
        - (c * 0.2).cosh()
        + b.cbrt()
        + b.log10()
        + (a * 0.3).asin()
        + (c * 0.2).acos()
        + a.atan()
        + (a - b).abs()
        + c.recip()
}

pub fn binary_ops<S: Scalar>(x: &[S]) -> S {
    let (a, b, c) = (x[0], x[1], x[2]);
    let mut acc = a.powi(3) + b.powf(c) + a.powf(S::cst(2.5)) + b.atan2(c) + a.hypot(b);
    acc += a.max(b) * c.min(a);
    acc -= S::cst(2.0) / a + (S::cst(1.5) - b) * 3.0;
    acc *= a - c / b;
    acc /= b + 1.0;
    -acc + (a * b * c) / (a + b + c)
}

/// Every named test function, for looping in tests.
pub fn all_functions_f64() -> Vec<(&'static str, fn(&[f64]) -> f64)> {
    vec![
        ("rosenbrock", rosenbrock::<f64>),
        ("elementary", elementary::<f64>),
        ("binary_ops", binary_ops::<f64>),
    ]
}
