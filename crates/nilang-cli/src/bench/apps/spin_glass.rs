//! The spin glass's part of the `apps` table: the ground-state energy by the reversible
//! tropical contraction, its value and gradient (a ground state read off the gradient) and
//! plain dynamic programming.

use super::{size, Part};
use crate::bench::measure::{sci, Group};
use crate::bench::plot::bar_plot;
use crate::bench::{write_plot, Ctx, Table};
use nilang_apps::spinglass::{self, Lattice};
use std::hint::black_box;

/// Measures the spin glass (10 × 10; 6 × 6 quick), after checking its ground state.
pub(super) fn part(ctx: &Ctx) -> Part {
    let (mut notes, mut plots) = (Vec::new(), Vec::new());
    let l = if ctx.quick { 6 } else { 10 };
    let seed = 1;
    let lattice = Lattice::random(l, seed);
    // checked once, outside the timing
    let e0 = spinglass::ground_energy(&lattice);
    let e_dp = spinglass::dynamic_programming(&lattice);
    let (neg_e0, _, _, h_grad) = spinglass::tropical_gradient(&lattice);
    let unit = h_grad.iter().all(|&g| g == 1.0 || g == -1.0);
    let spins: Vec<i8> = h_grad.iter().map(|&g| g as i8).collect();
    let e_spins = lattice.energy(&spins);
    let ground = unit && e_spins == e0;

    let mut g = Group::new();
    let contraction = g.add("tropical contraction", || {
        spinglass::ground_energy(black_box(&lattice))
    });
    let value_gradient = g.add("value + gradient", || {
        spinglass::tropical_gradient(black_box(&lattice))
    });
    let dp = g.add("plain dynamic programming", || {
        spinglass::dynamic_programming(black_box(&lattice))
    });
    let m = ctx.run("apps spin glass", g);
    let mut ts = Table::new(&[
        &format!("spin glass ({l} × {l}, E₀ = {e0})"),
        "time / call",
        "÷ tropical contraction",
        "÷ plain dynamic programming",
        "peak heap",
    ]);
    let spin_rows = [
        (
            "E₀ by the reversible tropical contraction (`ground_energy`)",
            contraction,
        ),
        (
            "**value + gradient by reversal** (`tropical_gradient`: E₀ and a ground state)",
            value_gradient,
        ),
        (
            "E₀ by plain dynamic programming (`dynamic_programming`)",
            dp,
        ),
    ];
    for (what, id) in spin_rows {
        let timing = m.get(id);
        ts.row(vec![
            what.into(),
            sci(timing.seconds),
            m.ratio(id, contraction).cell(),
            m.ratio(id, dp).cell(),
            size(timing.peak_bytes),
        ]);
    }
    let bars: Vec<(String, f64)> = [
        ("tropical contraction", contraction),
        ("value + gradient", value_gradient),
        ("plain dynamic programming", dp),
    ]
    .into_iter()
    .map(|(what, id)| (what.to_string(), m.get(id).seconds))
    .collect();
    plots.extend(write_plot(ctx, "apps-spinglass.svg", |path| {
        bar_plot(
            path,
            &format!("Spin glass ({l} × {l}): time per call"),
            "seconds",
            &bars,
        )
    }));
    notes.push(format!(
        "spin glass: E₀ = {e0} by the tropical contraction, {e_dp} by plain dynamic programming, \
         {} from the gradient run ({}); the configuration read off the gradient (sᵢ = ∂(−E₀)/∂hᵢ) \
         {}",
        -neg_e0,
        if e0 == e_dp && -neg_e0 == e0 {
            "equal"
        } else {
            "**they differ**"
        },
        if ground {
            format!("has energy {e_spins} = E₀: a ground state")
        } else if unit {
            format!("has energy {e_spins} ≠ E₀: **not a ground state**")
        } else {
            "has field gradients other than ±1: **not a configuration**".to_string()
        },
    ));
    notes.push(format!(
        "spin glass: value + gradient ÷ contraction = {}; contraction ÷ plain dynamic \
         programming = {}",
        m.ratio(value_gradient, contraction).cell(),
        m.ratio(contraction, dp).cell(),
    ));

    Part {
        title: format!("spin glass ({l} × {l})"),
        intro: format!(
            "**Spin glass** (`nilang_apps::spinglass`): a {l} × {l} lattice with \
             ±1 couplings (`Lattice::random({l}, {seed})`), zero fields, open boundaries. The \
             tropical contraction is `ground_energy` (`tropical_max` on `Tropical<f64>`: \
             `L²·2^L` tropical maxima over a frontier of `2^{l}` configurations, every vector \
             kept in the workspace until it is uncomputed); value + gradient is \
             `tropical_gradient` (the contraction, then its adjoint program from the seed 1: the \
             gradient with respect to the fields is one ground state, the back-tracking of \
             dynamic programming); the peer is `dynamic_programming`, plain `f64` max and `+` \
             over the same frontier, overwriting two vectors of `2^{l}`."
        ),
        table: ts,
        notes,
        plots,
    }
}
