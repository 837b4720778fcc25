//! The quantum circuit's part of the `apps` table: the reversible energy, a plain
//! state-vector simulator, the energy and gradient by reversal, and the same gradient by the
//! tape engines on the plain simulator (`quantum::plain::energy_generic`) with their memory.

use super::{release_tapes, size, Part};
use crate::bench::measure::{sci, Group, Id, Results};
use crate::bench::plot::bar_plot;
use crate::bench::{write_plot, Ctx, Table};
use nilang_apps::plain::peers;
use nilang_apps::quantum::{self, Circuit};
use std::hint::black_box;

/// Qubits of the circuit whose gradient the tape engines take in the full run (the layers are
/// the full run's). Their tapes record every real operation of the plain simulator, so they
/// grow with gates × `2ⁿ`: at 16 qubits and 4 layers about 1.8·10⁸ operations. One-off runs
/// there (2026-11-30, loaded 2-core machine) took 5.4 GiB (nilang-dualrev) and 6.1 GiB
/// (echidna) resident per gradient, more of counted heap (a tape's vector holds its old and
/// its doubled buffer while it grows), and 1.1 s and 4.2 s per gradient with the tape's
/// buffers reused (4.2 s and 6.6 s for the first call, which grows them). Every engine keeps
/// its buffers between calls (a pooled tape, a reused Wengert list), so measured together
/// they would hold about 18 GiB; 14 qubits takes about 4.6 times less of time and memory.
const TAPE_QUBITS: usize = 14;

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

/// What is checked once, outside the timing: the energies by the reversible program, the plain
/// simulator and the gradient run, and, on a small circuit, the reversal gradient against the
/// parameter-shift rule and the tape engines' gradients.
struct Checks {
    e_rev: f64,
    e_plain: f64,
    e_grad: f64,
    grad_norm: f64,
    small: Circuit,
    small_norm: f64,
    shift_diff: f64,
    tape_diff: f64,
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|g| g * g).sum::<f64>().sqrt()
}

fn checks(c: &Circuit) -> Checks {
    let theta = angles(c);
    let (e_grad, grad) = quantum::energy_and_gradient(c, &theta);
    let small = circuit(6, 2);
    let small_theta = angles(&small);
    let (_, small_grad) = quantum::energy_and_gradient(&small, &small_theta);
    let shift = quantum::parameter_shift(&small, &small_theta);
    let list = easy_ml::differentiation::WengertList::new();
    let tapes = [
        peers::dualrev_gradient(|t| quantum::plain::energy_generic(&small, t), &small_theta),
        peers::echidna_gradient(|t| quantum::plain::energy_generic(&small, t), &small_theta),
        peers::easy_ml_gradient(
            &list,
            |t| quantum::plain::energy_generic(&small, t),
            &small_theta,
        ),
    ];
    release_tapes();
    Checks {
        e_rev: c.energy(&theta),
        e_plain: quantum::plain::energy(c, &theta),
        e_grad,
        grad_norm: norm(&grad),
        small_norm: norm(&small_grad),
        shift_diff: max_diff(&small_grad, &shift),
        tape_diff: tapes
            .iter()
            .map(|g| max_diff(g, &small_grad))
            .fold(0.0, f64::max),
        small,
    }
}

/// The full-size group: the reversible energy, the plain simulator's, and the reversal
/// gradient.
struct Main {
    m: Results,
    energy: Id,
    plain: Id,
    gradient: Id,
}

fn measure_main(ctx: &Ctx, c: &Circuit) -> Main {
    let theta = angles(c);
    let mut g = Group::new();
    let energy = g.add("reversible energy", || c.energy(black_box(&theta)));
    let plain = g.add("plain simulator energy", || {
        quantum::plain::energy(c, black_box(&theta))
    });
    let gradient = g.add("energy and gradient by reversal", || {
        quantum::energy_and_gradient(c, black_box(&theta))
    });
    let m = ctx.run("apps quantum", g);
    Main {
        m,
        energy,
        plain,
        gradient,
    }
}

/// The tapes' group, at a size their tapes fit: the reversible energy and gradient there, and
/// the gradient of the plain simulator by each tape engine.
struct Tapes {
    m: Results,
    circuit: Circuit,
    energy: Id,
    gradient: Id,
    engines: [(&'static str, Id); 3],
}

fn measure_tapes(ctx: &Ctx, c: &Circuit) -> Tapes {
    let tq = if ctx.quick { c.qubits } else { TAPE_QUBITS };
    let tc = circuit(tq, c.layers);
    let t_theta = angles(&tc);
    let t_list = easy_ml::differentiation::WengertList::new();
    let mut g = Group::new();
    let energy = g.add("reversible energy (tape size)", || {
        tc.energy(black_box(&t_theta))
    });
    let gradient = g.add("energy and gradient by reversal (tape size)", || {
        quantum::energy_and_gradient(&tc, black_box(&t_theta))
    });
    let dualrev = g.add("nilang-dualrev gradient", || {
        peers::dualrev_gradient(
            |t| quantum::plain::energy_generic(&tc, t),
            black_box(&t_theta),
        )
    });
    let echidna = g.add("echidna gradient", || {
        peers::echidna_gradient(
            |t| quantum::plain::energy_generic(&tc, t),
            black_box(&t_theta),
        )
    });
    let easy_ml = g.add("easy-ml gradient", || {
        peers::easy_ml_gradient(
            &t_list,
            |t| quantum::plain::energy_generic(&tc, t),
            black_box(&t_theta),
        )
    });
    release_tapes();
    let m = ctx.run("apps quantum tapes", g);
    release_tapes();
    drop(t_list);
    Tapes {
        m,
        circuit: tc,
        energy,
        gradient,
        engines: [
            ("nilang-dualrev", dualrev),
            ("echidna", echidna),
            ("easy-ml", easy_ml),
        ],
    }
}

/// The table: the full-size rows, then the tapes' group (with the reversible energy and
/// gradient at its size when that differs).
fn table(c: &Circuit, main: &Main, tapes: &Tapes) -> Table {
    let (qubits, layers, tq) = (c.qubits, c.layers, tapes.circuit.qubits);
    let mut table = Table::new(&[
        &format!("quantum circuit ({qubits} qubits, {layers} layers)"),
        "time / call",
        "÷ reversible energy",
        "peak heap",
    ]);
    let at = if tq == qubits {
        String::new()
    } else {
        format!(", **at {tq} qubits**")
    };
    let (m, mt) = (&main.m, &tapes.m);
    let mut rows = vec![
        (
            "energy, the reversible program (`Circuit::energy`)".to_string(),
            m,
            main.energy,
            main.energy,
        ),
        (
            "energy, a plain state-vector simulator (`quantum::plain::energy`)".to_string(),
            m,
            main.plain,
            main.energy,
        ),
        (
            "**energy and gradient by reversal** (`energy_and_gradient`)".to_string(),
            m,
            main.gradient,
            main.energy,
        ),
    ];
    if tq != qubits {
        rows.push((
            format!("energy, the reversible program{at}"),
            mt,
            tapes.energy,
            tapes.energy,
        ));
        rows.push((
            format!("**energy and gradient by reversal**{at}"),
            mt,
            tapes.gradient,
            tapes.energy,
        ));
    }
    for (engine, id) in tapes.engines {
        rows.push((
            format!("gradient by a tape: {engine} on `plain::energy_generic`{at}"),
            mt,
            id,
            tapes.energy,
        ));
    }
    for (what, results, id, den) in rows {
        let timing = results.get(id);
        table.row(vec![
            what,
            sci(timing.seconds),
            results.ratio(id, den).cell(),
            size(timing.peak_bytes),
        ]);
    }
    table
}

/// Peak heap of a variant of the tapes' group, in MiB.
fn mib(tapes: &Tapes, id: Id) -> f64 {
    tapes.m.get(id).peak_bytes as f64 / (1u64 << 20) as f64
}

/// The time per call at full size, and the gradients' peak heap at the tapes' size.
fn plots(ctx: &Ctx, c: &Circuit, main: &Main, tapes: &Tapes) -> Vec<String> {
    let bars: Vec<(String, f64)> = [
        ("reversible energy", main.energy),
        ("plain simulator energy", main.plain),
        ("energy and gradient by reversal", main.gradient),
    ]
    .into_iter()
    .map(|(what, id)| (what.to_string(), main.m.get(id).seconds))
    .collect();
    let mut plots = write_plot(ctx, "apps-quantum.svg", |path| {
        bar_plot(
            path,
            &format!(
                "Quantum circuit ({} qubits, {} layers): time per call",
                c.qubits, c.layers
            ),
            "seconds",
            &bars,
        )
    });
    let memory_bars: Vec<(String, f64)> = std::iter::once(("gradient by reversal", tapes.gradient))
        .chain(tapes.engines)
        .map(|(what, id)| {
            let what = if id == tapes.gradient {
                what.to_string()
            } else {
                format!("tape: {what}")
            };
            (what, mib(tapes, id))
        })
        .collect();
    plots.extend(write_plot(ctx, "apps-quantum-memory.svg", |path| {
        bar_plot(
            path,
            &format!(
                "Quantum circuit ({} qubits, {} layers): peak heap of the gradient",
                tapes.circuit.qubits, c.layers
            ),
            "MiB",
            &memory_bars,
        )
    }));
    plots
}

/// "agrees with" when the largest difference is within 1e-10 of the gradient's norm, else a
/// bold "disagrees with" (`plural`: "agree with").
fn agreement(diff: f64, norm: f64, plural: bool) -> &'static str {
    match (diff <= 1e-10 * norm.max(1.0), plural) {
        (true, false) => "agrees with",
        (true, true) => "agree with",
        (false, false) => "**disagrees** with",
        (false, true) => "**disagree** with",
    }
}

/// The checks' results and the ratios the table does not show.
fn notes(c: &Circuit, k: &Checks, main: &Main, tapes: &Tapes) -> Vec<String> {
    let (qubits, small) = (c.qubits, &k.small);
    let (e_rev, e_plain, e_grad, grad_norm) = (k.e_rev, k.e_plain, k.e_grad, k.grad_norm);
    let (shift_diff, small_norm, tape_diff) = (k.shift_diff, k.small_norm, k.tape_diff);
    let (m, energy, plain, gradient) = (&main.m, main.energy, main.plain, main.gradient);
    let (mt, tc, t_gradient) = (&tapes.m, &tapes.circuit, tapes.gradient);
    let tq = tc.qubits;
    let [(_, dualrev), (_, echidna), (_, easy_ml)] = tapes.engines;
    let mib = |id| mib(tapes, id);
    let mut out = Vec::new();
    let p = c.parameters();
    out.push(format!(
        "quantum: E(θ) = {e_rev:.12} by the reversible program, {e_plain:.12} by the plain \
         simulator (difference {:.1e}), {e_grad:.12} from the gradient run; |∇E| = {grad_norm:.4}; \
         energy and gradient ÷ reversible energy = {}, ÷ plain simulator energy = {}",
        (e_rev - e_plain).abs(),
        m.ratio(gradient, energy).cell(),
        m.ratio(gradient, plain).cell(),
    ));
    out.push(format!(
        "quantum: the reversal gradient {} the parameter-shift rule on a {}-qubit, {}-layer \
         circuit (same angles, {} energies, not timed): largest absolute difference \
         {shift_diff:.1e}, |∇E| = {small_norm:.4}; at {qubits} qubits the parameter-shift \
         gradient would take {} energies ({p} angles), about {}× the reversal gradient's time \
         by the medians above (not timed)",
        agreement(shift_diff, small_norm, false),
        small.qubits,
        small.layers,
        2 * small.parameters(),
        2 * p,
        format_args!(
            "{:.0}",
            2.0 * p as f64 * m.get(energy).seconds / m.get(gradient).seconds
        ),
    ));
    let tape_peaks = [dualrev, echidna, easy_ml].map(|id| mt.get(id).peak_bytes);
    let (lo, hi) = [dualrev, echidna, easy_ml]
        .iter()
        .map(|&id| mib(id) / mib(t_gradient))
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), r| {
            (lo.min(r), hi.max(r))
        });
    let fastest = mt.fastest(&[dualrev, echidna, easy_ml]);
    let fastest_name = [
        (dualrev, "nilang-dualrev"),
        (echidna, "echidna"),
        (easy_ml, "easy-ml"),
    ]
    .into_iter()
    .find(|&(id, _)| id == fastest)
    .map_or("", |(_, name)| name);
    out.push(format!(
        "quantum: the tape engines' gradients of the plain simulator {} the reversal gradient on \
         the {}-qubit, {}-layer circuit (largest absolute difference {tape_diff:.1e}); at {tq} \
         qubits their peak heap is \
         {} to {}, {lo:.0}–{hi:.0}× the reversal gradient's {} (the tape records every real \
         operation of the simulation, the reversal holds the state and its gradient), and the \
         fastest tape ({fastest_name}) takes {} × the reversal gradient's time{}",
        agreement(tape_diff, small_norm, true),
        small.qubits,
        small.layers,
        size(tape_peaks.iter().copied().min().unwrap_or(0)),
        size(tape_peaks.iter().copied().max().unwrap_or(0)),
        size(mt.get(t_gradient).peak_bytes),
        mt.ratio(fastest, t_gradient).cell(),
        if tq == qubits {
            String::new()
        } else {
            // the tape grows with the rotations (3 n per layer) times the 2ⁿ amplitudes
            let scale = (p << qubits) as f64 / (tc.parameters() << tq) as f64;
            format!(
                "; not run at {qubits} qubits, where the tape is {scale:.1}× longer \
                 (≈ {} of peak heap for {fastest_name} by this run's)",
                size((mt.get(fastest).peak_bytes as f64 * scale) as usize)
            )
        },
    ));
    out
}

/// Measures the quantum circuit (16 qubits, 4 layers; 10 and 2 quick), after checking it.
pub(super) fn part(ctx: &Ctx) -> Part {
    let (qubits, layers) = if ctx.quick { (10, 2) } else { (16, 4) };
    let c = circuit(qubits, layers);
    let k = checks(&c);
    let main = measure_main(ctx, &c);
    let tapes = measure_tapes(ctx, &c);
    let tq = tapes.circuit.qubits;
    let p = c.parameters();
    Part {
        title: format!("Quantum circuit ({qubits} qubits, {layers} layers)"),
        intro: format!(
            "**Quantum circuit** (`nilang_apps::quantum`): {qubits} qubits \
             (2^{qubits} amplitudes, {} per state vector), {layers} layers of `Rx Ry Rz` per \
             qubit and a ring of CNOTs closed by a CZ, {p} angles `θ_k = 0.37 k mod 3.1 − 1.5`, \
             the energy ⟨ψ|H|ψ⟩ of the transverse-field Ising chain (`J = g = 1`). The reversible \
             energy is `Circuit::energy` (`vqe_energy` on `f64`); the plain simulator \
             `quantum::plain::energy` applies 2×2 complex gate matrices and the Hamiltonian as a \
             matrix; the gradient with respect to every angle is `energy_and_gradient` \
             (`vqe_energy_vjp`: the energy forward, then the adjoint program runs the energy and \
             the circuit backwards on amplitudes and their gradients, uncomputing the state gate \
             by gate, so it holds two state vectors whatever the depth). Every call allocates its \
             own state vectors (the peak heap column). The tape rows take the same gradient by \
             the peers' reverse mode (`nilang_apps::plain::peers`) on the plain simulator \
             written over their scalars (`quantum::plain::energy_generic`, whose f64 instance \
             is `plain::energy`): the tape records every real operation, so it \
             grows with gates × 2ⁿ; {}they are measured together with the reversible energy \
             (their ratios' denominator) and gradient at their size. The parameter-shift \
             gradient (two energies per angle) is not timed; it is compared with the reversal \
             gradient on a small circuit, and so are the tapes' gradients.",
            size(16 << qubits),
            if tq == qubits {
                String::new()
            } else {
                format!(
                    "at {qubits} qubits and {layers} layers that is about 1.8·10⁸ operations, \
                     over 8 GB of counted heap per gradient, so the tapes run at {tq} qubits \
                     ({} per state vector) and the same {layers} layers; ",
                    size(16 << tq)
                )
            },
        ),
        table: table(&c, &main, &tapes),
        notes: notes(&c, &k, &main, &tapes),
        plots: plots(ctx, &c, &main, &tapes),
    }
}
