//! The corpus of random programs compiled by `#[i]` (see the crate doc): for each program and
//! a random input, the real generated code is checked.
//!
//! - `f` and `f_inv` give the values of the same program run on the interpreter of the IR
//!   (`nilang_corpus::interpreter`) bit for bit, at the input, at every finite-difference step
//!   and on the way back (a check of the macro's code against the IR's semantics); the
//!   interpreter adds what the compiled code cannot show, and the checks below follow the
//!   rules of the IR level (`nilang/tests/random_programs.rs`) with it:
//! - `f_inv(f(x)) == x`: integers bit for bit, floats within the inverse's round-off sampled
//!   by Monte Carlo arithmetic on the interpreter (`compare::sampled_tolerance`); runs whose
//!   floats passed 1e3 on the way compare integers only, and ill-conditioned runs nothing
//!   (overflows, or an inverse that decides a branch otherwise: `interpreter::ill_conditioned`);
//! - the shadow gradient of a random linear loss `L = Σ w·x` (`f_vjp`, the adjoint programs)
//!   equals the `GVar` gradient (`f_grad`, one output at a time, combined with `w`), within
//!   1e-9 relatively;
//! - both equal the tape engine's gradient (`f::<DualRev>` under `nilang_dualrev::grad`)
//!   within the reversal's sampled round-off;
//! - the tape's gradient equals central differences of `f` where they are in their asymptotic
//!   range and cross no branch decision (the interpreter's decisions at x ± h are those at x;
//!   `nilang_corpus::compare`); the test counts the components so compared, and those not
//!   compared by why.
//!
//! `par!` broadcasts and `.par()` loops run their chunked code on rayon's pool (the least
//! parallel work is set to 1; the tape engine's `DualRev` runs them sequentially, as every
//! parallel loop). Two more tests run every program as the adversarial review of issue 25
//! would look at it:
//!
//! - within sentinels: `f`, `f_inv` and `f_vjp` on slices that are windows of larger buffers
//!   (`x`, `n` and the gradient buffers), whose sentinels must keep their bits (no write out
//!   of bounds, from checked or unchecked, sequential or parallel code), with the plain run's
//!   bits (a sentinel read would make a result NaN);
//! - the programs with parallel loops, 100 times each on pools of 2 and of 4 threads: every
//!   run gives the bits of the run on one thread (their loops have no reduction).
//!
//! `NILANG_CORPUS_PROGRAMS` (read when the crate is built) sets the corpus size.

use nilang::{i, GVar, GradError, Loss, Real};
use nilang_corpus::interpreter::{self, Order, RoundOff, State};
use nilang_corpus::{compare, input, LIBRARY, NX};
use nilang_dualrev::DualRev;

/// One compiled program: its seed and source, and the functions `#[i]` generated.
pub struct Program {
    seed: u64,
    source: &'static str,
    f: Run,
    f_inv: Run,
    f_vjp: fn(&mut [f64], &mut [f64], &mut [i64], &mut [i64], &mut Vec<f64>, &mut Vec<f64>),
    f_grad: fn(Loss, &mut [f64], &mut [i64], &mut Vec<f64>) -> GradOfX,
    f_tape: fn(&mut [DualRev], &mut [i64], &mut Vec<DualRev>),
}

type Run = fn(&mut [f64], &mut [i64], &mut Vec<f64>);
type GradOfX = Result<(Vec<GVar<f64>>, Vec<GVar<f64>>), GradError>;

include!(concat!(env!("OUT_DIR"), "/corpus.rs"));

/// What checking one program compared.
#[derive(Debug, PartialEq)]
enum Compared {
    /// An ill-conditioned run (its floats overflowed, or its inverse decided a branch
    /// otherwise): nothing.
    Nothing,
    /// Its floats grew past 1e3 on the way, or its round-off past 1e-2: integers only.
    IntegersOnly,
    /// Inverse, shadow, GVar and tape gradients; and the tape's components against central
    /// differences, as counted.
    Gradients(compare::Differences),
}

/// Whether a failed check saw a float that overflowed (its found value, or the state).
fn overflowed(e: &nilang::ReversibilityError, x: &[f64]) -> bool {
    let non_finite = |v: f64| !v.is_finite();
    e.found.parse().is_ok_and(non_finite) || x.iter().copied().any(non_finite)
}

impl Program {
    /// A failure of this program's check: the seed, what failed, the source.
    fn failed(&self, what: String) -> String {
        format!("seed {}: {what}\n{}", self.seed, self.source)
    }

    /// `f` (`f_inv` where `inverse`) on floats `x` and integers `n`, its reversibility errors
    /// caught; the stack must be balanced after.
    fn run(&self, inverse: bool, x: &mut [f64], n: &mut [i64]) -> Result<(), Failure> {
        let mut st = Vec::new();
        let f = if inverse { self.f_inv } else { self.f };
        nilang::catch(|| f(x, n, &mut st)).map_err(Failure::Check)?;
        match st.is_empty() {
            true => Ok(()),
            false => Err(Failure::Other(format!("the stack is not balanced: {st:?}"))),
        }
    }
}

/// Why a run of compiled code failed.
enum Failure {
    /// A reversibility check.
    Check(nilang::ReversibilityError),
    /// Something else.
    Other(String),
}

/// Checks a program on the inputs of its seed (as the interpreter of the IR takes them).
fn check(p: &Program) -> Result<Compared, String> {
    let (s0, w) = input(p.seed);
    check_at(p, s0, w)
}

/// Checks a program at the input `s0` (its floats and integers) with the loss's weights `w`.
fn check_at(p: &Program, s0: State<f64>, w: Vec<f64>) -> Result<Compared, String> {
    let interpreted = interpreter::Program::parse(&format!("{LIBRARY}\n{}", p.source))?;
    let Some((s1, trace)) = forward(p, &interpreted, &s0)? else {
        return Ok(Compared::Nothing);
    };
    let sampled = match round_trip(p, &interpreted, &s0, &s1, &trace, &w)? {
        Ok(sampled) => sampled,
        Err(compared) => return Ok(compared),
    };
    let tape = gradients(p, &s0, &w, sampled)?;
    differences(p, &interpreted, &s0, &w, &trace, &tape)
}

/// `f` at `s0`, and the interpreter's run of the program there, which must give `f`'s values
/// bit for bit (a check of the macro's code against the IR's semantics): the interpreter's
/// output (with the largest float on the way and the narrowest condition) and its branch
/// decisions, which the compiled code cannot show; `None` for an ill-conditioned run whose
/// floats overflowed.
fn forward(
    p: &Program,
    interpreted: &interpreter::Program,
    s0: &State<f64>,
) -> Result<Option<(State<f64>, Vec<i64>)>, String> {
    let (mut x, mut n) = (floats(s0), s0.n.clone());
    match p.run(false, &mut x, &mut n) {
        // Products in loops overflow, and a check fails on a non-finite value (seed
        // 10271659848792104633 of a corpus of 1000: an ancilla `t += a·b … t −= a·b` found
        // NaN at its deallocation, as the interpreter of the IR sees): an ill-conditioned
        // run, nothing to compare. A check that fails on finite values is a failure.
        Err(Failure::Check(e)) if overflowed(&e, &x) => return Ok(None),
        Err(Failure::Check(e)) => return Err(p.failed(format!("f: {e}"))),
        Err(Failure::Other(e)) => return Err(p.failed(format!("f: {e}"))),
        Ok(()) if x.iter().any(|v| !v.is_finite()) => return Ok(None),
        Ok(()) => {}
    }
    match interpreter::run(interpreted, s0, Order::Post) {
        Ok((s1, trace)) if same_bits(&s1, &x, &n) => Ok(Some((s1, trace))),
        Ok((s1, _)) => Err(p.failed(format!(
            "the interpreter of the IR gives {s1:?}, f {x:?} {n:?}"
        ))),
        Err(e) => Err(p.failed(format!(
            "the interpreter of the IR fails where f does not: {}",
            e.what
        ))),
    }
}

/// `f_inv(f(x)) == x`, by the rules of the IR level: the interpreter's inverse from `f`'s
/// output `s1` must give `f_inv`'s values bit for bit; a run that the interpreter finds
/// ill-conditioned (`interpreter::ill_conditioned`: overflows, or an inverse that decides a
/// branch otherwise past 1e3 or at a condition's threshold) compares nothing; the integers
/// come back bit for bit; runs whose floats passed 1e3 on the way compare integers only; the
/// floats come back within the round-off of the inverse sampled by Monte Carlo arithmetic
/// (`interpreter::round_off`), and past a tolerance of 1e-2 only integers are compared. `Ok`:
/// the round-off sampled (of the values and of the reversal gradient); `Err`: what was
/// compared instead.
fn round_trip(
    p: &Program,
    interpreted: &interpreter::Program,
    s0: &State<f64>,
    s1: &State<f64>,
    trace: &[i64],
    w: &[f64],
) -> Result<Result<RoundOff, Compared>, String> {
    let (mut x, mut n) = (floats(s1), s1.n.clone());
    let inverse_run = interpreter::run(interpreted, s1, Order::Pre);
    if let Err(failure) = p.run(true, &mut x, &mut n) {
        return match failure {
            // the same on the way back, after floats that grew past 1e3
            Failure::Check(e) if s1.peak > 1e3 && overflowed(&e, &x) => Ok(Err(Compared::Nothing)),
            Failure::Check(e) => Err(p.failed(format!("f_inv: {e}"))),
            Failure::Other(e) => Err(p.failed(format!("f_inv: {e}"))),
        };
    }
    if interpreter::ill_conditioned(s1, trace, &inverse_run) {
        return Ok(Err(Compared::Nothing));
    }
    match &inverse_run {
        Ok((s2, _)) if same_bits(s2, &x, &n) => {}
        Ok((s2, _)) => {
            return Err(p.failed(format!(
                "the interpreter's inverse gives {s2:?}, f_inv {x:?} {n:?}"
            )))
        }
        Err(e) => {
            return Err(p.failed(format!(
                "the interpreter's inverse fails where f_inv does not: {}",
                e.what
            )))
        }
    }
    if n != s0.n {
        return Err(p.failed(format!("f_inv(f(x)) != x on integers: {:?} -> {n:?}", s0.n)));
    }
    if s1.peak > 1e3 {
        return Ok(Err(Compared::IntegersOnly));
    }
    let mut seeded = s1.clone();
    seeded.x.iter_mut().zip(w).for_each(|(v, w)| v.g = *w);
    let (back, _) = interpreter::run(interpreted, &seeded, Order::Pre)
        .map_err(|e| p.failed(format!("the interpreter's reversal: {}", e.what)))?;
    let sampled = interpreter::round_off(interpreted, &seeded, &back);
    let tolerance = compare::sampled_tolerance(sampled.values);
    if !(tolerance <= 1e-2) {
        return Ok(Err(Compared::IntegersOnly));
    }
    if !restored(&x, s0, tolerance) {
        return Err(p.failed(format!(
            "f_inv(f(x)) != x (relative tolerance {tolerance:e}): {:?} -> {x:?}",
            floats(s0)
        )));
    }
    Ok(Ok(sampled))
}

/// The shadow gradient of `L = Σ w·x` (`f_vjp` seeded with `w`), which must restore the input
/// within the inverse's round-off `sampled`, equal the `GVar` gradient (`f_grad`, one output
/// at a time, combined with `w`) within 1e-9 relatively, and the tape engine's
/// (`f::<DualRev>` under `nilang_dualrev::grad`) within the reversal's round-off `sampled`,
/// relatively to the largest component; the tape's.
fn gradients(
    p: &Program,
    s0: &State<f64>,
    w: &[f64],
    sampled: RoundOff,
) -> Result<Vec<f64>, String> {
    let (x0, n0) = (floats(s0), s0.n.clone());
    let (mut x, mut xg, mut n, mut st) = (x0.clone(), w.to_vec(), n0.clone(), Vec::new());
    let (mut ng, mut stg) = (n0.clone(), Vec::new());
    (p.f_vjp)(&mut x, &mut xg, &mut n, &mut ng, &mut st, &mut stg);
    if n != n0 || !restored(&x, s0, compare::sampled_tolerance(sampled.values)) {
        return Err(p.failed(format!("f_vjp did not restore the input: {x:?}, {n:?}")));
    }
    let mut by_gvar = vec![0.0; NX];
    for (j, wj) in w.iter().enumerate() {
        let (mut x, mut n, mut st) = (x0.clone(), n0.clone(), Vec::new());
        let (gx, _) = (p.f_grad)(Loss::elem(0, j), &mut x, &mut n, &mut st)
            .map_err(|e| p.failed(format!("f_grad: {e}")))?;
        by_gvar
            .iter_mut()
            .zip(&gx)
            .for_each(|(b, g)| *b += wj * g.g);
    }
    if xg.iter().zip(&by_gvar).any(|(a, b)| !close(*a, *b, 1e-9)) {
        return Err(p.failed(format!("f_vjp {xg:?} != f_grad {by_gvar:?}")));
    }
    let (_, tape) = nilang_dualrev::grad(
        |x: &[DualRev]| {
            let (mut x, mut n, mut st) = (x.to_vec(), n0.clone(), Vec::new());
            (p.f_tape)(&mut x, &mut n, &mut st);
            x.iter().zip(w).map(|(v, w)| *v * *w).sum()
        },
        &x0,
    )
    .map_err(|e| p.failed(format!("the tape engine: {e}")))?;
    // the reversal takes its derivatives at the values the inverse recomputed (seed
    // 13099462982940301125: f_vjp 15.419169, the tape and the differences 15.418974)
    let tolerance = compare::sampled_tolerance(sampled.gradient);
    if let Err((k, allowed)) = compare::within_round_off(&xg, &tape, tolerance) {
        return Err(p.failed(format!(
            "gradient of x[{k}]: f_vjp {}, tape engine {} (±{allowed:e})",
            xg[k], tape[k]
        )));
    }
    Ok(tape)
}

/// The tape's gradient against central differences of `f` where no branch decision changes
/// within the step (the interpreter's decisions at x ± h must be those at x, and its values
/// `f`'s).
fn differences(
    p: &Program,
    interpreted: &interpreter::Program,
    s0: &State<f64>,
    w: &[f64],
    trace: &[i64],
    tape: &[f64],
) -> Result<Compared, String> {
    let differed = std::cell::Cell::new(None);
    let loss = |s: &State<f64>| {
        let (mut x, mut n) = (floats(s), s.n.clone());
        p.run(false, &mut x, &mut n).ok()?;
        let decided = match interpreter::run(interpreted, s, Order::Post) {
            Ok((s1, t)) if same_bits(&s1, &x, &n) => t == trace,
            _ => {
                differed.set(Some(floats(s)));
                false
            }
        };
        decided.then(|| x.iter().zip(w).map(|(v, w)| v * w).sum::<f64>())
    };
    let central = |k: usize, h: f64| {
        let (mut plus, mut minus) = (s0.clone(), s0.clone());
        plus.x[k].x += h;
        minus.x[k].x -= h;
        Some((loss(&plus)? - loss(&minus)?) / (2.0 * h))
    };
    let compared = compare::against_differences(tape, central);
    if let Some(x) = differed.take() {
        return Err(p.failed(format!("the interpreter of the IR and f differ at {x:?}")));
    }
    compared.map(Compared::Gradients).map_err(|d| {
        p.failed(format!(
            "gradient of x[{}]: tape engine {}, finite differences {} (±{}, step {:e})",
            d.k, tape[d.k], d.difference, d.allowed, d.step
        ))
    })
}

/// The floats of a state.
fn floats(s: &State<f64>) -> Vec<f64> {
    s.x.iter().map(|v| v.x).collect()
}

/// Whether `x` restores the floats of `s0` within `tolerance`, relatively (at least 1).
fn restored(x: &[f64], s0: &State<f64>, tolerance: f64) -> bool {
    x.iter().zip(&s0.x).all(|(a, b)| close(*a, b.x, tolerance))
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()).max(1.0)
}

/// Whether the interpreter's state `s` holds `x` and `n` bit for bit.
fn same_bits(s: &State<f64>, x: &[f64], n: &[i64]) -> bool {
    s.n == n && s.x.iter().zip(x).all(|(a, b)| a.x.to_bits() == b.to_bits())
}

#[test]
fn compiled_random_programs() {
    // `par!` broadcasts run their chunked code on rayon's pool even over four elements
    nilang::parallel::set_min_parallel_work(1);
    let start = std::time::Instant::now();
    let (mut nothing, mut integers) = (0, 0);
    let (mut gradients, mut all, mut components) = (0, 0, compare::Differences::default());
    for program in PROGRAMS {
        match check(&program()) {
            Ok(Compared::Gradients(d)) => {
                gradients += 1;
                all += d.all() as usize;
                components = components.add(d);
            }
            Ok(Compared::IntegersOnly) => integers += 1,
            Ok(Compared::Nothing) => nothing += 1,
            Err(e) => panic!("{e}"),
        }
    }
    eprintln!(
        "{} compiled random programs: f = the interpreter of the IR bit for bit on every \
         run that did not overflow; ill-conditioned (nothing more compared): {nothing}; \
         f_inv (= the interpreter's inverse bit for bit) on integers only: {integers}; on \
         floats, with the gradients (f_vjp = f_grad = the tape engine's): {gradients}; the \
         tape's = central differences in every component: {all}; components: {} compared, \
         {} with a branch decision within the step, {} with no step in the asymptotic \
         range; in {:.1?}",
        PROGRAMS.len(),
        components.agreed,
        components.crossed,
        components.out_of_range,
        start.elapsed()
    );
    assert!(
        gradients * 2 > PROGRAMS.len(),
        "most programs compare gradients"
    );
    assert!(
        all * 2 > gradients,
        "most gradient comparisons include differences"
    );
}

/// A program written here, with its source text for the interpreter.
macro_rules! program {
    ($($f:tt)*) => {
        $($f)*
        /// The program, as the corpus holds one.
        pub fn program() -> Program {
            Program { seed: 0, source: stringify!($($f)*), f: f::<f64>, f_inv: f_inv::<f64>,
                f_vjp: f_vjp::<f64, f64>, f_grad: f_grad::<f64>, f_tape: f::<DualRev> }
        }
    };
}

mod near_a_decision {
    use super::*;
    program! {
        #[i]
        fn f<T: Real>(x: &mut [T], n: &mut [i64], st: &mut Vec<T>) {
            if (x[0].val() > 0.0, x[0].val() > 0.0) {
                x[1] += 0.5;
            } else {
                x[1] += sin(x[2]);
            }
            x[3] += x[0] * x[2];
        }
    }
}

/// A branch decision 1e-9 from the input, on `x[0]`: every difference step in `x[0]` crosses
/// it, which the interpreter's decisions at x ± h show, so that component is not compared
/// with differences; the others are (and away from the decision, `x[0]` is too).
#[test]
fn a_branch_decision_within_the_step_is_not_compared() {
    let p = near_a_decision::program();
    let (mut s0, w) = input(1);
    s0.x[0].x = 1e-9;
    let expected = compare::Differences {
        agreed: 3,
        crossed: 1,
        out_of_range: 0,
    };
    assert_eq!(
        check_at(&p, s0.clone(), w.clone()),
        Ok(Compared::Gradients(expected))
    );
    s0.x[0].x = 0.3;
    let every = compare::Differences {
        agreed: 4,
        ..compare::Differences::default()
    };
    assert_eq!(check_at(&p, s0, w), Ok(Compared::Gradients(every)));
}

/// The interpreter must give the compiled code's values bit for bit: a source text that is
/// not the compiled program's (`x[3] -=` for `x[3] +=`) fails the check.
#[test]
fn the_interpreter_and_the_compiled_code_must_agree() {
    let p = near_a_decision::program();
    let other = p
        .source
        .replace("x[3] += x[0] * x[2]", "x[3] -= x[0] * x[2]");
    assert_ne!(other, p.source);
    let leaked: &'static str = Box::leak(other.into_boxed_str());
    let (s0, w) = input(1);
    let err = check_at(
        &Program {
            source: leaked,
            ..p
        },
        s0,
        w,
    )
    .unwrap_err();
    assert!(err.contains("the interpreter of the IR gives"), "{err}");
}

/// How many sentinels stand before and after every slice a program is handed.
const PAD: usize = 8;
/// The sentinel of the float buffers: a NaN with a payload no program computes. A write out of
/// a slice changes its bits; a read out of it makes a result NaN, unlike the run on plain
/// vectors.
const FLOAT_SENTINEL: u64 = 0x7FF8_DEAD_BEEF_0001;
/// The sentinel of the integer buffers.
const INT_SENTINEL: i64 = -0x5EED_5EED_5EED;

/// `values` with [`PAD`] sentinels before and after.
fn padded<T: Copy>(values: &[T], sentinel: T) -> Vec<T> {
    let mut out = vec![sentinel; PAD];
    out.extend_from_slice(values);
    out.extend(std::iter::repeat_n(sentinel, PAD));
    out
}

/// The slice within a padded buffer.
fn window<T>(buffer: &mut [T]) -> &mut [T] {
    let n = buffer.len();
    &mut buffer[PAD..n - PAD]
}

/// Whether the sentinels of a padded buffer are untouched (by the bits of `key`).
fn intact<T, K: PartialEq>(buffer: &[T], sentinel: K, key: impl Fn(&T) -> K) -> bool {
    let n = buffer.len();
    buffer[..PAD]
        .iter()
        .chain(&buffer[n - PAD..])
        .all(|v| key(v) == sentinel)
}

/// The bits of floats, to compare runs exactly (NaN too).
fn bits(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

/// A run of `f` or `f_inv` on `x` and `n` that does not stop at a reversibility error (it
/// says whether one was raised); the stack must come back balanced after a run without one.
fn run_caught(f: Run, x: &mut [f64], n: &mut [i64]) -> bool {
    let mut st = Vec::new();
    let ok = nilang::catch(|| f(x, n, &mut st)).is_ok();
    assert!(!ok || st.is_empty(), "the stack is not balanced: {st:?}");
    ok
}

/// `f`, then `f_inv`, then (where `f` ran without an error to finite moderate values) `f_vjp`
/// of a program at its seed's input, on slices within sentinels (`padded`) or on plain
/// vectors: the bits of everything each step leaves, which the two ways must give alike;
/// with `padded`, the sentinels of `x`, `n` and the gradient buffers must be untouched after
/// each step.
fn sentinel_runs(p: &Program, padded_slices: bool) -> Result<Vec<Vec<u64>>, String> {
    let (s0, w) = input(p.seed);
    let (x0, n0) = (floats(&s0), s0.n.clone());
    let pad_f = |v: &[f64]| match padded_slices {
        true => padded(v, f64::from_bits(FLOAT_SENTINEL)),
        false => v.to_vec(),
    };
    let pad_i = |v: &[i64]| match padded_slices {
        true => padded(v, INT_SENTINEL),
        false => v.to_vec(),
    };
    let check = |step: &str, x: &[f64], n: &[i64]| match padded_slices
        && !(intact(x, FLOAT_SENTINEL, |v| v.to_bits()) && intact(n, INT_SENTINEL, |v| *v))
    {
        true => Err(p.failed(format!(
            "{step} wrote outside its slices: buffers {x:?}, {n:?}"
        ))),
        false => Ok(()),
    };
    // the bits of the floats and integers the slices hold
    let state = |x: &mut [f64], n: &mut [i64]| {
        let (x, n) = slices(x, n, padded_slices);
        [bits(x), n.iter().map(|&v| v as u64).collect()]
    };
    let (mut x, mut n) = (pad_f(&x0), pad_i(&n0));
    let mut out = Vec::new();
    let (xs, ns) = slices(&mut x, &mut n, padded_slices);
    let forward_ok = run_caught(p.f, xs, ns);
    check("f", &x, &n)?;
    out.extend(state(&mut x, &mut n));
    out.push(vec![forward_ok as u64]);
    if !forward_ok {
        return Ok(out);
    }
    let moderate = slices(&mut x, &mut n, padded_slices)
        .0
        .iter()
        .all(|v| v.abs() < 1e3);
    let (xs, ns) = slices(&mut x, &mut n, padded_slices);
    let inverse_ok = run_caught(p.f_inv, xs, ns);
    check("f_inv", &x, &n)?;
    out.extend(state(&mut x, &mut n));
    out.push(vec![inverse_ok as u64]);
    if !moderate {
        return Ok(out);
    }
    let (mut x, mut n) = (pad_f(&x0), pad_i(&n0));
    let (mut xg, mut ng) = (pad_f(&w), pad_i(&n0));
    let (mut st, mut stg) = (Vec::new(), Vec::new());
    let (xs, ns) = slices(&mut x, &mut n, padded_slices);
    let (xgs, ngs) = slices(&mut xg, &mut ng, padded_slices);
    nilang::catch(|| (p.f_vjp)(xs, xgs, ns, ngs, &mut st, &mut stg))
        .map_err(|e| p.failed(format!("f_vjp: {e}")))?;
    check("f_vjp (values)", &x, &n)?;
    check("f_vjp (gradients)", &xg, &ng)?;
    out.extend(state(&mut x, &mut n));
    out.extend(state(&mut xg, &mut ng));
    Ok(out)
}

/// The slices a program is handed: the windows of padded buffers, or the whole vectors.
fn slices<'a>(
    x: &'a mut [f64],
    n: &'a mut [i64],
    padded_slices: bool,
) -> (&'a mut [f64], &'a mut [i64]) {
    match padded_slices {
        true => (window(x), window(n)),
        false => (x, n),
    }
}

/// Every compiled program on slices that are windows of larger buffers with sentinels before
/// and after (`x`, `n` and the gradient buffers of `f_vjp`): `f`, `f_inv` and `f_vjp` leave
/// the sentinels untouched (no write out of bounds, from checked or unchecked code, sequential
/// or parallel), and give the bits of the runs on plain vectors (no read out of bounds: a
/// sentinel read would make a result NaN).
#[test]
fn no_program_reaches_outside_its_slices() {
    nilang::parallel::set_min_parallel_work(1);
    let (mut unchecked, mut parallel, mut gradients) = (0, 0, 0);
    for program in PROGRAMS {
        let p = program();
        let within = sentinel_runs(&p, true).unwrap_or_else(|e| panic!("{e}"));
        let plain = sentinel_runs(&p, false).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            within,
            plain,
            "{}",
            p.failed("the run within sentinels differs from the run on plain vectors".into())
        );
        unchecked += p.source.contains("nocheck!") as usize;
        parallel += (p.source.contains(".par()") || p.source.contains("par! {")) as usize;
        gradients += (within.len() == 10) as usize;
    }
    eprintln!(
        "{} compiled programs within sentinels ({unchecked} with nocheck! blocks, {parallel} \
         with parallel loops): f and f_inv on all, f_vjp on {gradients}; no sentinel touched",
        PROGRAMS.len()
    );
    assert!(unchecked * 10 > PROGRAMS.len() && parallel * 10 > PROGRAMS.len());
    assert!(gradients * 2 > PROGRAMS.len());
}

/// How many times each parallel program runs on each pool of more than one thread.
const REPETITIONS: usize = 100;

/// `f`, `f_inv` and `f_vjp` of a program at its seed's input (`sentinel_runs` on plain
/// vectors): the bits of everything they leave.
fn outcome(p: &Program) -> Vec<Vec<u64>> {
    sentinel_runs(p, false).unwrap_or_else(|e| panic!("{e}"))
}

/// The corpus programs with parallel loops (`par!` broadcasts, `.par()` loops), with the
/// least parallel work 1 so that every loop splits into chunks: `f`, `f_inv` and `f_vjp` run
/// [`REPETITIONS`] times on rayon pools of 2 and 4 threads, and each run gives the bits of the
/// run on a pool of one thread (the sequential loops). No loop of theirs has a reduction (their
/// iterations write only their own slots and read only those, and no gradient goes to a shared
/// read), so nothing is regrouped by chunks and the bits must agree.
#[test]
fn parallel_programs_give_the_sequential_bits_on_every_run() {
    nilang::parallel::set_min_parallel_work(1);
    let start = std::time::Instant::now();
    let pool = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool")
    };
    let (sequential, pools) = (pool(1), [(2, pool(2)), (4, pool(4))]);
    // the programs' loops (of 2 iterations and more) split on the pools of several threads
    assert!(!sequential.install(|| nilang::parallel::worth_splitting(0, 2, false, 1)));
    for (_, pool) in &pools {
        assert!(pool.install(|| nilang::parallel::worth_splitting(0, 2, false, 1)));
    }
    let (mut programs, mut loops) = (0, 0);
    for program in PROGRAMS {
        let p = program();
        let (par_loops, broadcasts) = (
            p.source.matches(".par()").count(),
            p.source.matches("par! {").count(),
        );
        if par_loops + broadcasts == 0 {
            continue;
        }
        programs += 1;
        loops += par_loops + broadcasts;
        let expected = sequential.install(|| outcome(&p));
        for (threads, pool) in &pools {
            for k in 0..REPETITIONS {
                let found = pool.install(|| outcome(&p));
                assert_eq!(
                    found,
                    expected,
                    "{}",
                    p.failed(format!(
                        "run {k} on {threads} threads differs from the sequential run"
                    ))
                );
            }
        }
    }
    eprintln!(
        "{programs} compiled programs with {loops} parallel loops or blocks: f, f_inv and \
         f_vjp {REPETITIONS} times on 2 and on 4 threads, each run bit for bit the \
         sequential one, in {:.1?}",
        start.elapsed()
    );
    assert!(
        programs * 5 > PROGRAMS.len(),
        "{programs} parallel programs"
    );
}
