//! The normalizing flows' part of the `apps` table: the mean negative log-likelihood of NICE
//! (`nilang_apps::flow`) and RealNVP (`nilang_apps::realnvp`) on two moons, as plain Rust and
//! with its gradient by reversal and by the fastest tape engine, with their memory.

use super::{release_tapes, size, Part};
use crate::bench::measure::{sci, Group, Id, Results};
use crate::bench::{Ctx, Table};
use nilang_apps::plain::peers;
use nilang_apps::{flow, realnvp};
use std::hint::black_box;

/// Dimension and hidden width of the flows (those of the example `flow`).
const D: usize = 2;
const H: usize = 16;
/// Coupling layers.
const LAYERS: usize = 6;

/// One flow measured: its plain NLL, its gradient by reversal, by nilang-dualrev.
struct Flow {
    name: &'static str,
    m: Results,
    plain: Id,
    reversal: Id,
    tape: Id,
}

/// Measures one flow in a group of its own, the tapes released first so that the tape's
/// counted call grows its own.
fn measure<A, B, C>(
    ctx: &Ctx,
    name: &'static str,
    plain: impl FnMut() -> A,
    reversal: impl FnMut() -> B,
    tape: impl FnMut() -> C,
) -> Flow {
    let mut g = Group::new();
    let plain = g.add(&format!("{name} NLL"), plain);
    let reversal = g.add(&format!("{name} gradient"), reversal);
    let tape = g.add(&format!("{name} tape"), tape);
    release_tapes();
    let m = ctx.run("apps flows", g);
    release_tapes();
    Flow {
        name,
        m,
        plain,
        reversal,
        tape,
    }
}

/// One flow's rows: time, ratio to its plain NLL, peak heap.
fn rows(table: &mut Table, f: &Flow) {
    for (what, id) in [
        ("NLL, plain Rust", f.plain),
        ("**NLL and gradient by reversal**", f.reversal),
        ("NLL and gradient by a tape (nilang-dualrev)", f.tape),
    ] {
        let timing = f.m.get(id);
        table.row(vec![
            format!("{}: {what}", f.name),
            sci(timing.seconds),
            f.m.ratio(id, f.plain).cell(),
            size(timing.peak_bytes),
        ]);
    }
}

/// Largest difference between two gradients.
fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// Measures NICE and RealNVP (1 000 samples; 100 quick), after checking the reversal
/// gradients against the tape's.
pub(super) fn part(ctx: &Ctx) -> Part {
    let n = if ctx.quick { 100 } else { 1000 };
    let data = flow::two_moons(n, 0.05, 1);
    let nice = flow::initial_parameters(D, H, LAYERS, 2);
    let affine = realnvp::initial_parameters(D, H, LAYERS, 2);
    let points = n as f64;
    let nice_tape =
        |p: &[f64]| peers::dualrev_gradient(|t| flow::nice_nll::<_, D, H>(t, &data, LAYERS), p);
    let affine_tape = |p: &[f64]| {
        peers::dualrev_gradient(|t| realnvp::realnvp_nll::<_, D, H>(t, &data, LAYERS), p)
    };
    // checked once, outside the timing (the tapes' sums are not divided by the samples)
    let per_point = |g: Vec<f64>| g.into_iter().map(|v| v / points).collect::<Vec<_>>();
    let nice_diff = max_diff(
        &flow::nll_and_gradient::<D, H>(&nice, &data, LAYERS).1,
        &per_point(nice_tape(&nice)),
    );
    let affine_diff = max_diff(
        &realnvp::nll_and_gradient::<D, H>(&affine, &data, LAYERS).1,
        &per_point(affine_tape(&affine)),
    );
    let flows = [
        measure(
            ctx,
            "NICE",
            || flow::nice_nll::<f64, D, H>(black_box(&nice), &data, LAYERS),
            || flow::nll_and_gradient::<D, H>(black_box(&nice), &data, LAYERS),
            || nice_tape(black_box(&nice)),
        ),
        measure(
            ctx,
            "RealNVP",
            || realnvp::realnvp_nll::<f64, D, H>(black_box(&affine), &data, LAYERS),
            || realnvp::nll_and_gradient::<D, H>(black_box(&affine), &data, LAYERS),
            || affine_tape(black_box(&affine)),
        ),
    ];
    let mut table = Table::new(&[
        &format!("normalizing flows ({n} samples, {LAYERS} layers, H = {H})"),
        "time / call",
        "÷ plain NLL",
        "peak heap",
    ]);
    flows.iter().for_each(|f| rows(&mut table, f));
    let agree = |d: f64| {
        if d <= 1e-10 {
            "agrees"
        } else {
            "**disagrees**"
        }
    };
    Part {
        title: format!("normalizing flows ({n} samples)"),
        intro: format!(
            "**Normalizing flows** (`nilang_apps::flow`, NICE, and `nilang_apps::realnvp`, \
             RealNVP; the example `flow`): the mean negative log-likelihood of {n} two-moons \
             samples (`flow::two_moons({n}, 0.05, 1)`) under {LAYERS} coupling layers of width \
             {H}, as plain Rust over `f64` (`nice_nll`, `realnvp_nll`), with its gradient by \
             reversal (`nll_and_gradient`: the inverse program, whose memory is the parameters \
             and one sample's ancillas whatever the number of samples) and by the fastest tape \
             engine of the other tables on the same plain code (`nilang_apps::plain::peers::\
             dualrev_gradient`, whose tape grows with the samples)."
        ),
        table,
        notes: vec![format!(
            "flows: the reversal gradient {} with the tape's (largest difference {nice_diff:.1e}) \
             for NICE and {} ({affine_diff:.1e}) for RealNVP",
            agree(nice_diff),
            agree(affine_diff),
        )],
        plots: Vec::new(),
    }
}
