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
//! Unlike `gd.hpp`, the descent stops with an error instead of looping forever: after
//! [`crate::limits::Limits::steps`] steps, or where the objective or its gradient is not
//! finite (a NaN gradient makes every step a rejected one, for ever).
//!
//! The module also holds what the two nested evals share: their function names ([`Nesting`])
//! and the outer derivative in either mode ([`forward_gradient`], [`reverse_gradient`]), with
//! the value it computes on its way ([`forward_value_gradient`], [`reverse_value_gradient`]),
//! so that a descent over such a derivative evaluates each point once ([`argmin_joint`]).

use crate::limits;
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

/// `∇f(x)` by forward mode: `f` on [`Dual`] numbers, one pass per component of `x`; the
/// first error of `f` stops it.
pub fn forward_gradient<const N: usize>(
    f: impl Fn(&[Dual<f64>; N]) -> Result<Dual<f64>, String>,
    x: &[f64; N],
) -> Result<[f64; N], String> {
    Ok(forward_value_gradient(f, x)?.1)
}

/// `f(x)` and `∇f(x)` by forward mode ([`forward_gradient`]): the value is the primal part of
/// the first pass, the same number `f` on `f64` computes (dual numbers compute their primal
/// parts as `f64` does).
pub fn forward_value_gradient<const N: usize>(
    f: impl Fn(&[Dual<f64>; N]) -> Result<Dual<f64>, String>,
    x: &[f64; N],
) -> Result<(f64, [f64; N]), String> {
    let mut value = None;
    let mut g = [0.0; N];
    for (k, gk) in g.iter_mut().enumerate() {
        let xd = std::array::from_fn(|j| Dual::new(x[j], if j == k { 1.0 } else { 0.0 }));
        let y = f(&xd)?;
        value.get_or_insert(y.re);
        *gk = y.eps;
    }
    let value = match value {
        Some(v) => v,
        None => f(&x.map(Dual::constant))?.re,
    };
    Ok((value, g))
}

/// `∇f(x)` by reverse mode through ordinary Rust code: `f` on [`DualRev`] numbers, recorded
/// and swept back once by the dual-numbers reverse engine ([`nilang_dualrev::grad`]). The
/// reversible programs `f` calls run on `DualRev` too, and so do their adjoint programs
/// (`f_vjp` on `DualRev` values and gradients): reverse mode over reversal. An error of `f`
/// (which then hands the engine a constant) is the result.
pub fn reverse_gradient<const N: usize>(
    f: impl FnOnce(&[DualRev; N]) -> Result<DualRev, String>,
    x: &[f64; N],
) -> Result<[f64; N], String> {
    Ok(reverse_value_gradient(f, x)?.1)
}

/// `f(x)` and `∇f(x)` by reverse mode ([`reverse_gradient`]): the value is the one the
/// recording computed.
pub fn reverse_value_gradient<const N: usize>(
    f: impl FnOnce(&[DualRev; N]) -> Result<DualRev, String>,
    x: &[f64; N],
) -> Result<(f64, [f64; N]), String> {
    let mut failed = None;
    let recorded = nilang_dualrev::grad(
        |x| {
            let x: &[DualRev; N] = x
                .try_into()
                .expect("the engine gives one variable per input");
            f(x).unwrap_or_else(|e| {
                failed = Some(e);
                DualRev::from(0.0)
            })
        },
        x,
    );
    if let Some(e) = failed {
        return Err(e);
    }
    // only a computation of more than 2³² operations overflows the tape (the solvers' step
    // caps keep them far below)
    let (value, g) = recorded.map_err(|e| format!("reverse-mode outer derivative: {e}"))?;
    Ok((value, g.try_into().expect("one derivative per input")))
}

fn magnitude<S: Float, const N: usize>(v: &[S; N]) -> f64 {
    v.iter()
        .map(|x| x.to_f64() * x.to_f64())
        .sum::<f64>()
        .sqrt()
}

/// `v` when its primal value is finite; an error saying `what` otherwise.
fn finite<S: Float>(v: S, what: &str) -> Result<S, String> {
    if v.to_f64().is_finite() {
        Ok(v)
    } else {
        Err(format!("{what} is not finite ({})", v.to_f64()))
    }
}

/// `g` when all its primal values are finite; an error otherwise.
fn finite_gradient<S: Float, const N: usize>(g: [S; N]) -> Result<[S; N], String> {
    for v in &g {
        finite(*v, "the gradient of the descent's objective")?;
    }
    Ok(g)
}

/// `argmin f` from `x0` by gradient descent with gradient `g`. At most [`Limits::steps`]
/// steps (the process's, [`limits::current`]; a step is one pass of the loop: an accepted or
/// a rejected step, or a doubling of `η`): one more is an error, as is an objective not finite
/// at `x0`, a gradient not finite where the descent stands, or an error of `f` or `g`. The
/// point is an array: the nested evals' points have two components or one, and the solver runs
/// inside every outer derivative, so it allocates nothing.
///
/// [`Limits::steps`]: crate::limits::Limits::steps
pub fn argmin<S: Float, const N: usize>(
    f: impl Fn(&[S; N]) -> Result<S, String>,
    g: impl Fn(&[S; N]) -> Result<[S; N], String>,
    x0: &[S; N],
) -> Result<[S; N], String> {
    descend(f, g, x0)
}

/// [`argmin`] of an objective whose value comes with its gradient: `fg(x)` gives both, as
/// every derivative computes the value on its way (the primal part of forward mode's dual
/// numbers, the recording of reverse mode). The descent needs the gradient at each point whose
/// value it accepts, and the first point's; `gd.hpp`'s accepted steps evaluate the objective
/// and then its gradient at the same point, so one joint evaluation serves both. The steps are
/// [`argmin`]'s with `f` the value part of `fg` and `g` its gradient part: the same points,
/// one evaluation fewer per step (a rejected step's gradient is computed and not used).
pub fn argmin_joint<const N: usize>(
    fg: impl Fn(&[f64; N]) -> Result<(f64, [f64; N]), String>,
    x0: &[f64; N],
) -> Result<[f64; N], String> {
    // the gradient of the point `descend` evaluated last, which is the point it asks about
    let last = std::cell::Cell::new(None);
    descend(
        |x| {
            let (value, gradient) = fg(x)?;
            last.set(Some((*x, gradient)));
            Ok(value)
        },
        |x| match last.take() {
            Some((at, gradient)) if at == *x => Ok(gradient),
            _ => Ok(fg(x)?.1),
        },
        x0,
    )
}

/// The descent of [`argmin`]: `g` is asked only at the point whose value `f` gave last.
fn descend<S: Float, const N: usize>(
    f: impl Fn(&[S; N]) -> Result<S, String>,
    g: impl Fn(&[S; N]) -> Result<[S; N], String>,
    x0: &[S; N],
) -> Result<[S; N], String> {
    let limits = limits::current();
    let mut x = *x0;
    let mut fx = finite(f(&x)?, "the descent's objective at its start")?;
    let mut gx = finite_gradient(g(&x)?)?;
    let mut eta = S::from_f64(1e-5);
    let (mut i, mut steps) = (0, 0);
    loop {
        limits.step(&mut steps, || {
            "the gradient descent did not converge".into()
        })?;
        if magnitude(&gx) <= 1e-5 {
            return Ok(x);
        } else if i == 10 {
            eta = eta * S::from_f64(2.0);
            i = 0;
        } else {
            let x_prime: [S; N] = std::array::from_fn(|j| x[j] - eta * gx[j]);
            let dist: [S; N] = std::array::from_fn(|j| x[j] - x_prime[j]);
            if magnitude(&dist) <= 1e-5 {
                return Ok(x);
            }
            let fx_prime = f(&x_prime)?;
            if fx_prime.to_f64() < fx.to_f64() {
                x = x_prime;
                fx = fx_prime;
                gx = finite_gradient(g(&x)?)?;
                i += 1;
            } else {
                eta = eta / S::from_f64(2.0);
                i = 0;
            }
        }
    }
}

/// `argmax f` from `x0`: [`argmin`] of `−f`.
pub fn argmax<S: Float, const N: usize>(
    f: impl Fn(&[S; N]) -> Result<S, String>,
    g: impl Fn(&[S; N]) -> Result<[S; N], String>,
    x0: &[S; N],
) -> Result<[S; N], String> {
    argmin(|x| Ok(-f(x)?), |x| Ok(g(x)?.map(|v| -v)), x0)
}

/// `max f` from `x0`: `f` at [`argmax`].
pub fn max<S: Float, const N: usize>(
    f: impl Fn(&[S; N]) -> Result<S, String>,
    g: impl Fn(&[S; N]) -> Result<[S; N], String>,
    x0: &[S; N],
) -> Result<S, String> {
    let x = argmax(&f, g, x0)?;
    f(&x)
}
