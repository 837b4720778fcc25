//! The corpus of random programs compiled by `#[i]` (see the crate doc): for each program and
//! a random input, the real generated code is checked.
//!
//! - `f_inv(f(x)) == x`: integers bit for bit, floats within 1e-4 relatively (`ROUND_TRIP`:
//!   rotations by angles that are state and floats that grow and shrink again amplify
//!   round-off; as at IR level, runs whose floats end past 1e3 compare integers only, and runs
//!   that overflow to infinity or NaN nothing);
//! - the shadow gradient of a random linear loss `L = Σ w·x` (`f_vjp`, the adjoint programs)
//!   equals the `GVar` gradient (`f_grad`, one output at a time, combined with `w`), within
//!   1e-9 relatively;
//! - both equal the tape engine's gradient (`f::<DualRev>` under `nilang_dualrev::grad`)
//!   within the inverse's round-off, probed by restoring from the output moved by 64 ulps;
//! - the same program on the interpreter of the IR (`nilang_corpus::interpreter`) gives `f`'s
//!   values bit for bit, at the input and at every finite-difference step (a check of the
//!   macro's code against the IR's semantics), and its branch decisions and loop counts;
//! - the tape's gradient equals central differences of `f` where they are in their asymptotic
//!   range and cross no branch decision (the interpreter's decisions at x ± h are those at x),
//!   the rule of the IR level (`nilang_corpus::compare`); the test counts the components so
//!   compared, and those not compared by why.
//!
//! `par!` broadcasts run their chunked code on rayon's pool (the least parallel work is set to
//! 1; the tape engine's `DualRev` runs them sequentially, as every parallel loop).
//! `NILANG_CORPUS_PROGRAMS` (read when the crate is built) sets the corpus size.

use nilang::{i, GVar, GradError, Loss, Real};
use nilang_corpus::interpreter::{self, Order, State};
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
    /// Its floats overflowed to infinity or NaN: nothing (the inverse takes branches on NaN).
    Nothing,
    /// Its floats grew past 1e3: integers only.
    IntegersOnly,
    /// Inverse, shadow, GVar and tape gradients; and the tape's components against central
    /// differences, as counted.
    Gradients(compare::Differences),
}

/// How closely a round trip restores the floats, relatively. Loops of sums can grow the floats
/// past 1e3 and back before the end (seed 8449976239126413222: restored within 1e-5, bit for
/// bit as the interpreter of the IR does, so round-off); the compiled code cannot be watched
/// on the way as the interpreter is (which compares integers only in such runs). A wrong
/// inverse is off by O(1).
const ROUND_TRIP: f64 = 1e-4;

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()).max(1.0)
}

/// Whether a failed check saw a float that overflowed (its found value, or the state).
fn overflowed(e: &nilang::ReversibilityError, x: &[f64]) -> bool {
    let non_finite = |v: f64| !v.is_finite();
    e.found.parse().is_ok_and(non_finite) || x.iter().copied().any(non_finite)
}

/// Checks a program on the inputs of its seed (as the interpreter of the IR takes them).
fn check(p: &Program) -> Result<Compared, String> {
    let (s0, w) = input(p.seed);
    check_at(p, s0, w)
}

/// Checks a program at the input `s0` (its floats and integers) with the loss's weights `w`.
fn check_at(p: &Program, s0: State<f64>, w: Vec<f64>) -> Result<Compared, String> {
    let fail = |what: String| Err(format!("seed {}: {what}\n{}", p.seed, p.source));
    let x0: Vec<f64> = s0.x.iter().map(|v| v.x).collect();
    let n0 = s0.n.clone();
    let run = |x: &[f64]| {
        let (mut x, mut n, mut st) = (x.to_vec(), n0.clone(), Vec::new());
        (p.f)(&mut x, &mut n, &mut st);
        (x, n, st)
    };
    let (mut x, mut n, mut st) = (x0.clone(), n0.clone(), Vec::new());
    if let Err(e) = nilang::catch(|| (p.f)(&mut x, &mut n, &mut st)) {
        // Products in loops overflow, and a check fails on a non-finite value (seed
        // 10271659848792104633 of a corpus of 1000: an ancilla `t += a·b … t −= a·b` found
        // NaN at its deallocation, as the interpreter of the IR sees): an ill-conditioned
        // run, nothing to compare. A check that fails on finite values is a failure.
        return match overflowed(&e, &x) {
            true => Ok(Compared::Nothing),
            false => fail(format!("f: {e}")),
        };
    }
    if !st.is_empty() {
        return fail(format!("the stack is not balanced after f: {st:?}"));
    }
    if x.iter().any(|v| !v.is_finite()) {
        return Ok(Compared::Nothing);
    }
    // the same program on the interpreter of the IR: the compiled code's values bit for bit,
    // and the branch decisions the compiled code cannot show
    let interpreted = interpreter::Program::parse(&format!("{LIBRARY}\n{}", p.source))?;
    let trace = match interpreter::run(&interpreted, &s0, Order::Post) {
        Ok((s1, trace)) if same_bits(&s1, &x, &n) => trace,
        Ok((s1, _)) => {
            return fail(format!(
                "the interpreter of the IR gives {s1:?}, f {x:?} {n:?}"
            ))
        }
        Err(e) => {
            return fail(format!(
                "the interpreter of the IR fails where f does not: {}",
                e.what
            ))
        }
    };
    let grew = x.iter().any(|v| v.abs() > 1e3);
    if let Err(e) = nilang::catch(|| (p.f_inv)(&mut x, &mut n, &mut st)) {
        // the same on the way back, after floats that grew past 1e3
        return match grew && overflowed(&e, &x) {
            true => Ok(Compared::Nothing),
            false => fail(format!("f_inv: {e}")),
        };
    }
    if n != n0 {
        return fail(format!("f_inv(f(x)) != x on integers: {n0:?} -> {n:?}"));
    }
    if grew {
        return Ok(Compared::IntegersOnly);
    }
    if x.iter().zip(&x0).any(|(a, b)| !close(*a, *b, ROUND_TRIP)) {
        return fail(format!("f_inv(f(x)) != x: {x0:?} -> {x:?}"));
    }
    // the shadow gradient: f_vjp seeded with w
    let (mut x, mut xg, mut n, mut st) = (x0.clone(), w.clone(), n0.clone(), Vec::new());
    let (mut ng, mut stg) = (n0.clone(), Vec::new());
    (p.f_vjp)(&mut x, &mut xg, &mut n, &mut ng, &mut st, &mut stg);
    if n != n0 || x.iter().zip(&x0).any(|(a, b)| !close(*a, *b, ROUND_TRIP)) {
        return fail(format!("f_vjp did not restore the input: {x:?}, {n:?}"));
    }
    // the GVar gradient: one output at a time, combined with w
    let mut by_gvar = vec![0.0; NX];
    for (j, wj) in w.iter().enumerate() {
        let (mut x, mut n, mut st) = (x0.clone(), n0.clone(), Vec::new());
        let (gx, _) = (p.f_grad)(Loss::elem(0, j), &mut x, &mut n, &mut st)
            .map_err(|e| format!("seed {}: f_grad: {e}\n{}", p.seed, p.source))?;
        by_gvar
            .iter_mut()
            .zip(&gx)
            .for_each(|(b, g)| *b += wj * g.g);
    }
    if xg.iter().zip(&by_gvar).any(|(a, b)| !close(*a, *b, 1e-9)) {
        return fail(format!("f_vjp {xg:?} != f_grad {by_gvar:?}"));
    }
    // the tape engine's gradient: the forward on DualRev
    let (_, tape) = nilang_dualrev::grad(
        |x: &[DualRev]| {
            let (mut x, mut n, mut st) = (x.to_vec(), n0.clone(), Vec::new());
            (p.f_tape)(&mut x, &mut n, &mut st);
            x.iter().zip(&w).map(|(v, w)| *v * *w).sum()
        },
        &x0,
    )
    .map_err(|e| format!("seed {}: the tape engine: {e}\n{}", p.seed, p.source))?;
    // the inverse's round-off, probed: restored from the output moved by 64 ulps (seed
    // 13099462982940301125: f_vjp 15.419169, the tape and the differences 15.418974, the
    // spread 6.8e-8 relatively to the largest component, 2091)
    let (mut x1, mut n1, mut st1) = (x0.clone(), n0.clone(), Vec::new());
    (p.f)(&mut x1, &mut n1, &mut st1);
    let restore = |x1: &[f64]| {
        let (mut x, mut n, mut st) = (x1.to_vec(), n1.clone(), Vec::new());
        (p.f_inv)(&mut x, &mut n, &mut st);
        x
    };
    let moved: Vec<f64> = x1.iter().map(|v| v * (1.0 + 64.0 * f64::EPSILON)).collect();
    let spread = (restore(&moved).iter().zip(&restore(&x1)))
        .map(|(a, b)| (a - b).abs() / b.abs().max(1.0))
        .fold(0.0, f64::max);
    let tolerance = compare::round_off_tolerance(spread);
    if let Err((k, allowed)) = compare::within_round_off(&xg, &tape, tolerance) {
        return fail(format!(
            "gradient of x[{k}]: f_vjp {}, tape engine {} (±{allowed:e})",
            xg[k], tape[k]
        ));
    }
    // the tape's gradient against central differences where no branch decision changes within
    // the step (the interpreter's decisions at x ± h, whose values must be f's too)
    let differed = std::cell::Cell::new(None);
    let central = |k: usize, h: f64| {
        let (mut plus, mut minus) = (s0.clone(), s0.clone());
        plus.x[k].x += h;
        minus.x[k].x -= h;
        let side = |s: &State<f64>| {
            let x: Vec<f64> = s.x.iter().map(|v| v.x).collect();
            let (fx, fn_, _) = run(&x);
            let decided = match interpreter::run(&interpreted, s, Order::Post) {
                Ok((s1, t)) if same_bits(&s1, &fx, &fn_) => t == trace,
                _ => {
                    differed.set(Some(x));
                    false
                }
            };
            decided.then(|| fx.iter().zip(&w).map(|(v, w)| v * w).sum::<f64>())
        };
        Some((side(&plus)? - side(&minus)?) / (2.0 * h))
    };
    let compared = compare::against_differences(&tape, central);
    if let Some(x) = differed.take() {
        return fail(format!("the interpreter of the IR and f differ at {x:?}"));
    }
    match compared {
        Ok(differences) => Ok(Compared::Gradients(differences)),
        Err(d) => fail(format!(
            "gradient of x[{}]: tape engine {} (f_vjp {}), finite differences {} (±{}, step \
             {:e})",
            d.k, tape[d.k], xg[d.k], d.difference, d.allowed, d.step
        )),
    }
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
    let (mut gradients, mut all, mut components) = (0, 0, compare::Differences::default());
    for program in PROGRAMS {
        match check(&program()) {
            Ok(Compared::Gradients(d)) => {
                gradients += 1;
                all += d.all() as usize;
                components = components.add(d);
            }
            Ok(Compared::IntegersOnly | Compared::Nothing) => {}
            Err(e) => panic!("{e}"),
        }
    }
    eprintln!(
        "{} compiled random programs: the inverse checked on all, on floats and the gradients \
         (f_vjp = f_grad = the tape engine's) on {gradients}, the tape's = central differences \
         in every component on {all}; components: {} compared, {} with a branch decision \
         within the step, {} with no step in the asymptotic range; in {:.1?}",
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
