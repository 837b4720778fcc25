//! Times each eval's derivative by its natural program (`evals::natural`: plain Rust under
//! `#[differentiable]`) against the expert program (the reversible program the tool serves by
//! default), interleaved, on one thread, and prints the medians and their ratio as a markdown
//! table. Each round times the expert then the natural derivative, each as the mean of as many
//! calls as fill about 20 ms (at least one); the table gives the median over the rounds. Sizes
//! are those GradBench's evals send (see `docs/gradbench.md`); the natural and the expert
//! derivatives are checked to agree (1e-8 relative) before timing.
//!
//! ```sh
//! cargo run --release -p nilang-gradbench --example natural_vs_expert [ROUNDS] [FILTER] [INPUT]
//! ```
//!
//! `FILTER` keeps the evals whose name contains it, `INPUT` the inputs whose label contains it
//! (`natural_vs_expert 40 kmeans "k = 10, n = 10000"`: one input, e.g. for a profiler).

use nilang_gradbench::evals::{ba, det, gmm, ht, kmeans, llsq, lse, lstm, natural, ode};
use nilang_gradbench::seeded::uniform;
use std::hint::black_box;
use std::time::Instant;

/// The mean time of one call of `f`, over as many calls as fill about 20 ms.
fn time(f: &mut dyn FnMut() -> Vec<f64>) -> f64 {
    let t0 = Instant::now();
    black_box(f());
    let first = t0.elapsed().as_secs_f64();
    let reps = ((0.02 / first.max(1e-9)) as usize).clamp(1, 100_000);
    if reps == 1 {
        return first;
    }
    let t0 = Instant::now();
    for _ in 0..reps {
        black_box(f());
    }
    t0.elapsed().as_secs_f64() / reps as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

fn check(what: &str, natural: &[f64], expert: &[f64]) {
    assert_eq!(natural.len(), expert.len(), "{what}");
    for (i, (a, b)) in natural.iter().zip(expert).enumerate() {
        let scale = 1f64.max(a.abs()).max(b.abs());
        assert!((a - b).abs() <= 1e-8 * scale, "{what}[{i}]: {a} vs {b}");
    }
}

type Job = Box<dyn FnMut() -> Vec<f64>>;

/// A copy of `values` the first time (`first` is then cleared), nothing afterwards.
fn first_only(first: &mut bool, values: &[f64]) -> Vec<f64> {
    if std::mem::take(first) {
        values.to_vec()
    } else {
        Vec::new()
    }
}

/// The `INPUT` argument: only inputs whose label contains it are timed.
static INPUT: std::sync::OnceLock<String> = std::sync::OnceLock::new();

fn case(rounds: usize, eval: &str, size: &str, mut expert: Job, mut natural: Job) {
    if !size.contains(INPUT.get().map_or("", String::as_str)) {
        return;
    }
    check(&format!("{eval} {size}"), &natural(), &expert());
    row(rounds, eval, size, expert, natural);
}

/// Times `expert` and `natural` interleaved and prints their row (no check: they may compute
/// different things).
fn row(rounds: usize, eval: &str, size: &str, mut expert: Job, mut natural: Job) {
    if !size.contains(INPUT.get().map_or("", String::as_str)) {
        return;
    }
    let (mut te, mut tn) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        te.push(time(&mut expert));
        tn.push(time(&mut natural));
    }
    let (e, n) = (median(te), median(tn));
    println!(
        "| {eval} | {size} | {:.3} ms | {:.3} ms | {:.2} |",
        e * 1e3,
        n * 1e3,
        n / e
    );
}

fn gmm_flat(g: gmm::Gradient) -> Vec<f64> {
    [g.alpha, g.mu, g.q, g.l].concat()
}

fn kmeans_problem(n: usize, k: usize, d: usize) -> kmeans::Problem {
    // as the eval: points uniform in [0, 1), the centroids the last k points
    let points: Vec<f64> = uniform(7, n * d).iter().map(|v| 0.5 * (v + 1.0)).collect();
    let rows = |v: &[f64]| v.chunks(d).map(<[f64]>::to_vec).collect::<Vec<_>>();
    kmeans::Problem::from_input(&kmeans::Input {
        points: rows(&points),
        centroids: rows(&points[(n - k) * d..]),
    })
    .unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds = args.first().and_then(|a| a.parse().ok()).unwrap_or(7);
    let filter = args.get(1).cloned().unwrap_or_default();
    INPUT.get_or_init(|| args.get(2).cloned().unwrap_or_default());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    println!("| eval | input | expert | natural | natural ÷ expert |");
    println!("|---|---|---:|---:|---:|");
    let on = |eval: &str| eval.contains(filter.as_str());
    pool.install(|| {
        if on("lse") {
            for n in [10_000, 1_280_000] {
                let x: Vec<f64> = uniform(1, n);
                let x2 = x.clone();
                case(
                    rounds,
                    "lse",
                    &format!("n = {n}"),
                    Box::new(move || lse::gradient(&x).unwrap()),
                    Box::new(move || natural::lse::gradient(&x2)),
                );
            }
        }
        if on("llsq") {
            for n in [1024, 16392] {
                let x: Vec<f64> = uniform(2, 128).iter().map(|v| 0.5 * (v + 1.0)).collect();
                let x2 = x.clone();
                case(
                    rounds,
                    "llsq",
                    &format!("m = 128, n = {n}"),
                    Box::new(move || llsq::gradient(&x, n).unwrap()),
                    Box::new(move || natural::llsq::gradient(&x2, n)),
                );
            }
        }
        if on("gmm") {
            for (d, k) in [(2, 5), (10, 25), (20, 50), (64, 100)] {
                let p = gmm::Problem::random(d, k, 1000, 3);
                let p2 = p.clone();
                case(
                    rounds,
                    "gmm",
                    &format!("d = {d}, K = {k}, n = 1000"),
                    Box::new(move || gmm_flat(p.gradient().unwrap())),
                    Box::new(move || gmm_flat(p2.natural_gradient())),
                );
            }
        }
        if on("ode") {
            for (n, s) in [(1000, 100), (100_000, 10)] {
                let x = uniform(4, n);
                let x2 = x.clone();
                case(
                    rounds,
                    "ode",
                    &format!("n = {n}, s = {s}"),
                    Box::new(move || ode::gradient(&x, s).unwrap()),
                    Box::new(move || natural::ode::gradient(&x2, s)),
                );
            }
        }
        if on("det") {
            for ell in [5, 6, 7] {
                let a = uniform(5, ell * ell);
                let (a2, a3, a4) = (a.clone(), a.clone(), a.clone());
                case(
                    rounds,
                    "det",
                    &format!("ell = {ell}"),
                    Box::new(move || det::gradient(&a, ell).unwrap()),
                    Box::new(move || natural::det::gradient(&a2, ell)),
                );
                // the natural program's plain function alone, no derivative, against the
                // expert gradient: what the user's algorithm (minors down to 1 × 1) costs
                row(
                    rounds,
                    "det (natural: its plain function only)",
                    &format!("ell = {ell}"),
                    Box::new(move || det::gradient(&a3, ell).unwrap()),
                    Box::new(move || vec![natural::det::primal(&a4, ell)]),
                );
            }
        }
        if on("kmeans") {
            for (k, n, d) in [(10, 1000, 8), (10, 10_000, 8), (100, 10_000, 16)] {
                let p = kmeans_problem(n, k, d);
                let p2 = p.clone();
                case(
                    rounds,
                    "kmeans",
                    &format!("k = {k}, n = {n}, d = {d}"),
                    Box::new(move || p.dir().unwrap()),
                    Box::new(move || p2.natural_dir()),
                );
            }
        }
        if on("lstm") {
            for (l, c) in [(2, 1024), (4, 1024)] {
                let p = lstm::Problem::random(l, c, 14, 6);
                let p2 = p.clone();
                case(
                    rounds,
                    "lstm",
                    &format!("l = {l}, c = {c}, b = 14"),
                    Box::new(move || p.gradient().unwrap()),
                    Box::new(move || p2.natural_gradient()),
                );
            }
        }
        if on("ba") {
            // the eval sends one observation replicated (ADBench's files); a random problem of
            // ba1's sizes (49 cameras, 7 776 points, 31 843 observations) instead
            let p = ba::Problem::random(49, 7776, 31_843, 8);
            let p2 = p.clone();
            // into output buffers that the calls share, as under GradBench's CLI; the values
            // are returned by the first call only (for the check), not copied by every call
            let (mut j, mut j2) = (ba::Csr::default(), ba::Csr::default());
            let (mut first, mut first2) = (true, true);
            case(
                rounds,
                "ba",
                "49 cameras, 7 776 points, 31 843 observations",
                Box::new(move || {
                    p.jacobian_into(&mut j);
                    first_only(&mut first, &j.vals)
                }),
                Box::new(move || {
                    p2.natural_jacobian_into(&mut j2);
                    first_only(&mut first2, &j2.vals)
                }),
            );
        }
        if on("ht") {
            // ADBench's hand: 544 vertices, 22 bones; a random one of that size
            for (n, complicated) in [(100, false), (1600, false), (100, true), (1600, true)] {
                let p = ht::Problem::random(544, n, complicated, 9);
                let p2 = p.clone();
                let variant = if complicated { "complicated" } else { "simple" };
                case(
                    rounds,
                    "ht",
                    &format!("{variant}, 544 vertices, {n} points"),
                    Box::new(move || p.jacobian().unwrap().data),
                    Box::new(move || p2.natural_jacobian().data),
                );
            }
        }
    });
}
