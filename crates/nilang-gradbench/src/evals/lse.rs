//! `lse`: LogSumExp `log Σᵢ exp(xᵢ)` and its gradient.
//!
//! Written with the LogSumExp trick: the maximum `a` of `x` is an ancilla holding a constant
//! (computed from the primal values, allocated and deallocated with the same expression), and
//! `LSE(x) = a + log Σᵢ exp(xᵢ − a)`. The value does not depend on `a`, so holding `a`
//! constant while reversing gives the exact gradient (the softmax of `x`).

use super::{decode, timed, timed_into_with, unknown_function};
use crate::limits::{Need, ANSWER_NUMBER_BYTES};
use crate::runs::Timing;
use nilang::{i, Real};
use serde::Deserialize;
use serde_json::{json, Value};

/// The largest primal value in `x` (−∞ for an empty slice). With several threads in the
/// current rayon pool and at least `nilang::parallel::min_parallel_work` values, each
/// chunk of `nilang::parallel::chunks` finds its own maximum (the same value: the maximum is
/// exact in any order). (gmm takes it of every point's `k` main terms: forking for those cost
/// 100 times the objective.)
pub fn max_value<T: Real>(x: &[T]) -> f64 {
    let max = |x: &[T]| largest(x);
    if !nilang::parallel::worth_splitting(0, x.len(), false, 1) {
        return max(x);
    }
    let chunks = nilang::parallel::chunks(0, x.len(), false);
    let maxima = nilang::parallel::run(&chunks, |lo, hi| max(&x[lo..hi]));
    maxima.into_iter().fold(f64::NEG_INFINITY, f64::max)
}

/// The largest primal value of `x`, NaNs ignored (−∞ if there is none), kept in eight
/// running maxima, so that the comparisons vectorise (`f64::max` one value at a time does not,
/// and the search is a visible part of an lse gradient).
fn largest<T: Real>(x: &[T]) -> f64 {
    const LANES: usize = 8;
    let mut lanes = [f64::NEG_INFINITY; LANES];
    let mut chunks = x.chunks_exact(LANES);
    for chunk in &mut chunks {
        for (m, v) in lanes.iter_mut().zip(chunk) {
            let v = v.val();
            *m = if v > *m { v } else { *m };
        }
    }
    let rest = chunks.remainder().iter().map(Real::val);
    lanes
        .into_iter()
        .chain(rest)
        .fold(f64::NEG_INFINITY, f64::max)
}

/// The work of one element of the exponentials' parallel loops (an exponential and a sum) in
/// units of `(a..b).par().weight(w)` (about a nanosecond of one core's work).
const EXP_WEIGHT: usize = 4;

/// `out += log Σᵢ exp(x[i])`, stably (shifted by the maximum).
#[i(expand, nocheck)]
pub fn logsumexp<T: Real>(out: &mut T, x: &mut [T]) {
    let a = T::lit(max_value(x));
    let s = T::zero();
    routine! {
        for i in (0..x.len()).par().weight(EXP_WEIGHT) {
            s += exp(x[i] - a);
        }
    }
    out += log(s);
    out += a;
    uncompute!();
    dealloc!(s = T::zero(), a = T::lit(max_value(x)));
}

/// `out += log Σᵢ exp(x[i])` as [`logsumexp`], shifted by the caller's `a` (the maximum of
/// `x`, [`max_value`], computed once per run rather than again by the reverse sweep; holding it
/// constant gives the exact gradient), with each shifted exponential moved into `e` (zero on
/// entry, an output): in the gradient's reverse sweep, `exp(x[i] − a)` comes back
/// from `e` into an ancilla that is deallocated as zero right after, so the adjoint takes
/// the exponential's derivative from the ancilla's value instead of evaluating it again
/// (`Acc1::sub1_released`): a gradient evaluates `n` exponentials, as a hand-written one.
#[i(nocheck)]
pub fn logsumexp_kept<T: Real>(out: &mut T, x: &mut [T], e: &mut [T], a: T) {
    let s = T::zero();
    routine! {
        for i in (0..x.len()).par().weight(EXP_WEIGHT) {
            let u = T::zero();
            let t = T::zero();
            u += x[i] - a;
            t += exp(u);
            u -= x[i] - a;
            dealloc!(u = T::zero());
            s += identity(t);
            swap(t, e[i]);
            dealloc!(t = T::zero());
        }
    }
    out += log(s);
    out += identity(a);
    uncompute!();
    dealloc!(s = T::zero());
}

/// The `lse` input.
#[derive(Clone, Debug, Deserialize)]
pub struct Input {
    /// The vector.
    pub x: Vec<f64>,
}

/// LSE(x) by running [`logsumexp`] forward.
pub fn primal(x: &[f64]) -> f64 {
    primal_in(&mut x.to_vec())
}

/// LSE(x) by running [`logsumexp`] forward on the caller's `x` (which it only reads).
pub fn primal_in(x: &mut [f64]) -> f64 {
    let mut out = 0.0;
    logsumexp(&mut out, x);
    out
}

/// ∇LSE(x) by [`logsumexp_kept_vjp`]: the forward program, then the adjoint program with the
/// gradient in its own buffer (seeded with 1 on the output).
pub fn gradient(x: &[f64]) -> Result<Vec<f64>, String> {
    let mut b = GradientBuffers::new(x.len());
    gradient_into(&mut x.to_vec(), &mut b);
    Ok(b.grad)
}

/// The buffers of a gradient run, kept across the runs of a message: the gradient, and the
/// exponentials `e` of [`logsumexp_kept`] with their gradient. `e` and its gradient are zero
/// on entry of a run, and again on exit: the adjoint program swaps every exponential back out
/// of `e` (exactly) and moves no gradient into it.
#[derive(Clone, Debug)]
pub struct GradientBuffers {
    /// ∇LSE(x), after a run.
    pub grad: Vec<f64>,
    /// The exponentials' slot.
    pub e: Vec<f64>,
    /// Its gradient.
    pub e_grad: Vec<f64>,
}

impl GradientBuffers {
    /// Buffers for vectors of length `n`.
    pub fn new(n: usize) -> GradientBuffers {
        GradientBuffers {
            grad: vec![0.0; n],
            e: vec![0.0; n],
            e_grad: vec![0.0; n],
        }
    }
}

/// ∇LSE(x) into `b.grad`, by [`logsumexp_kept_vjp`] on the caller's buffers: `x` is
/// restored (the program only reads it), `b.grad` overwritten, `b.e` and `b.e_grad` left
/// zero as they must come.
pub fn gradient_into(x: &mut [f64], b: &mut GradientBuffers) {
    super::par_fill(&mut b.grad, 0.0);
    let (mut out, mut out_grad) = (0.0, 1.0);
    let a = max_value(x);
    logsumexp_kept_vjp(
        &mut out,
        &mut out_grad,
        x,
        &mut b.grad,
        &mut b.e,
        &mut b.e_grad,
        a,
        (),
    );
}

/// Plain Rust LSE (the reference for tests).
pub fn reference(x: &[f64]) -> f64 {
    let a = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    a + x.iter().map(|v| (v - a).exp()).sum::<f64>().ln()
}

/// The `lse` functions: `primal` and `gradient`.
pub fn evaluate(function: &str, input: &Value) -> Result<(Value, Vec<Timing>), String> {
    let inp: Input = decode("lse", input)?;
    if inp.x.is_empty() {
        return Err("bad `lse` input: `x` is empty".into());
    }
    // the copy of `x`, the gradient's three buffers and the answer
    Need::new("lse").add("x", &[inp.x.len()], 4 * 8 + ANSWER_NUMBER_BYTES)?;
    match function {
        // one copy of `x` for all runs (the programs only read it), one gradient buffer
        "primal" => {
            let mut x = inp.x.clone();
            timed(input, || Ok(primal_in(&mut x)), |y| json!(y))
        }
        "gradient" => {
            let (mut x, mut b) = (inp.x.clone(), GradientBuffers::new(inp.x.len()));
            timed_into_with(
                input,
                &mut b,
                |b| {
                    gradient_into(&mut x, b);
                    Ok(())
                },
                |b| json!(b.grad),
            )
        }
        _ => Err(unknown_function("lse", function, &["primal", "gradient"])),
    }
}
