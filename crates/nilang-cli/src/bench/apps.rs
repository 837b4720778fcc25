//! Table: the two applications of `nilang-apps` that had only examples — a variational
//! quantum circuit (`nilang_apps::quantum`: energy, plain state-vector simulator, gradient by
//! reversal) and the ground state of a spin glass (`nilang_apps::spinglass`: tropical
//! contraction, ground state from the gradient, plain dynamic programming).

use super::measure::{sci, Group};
use super::plot::bar_plot;
use super::{write_plot, Ctx, Section, Table};
use nilang_apps::quantum::{self, Circuit};
use nilang_apps::spinglass::{self, Lattice};
use std::hint::black_box;

/// Number of measurements of this section: three variants of the circuit, three of the
/// spin glass.
pub const MEASUREMENTS: u64 = 6;

/// The circuit's angles `θ_k = 0.37 k mod 3.1 − 1.5` (those of the example `quantum`).
fn angles(c: &Circuit) -> Vec<f64> {
    (0..c.parameters())
        .map(|k| 0.37 * k as f64 % 3.1 - 1.5)
        .collect()
}

/// The circuit of `qubits` qubits and `layers` layers with `J = g = 1`.
fn circuit(qubits: usize, layers: usize) -> Circuit {
    Circuit {
        qubits,
        layers,
        j: 1.0,
        g: 1.0,
    }
}

/// Bytes in MiB from 1 MiB up, in KiB below.
fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{:.2} MiB", bytes as f64 / (1u64 << 20) as f64)
    } else {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    }
}

/// Runs the section.
pub fn run(ctx: &Ctx) -> Section {
    let mut notes = Vec::new();
    let mut plots = Vec::new();

    // ---- quantum circuit ----
    let (qubits, layers) = if ctx.quick { (10, 2) } else { (16, 4) };
    let c = circuit(qubits, layers);
    let theta = angles(&c);
    // checked once, outside the timing
    let e_rev = c.energy(&theta);
    let e_plain = quantum::plain::energy(&c, &theta);
    let (e_grad, grad) = quantum::energy_and_gradient(&c, &theta);
    let grad_norm = grad.iter().map(|g| g * g).sum::<f64>().sqrt();
    let small = circuit(6, 2);
    let small_theta = angles(&small);
    let (_, small_grad) = quantum::energy_and_gradient(&small, &small_theta);
    let shift = quantum::parameter_shift(&small, &small_theta);
    let shift_diff = small_grad
        .iter()
        .zip(&shift)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    let small_norm = small_grad.iter().map(|g| g * g).sum::<f64>().sqrt();

    let mut g = Group::new();
    let energy = g.add("reversible energy", || c.energy(black_box(&theta)));
    let plain = g.add("plain simulator energy", || {
        quantum::plain::energy(&c, black_box(&theta))
    });
    let gradient = g.add("energy and gradient by reversal", || {
        quantum::energy_and_gradient(&c, black_box(&theta))
    });
    let m = ctx.run("apps quantum", g);
    let mut tq = Table::new(&[
        &format!("quantum circuit ({qubits} qubits, {layers} layers)"),
        "time / call",
        "÷ reversible energy",
        "peak heap",
    ]);
    let quantum_rows = [
        ("energy, the reversible program (`Circuit::energy`)", energy),
        (
            "energy, a plain state-vector simulator (`quantum::plain::energy`)",
            plain,
        ),
        (
            "**energy and gradient by reversal** (`energy_and_gradient`)",
            gradient,
        ),
    ];
    for (what, id) in quantum_rows {
        let timing = m.get(id);
        tq.row(vec![
            what.into(),
            sci(timing.seconds),
            m.ratio(id, energy).cell(),
            size(timing.peak_bytes),
        ]);
    }
    let bars: Vec<(String, f64)> = [
        ("reversible energy", energy),
        ("plain simulator energy", plain),
        ("energy and gradient by reversal", gradient),
    ]
    .into_iter()
    .map(|(what, id)| (what.to_string(), m.get(id).seconds))
    .collect();
    plots.extend(write_plot(ctx, "apps-quantum.svg", |path| {
        bar_plot(
            path,
            &format!("Quantum circuit ({qubits} qubits, {layers} layers): time per call"),
            "seconds",
            &bars,
        )
    }));
    let p = c.parameters();
    notes.push(format!(
        "quantum: E(θ) = {e_rev:.12} by the reversible program, {e_plain:.12} by the plain \
         simulator (difference {:.1e}), {e_grad:.12} from the gradient run; |∇E| = {grad_norm:.4}; \
         energy and gradient ÷ reversible energy = {}, ÷ plain simulator energy = {}",
        (e_rev - e_plain).abs(),
        m.ratio(gradient, energy).cell(),
        m.ratio(gradient, plain).cell(),
    ));
    notes.push(format!(
        "quantum: the reversal gradient {} the parameter-shift rule on a {}-qubit, {}-layer \
         circuit (same angles, {} energies, not timed): largest absolute difference \
         {shift_diff:.1e}, |∇E| = {small_norm:.4}; at {qubits} qubits the parameter-shift \
         gradient would take {} energies ({p} angles), about {}× the reversal gradient's time \
         by the medians above (not timed)",
        if shift_diff <= 1e-10 * small_norm.max(1.0) {
            "agrees with"
        } else {
            "**disagrees** with"
        },
        small.qubits,
        small.layers,
        2 * small.parameters(),
        2 * p,
        format_args!(
            "{:.0}",
            2.0 * p as f64 * m.get(energy).seconds / m.get(gradient).seconds
        ),
    ));

    // ---- spin glass ----
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

    Section {
        title: format!(
            "Quantum circuit ({qubits} qubits, {layers} layers) and spin glass ({l} × {l})"
        ),
        intro: format!(
            "The two applications of `nilang-apps` beyond the papers' tables (their examples \
             `quantum` and `spinglass`), seconds per call; each application's three variants are \
             measured together. **Quantum circuit** (`nilang_apps::quantum`): {qubits} qubits \
             (2^{qubits} amplitudes, {} per state vector), {layers} layers of `Rx Ry Rz` per \
             qubit and a ring of CNOTs closed by a CZ, {p} angles `θ_k = 0.37 k mod 3.1 − 1.5`, \
             the energy ⟨ψ|H|ψ⟩ of the transverse-field Ising chain (`J = g = 1`). The reversible \
             energy is `Circuit::energy` (`vqe_energy` on `f64`); the plain simulator \
             `quantum::plain::energy` applies 2×2 complex gate matrices and the Hamiltonian as a \
             matrix; the gradient with respect to every angle is `energy_and_gradient` \
             (`vqe_energy_vjp`: the energy forward, then the adjoint program runs the energy and \
             the circuit backwards on amplitudes and their gradients, uncomputing the state gate \
             by gate, so it holds two state vectors whatever the depth). Every call allocates its \
             own state vectors (the peak heap column). The parameter-shift gradient (two \
             energies per angle) is not timed; it is compared with the reversal gradient on a \
             small circuit. **Spin glass** (`nilang_apps::spinglass`): a {l} × {l} lattice with \
             ±1 couplings (`Lattice::random({l}, {seed})`), zero fields, open boundaries. The \
             tropical contraction is `ground_energy` (`tropical_max` on `Tropical<f64>`: \
             `L²·2^L` tropical maxima over a frontier of `2^{l}` configurations, every vector \
             kept in the workspace until it is uncomputed); value + gradient is \
             `tropical_gradient` (the contraction, then its adjoint program from the seed 1: the \
             gradient with respect to the fields is one ground state, the back-tracking of \
             dynamic programming); the peer is `dynamic_programming`, plain `f64` max and `+` \
             over the same frontier, overwriting two vectors of `2^{l}`.",
            size(16 << qubits),
        ),
        tables: vec![tq, ts],
        notes,
        plots,
    }
}
