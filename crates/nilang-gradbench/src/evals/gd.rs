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

use nilang::Float;

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
