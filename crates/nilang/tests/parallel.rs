//! Parallel loops (`for i in (a..b).par()`) against the same programs with sequential loops:
//! forward and inverse (bit for bit where iterations write disjoint places, within 1e-12 and
//! bit-identical run to run for reductions), gradients from the adjoint programs (`f_vjp`),
//! from the `GVar` path (`f_inv::<GVar<f64>>`, which runs the loop sequentially) and from
//! finite differences; checked and unchecked programs; a 4-thread pool so that chunks really
//! run on several threads.

use nilang::{i, GVar, Real};
use proptest::prelude::*;

// ---- the programs, each with a sequential twin ----

#[i(unchecked = axpy_fast)]
fn axpy<T: Real>(y: &mut [T], x: &mut [T], a: &mut T) {
    for i in (0..y.len()).par() {
        y[i] += x[i] * a;
    }
}

#[i]
fn axpy_seq<T: Real>(y: &mut [T], x: &mut [T], a: &mut T) {
    for i in 0..y.len() {
        y[i] += x[i] * a;
    }
}

#[i(unchecked = sumsq_fast)]
fn sumsq<T: Real>(out: &mut T, x: &mut [T]) {
    for i in (0..x.len()).par() {
        out += square(x[i]);
    }
}

#[i]
fn sumsq_seq<T: Real>(out: &mut T, x: &mut [T]) {
    for i in 0..x.len() {
        out += square(x[i]);
    }
}

/// Two owned elements per iteration, and a shared vector read at a computed index.
#[i]
fn pairs<T: Real>(y: &mut [T], x: &mut [T], w: &mut [T]) {
    for i in (0..x.len()).par() {
        y[2 * i] += sin(x[i]);
        y[2 * i + 1] += x[i] * w[i % 3];
    }
}

#[i]
fn pairs_seq<T: Real>(y: &mut [T], x: &mut [T], w: &mut [T]) {
    for i in 0..x.len() {
        y[2 * i] += sin(x[i]);
        y[2 * i + 1] += x[i] * w[i % 3];
    }
}

#[i]
fn add_exp<T: Real>(r: &mut [T], s: &mut [T]) {
    for j in 0..r.len() {
        r[j] += exp(s[j]);
    }
}

/// Blocks of `d`: an inner loop over the block, and a call on the block's sub-slices.
#[i(unchecked = blocks_fast)]
fn blocks<T: Real>(y: &mut [T], x: &mut [T], c: &mut [T], d: usize) {
    for i in (0..y.len() / d).par() {
        for j in 0..d {
            y[d * i + j] += x[d * i + j] * c[j];
        }
        add_exp(y[d * i..d * (i + 1)], x[d * i..d * (i + 1)]);
    }
}

#[i]
fn blocks_seq<T: Real>(y: &mut [T], x: &mut [T], c: &mut [T], d: usize) {
    for i in 0..y.len() / d {
        for j in 0..d {
            y[d * i + j] += x[d * i + j] * c[j];
        }
        add_exp(y[d * i..d * (i + 1)], x[d * i..d * (i + 1)]);
    }
}

/// A `-=` reduction over a reversed inclusive range, with an ancilla per iteration.
#[i]
fn energy<T: Real>(e: &mut T, x: &mut [T], k: &mut T) {
    for i in (1..=x.len() - 1).rev().par() {
        let t = T::zero();
        t += x[i] * k;
        t += x[i - 1] * x[i];
        e -= sin(t);
        t -= x[i - 1] * x[i];
        t -= x[i] * k;
        dealloc!(t = T::zero());
    }
}

#[i]
fn energy_seq<T: Real>(e: &mut T, x: &mut [T], k: &mut T) {
    for i in (1..=x.len() - 1).rev() {
        let t = T::zero();
        t += x[i] * k;
        t += x[i - 1] * x[i];
        e -= sin(t);
        t -= x[i - 1] * x[i];
        t -= x[i] * k;
        dealloc!(t = T::zero());
    }
}

/// GMM-like: every iteration reads all the means (their gradients come from every
/// iteration) and accumulates into one loss.
#[i(unchecked = mixture_fast)]
fn mixture<T: Real>(out: &mut T, x: &mut [T], mu: &mut [T]) {
    for i in (0..x.len()).par() {
        for j in 0..mu.len() {
            let d = T::zero();
            d += x[i] - mu[j];
            out -= square(d);
            d -= x[i] - mu[j];
            dealloc!(d = T::zero());
        }
    }
}

#[i]
fn mixture_seq<T: Real>(out: &mut T, x: &mut [T], mu: &mut [T]) {
    for i in 0..x.len() {
        for j in 0..mu.len() {
            let d = T::zero();
            d += x[i] - mu[j];
            out -= square(d);
            d -= x[i] - mu[j];
            dealloc!(d = T::zero());
        }
    }
}

/// Conditions and ancilla values that read the iteration's own slots (`c`, read by a condition
/// only; `t`, a copy made by an instruction, so that its gradient reaches `y`).
#[i]
fn own_reads<T: Real>(z: &mut [T], y: &mut [T], x: &mut [T]) {
    for i in (0..y.len()).par() {
        y[i] += sin(x[i]);
        let c = y[i];
        if c.val() > 0.5 {
            z[i] += identity(y[i]);
        }
        dealloc!(c = y[i]);
        let t = T::zero();
        t += identity(y[i]);
        z[i] += t * x[i];
        t -= identity(y[i]);
        dealloc!(t = T::zero());
    }
}

#[i]
fn own_reads_seq<T: Real>(z: &mut [T], y: &mut [T], x: &mut [T]) {
    for i in 0..y.len() {
        y[i] += sin(x[i]);
        let c = y[i];
        if c.val() > 0.5 {
            z[i] += identity(y[i]);
        }
        dealloc!(c = y[i]);
        let t = T::zero();
        t += identity(y[i]);
        z[i] += t * x[i];
        t -= identity(y[i]);
        dealloc!(t = T::zero());
    }
}

/// Owned slots of an ancilla (a `Vec` allocated before the loops, with a gradient in the
/// adjoint program), over inclusive ranges.
#[i]
fn via_ancilla<T: Real>(out: &mut T, x: &mut [T]) {
    let tmp = vec![T::zero(); x.len()];
    for i in (0..=x.len() - 1).par() {
        tmp[i] += exp(x[i]);
    }
    for i in 0..x.len() {
        out += tmp[i] * x[i];
    }
    for i in (0..=x.len() - 1).par() {
        tmp[i] -= exp(x[i]);
    }
    dealloc!(tmp = vec![T::zero(); x.len()]);
}

#[i]
fn via_ancilla_seq<T: Real>(out: &mut T, x: &mut [T]) {
    let tmp = vec![T::zero(); x.len()];
    for i in 0..=x.len() - 1 {
        tmp[i] += exp(x[i]);
    }
    for i in 0..x.len() {
        out += tmp[i] * x[i];
    }
    for i in 0..=x.len() - 1 {
        tmp[i] -= exp(x[i]);
    }
    dealloc!(tmp = vec![T::zero(); x.len()]);
}

/// A dealloc check that fails in every iteration, and one off by `eps`.
#[i]
fn leaky<T: Real>(y: &mut [T], x: &mut [T], eps: f64) {
    for i in (0..x.len()).par() {
        let t = T::zero();
        t += exp(x[i]);
        y[i] += identity(t);
        t -= exp(x[i]);
        dealloc!(t = T::lit(eps));
    }
}

#[i]
fn dot_into<T: Real>(y: &mut T, x: &[T], w: &[T]) {
    for k in 0..x.len() {
        y += x[k] * w[k];
    }
}

/// Calls that get `&` sub-slices and a whole `&` slice (values only: no gradient flows
/// through `&`).
#[i]
fn rows<T: Real>(y: &mut [T], a: &mut [T], w: &mut [T], d: usize) {
    for i in (0..y.len()).par() {
        dot_into(y[i], &a[d * i..d * (i + 1)], &w);
    }
}

#[i]
fn rows_seq<T: Real>(y: &mut [T], a: &mut [T], w: &mut [T], d: usize) {
    for i in 0..y.len() {
        dot_into(y[i], &a[d * i..d * (i + 1)], &w);
    }
}

/// Two parameters in a struct.
#[derive(Clone, Debug, nilang::Scalars)]
pub struct Ab<T> {
    /// One.
    pub a: T,
    /// The other.
    pub b: T,
}

/// A shared read through fields (`p.a`): the forward and inverse loops are parallel, the
/// adjoint program runs this loop sequentially (no per-chunk copy for that shape), with the
/// sequential program's gradients.
#[i]
fn field_shared<T: Real>(y: &mut [T], p: &mut Ab<T>) {
    for i in (0..y.len()).par() {
        y[i] += p.a * p.b;
    }
}

#[i]
fn field_shared_seq<T: Real>(y: &mut [T], p: &mut Ab<T>) {
    for i in 0..y.len() {
        y[i] += p.a * p.b;
    }
}

/// An owned slot with an offset known only at run time (checked before the loop).
#[i]
fn shifted<T: Real>(y: &mut [T], x: &mut [T], s: usize, o: usize) {
    for i in (0..x.len()).par() {
        y[s * i + o] += exp(x[i]);
    }
}

/// A shared vector read at two owned slots per iteration (stride 2), and another at `d`
/// slots under an inner loop: the adjoint adds their gradients through cells.
#[i]
fn slot_reads<T: Real>(out: &mut T, x: &mut [T], w: &mut [T], d: usize) {
    for i in (0..x.len() / 2).par() {
        out += x[2 * i] * x[2 * i + 1];
        for j in 0..d {
            out += sin(w[d * i + j]);
        }
    }
}

#[i]
fn slot_reads_seq<T: Real>(out: &mut T, x: &mut [T], w: &mut [T], d: usize) {
    for i in 0..x.len() / 2 {
        out += x[2 * i] * x[2 * i + 1];
        for j in 0..d {
            out += sin(w[d * i + j]);
        }
    }
}

/// `y += Σⱼ x[j]·(m[j] + w[j])`: reads `m` and `w` (the callee does not write them).
#[i]
fn dot_shifted<T: Real>(y: &mut T, x: &mut [T], m: &mut [T], w: &mut [T]) {
    for j in 0..x.len() {
        y += x[j] * m[j];
        y += x[j] * w[j];
    }
}

/// The GMM shape: each iteration, a block of `x` and `k` outputs, hands every component's
/// sub-slice of the shared parameters `mu` and of the ancilla `w = exp(mu)` to a call that
/// only reads them (shared reads through calls: each chunk calls on its own copy of the values
/// and adds their gradients to its own zeroed copy), with a stated weight.
#[i(unchecked = via_calls_fast)]
fn via_calls<T: Real>(y: &mut [T], x: &mut [T], mu: &mut [T], k: usize, d: usize) {
    let w = vec![T::zero(); k * d];
    routine! {
        for j in 0..k * d {
            w[j] += exp(mu[j]);
        }
    }
    for i in (0..y.len() / k).par().weight(k * d) {
        for c in 0..k {
            dot_shifted(
                y[k * i + c],
                x[d * i..d * (i + 1)],
                mu[c * d..(c + 1) * d],
                w[c * d..(c + 1) * d],
            );
        }
    }
    uncompute!();
    dealloc!(w = vec![T::zero(); k * d]);
}

#[i]
fn via_calls_seq<T: Real>(y: &mut [T], x: &mut [T], mu: &mut [T], k: usize, d: usize) {
    let w = vec![T::zero(); k * d];
    routine! {
        for j in 0..k * d {
            w[j] += exp(mu[j]);
        }
    }
    for i in 0..y.len() / k {
        for c in 0..k {
            dot_shifted(
                y[k * i + c],
                x[d * i..d * (i + 1)],
                mu[c * d..(c + 1) * d],
                w[c * d..(c + 1) * d],
            );
        }
    }
    uncompute!();
    dealloc!(w = vec![T::zero(); k * d]);
}

/// `y[0] += sin(x)·cos(x)`, `y[1] += exp(sin(x))`, through a scratch pair `s` (zero on entry
/// and on return) computed and uncomputed.
#[i]
fn scratch_pair<T: Real>(y: &mut [T], s: &mut [T], x: &mut T) {
    routine! {
        s[0] += sin(x);
        s[1] += cos(x);
    }
    y[0] += s[0] * s[1];
    y[1] += exp(s[0]);
    uncompute!();
}

/// A per-iteration array ancilla handed to a slice parameter (as `ht`'s scratch point).
#[i]
fn via_array<T: Real>(y: &mut [T], x: &mut [T]) {
    for i in (0..x.len()).par() {
        let s = [T::zero(); 2];
        scratch_pair(y[2 * i..2 * i + 2], s, x[i]);
        dealloc!(s = [T::zero(); 2]);
    }
}

#[i]
fn via_array_seq<T: Real>(y: &mut [T], x: &mut [T]) {
    for i in 0..x.len() {
        let s = [T::zero(); 2];
        scratch_pair(y[2 * i..2 * i + 2], s, x[i]);
        dealloc!(s = [T::zero(); 2]);
    }
}

/// The threads that ran [`read_noting`] (with a pause, so that a pool spreads the chunks).
static NOTED: std::sync::Mutex<Vec<std::thread::ThreadId>> = std::sync::Mutex::new(Vec::new());

fn note_thread() {
    std::thread::sleep(std::time::Duration::from_millis(5));
    NOTED.lock().unwrap().push(std::thread::current().id());
}

#[i]
fn read_noting<T: Real>(y: &mut T, m: &mut [T]) {
    safe! {
        note_thread();
    }
    y += sin(m[0]);
}

/// A shared sub-slice through a call, whose callee notes its thread.
#[i]
fn noted<T: Real>(y: &mut [T], m: &mut [T]) {
    for i in (0..y.len()).par() {
        read_noting(y[i], m[0..1]);
    }
}

// ---- helpers ----

fn bits(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

fn all_close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| close(*x, *y))
}

fn with_threads<R: Send>(n: usize, f: impl FnOnce() -> R + Send) -> R {
    // short loops too are split, so that the chunked code is what these tests run
    nilang::parallel::set_min_parallel_work(1);
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("a thread pool")
        .install(f)
}

fn wrap(x: &[f64]) -> Vec<GVar<f64>> {
    x.iter().map(|&v| GVar::new(v)).collect()
}

fn vector(lo: usize, hi: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-2.0f64..2.0, lo..hi)
}

// ---- tests ----

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Disjoint writes: forward and inverse bit for bit the sequential loop's, on 1–4 threads.
    #[test]
    fn disjoint_writes_match_the_sequential_loop(x in vector(0, 60), a in -2.0f64..2.0, threads in 1usize..5) {
        with_threads(threads, || -> Result<(), TestCaseError> {
            let y0: Vec<f64> = x.iter().map(|v| v * 0.5 + 1.0).collect();
            let (mut y, mut xx, mut aa) = (y0.clone(), x.clone(), a);
            let (mut ys, mut xs, mut as_) = (y0.clone(), x.clone(), a);
            axpy(&mut y, &mut xx, &mut aa);
            axpy_seq(&mut ys, &mut xs, &mut as_);
            prop_assert_eq!(bits(&y), bits(&ys));
            let mut yf = y0.clone();
            axpy_fast(&mut yf, &mut x.clone(), &mut a.clone());
            prop_assert_eq!(bits(&yf), bits(&ys));
            axpy_inv(&mut y, &mut xx, &mut aa);
            axpy_seq_inv(&mut ys, &mut xs, &mut as_);
            prop_assert_eq!(bits(&y), bits(&ys));
            prop_assert!(all_close(&y, &y0));

            let y0: Vec<f64> = x.iter().map(|v| v * 0.3).collect();
            let (mut z, mut y, mut xp) = (vec![1.0; x.len()], y0.clone(), x.clone());
            let (mut zs, mut ys, mut xs) = (vec![1.0; x.len()], y0.clone(), x.clone());
            own_reads(&mut z, &mut y, &mut xp);
            own_reads_seq(&mut zs, &mut ys, &mut xs);
            prop_assert_eq!(bits(&z), bits(&zs));
            prop_assert_eq!(bits(&y), bits(&ys));
            own_reads_inv(&mut z, &mut y, &mut xp);
            own_reads_seq_inv(&mut zs, &mut ys, &mut xs);
            prop_assert_eq!(bits(&z), bits(&zs));
            prop_assert_eq!(bits(&y), bits(&ys));
            let (mut zg, mut yg, mut xg) = (vec![1.0; x.len()], vec![0.5; x.len()], vec![0.0; x.len()]);
            let (mut zsg, mut ysg, mut xsg) = (zg.clone(), yg.clone(), xg.clone());
            own_reads_vjp(&mut z, &mut zg, &mut y, &mut yg, &mut xp, &mut xg);
            own_reads_seq_vjp(&mut zs, &mut zsg, &mut ys, &mut ysg, &mut xs, &mut xsg);
            prop_assert_eq!(bits(&xg), bits(&xsg));
            prop_assert_eq!(bits(&yg), bits(&ysg));

            let (mut a, mut w) = (vec![0.5; 3 * x.len()], vec![0.3, -0.7, 1.1]);
            let (mut y, mut ys) = (x.clone(), x.clone());
            rows(&mut y, &mut a, &mut w, 3);
            rows_seq(&mut ys, &mut a, &mut w, 3);
            prop_assert_eq!(bits(&y), bits(&ys));
            let (mut yg, mut ag, mut wg) = (vec![1.0; x.len()], vec![0.0; a.len()], vec![0.0; 3]);
            // `f_vjp` runs `rows` and its adjoint: `y` comes back as it went in (up to
            // rounding: `(y + s) - s`)
            let before = y.clone();
            rows_vjp(&mut y, &mut yg, &mut a, &mut ag, &mut w, &mut wg, 3, ());
            prop_assert!(all_close(&y, &before));
            y = before;
            prop_assert!(ag.iter().chain(&wg).all(|g| *g == 0.0), "no gradient through `&`");
            rows_inv(&mut y, &mut a, &mut w, 3);
            rows_seq_inv(&mut ys, &mut a, &mut w, 3);
            prop_assert_eq!(bits(&y), bits(&ys));

            let mut w = vec![0.3, -0.7, 1.1];
            let (mut y, mut ys) = (vec![0.25; 2 * x.len()], vec![0.25; 2 * x.len()]);
            let (mut xp, mut xs) = (x.clone(), x.clone());
            pairs(&mut y, &mut xp, &mut w);
            pairs_seq(&mut ys, &mut xs, &mut w);
            prop_assert_eq!(bits(&y), bits(&ys));
            pairs_inv(&mut y, &mut xp, &mut w);
            pairs_seq_inv(&mut ys, &mut xs, &mut w);
            prop_assert_eq!(bits(&y), bits(&ys));
            Ok(())
        })?;
    }

    /// Blocks with an inner loop and a call on sub-slices, checked and unchecked.
    #[test]
    fn blocks_match_the_sequential_loop(x in vector(0, 48), threads in 1usize..5) {
        with_threads(threads, || -> Result<(), TestCaseError> {
            let d = 3;
            let n = x.len() / d * d;
            let x: Vec<f64> = x[..n].to_vec();
            let mut c = vec![0.5, -1.5, 2.0];
            let y0: Vec<f64> = (0..n).map(|k| k as f64 * 0.1).collect();
            let (mut y, mut xp) = (y0.clone(), x.clone());
            let (mut ys, mut xs) = (y0.clone(), x.clone());
            let (mut yf, mut xf) = (y0.clone(), x.clone());
            blocks(&mut y, &mut xp, &mut c, d);
            blocks_seq(&mut ys, &mut xs, &mut c, d);
            blocks_fast(&mut yf, &mut xf, &mut c, d);
            prop_assert_eq!(bits(&y), bits(&ys));
            prop_assert_eq!(bits(&yf), bits(&ys));
            blocks_inv(&mut y, &mut xp, &mut c, d);
            blocks_seq_inv(&mut ys, &mut xs, &mut c, d);
            blocks_fast_inv(&mut yf, &mut xf, &mut c, d);
            prop_assert_eq!(bits(&y), bits(&ys));
            prop_assert_eq!(bits(&yf), bits(&ys));
            prop_assert!(all_close(&y, &y0));
            Ok(())
        })?;
    }

    /// Reductions: within 1e-12 of the sequential sum, and the same bits on every run.
    #[test]
    fn reductions_are_close_and_deterministic(x in vector(2, 80), k in -1.0f64..1.0, threads in 1usize..5) {
        with_threads(threads, || -> Result<(), TestCaseError> {
            let run = || {
                let (mut s, mut e, mut m) = (0.5, 0.25, -1.0);
                let mut mu = vec![0.1, -0.4, 0.9];
                sumsq(&mut s, &mut x.clone());
                energy(&mut e, &mut x.clone(), &mut k.clone());
                mixture(&mut m, &mut x.clone(), &mut mu);
                let mut sf = 0.5;
                sumsq_fast(&mut sf, &mut x.clone());
                (s, e, m, sf)
            };
            let (s, e, m, sf) = run();
            prop_assert_eq!(s.to_bits(), sf.to_bits());
            let again = run();
            prop_assert_eq!(bits(&[s, e, m]), bits(&[again.0, again.1, again.2]));
            let (mut ss, mut es, mut ms) = (0.5, 0.25, -1.0);
            let mut mu = vec![0.1, -0.4, 0.9];
            sumsq_seq(&mut ss, &mut x.clone());
            energy_seq(&mut es, &mut x.clone(), &mut k.clone());
            mixture_seq(&mut ms, &mut x.clone(), &mut mu);
            prop_assert!(close(s, ss) && close(e, es) && close(m, ms), "{s} {ss} {e} {es} {m} {ms}");
            if threads == 1 {
                // a one-thread pool runs the sequential loop: the same bits
                prop_assert_eq!(bits(&[s, e, m]), bits(&[ss, es, ms]));
            }
            // and back
            let (mut s2, mut e2, mut m2) = (s, e, m);
            sumsq_inv(&mut s2, &mut x.clone());
            energy_inv(&mut e2, &mut x.clone(), &mut k.clone());
            mixture_inv(&mut m2, &mut x.clone(), &mut mu);
            prop_assert!(close(s2, 0.5) && close(e2, 0.25) && close(m2, -1.0));
            Ok(())
        })?;
    }

    /// Gradients of the adjoint programs (whose parallel loops keep per-chunk gradients of
    /// the shared means and of `k`, and hand the loss's gradient to every partial sum) equal
    /// the sequential program's within 1e-12; the `GVar` path runs sequentially and agrees
    /// bit for bit with the sequential program's.
    #[test]
    fn gradients_match_the_sequential_program(x in vector(2, 60), k in -1.0f64..1.0, threads in 1usize..5) {
        with_threads(threads, || -> Result<(), TestCaseError> {
            let n = x.len();
            // mixture: out, x, mu
            let mu0 = vec![0.1, -0.4, 0.9];
            let vjp = |par: bool| {
                let (mut out, mut xx, mut mu) = (0.0, x.clone(), mu0.clone());
                let (mut og, mut xg, mut mg) = (1.0, vec![0.0; n], vec![0.0; 3]);
                if par {
                    mixture_vjp(&mut out, &mut og, &mut xx, &mut xg, &mut mu, &mut mg);
                } else {
                    mixture_seq_vjp(&mut out, &mut og, &mut xx, &mut xg, &mut mu, &mut mg);
                }
                (out, xg, mg)
            };
            let (out, xg, mg) = vjp(true);
            let (outs, xgs, mgs) = vjp(false);
            prop_assert!(close(out, outs));
            prop_assert!(all_close(&xg, &xgs), "{:?} {:?}", xg, xgs);
            prop_assert!(all_close(&mg, &mgs), "{:?} {:?}", mg, mgs);
            prop_assert_eq!(bits(&vjp(true).2), bits(&mg));
            // the unchecked twin's adjoint
            let (mut out, mut xx, mut mu) = (0.0, x.clone(), mu0.clone());
            let (mut og, mut xgf, mut mgf) = (1.0, vec![0.0; n], vec![0.0; 3]);
            mixture_fast_vjp(&mut out, &mut og, &mut xx, &mut xgf, &mut mu, &mut mgf);
            prop_assert_eq!(bits(&xgf), bits(&xg));
            prop_assert_eq!(bits(&mgf), bits(&mg));

            // GVar path: forward, then the inverse on GVars (sequential in both programs)
            let gvar = |par: bool| {
                let (mut out, mut xx, mut mu) = (0.0, x.clone(), mu0.clone());
                if par { mixture(&mut out, &mut xx, &mut mu) } else { mixture_seq(&mut out, &mut xx, &mut mu) }
                let (mut wo, mut wx, mut wm) = (GVar::with_grad(out, 1.0), wrap(&xx), wrap(&mu));
                if par { mixture_inv(&mut wo, &mut wx, &mut wm) } else { mixture_seq_inv(&mut wo, &mut wx, &mut wm) }
                (wx.iter().map(|v| v.g).collect::<Vec<_>>(), wm.iter().map(|v| v.g).collect::<Vec<_>>())
            };
            let (gx, gm) = gvar(true);
            let (gxs, gms) = gvar(false);
            prop_assert_eq!(bits(&gx), bits(&gxs));
            prop_assert_eq!(bits(&gm), bits(&gms));
            prop_assert!(all_close(&gx, &xg) && all_close(&gm, &mg));

            // energy: a `-=` reduction, a shared scalar `k`, x read at i and i-1
            let (mut e, mut xx, mut kk) = (0.0, x.clone(), k);
            let (mut eg, mut xg, mut kg) = (1.0, vec![0.0; n], 0.0);
            energy_vjp(&mut e, &mut eg, &mut xx, &mut xg, &mut kk, &mut kg);
            let (mut e, mut xx, mut kk) = (0.0, x.clone(), k);
            let (mut eg, mut xgs, mut kgs) = (1.0, vec![0.0; n], 0.0);
            energy_seq_vjp(&mut e, &mut eg, &mut xx, &mut xgs, &mut kk, &mut kgs);
            prop_assert!(all_close(&xg, &xgs) && close(kg, kgs), "{kg} {kgs}");

            // a shared read the adjoint keeps sequential
            let p0 = Ab { a: 0.5, b: -1.5 };
            let (mut y, mut p) = (x.clone(), p0.clone());
            let (mut yg, mut pg) = (vec![1.0; n], Ab { a: 0.0, b: 0.0 });
            field_shared_vjp(&mut y, &mut yg, &mut p, &mut pg);
            let (mut ys, mut ps) = (x.clone(), p0.clone());
            let (mut ysg, mut psg) = (vec![1.0; n], Ab { a: 0.0, b: 0.0 });
            field_shared_seq_vjp(&mut ys, &mut ysg, &mut ps, &mut psg);
            prop_assert_eq!(bits(&[pg.a, pg.b]), bits(&[psg.a, psg.b]));
            prop_assert_eq!(pg.a.to_bits(), (-1.5 * n as f64).to_bits());
            let (mut y, mut p) = (x.clone(), p0.clone());
            field_shared(&mut y, &mut p);
            let (mut ys, mut ps) = (x.clone(), p0.clone());
            field_shared_seq(&mut ys, &mut ps);
            prop_assert_eq!(bits(&y), bits(&ys));

            // an ancilla's owned slots, values and gradients
            let (mut o, mut xx) = (0.0, x.clone());
            let (mut og, mut xg) = (1.0, vec![0.0; n]);
            via_ancilla_vjp(&mut o, &mut og, &mut xx, &mut xg);
            let (mut os, mut xs) = (0.0, x.clone());
            let (mut osg, mut xsg) = (1.0, vec![0.0; n]);
            via_ancilla_seq_vjp(&mut os, &mut osg, &mut xs, &mut xsg);
            prop_assert_eq!(o.to_bits(), os.to_bits());
            prop_assert_eq!(bits(&xg), bits(&xsg));
            let (mut o, mut xx) = (0.0, x.clone());
            via_ancilla(&mut o, &mut xx);
            let (mut os, mut xs) = (0.0, x.clone());
            via_ancilla_seq(&mut os, &mut xs);
            prop_assert_eq!(o.to_bits(), os.to_bits());
            via_ancilla_inv(&mut o, &mut xx);
            prop_assert_eq!(bits(&xx), bits(&x));

            // blocks: owned slots' gradients written directly, shared `c` per chunk
            let d = 3;
            let m = n / d * d;
            let (mut y, mut xx, mut c) = (vec![0.0; m], x[..m].to_vec(), vec![0.5, -1.5, 2.0]);
            let (mut yg, mut xg, mut cg) = (vec![1.0; m], vec![0.0; m], vec![0.0; 3]);
            blocks_vjp(&mut y, &mut yg, &mut xx, &mut xg, &mut c, &mut cg, d, ());
            let (mut y, mut xx, mut c) = (vec![0.0; m], x[..m].to_vec(), vec![0.5, -1.5, 2.0]);
            let (mut yg, mut xgs, mut cgs) = (vec![1.0; m], vec![0.0; m], vec![0.0; 3]);
            blocks_seq_vjp(&mut y, &mut yg, &mut xx, &mut xgs, &mut c, &mut cgs, d, ());
            prop_assert_eq!(bits(&xg), bits(&xgs));
            prop_assert!(all_close(&cg, &cgs));
            Ok(())
        })?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// A place the loop reads at owned slots only: its gradient (each element's from one
    /// iteration, written through cells) is bit for bit the sequential program's, and the
    /// value within 1e-12.
    #[test]
    fn gradients_of_slot_reads_are_the_sequential_ones(x in vector(0, 60), threads in 1usize..5) {
        with_threads(threads, || -> Result<(), TestCaseError> {
            let (n, d) = (x.len(), 3);
            let w0: Vec<f64> = (0..n / 2 * d).map(|k| (k as f64 * 0.7).cos()).collect();
            let vjp = |par: bool| {
                let (mut out, mut xx, mut w) = (0.0, x.clone(), w0.clone());
                let (mut og, mut xg, mut wg) = (1.0, vec![0.0; n], vec![0.0; w0.len()]);
                if par {
                    slot_reads_vjp(&mut out, &mut og, &mut xx, &mut xg, &mut w, &mut wg, d, ());
                } else {
                    slot_reads_seq_vjp(&mut out, &mut og, &mut xx, &mut xg, &mut w, &mut wg, d, ());
                }
                (out, xg, wg)
            };
            let (out, xg, wg) = vjp(true);
            let (outs, xgs, wgs) = vjp(false);
            prop_assert!(close(out, outs));
            prop_assert_eq!(bits(&xg), bits(&xgs));
            prop_assert_eq!(bits(&wg), bits(&wgs));
            Ok(())
        })?;
    }
}

/// `f_grad` of a program with a parallel loop, against central finite differences.
#[test]
fn gradient_matches_finite_differences() {
    with_threads(4, || {
        let x: Vec<f64> = (0..37).map(|k| (k as f64 * 0.37).sin()).collect();
        let mu = vec![0.1, -0.4, 0.9];
        let f = |x: &[f64], mu: &[f64]| {
            let mut out = 0.0;
            mixture(&mut out, &mut x.to_vec(), &mut mu.to_vec());
            out
        };
        let (mut out, mut xx, mut mm) = (0.0, x.clone(), mu.clone());
        let (_, gx, gm) = mixture_grad(nilang::Loss::arg(0), &mut out, &mut xx, &mut mm).unwrap();
        let h = 1e-6;
        for j in 0..3 {
            let (mut up, mut dn) = (mu.clone(), mu.clone());
            up[j] += h;
            dn[j] -= h;
            let fd = (f(&x, &up) - f(&x, &dn)) / (2.0 * h);
            assert!(
                (fd - gm[j].g).abs() < 1e-6 * fd.abs().max(1.0),
                "{fd} {:?}",
                gm[j]
            );
        }
        for j in [0, 17, 36] {
            let (mut up, mut dn) = (x.clone(), x.clone());
            up[j] += h;
            dn[j] -= h;
            let fd = (f(&up, &mu) - f(&dn, &mu)) / (2.0 * h);
            assert!(
                (fd - gx[j].g).abs() < 1e-6 * fd.abs().max(1.0),
                "{fd} {:?}",
                gx[j]
            );
        }
    });
}

/// The chunks depend on the range and the thread count only (one on one thread, the
/// sequential order; four per thread otherwise): a reduction's bits differ between thread
/// counts only by the summation order, and are the same on every run of one thread count.
#[test]
fn thread_count_fixes_the_chunks() {
    let x: Vec<f64> = (0..10_000)
        .map(|k| ((k * 7919) % 1000) as f64 * 1e-3)
        .collect();
    let sum = |threads| {
        with_threads(threads, || {
            let mut out = 0.0;
            sumsq(&mut out, &mut x.clone());
            out
        })
    };
    let per = nilang::parallel::CHUNKS_PER_THREAD;
    assert_eq!(
        with_threads(1, || nilang::parallel::chunks(0usize, 10_000, false)),
        vec![(0, 10_000)]
    );
    assert_eq!(
        with_threads(4, || nilang::parallel::chunks(0usize, 10_000, false)).len(),
        4 * per
    );
    let two = with_threads(2, || nilang::parallel::chunks(0usize, 10, false));
    assert_eq!(two.len(), (2 * per).min(10));
    assert_eq!(two.first(), Some(&(0, 10 / two.len())));
    assert_eq!(two.last().map(|c| c.1), Some(10));
    assert!(two.windows(2).all(|w| w[0].1 == w[1].0 && w[0].0 < w[0].1));
    assert_eq!(
        with_threads(4, || nilang::parallel::chunks(3i64, 4, true)),
        vec![(3, 4), (4, 5)]
    );
    assert!(with_threads(4, || nilang::parallel::chunks(5usize, 5, false)).is_empty());
    let (one, four) = (sum(1), sum(4));
    assert_eq!(four.to_bits(), sum(4).to_bits());
    assert_eq!(one.to_bits(), sum(1).to_bits());
    assert!(close(one, four));
    let mut seq = 0.0;
    sumsq_seq(&mut seq, &mut x.clone());
    assert_eq!(
        one.to_bits(),
        seq.to_bits(),
        "one chunk sums in the sequential order"
    );
}

/// The chunks of a 4-thread pool run on different threads.
#[test]
fn chunks_run_on_several_threads() {
    let ids = with_threads(4, || {
        nilang::parallel::run(&nilang::parallel::chunks(0usize, 4, false), |_, _| {
            std::thread::sleep(std::time::Duration::from_millis(50));
            std::thread::current().id()
        })
    });
    let mut distinct = ids.clone();
    distinct.sort_by_key(|id| format!("{id:?}"));
    distinct.dedup();
    assert!(distinct.len() > 1, "{ids:?}");
}

/// An owned slot whose offset is not below its stride is refused before the loop runs.
#[test]
#[should_panic(expected = "do not lie in 0..stride")]
fn slot_offsets_are_checked_before_the_loop() {
    let (mut y, mut x) = (vec![0.0; 8], vec![0.0; 3]);
    shifted(&mut y, &mut x, 2, 2);
}

#[test]
fn slot_offsets_in_range_run() {
    let (mut y, mut x) = (vec![0.0; 8], vec![0.0; 3]);
    shifted(&mut y, &mut x, 2, 1);
    assert_eq!(y, vec![0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0]);
    shifted_inv(&mut y, &mut x, 2, 1);
    assert_eq!(y, vec![0.0; 8]);
}

/// Unchecked, each chunk checks its indices' range once before its loop: an index past the
/// end is a panic, never a read past the end.
#[test]
#[should_panic(expected = "x[i]")]
fn unchecked_chunks_check_their_index_range() {
    let (mut y, mut x, mut a) = (vec![0.0; 9], vec![0.0; 5], 1.0);
    with_threads(4, || axpy_fast(&mut y, &mut x, &mut a));
}

/// A failed check in a chunk on another thread reaches `nilang::catch` on the caller as a
/// value (the first failing chunk's), and the chunks check with the caller's tolerance.
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn checks_in_chunks_behave_as_on_the_caller() {
    with_threads(4, || {
        let (mut y, mut x) = (vec![0.0; 4000], vec![0.5; 4000]);
        let err = nilang::catch(|| leaky(&mut y, &mut x, 1.0)).unwrap_err();
        assert_eq!(err.kind, nilang::CheckKind::Dealloc);
        assert_eq!(err.function, "leaky");
        let (mut y, mut x) = (vec![0.0; 4000], vec![0.5; 4000]);
        assert!(nilang::catch(|| leaky(&mut y, &mut x, 1e-6)).is_err());
        // long enough that other threads take chunks
        let (mut y, mut x) = (vec![0.0; 400_000], vec![0.5; 400_000]);
        let ok = nilang::with_tolerance(1e-3, || nilang::catch(|| leaky(&mut y, &mut x, 1e-6)));
        assert!(ok.is_ok(), "{ok:?}");
        assert_eq!(y[399_999], 0.5f64.exp());
    });
}

/// Hessians (forward over reversal) and Jacobians of a program with a parallel loop equal
/// the sequential program's.
#[test]
fn hessians_and_jacobians_match_the_sequential_program() {
    with_threads(4, || {
        let x: Vec<f64> = (0..23).map(|k| (k as f64 * 0.7).cos()).collect();
        let mu = vec![0.1, -0.4, 0.9];
        let (mut o, mut xx, mut mm) = (0.0, x.clone(), mu.clone());
        let h = mixture_hessian(nilang::Loss::arg(0), &mut o, &mut xx, &mut mm).unwrap();
        let (mut o, mut xx, mut mm) = (0.0, x.clone(), mu.clone());
        let hs = mixture_seq_hessian(nilang::Loss::arg(0), &mut o, &mut xx, &mut mm).unwrap();
        assert_eq!((h.rows, h.cols), (hs.rows, hs.cols));
        assert!(all_close(&h.data, &hs.data));
        let y0: Vec<f64> = (0..23).map(|k| k as f64).collect();
        let (mut y, mut xx, mut a) = (y0.clone(), x.clone(), 0.5);
        let j = axpy_jacobian(&mut y, &mut xx, &mut a).unwrap();
        let (mut y, mut xx, mut a) = (y0.clone(), x.clone(), 0.5);
        let js = axpy_seq_jacobian(&mut y, &mut xx, &mut a).unwrap();
        assert_eq!(bits(&j.data), bits(&js.data));
    });
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Shared sub-slices handed to calls (the GMM shape): forward and inverse bit for bit the
    /// sequential program's (each output is written by one iteration), gradients within 1e-12
    /// of it (bit for bit on one thread) and the same bits run to run, against the `GVar`
    /// path and central differences too.
    #[test]
    fn shared_reads_through_calls_match_the_sequential_program(x in vector(0, 40), threads in 1usize..5) {
        with_threads(threads, || -> Result<(), TestCaseError> {
            let (k, d) = (3, 2);
            let points = x.len() / d;
            let x: Vec<f64> = x[..points * d].to_vec();
            let mu0 = vec![0.3, -0.2, 0.5, 0.1, -0.6, 0.25];
            let y0: Vec<f64> = (0..points * k).map(|j| j as f64 * 0.1).collect();
            let (mut y, mut xp, mut mu) = (y0.clone(), x.clone(), mu0.clone());
            let (mut ys, mut xs, mut mus) = (y0.clone(), x.clone(), mu0.clone());
            let (mut yf, mut xf, mut muf) = (y0.clone(), x.clone(), mu0.clone());
            via_calls(&mut y, &mut xp, &mut mu, k, d);
            via_calls_seq(&mut ys, &mut xs, &mut mus, k, d);
            via_calls_fast(&mut yf, &mut xf, &mut muf, k, d);
            prop_assert_eq!(bits(&y), bits(&ys));
            prop_assert_eq!(bits(&yf), bits(&ys));
            prop_assert_eq!(bits(&mu), bits(&mu0));
            via_calls_inv(&mut y, &mut xp, &mut mu, k, d);
            via_calls_seq_inv(&mut ys, &mut xs, &mut mus, k, d);
            via_calls_fast_inv(&mut yf, &mut xf, &mut muf, k, d);
            prop_assert_eq!(bits(&y), bits(&ys));
            prop_assert_eq!(bits(&yf), bits(&ys));

            let yg0: Vec<f64> = (0..points * k).map(|j| 1.0 - 0.05 * j as f64).collect();
            let vjp = |f: &dyn Fn(&mut [f64], &mut [f64], &mut [f64], &mut [f64], &mut [f64], &mut [f64])| {
                let (mut y, mut xp, mut mu) = (y0.clone(), x.clone(), mu0.clone());
                let (mut yg, mut xg, mut mg) = (yg0.clone(), vec![0.0; x.len()], vec![0.0; mu0.len()]);
                f(&mut y, &mut yg, &mut xp, &mut xg, &mut mu, &mut mg);
                (xg, mg)
            };
            let par = |y: &mut [f64], yg: &mut [f64], xp: &mut [f64], xg: &mut [f64], mu: &mut [f64], mg: &mut [f64]| {
                via_calls_vjp(y, yg, xp, xg, mu, mg, k, (), d, ())
            };
            let fast = |y: &mut [f64], yg: &mut [f64], xp: &mut [f64], xg: &mut [f64], mu: &mut [f64], mg: &mut [f64]| {
                via_calls_fast_vjp(y, yg, xp, xg, mu, mg, k, (), d, ())
            };
            let seq = |y: &mut [f64], yg: &mut [f64], xp: &mut [f64], xg: &mut [f64], mu: &mut [f64], mg: &mut [f64]| {
                via_calls_seq_vjp(y, yg, xp, xg, mu, mg, k, (), d, ())
            };
            let (xg, mg) = vjp(&par);
            let (_, mgf) = vjp(&fast);
            let (xgs, mgs) = vjp(&seq);
            prop_assert_eq!(bits(&xg), bits(&xgs));
            prop_assert!(all_close(&mg, &mgs), "{:?} {:?}", mg, mgs);
            prop_assert!(all_close(&mgf, &mgs), "{:?} {:?}", mgf, mgs);
            prop_assert_eq!(bits(&vjp(&par).1), bits(&mg));
            if threads == 1 {
                prop_assert_eq!(bits(&mg), bits(&mgs));
            }
            // the GVar path (the generic inverse, sequential)
            let (mut yv, mut xv, mut mv) = (wrap(&y0), wrap(&x), wrap(&mu0));
            via_calls(&mut yv, &mut xv, &mut mv, k, d);
            for (v, g) in yv.iter_mut().zip(&yg0) {
                *v = GVar::with_grad(v.val(), *g);
            }
            via_calls_inv(&mut yv, &mut xv, &mut mv, k, d);
            let mgv: Vec<f64> = mv.iter().map(|v| v.grad()).collect();
            prop_assert!(all_close(&mg, &mgv), "{:?} {:?}", mg, mgv);
            // central differences of Σ yg·y in mu[j]
            let loss = |mu: &[f64]| {
                let (mut y, mut xp, mut m) = (y0.clone(), x.clone(), mu.to_vec());
                via_calls_seq(&mut y, &mut xp, &mut m, k, d);
                y.iter().zip(&yg0).map(|(a, b)| a * b).sum::<f64>()
            };
            for j in 0..mu0.len() {
                let h = 1e-6;
                let (mut up, mut down) = (mu0.clone(), mu0.clone());
                up[j] += h;
                down[j] -= h;
                let fd = (loss(&up) - loss(&down)) / (2.0 * h);
                prop_assert!((fd - mg[j]).abs() <= 1e-6 * fd.abs().max(1.0), "{j}: {fd} {}", mg[j]);
            }
            Ok(())
        })?;
    }
}

/// A loop whose shared reads go through a call really runs on several threads, forward and
/// in the adjoint program (it does not fall back to the sequential loop).
#[test]
fn shared_reads_through_calls_run_on_several_threads() {
    let distinct = || {
        let mut ids = std::mem::take(&mut *NOTED.lock().unwrap());
        ids.sort_by_key(|id| format!("{id:?}"));
        ids.dedup();
        ids.len()
    };
    let (mut y, mut m) = (vec![0.5; 16], vec![0.25]);
    with_threads(4, || noted(&mut y, &mut m));
    assert!(distinct() > 1, "forward");
    let (mut yg, mut mg) = (vec![1.0; 16], vec![0.0]);
    with_threads(4, || noted_adjoint(&mut y, &mut yg, &mut m, &mut mg));
    assert!(distinct() > 1, "adjoint");
    assert!((mg[0] - 16.0 * 0.25f64.cos()).abs() < 1e-12, "{mg:?}");
}

/// An array ancilla (`let s = [T::zero(); 2]`) handed to a slice parameter in a parallel loop:
/// forward, inverse and gradient (owned slots only) bit for bit the sequential loop's on 1, 2
/// and 4 threads; the gradient equal to the `GVar` path's and to central differences.
#[test]
fn array_ancillas_passed_as_slices() {
    let x0: Vec<f64> = (0..23).map(|k| (k as f64 * 0.41).sin()).collect();
    let n = x0.len();
    let mut ys = vec![0.0; 2 * n];
    via_array_seq(&mut ys, &mut x0.clone());
    for (k, &x) in x0.iter().enumerate() {
        assert_eq!(ys[2 * k], x.sin() * x.cos());
        assert_eq!(ys[2 * k + 1], x.sin().exp());
    }
    let yg0: Vec<f64> = (0..2 * n).map(|j| 1.0 - 0.1 * j as f64).collect();
    let vjp = |par: bool| {
        let (mut y, mut x) = (vec![0.0; 2 * n], x0.clone());
        let (mut yg, mut xg) = (yg0.clone(), vec![0.0; n]);
        if par {
            via_array_vjp(&mut y, &mut yg, &mut x, &mut xg);
        } else {
            via_array_seq_vjp(&mut y, &mut yg, &mut x, &mut xg);
        }
        assert!(
            y.iter().all(|&v| v.abs() < 1e-15),
            "the adjoint restores y: {y:?}"
        );
        xg
    };
    let xgs = vjp(false);
    for threads in [1, 2, 4] {
        let xg = with_threads(threads, || {
            let (mut y, mut x) = (vec![0.0; 2 * n], x0.clone());
            via_array(&mut y, &mut x);
            assert_eq!(bits(&y), bits(&ys), "{threads} threads: forward");
            via_array_inv(&mut y, &mut x);
            assert_eq!(bits(&x), bits(&x0), "{threads} threads: x restored");
            assert!(y.iter().all(|&v| v.abs() < 1e-15), "{y:?}");
            vjp(true)
        });
        assert_eq!(bits(&xg), bits(&xgs), "{threads} threads: gradient");
    }
    // the GVar path: forward, then the inverse on gradient-carrying values
    let (mut yv, mut xv) = (wrap(&ys), wrap(&x0));
    for (v, g) in yv.iter_mut().zip(&yg0) {
        *v = GVar::with_grad(v.val(), *g);
    }
    via_array_inv(&mut yv, &mut xv);
    let xgv: Vec<f64> = xv.iter().map(|v| v.grad()).collect();
    assert!(all_close(&xgs, &xgv), "{xgs:?} {xgv:?}");
    let loss = |x: &[f64]| {
        let mut y = vec![0.0; 2 * n];
        via_array_seq(&mut y, &mut x.to_vec());
        y.iter().zip(&yg0).map(|(a, b)| a * b).sum::<f64>()
    };
    nilang::ad::check_gradient(loss, &x0, &xgs, 1e-6, 1e-6).unwrap();
}

/// `a += x[2i]·x[2i+1]` by a call, for the test below.
#[i]
fn add_pair_product<T: Real>(a: &mut T, pair: &mut [T]) {
    a += pair[0] * pair[1];
}

/// Each iteration hands its own pair of `x` (read only) to a call: `x` is borrowed per
/// iteration through cells instead of copied whole by every chunk.
#[i]
fn pair_products<T: Real>(y: &mut [T], x: &mut [T]) {
    for k in (0..y.len()).par() {
        add_pair_product(y[k], x[2 * k..2 * k + 2]);
    }
}

/// A place handed to calls at owned slots only gives the sequential values, inverse and
/// gradient at every thread count.
#[test]
fn slots_handed_to_calls_are_not_copied_and_agree() {
    nilang::parallel::set_min_parallel_work(1);
    let n = 37;
    let x0: Vec<f64> = (0..2 * n).map(|k| (k as f64 * 0.37).sin()).collect();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let (mut y, mut x) = (vec![0.5; n], x0.clone());
            pair_products(&mut y, &mut x);
            let forward = y.clone();
            pair_products_inv(&mut y, &mut x);
            assert!(y.iter().all(|v| (v - 0.5).abs() < 1e-15) && x == x0);
            let (mut y, mut x) = (vec![0.5; n], x0.clone());
            let (mut gy, mut gx) = (vec![1.0; n], vec![0.0; 2 * n]);
            pair_products_vjp(&mut y, &mut gy, &mut x, &mut gx);
            (forward, gx)
        })
    };
    let (values, grads) = run(1);
    for k in 0..n {
        assert_eq!(values[k], 0.5 + x0[2 * k] * x0[2 * k + 1]);
        assert_eq!(grads[2 * k], x0[2 * k + 1]);
        assert_eq!(grads[2 * k + 1], x0[2 * k]);
    }
    for threads in [2, 4] {
        assert_eq!(
            run(threads),
            (values.clone(), grads.clone()),
            "{threads} threads"
        );
    }
}
