//! Table: the guide's worked examples (`nilang_apps::guide`: GMM, RK4 Lotka–Volterra with the
//! trajectory and with ⌈log₂ T⌉ states, MLP), written as the guide teaches with default
//! settings — native objective, the reversible program forward, its gradient by `f_vjp`, and
//! nilang-dualrev's gradient of the same plain objective, with gradient ÷ native objective
//! against issue 26's target (≤ 4); and each program again as ordinary Rust under
//! `#[differentiable]` (`nilang_apps::guide::ordinary`, issue 28), against the same native
//! objective; and a k-means cost as ordinary Rust (GradBench's natural kmeans,
//! `nilang_gradbench::evals::natural::kmeans`), against the same function undifferentiated.

use super::measure::{sci, Group, Verdict};
use super::{Ctx, Section, Table};
use nilang_apps::adbench::{gmm_objective, GmmData};
use nilang_apps::guide::{gmm, mlp, ordinary, rk4, CHECKED};
use nilang_apps::plain::peers;
use nilang_gradbench::evals::natural::kmeans::{
    kmeans_cost, kmeans_cost_gradient, kmeans_cost_rev,
};
use nilang_gradbench::seeded::uniform;

/// Gradient ÷ native objective wanted for every program (issue 26).
const TARGET: f64 = 4.0;

/// Number of measurements of this section: native, forward and gradient of every program,
/// nilang-dualrev's gradient of GMM at d 10 and of the MLP, the checkpointed RK4's three and
/// the k-means cost's three.
pub fn measurements(quick: bool) -> u64 {
    if quick {
        3 * 3 * 2 + 2 + 3 + 3
    } else {
        3 * 4 * 2 + 2 + 3 + 3
    }
}

/// MiB with two decimals, or two significant digits below 0.01 MiB (a checkpointed loop's
/// kilobyte).
fn mib(bytes: usize) -> String {
    let mib = bytes as f64 / (1024.0 * 1024.0);
    if mib >= 0.01 || bytes == 0 {
        format!("{mib:.2}")
    } else {
        format!("{mib:.1e}")
    }
}

/// Times one program's variants (interleaved, see [`super::measure`]) and adds its row.
#[allow(clippy::too_many_arguments)]
fn measure<R>(
    ctx: &Ctx,
    t: &mut Table,
    verdicts: &mut Vec<Verdict>,
    name: &str,
    native: impl FnMut() -> f64,
    forward: impl FnMut() -> f64,
    gradient: impl FnMut() -> (f64, Vec<f64>),
    dualrev: Option<impl FnMut() -> R>,
) {
    let mut g = Group::new();
    let native = g.add("native", native);
    let forward = g.add("forward", forward);
    let gradient = g.add("gradient", gradient);
    let dualrev = dualrev.map(|f| g.add("dualrev", f));
    let m = ctx.run(&format!("guide {name}"), g);
    let ratio = m.ratio(gradient, native);
    verdicts.push(ratio.verdict(TARGET));
    t.row(vec![
        name.to_string(),
        sci(m.get(native).seconds),
        sci(m.get(forward).seconds),
        sci(m.get(gradient).seconds),
        ratio.cell(),
        m.ratio(forward, native).cell(),
        dualrev.map_or("—".into(), |id| m.ratio(id, native).cell()),
        mib(m.get(gradient).peak_bytes),
    ]);
}

/// Runs the section.
pub fn run(ctx: &Ctx) -> Section {
    // (d, k, n, with nilang-dualrev): its tape at d 64 takes about 13 GB (issue 26)
    let gmm_sizes: &[(usize, usize, usize, bool)] = if ctx.quick {
        &[(10, 25, 100, true)]
    } else {
        &[(10, 25, 1000, true), (64, 100, 1000, false)]
    };
    let (steps, batch) = if ctx.quick { (1000, 32) } else { (10_000, 256) };
    let mut t = Table::new(&[
        "program",
        "native objective",
        "nilang forward",
        "**nilang gradient (f_vjp)**",
        "**gradient ÷ native**",
        "forward ÷ native",
        "nilang-dualrev gradient ÷ native",
        "gradient peak MiB",
    ]);
    let mut verdicts = Vec::new();
    for &(d, k, n, with_dualrev) in gmm_sizes {
        let p = gmm::Problem::random(d, k, n, 1);
        let (mut theta2, mut theta3) = (p.theta.clone(), p.theta.clone());
        let data = GmmData {
            d,
            k,
            x: &p.x,
            gamma: p.gamma,
            m: p.m,
            constant: p.constant,
        };
        measure(
            ctx,
            &mut t,
            &mut verdicts,
            &format!("GMM d {d}, k {k}, n {n}"),
            || p.native(&p.theta),
            || p.forward(&mut theta2),
            || p.gradient(&mut theta3),
            with_dualrev
                .then_some(|| peers::dualrev_gradient(|t| gmm_objective(&data, t), &p.theta)),
        );
        let mut theta4 = p.theta.clone();
        measure(
            ctx,
            &mut t,
            &mut verdicts,
            &format!("GMM d {d}, k {k}, n {n} — ordinary Rust"),
            || p.native(&p.theta),
            || ordinary::gmm_forward_of(&p, &mut theta4),
            || ordinary::gmm_gradient_of(&p),
            None::<fn()>,
        );
    }
    let p = rk4::Problem::new(steps);
    let (mut p2, mut p3) = (p.clone(), p.clone());
    measure(
        ctx,
        &mut t,
        &mut verdicts,
        &format!("RK4 Lotka–Volterra, {steps} steps, trajectory kept"),
        || p.native(),
        || p2.forward(),
        || p3.gradient(),
        None::<fn()>,
    );
    // O(log T) kept states
    let snapshots = steps.next_power_of_two().trailing_zeros() as usize;
    let mut p5 = p.clone();
    measure(
        ctx,
        &mut t,
        &mut verdicts,
        &format!("RK4, {steps} steps, {snapshots} = ⌈log₂ T⌉ states kept (Treeverse)"),
        || p.native(),
        || p5.stepped_forward(),
        || p.checkpointed_gradient(snapshots),
        None::<fn()>,
    );
    let mut p4 = p.clone();
    measure(
        ctx,
        &mut t,
        &mut verdicts,
        &format!("RK4 Lotka–Volterra, {steps} steps — ordinary Rust"),
        || p.native(),
        || ordinary::rk4_forward_of(&mut p4),
        || ordinary::rk4_gradient_of(&p),
        None::<fn()>,
    );
    let p = mlp::Problem::random(32, 64, batch, 1);
    let (mut theta2, mut theta3) = (p.theta.clone(), p.theta.clone());
    measure(
        ctx,
        &mut t,
        &mut verdicts,
        &format!("MLP 32-64-1, batch {batch}"),
        || p.native(&p.theta),
        || p.forward(&mut theta2),
        || p.gradient(&mut theta3),
        Some(|| peers::dualrev_gradient(|t| mlp::native(t, &p.x, &p.y, p.din, p.h), &p.theta)),
    );
    let mut theta4 = p.theta.clone();
    measure(
        ctx,
        &mut t,
        &mut verdicts,
        &format!("MLP 32-64-1, batch {batch} — ordinary Rust"),
        || p.native(&p.theta),
        || ordinary::mlp_forward_of(&p, &mut theta4),
        || ordinary::mlp_gradient_of(&p),
        None::<fn()>,
    );
    let (n, k, d) = if ctx.quick {
        (500, 32, 8)
    } else {
        (20_000, 64, 8)
    };
    // points and centroids uniform in [0, 1)
    let points: Vec<f64> = uniform(1, n * d).iter().map(|v| 0.5 * (v + 1.0)).collect();
    let centroids: Vec<f64> = uniform(2, k * d).iter().map(|v| 0.5 * (v + 1.0)).collect();
    let mut c = centroids.clone();
    measure(
        ctx,
        &mut t,
        &mut verdicts,
        &format!("k-means k {k}, d {d}, n {n} — ordinary Rust"),
        || kmeans_cost(&points, &centroids, d),
        || {
            let mut out = 0.0;
            kmeans_cost_rev(&mut out, &points, &mut c, d);
            out
        },
        || kmeans_cost_gradient(&points, &centroids, d),
        None::<fn()>,
    );
    let checks = if CHECKED {
        "**on** (`nilang-apps` built with `debug-assertions = true`: what `#[i(check)]` costs)"
    } else {
        "off (the release default)"
    };
    Section {
        title: format!("The guide's worked examples (checks {})", if CHECKED { "on" } else { "off" }),
        intro: format!(
            "Seconds per call of `nilang_apps::guide` (`nilang::guide::examples`): programs written as the guide \
             teaches, `#[i]` with default settings, and again as ordinary Rust under `#[differentiable]` \
             (rows marked so), beside their plain-Rust objectives (GMM: \
             `nilang_apps::adbench::gmm_objective`, Wishart prior terms included). Reversibility checks: {checks}. \
             The gradient is `f_vjp` (value and gradient in one call); nilang-dualrev tapes the plain objective. \
             Peak MiB is the largest live heap above the level before one call of the gradient."
        ),
        tables: vec![t],
        notes: vec![format!(
            "gradient ÷ native objective ≤ {TARGET} on every program (issue 26): {}",
            Verdict::all(verdicts).words("see the profile in `nilang::guide::examples`")
        )],
        plots: Vec::new(),
    }
}
