//! The gradient-descent solver of the nested evals (`particle`, `saddle`), as GradBench
//! specifies it for every tool (`cpp/gradbench/gd.hpp`): start with step `η = 10⁻⁵`; stop when
//! `‖∇f‖ ≤ 10⁻⁵` or when a step would move less than `10⁻⁵`; take a step when it lowers `f`
//! (doubling `η` after 10 accepted steps in a row), otherwise halve `η`.
//!
//! The solver is a plain driver, generic over the number type `S` ([`nilang::Float`]: `f64`,
//! or [`nilang::Dual`] when an outer forward-mode derivative is taken through it). Its
//! decisions look at primal values only; tangents flow through the accepted steps, so the
//! result's tangent is the derivative of the solver's output, as when any forward-mode tool
//! differentiates through the loop. The function and its gradient are closures: the evals pass
//! reversible programs and their generated derivatives.
//!
//! The module also holds what the two nested evals share: their function names ([`Nesting`])
//! and the outer derivative in either mode ([`forward_gradient`], [`reverse_gradient`]).

use nilang::{Dual, Float};
use nilang_dualrev::DualRev;

/// How a derivative is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Forward mode (dual numbers).
    Forward,
    /// Reverse mode.
    Reverse,
}

/// The modes of a nested eval's two derivatives, as its function name gives them: `ff`, `fr`,
/// `rf`, `rr` (outer mode first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nesting {
    /// The mode of the outer derivative (through the inner solver or the integration).
    pub outer: Mode,
    /// The mode of the inner derivative (of the reversible objective).
    pub inner: Mode,
}

impl Nesting {
    /// The function names of a nested eval.
    pub const FUNCTIONS: [&'static str; 4] = ["ff", "fr", "rf", "rr"];

    /// The nesting a function name stands for, if it is one of [`Nesting::FUNCTIONS`].
    pub fn parse(function: &str) -> Option<Nesting> {
        let mode = |c| match c {
            b'f' => Some(Mode::Forward),
            b'r' => Some(Mode::Reverse),
            _ => None,
        };
        match function.as_bytes() {
            [o, i] => Some(Nesting {
                outer: mode(*o)?,
                inner: mode(*i)?,
            }),
            _ => None,
        }
    }
}

/// `∇f(x)` by forward mode: `f` on [`Dual`] numbers, one pass per component of `x`.
pub fn forward_gradient(f: impl Fn(&[Dual<f64>]) -> Dual<f64>, x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|k| {
            let xd: Vec<Dual<f64>> = (0..x.len())
                .map(|j| Dual::new(x[j], if j == k { 1.0 } else { 0.0 }))
                .collect();
            f(&xd).eps
        })
        .collect()
}

/// `∇f(x)` by reverse mode through ordinary Rust code: `f` on [`DualRev`] numbers, recorded
/// and swept back once by the dual-numbers reverse engine ([`nilang_dualrev::grad`]). The
/// reversible programs `f` calls run on `DualRev` too, and so do their reversal gradients
/// (the inverse programs on `GVar<DualRev>`): reverse mode over reversal.
pub fn reverse_gradient(f: impl FnOnce(&[DualRev]) -> DualRev, x: &[f64]) -> Vec<f64> {
    // only a computation of more than 2³² operations overflows the tape
    nilang_dualrev::grad(f, x)
        .expect("reverse-mode outer derivative")
        .1
}

fn magnitude<S: Float>(v: &[S]) -> f64 {
    v.iter()
        .map(|x| x.to_f64() * x.to_f64())
        .sum::<f64>()
        .sqrt()
}

/// `argmin f` from `x0` by gradient descent with gradient `g`.
pub fn argmin<S: Float>(f: impl Fn(&[S]) -> S, g: impl Fn(&[S]) -> Vec<S>, x0: &[S]) -> Vec<S> {
    let mut x = x0.to_vec();
    let mut fx = f(&x);
    let mut gx = g(&x);
    let mut eta = S::from_f64(1e-5);
    let mut i = 0;
    loop {
        if magnitude(&gx) <= 1e-5 {
            return x;
        } else if i == 10 {
            eta = eta * S::from_f64(2.0);
            i = 0;
        } else {
            let x_prime: Vec<S> = x.iter().zip(&gx).map(|(&x, &g)| x - eta * g).collect();
            let dist: Vec<S> = x.iter().zip(&x_prime).map(|(&a, &b)| a - b).collect();
            if magnitude(&dist) <= 1e-5 {
                return x;
            }
            let fx_prime = f(&x_prime);
            if fx_prime.to_f64() < fx.to_f64() {
                x = x_prime;
                fx = fx_prime;
                gx = g(&x);
                i += 1;
            } else {
                eta = eta / S::from_f64(2.0);
                i = 0;
            }
        }
    }
}

/// `argmax f` from `x0`: [`argmin`] of `−f`.
pub fn argmax<S: Float>(f: impl Fn(&[S]) -> S, g: impl Fn(&[S]) -> Vec<S>, x0: &[S]) -> Vec<S> {
    argmin(|x| -f(x), |x| g(x).into_iter().map(|v| -v).collect(), x0)
}

/// `max f` from `x0`: `f` at [`argmax`].
pub fn max<S: Float>(f: impl Fn(&[S]) -> S, g: impl Fn(&[S]) -> Vec<S>, x0: &[S]) -> S {
    let x = argmax(&f, g, x0);
    f(&x)
}
