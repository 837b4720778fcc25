//! Plain (irreversible) objectives are written once, generic over [`Plain`], so that every peer
//! differentiates the same code: `f64` (the native objective), forward-mode duals (`num-dual`),
//! tape-based reverse mode (`echidna`, `easy-ml`) and our dual-numbers reverse AD
//! (`nilang-dualrev`).

use core::ops::{Add, Div, Mul, Neg, Sub};

/// What the plain objectives need from a scalar.
pub trait Plain:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// A constant.
    fn cst(v: f64) -> Self;
    /// Square root.
    fn sqrt(self) -> Self;
    /// Exponential.
    fn exp(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// Sine.
    fn sin(self) -> Self;
    /// Cosine.
    fn cos(self) -> Self;
    /// The primal value.
    fn value(self) -> f64;
    /// Hyperbolic tangent (by default from [`Plain::exp`]: `1 − 2 / (e²ˣ + 1)`).
    fn tanh(self) -> Self {
        Self::cst(1.0) - Self::cst(2.0) / ((self * Self::cst(2.0)).exp() + Self::cst(1.0))
    }
}

impl Plain for f64 {
    #[inline(always)]
    fn cst(v: f64) -> Self {
        v
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    #[inline(always)]
    fn exp(self) -> Self {
        f64::exp(self)
    }
    #[inline(always)]
    fn ln(self) -> Self {
        f64::ln(self)
    }
    #[inline(always)]
    fn sin(self) -> Self {
        f64::sin(self)
    }
    #[inline(always)]
    fn cos(self) -> Self {
        f64::cos(self)
    }
    #[inline(always)]
    fn value(self) -> f64 {
        self
    }
    #[inline(always)]
    fn tanh(self) -> Self {
        f64::tanh(self)
    }
}

macro_rules! num_dual_plain {
    ($($t:ty),*) => {$(
        impl Plain for $t {
            #[inline(always)]
            fn cst(v: f64) -> Self { <$t>::from(v) }
            #[inline(always)]
            fn sqrt(self) -> Self { num_dual::DualNum::sqrt(&self) }
            #[inline(always)]
            fn exp(self) -> Self { num_dual::DualNum::exp(&self) }
            #[inline(always)]
            fn ln(self) -> Self { num_dual::DualNum::ln(&self) }
            #[inline(always)]
            fn sin(self) -> Self { num_dual::DualNum::sin(&self) }
            #[inline(always)]
            fn cos(self) -> Self { num_dual::DualNum::cos(&self) }
            #[inline(always)]
            fn value(self) -> f64 { self.re }
        }
    )*};
}

num_dual_plain!(num_dual::Dual64, num_dual::HyperDual64);

impl Plain for echidna::Reverse<f64> {
    #[inline(always)]
    fn cst(v: f64) -> Self {
        echidna::Reverse::constant(v)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        num_traits::Float::sqrt(self)
    }
    #[inline(always)]
    fn exp(self) -> Self {
        num_traits::Float::exp(self)
    }
    #[inline(always)]
    fn ln(self) -> Self {
        num_traits::Float::ln(self)
    }
    #[inline(always)]
    fn sin(self) -> Self {
        num_traits::Float::sin(self)
    }
    #[inline(always)]
    fn cos(self) -> Self {
        num_traits::Float::cos(self)
    }
    #[inline(always)]
    fn value(self) -> f64 {
        echidna::Scalar::value(&self)
    }
}

impl<'a> Plain for easy_ml::differentiation::Record<'a, f64> {
    #[inline(always)]
    fn cst(v: f64) -> Self {
        easy_ml::differentiation::Record::constant(v)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        easy_ml::numeric::extra::Sqrt::sqrt(self)
    }
    #[inline(always)]
    fn exp(self) -> Self {
        easy_ml::numeric::extra::Exp::exp(self)
    }
    #[inline(always)]
    fn ln(self) -> Self {
        easy_ml::numeric::extra::Ln::ln(self)
    }
    #[inline(always)]
    fn sin(self) -> Self {
        easy_ml::numeric::extra::Sin::sin(self)
    }
    #[inline(always)]
    fn cos(self) -> Self {
        easy_ml::numeric::extra::Cos::cos(self)
    }
    #[inline(always)]
    fn value(self) -> f64 {
        self.number
    }
}

impl Plain for nilang_dualrev::DualRev {
    #[inline(always)]
    fn cst(v: f64) -> Self {
        nilang_dualrev::Scalar::cst(v)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        nilang_dualrev::Scalar::sqrt(self)
    }
    #[inline(always)]
    fn exp(self) -> Self {
        nilang_dualrev::Scalar::exp(self)
    }
    #[inline(always)]
    fn ln(self) -> Self {
        nilang_dualrev::Scalar::ln(self)
    }
    #[inline(always)]
    fn sin(self) -> Self {
        nilang_dualrev::Scalar::sin(self)
    }
    #[inline(always)]
    fn cos(self) -> Self {
        nilang_dualrev::Scalar::cos(self)
    }
    #[inline(always)]
    fn value(self) -> f64 {
        nilang_dualrev::Scalar::value(self)
    }
}

/// Gradients of a plain objective by each peer, for benchmarks and cross-checks.
pub mod peers {
    use super::Plain;

    /// Forward mode with `num-dual`: one `Dual64` pass per input.
    pub fn num_dual_gradient(
        f: impl Fn(&[num_dual::Dual64]) -> num_dual::Dual64,
        x: &[f64],
    ) -> Vec<f64> {
        let mut xs: Vec<num_dual::Dual64> = x.iter().map(|&v| num_dual::Dual64::from(v)).collect();
        (0..x.len())
            .map(|i| {
                xs[i].eps = 1.0;
                let g = f(&xs).eps;
                xs[i].eps = 0.0;
                g
            })
            .collect()
    }

    /// Forward-over-forward Hessian with `num-dual` hyper-dual numbers: one pass per entry of
    /// the upper triangle.
    pub fn num_dual_hessian(
        f: impl Fn(&[num_dual::HyperDual64]) -> num_dual::HyperDual64,
        x: &[f64],
    ) -> Vec<Vec<f64>> {
        let n = x.len();
        let mut xs: Vec<num_dual::HyperDual64> =
            x.iter().map(|&v| num_dual::HyperDual64::from(v)).collect();
        let mut h = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in i..n {
                xs[i].eps1 = 1.0;
                xs[j].eps2 = 1.0;
                let v = f(&xs).eps1eps2;
                xs[i].eps1 = 0.0;
                xs[j].eps2 = 0.0;
                h[i][j] = v;
                h[j][i] = v;
            }
        }
        h
    }

    /// Reverse mode with `echidna`'s tape.
    pub fn echidna_gradient(
        f: impl Fn(&[echidna::Reverse<f64>]) -> echidna::Reverse<f64>,
        x: &[f64],
    ) -> Vec<f64> {
        echidna::grad(|xs| f(xs), x)
    }

    /// Reverse mode with `easy-ml`'s Wengert list (reused across calls by the caller).
    pub fn easy_ml_gradient<'a>(
        list: &'a easy_ml::differentiation::WengertList<f64>,
        f: impl Fn(
            &[easy_ml::differentiation::Record<'a, f64>],
        ) -> easy_ml::differentiation::Record<'a, f64>,
        x: &[f64],
    ) -> Vec<f64> {
        list.clear();
        let vars: Vec<_> = x
            .iter()
            .map(|&v| easy_ml::differentiation::Record::variable(v, list))
            .collect();
        let y = f(&vars);
        let d = y.derivatives();
        vars.iter().map(|v| d[v]).collect()
    }

    /// Our dual-numbers reverse AD (`nilang-dualrev`).
    pub fn dualrev_gradient(
        f: impl Fn(&[nilang_dualrev::DualRev]) -> nilang_dualrev::DualRev,
        x: &[f64],
    ) -> Vec<f64> {
        nilang_dualrev::grad(|xs| f(xs), x)
            .expect("a scalar objective")
            .1
    }

    /// The value of a plain objective on `f64`.
    pub fn value<S: Plain>(s: S) -> f64 {
        s.value()
    }
}
