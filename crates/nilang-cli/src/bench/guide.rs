//! Table: the guide's worked examples (`nilang_apps::guide`: GMM, RK4 Lotka–Volterra, MLP),
//! written as the guide teaches with default settings — native objective, the reversible
//! program forward, its gradient by `f_vjp`, and nilang-dualrev's gradient of the same plain
//! objective, with gradient ÷ native objective against issue 26's target (≤ 4).

use super::measure::{sci, Group, Verdict};
use super::{Ctx, Section, Table};
use nilang_apps::guide::{gmm, mlp, rk4, CHECKED};
use nilang_apps::plain::peers;

/// Gradient ÷ native objective wanted for every program (issue 26).
const TARGET: f64 = 4.0;

/// Number of measurements of this section.
pub fn measurements(quick: bool) -> u64 {
    if quick {
        4 * 3
    } else {
        4 * 4 - 1
    }
}

fn mib(bytes: usize) -> String {
    format!("{:.2}", bytes as f64 / (1024.0 * 1024.0))
}

/// A program's four variants: `(name, native, forward, gradient, dualrev gradient if any)`.
struct Program<'a> {
    name: String,
    native: Box<dyn FnMut() -> f64 + 'a>,
    forward: Box<dyn FnMut() -> f64 + 'a>,
    gradient: Box<dyn FnMut() -> (f64, Vec<f64>) + 'a>,
    dualrev: Option<Box<dyn FnMut() -> Vec<f64> + 'a>>,
}

fn gmm_program(d: usize, k: usize, n: usize, with_dualrev: bool) -> Program<'static> {
    let p = std::rc::Rc::new(gmm::Problem::random(d, k, n, 1));
    let (p1, p2, p3, p4) = (p.clone(), p.clone(), p.clone(), p);
    let (mut t2, mut t3) = (p1.theta.clone(), p1.theta.clone());
    Program {
        name: format!("GMM d {d}, k {k}, n {n}"),
        native: Box::new(move || p1.native(&p1.theta)),
        forward: Box::new(move || p2.forward(&mut t2)),
        gradient: Box::new(move || p3.gradient(&mut t3)),
        dualrev: with_dualrev.then(|| {
            Box::new(move || {
                let data = nilang_apps::adbench::GmmData {
                    d: p4.d,
                    k: p4.k,
                    x: &p4.x,
                    gamma: p4.gamma,
                    m: p4.m,
                    constant: p4.constant,
                };
                peers::dualrev_gradient(
                    |t| nilang_apps::adbench::gmm_objective(&data, t),
                    &p4.theta,
                )
            }) as Box<dyn FnMut() -> Vec<f64>>
        }),
    }
}

fn rk4_program(steps: usize) -> Program<'static> {
    let p = rk4::Problem::new(steps);
    let (mut p2, mut p3) = (p.clone(), p.clone());
    Program {
        name: format!("RK4 Lotka–Volterra, {steps} steps, trajectory kept"),
        native: Box::new(move || p.native()),
        forward: Box::new(move || p2.forward()),
        gradient: Box::new(move || p3.gradient()),
        dualrev: None,
    }
}

fn mlp_program(din: usize, h: usize, n: usize) -> Program<'static> {
    let p = std::rc::Rc::new(mlp::Problem::random(din, h, n, 1));
    let (p1, p2, p3, p4) = (p.clone(), p.clone(), p.clone(), p);
    let (mut t2, mut t3) = (p1.theta.clone(), p1.theta.clone());
    Program {
        name: format!("MLP {din}-{h}-1, batch {n}"),
        native: Box::new(move || p1.native(&p1.theta)),
        forward: Box::new(move || p2.forward(&mut t2)),
        gradient: Box::new(move || p3.gradient(&mut t3)),
        dualrev: Some(Box::new(move || {
            peers::dualrev_gradient(|t| mlp::native(t, &p4.x, &p4.y, p4.din, p4.h), &p4.theta)
        })),
    }
}

/// Runs the section.
pub fn run(ctx: &Ctx) -> Section {
    let programs = if ctx.quick {
        vec![
            gmm_program(10, 25, 100, true),
            rk4_program(1000),
            mlp_program(32, 64, 32),
        ]
    } else {
        vec![
            gmm_program(10, 25, 1000, true),
            // nilang-dualrev's tape at this size takes about 13 GB (issue 26): left out
            gmm_program(64, 100, 1000, false),
            rk4_program(10_000),
            mlp_program(32, 64, 256),
        ]
    };
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
    for mut prog in programs {
        let mut g = Group::new();
        let native = g.add("native", &mut prog.native);
        let forward = g.add("forward", &mut prog.forward);
        let gradient = g.add("gradient", &mut prog.gradient);
        let dualrev = prog.dualrev.as_mut().map(|f| g.add("dualrev", f));
        let m = ctx.run(&format!("guide {}", prog.name), g);
        let ratio = m.ratio(gradient, native);
        verdicts.push(ratio.verdict(TARGET));
        t.row(vec![
            prog.name.clone(),
            sci(m.get(native).seconds),
            sci(m.get(forward).seconds),
            sci(m.get(gradient).seconds),
            ratio.cell(),
            m.ratio(forward, native).cell(),
            dualrev.map_or("—".into(), |id| m.ratio(id, native).cell()),
            mib(m.get(gradient).peak_bytes),
        ]);
    }
    let checks = if CHECKED {
        "**on** (`nilang-apps` built with `debug-assertions = true`: what `#[i(check)]` costs)"
    } else {
        "off (the release default)"
    };
    Section {
        title: format!("The guide's worked examples (checks {})", if CHECKED { "on" } else { "off" }),
        intro: format!(
            "Seconds per call of `nilang_apps::guide` (`nilang::guide::examples`): programs written as the guide \
             teaches, `#[i]` with default settings, beside their plain-Rust objectives (GMM: \
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
