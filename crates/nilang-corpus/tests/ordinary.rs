//! Random ordinary-Rust programs under `#[differentiable]` (`nilang_corpus::ordinary`, issue
//! 28): for each program and random inputs,
//!
//! - the reversible program `f_rev` gives the plain function's value (the same operations in
//!   the same order; `==`, so that `max` may pick either zero of a tie), and so does
//!   `f_gradient`;
//! - `f_rev_inv` after `f_rev` gives back the inputs bit for bit and the output's zero;
//! - the gradient of `f_gradient` (reverse mode, by running the program backwards) equals the
//!   derivative along a random direction of `f_rev` run on `Dual` numbers (forward mode), to
//!   1e-9 relatively;
//! - and it equals central differences of the plain function where they are meaningful: where
//!   steps h and h/4 agree (no branch or `max` decision crosses within the step); the test
//!   counts the programs so compared and requires most of them.
//!
//! `NILANG_ORDINARY_PROGRAMS` (read when the crate is built) sets how many programs.

#![allow(
    unused_mut,
    unused_variables,
    unused_assignments,
    unused_parens,
    clippy::all
)]

use nilang::Dual;

/// One compiled program.
pub struct Ordinary {
    seed: u64,
    source: &'static str,
    plain: fn(&[f64], f64, usize) -> f64,
    rev: fn(&mut f64, &mut [f64], &mut f64, usize),
    rev_inv: fn(&mut f64, &mut [f64], &mut f64, usize),
    dual: fn(&mut Dual<f64>, &mut [Dual<f64>], &mut Dual<f64>, usize),
    gradient: fn(&[f64], f64, usize) -> (f64, (Vec<f64>, f64)),
}

include!(concat!(env!("OUT_DIR"), "/ordinary.rs"));

/// A random input of a program: `x`, `t`, `n`, and a direction in `(x, t)`.
fn input(seed: u64) -> (Vec<f64>, f64, usize, Vec<f64>) {
    let mut rng = nilang_corpus::Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1);
    let x = (0..nilang_corpus::ordinary::ORDINARY_NX)
        .map(|_| rng.unit())
        .collect();
    let dir = (0..=nilang_corpus::ordinary::ORDINARY_NX)
        .map(|_| rng.unit())
        .collect();
    (x, rng.unit(), 1 + rng.below(3), dir)
}

/// Central differences of the program's plain function at `(x, t)` with step `h`.
fn differences(p: &Ordinary, x: &[f64], t: f64, n: usize, h: f64) -> Vec<f64> {
    let at = |k: usize, s: f64| {
        let (mut x, mut t) = (x.to_vec(), t);
        if k < x.len() {
            x[k] += s;
        } else {
            t += s;
        }
        (p.plain)(&x, t, n)
    };
    (0..=x.len())
        .map(|k| (at(k, h) - at(k, -h)) / (2.0 * h))
        .collect()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

/// Checks one program; returns whether central differences were compared.
fn check(p: &Ordinary) -> bool {
    let (x, t, n, dir) = input(p.seed);
    let why = |what: &str| format!("program {} ({what}):\n{}", p.seed, p.source);
    let plain = (p.plain)(&x, t, n);
    let (mut xs, mut ts, mut out) = (x.clone(), t, 0.0);
    (p.rev)(&mut out, &mut xs, &mut ts, n);
    assert!(out == plain, "{}: {out} vs {plain}", why("f_rev's value"));
    (p.rev_inv)(&mut out, &mut xs, &mut ts, n);
    assert_eq!(
        out.to_bits(),
        0.0f64.to_bits(),
        "{}",
        why("f_rev_inv's output")
    );
    assert_eq!(
        (xs.as_slice(), ts.to_bits()),
        (x.as_slice(), t.to_bits()),
        "{}",
        why("inputs")
    );
    let (value, (gx, gt)) = (p.gradient)(&x, t, n);
    assert!(value == plain, "{}", why("f_gradient's value"));
    let grad: Vec<f64> = gx.iter().copied().chain([gt]).collect();
    let mut xd: Vec<Dual<f64>> = x
        .iter()
        .zip(&dir)
        .map(|(&re, &eps)| Dual { re, eps })
        .collect();
    let mut td = Dual {
        re: t,
        eps: dir[x.len()],
    };
    let mut od = Dual { re: 0.0, eps: 0.0 };
    (p.dual)(&mut od, &mut xd, &mut td, n);
    let along: f64 = grad.iter().zip(&dir).map(|(g, d)| g * d).sum();
    assert!(
        close(along, od.eps, 1e-9),
        "{}: reverse {along} vs forward {}",
        why("Dual"),
        od.eps
    );
    let (coarse, fine) = (
        differences(p, &x, t, n, 1e-4),
        differences(p, &x, t, n, 2.5e-5),
    );
    if !coarse.iter().zip(&fine).all(|(a, b)| close(*a, *b, 1e-6)) {
        return false;
    }
    for (k, (g, d)) in grad.iter().zip(&fine).enumerate() {
        assert!(
            close(*g, *d, 1e-6),
            "{}: ∂[{k}] {g} vs {d}",
            why("central differences")
        );
    }
    true
}

#[test]
fn every_ordinary_program_is_reversed_and_differentiated_correctly() {
    let mut compared = 0;
    for program in ORDINARY {
        if check(&program()) {
            compared += 1;
        }
    }
    let total = ORDINARY.len();
    assert!(
        compared * 10 >= total * 7,
        "central differences compared on {compared} of {total} programs only"
    );
    eprintln!("{total} programs; central differences compared on {compared}");
}
