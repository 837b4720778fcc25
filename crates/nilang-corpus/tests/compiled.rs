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
//! - both equal central differences of `f` at two steps, whose difference bounds the
//!   truncation error (a branch decision that changes within the step makes that bound
//!   large: such a comparison is weak, and the test counts the sharp ones).
//!
//! `NILANG_CORPUS_PROGRAMS` (read when the crate is built) sets the corpus size.

use nilang::{i, GVar, GradError, Loss, Real};
use nilang_corpus::{Rng, NN, NX};

/// One compiled program: its seed and source, and the functions `#[i]` generated.
pub struct Program {
    seed: u64,
    source: &'static str,
    f: Run,
    f_inv: Run,
    f_vjp: fn(&mut [f64], &mut [f64], &mut [i64], &mut [i64], &mut Vec<f64>, &mut Vec<f64>),
    f_grad: fn(Loss, &mut [f64], &mut [i64], &mut Vec<f64>) -> GradOfX,
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
    /// Inverse, shadow and GVar gradients; `sharp` when every finite difference's error bound
    /// was below 1e-4.
    Gradients { sharp: bool },
    /// Inverse, shadow and GVar gradients, not finite differences: a gradient past 1e6, where
    /// differences of the forward's round-off dominate (seed 8449976239126413222: 1e11).
    AdModes,
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

fn check(p: &Program) -> Result<Compared, String> {
    let fail = |what: String| Err(format!("seed {}: {what}\n{}", p.seed, p.source));
    let mut rng = Rng(p.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let x0: Vec<f64> = (0..NX).map(|_| rng.unit()).collect();
    let n0: Vec<i64> = (0..NN).map(|_| rng.below(7) as i64 - 3).collect();
    let w: Vec<f64> = (0..NX).map(|_| rng.unit()).collect();
    let run = |x: &[f64]| {
        let (mut x, mut n, mut st) = (x.to_vec(), n0.clone(), Vec::new());
        (p.f)(&mut x, &mut n, &mut st);
        (x, n, st)
    };
    let (mut x, mut n, mut st) = run(&x0);
    if !st.is_empty() {
        return fail(format!("the stack is not balanced after f: {st:?}"));
    }
    if x.iter().any(|v| !v.is_finite()) {
        return Ok(Compared::Nothing);
    }
    let grew = x.iter().any(|v| v.abs() > 1e3);
    (p.f_inv)(&mut x, &mut n, &mut st);
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
    if xg.iter().any(|g| g.abs() > 1e6) {
        return Ok(Compared::AdModes);
    }
    // central differences at two steps
    let loss = |x: &[f64]| run(x).0.iter().zip(&w).map(|(v, w)| v * w).sum::<f64>();
    let central = |k: usize, h: f64| {
        let (mut plus, mut minus) = (x0.clone(), x0.clone());
        plus[k] += h;
        minus[k] -= h;
        (loss(&plus) - loss(&minus)) / (2.0 * h)
    };
    let mut sharp = true;
    for (k, g) in xg.iter().enumerate() {
        let (coarse, fine) = (central(k, 1e-5), central(k, 5e-6));
        let allowed = 8.0 * (coarse - fine).abs() + 1e-6 * g.abs().max(1.0);
        sharp &= allowed < 1e-4;
        if (fine - g).abs() > allowed {
            return fail(format!(
                "gradient of x[{k}]: f_vjp {g}, finite differences {fine} (±{allowed})"
            ));
        }
    }
    Ok(Compared::Gradients { sharp })
}

#[test]
fn compiled_random_programs() {
    let start = std::time::Instant::now();
    let (mut gradients, mut sharp, mut ad_modes) = (0, 0, 0);
    for program in PROGRAMS {
        match check(&program()) {
            Ok(Compared::Gradients { sharp: s }) => {
                gradients += 1;
                sharp += s as usize;
            }
            Ok(Compared::AdModes) => ad_modes += 1,
            Ok(Compared::IntegersOnly | Compared::Nothing) => {}
            Err(e) => panic!("{e}"),
        }
    }
    eprintln!(
        "{} compiled random programs: the inverse checked on all, on floats and the gradients \
         (f_vjp = f_grad = central differences) on {gradients}, {sharp} of them with every \
         difference sharp (error bound < 1e-4), f_vjp = f_grad alone on {ad_modes} (gradients \
         past 1e6), in {:.1?}",
        PROGRAMS.len(),
        start.elapsed()
    );
    assert!(
        gradients * 2 > PROGRAMS.len(),
        "most programs compare gradients"
    );
    assert!(sharp * 2 > gradients, "most gradient comparisons are sharp");
}
