//! Table: the Bessel function J₂(1.0) — objective, reversible forward and inverse, and the
//! gradient by every engine (the arXiv paper's Bessel table).

use super::measure::Group;
use super::plot::bar_plot;
use super::{plain, write_plot, Ctx, Section, Table};
use nilang::special::{
    besselj_series, ibesselj_nocheck, ibesselj_nocheck_grad, ibesselj_nocheck_inv,
    ibesselj_nocheck_vjp, ibesselj_terms_nocheck, ibesselj_terms_nocheck_vjp,
};
use nilang::{GVar, Loss};
use nilang_apps::bessel::besselj;
use nilang_apps::plain::peers;
use std::hint::black_box;

/// Number of measurements of this section.
pub const MEASUREMENTS: u64 = 13;

/// Runs the section.
pub fn run(ctx: &Ctx) -> Section {
    let (nu, z) = (2i64, 1.0f64);
    let (mut out0, mut z0) = (0.0, z);
    ibesselj_nocheck(&mut out0, nu, &mut z0);
    let list = easy_ml::differentiation::WengertList::new();
    let mut g = Group::new();
    let native = g.add("native", || besselj_series(black_box(nu), black_box(z)));
    let native_generic = g.add("native (generic)", || {
        besselj::<f64>(black_box(nu), black_box(z))
    });
    let forward = g.add("reversible forward", || {
        let (mut out, mut zz) = (0.0, black_box(z));
        ibesselj_nocheck(&mut out, black_box(nu), &mut zz);
        out
    });
    let inverse = g.add("reversible inverse", || {
        let (mut out, mut zz) = (black_box(out0), black_box(z));
        ibesselj_nocheck_inv(&mut out, black_box(nu), &mut zz);
        out
    });
    let forward_terms = g.add("reversible forward, terms kept", || {
        let (mut out, mut zz) = (0.0, black_box(z));
        ibesselj_terms_nocheck(&mut out, black_box(nu), &mut zz);
        out
    });
    let reversal = g.add("reversal gradient", || {
        let (mut out, mut zz, mut out_grad, mut z_grad) = (0.0, black_box(z), 1.0, 0.0);
        ibesselj_terms_nocheck_vjp(
            &mut out,
            &mut out_grad,
            black_box(nu),
            (),
            &mut zz,
            &mut z_grad,
        );
        z_grad
    });
    let paper = g.add("reversal gradient, paper's program", || {
        let (mut out, mut zz, mut out_grad, mut z_grad) = (0.0, black_box(z), 1.0, 0.0);
        ibesselj_nocheck_vjp(
            &mut out,
            &mut out_grad,
            black_box(nu),
            (),
            &mut zz,
            &mut z_grad,
        );
        z_grad
    });
    let old_path = g.add("old path gradient", || {
        let (mut out, mut zz) = (0.0, black_box(z));
        ibesselj_nocheck_grad(Loss::arg(0), &mut out, black_box(nu), &mut zz)
            .map(|(_, g): (GVar<f64>, GVar<f64>)| g.g)
    });
    let num_dual = g.add("num-dual", || {
        peers::num_dual_gradient(|x| besselj(black_box(nu), x[0]), &[black_box(z)])[0]
    });
    let echidna = g.add("echidna", || {
        peers::echidna_gradient(|x| besselj(nu, x[0]), &[black_box(z)])[0]
    });
    let easy_ml = g.add("easy-ml", || {
        peers::easy_ml_gradient(&list, |x| besselj(nu, x[0]), &[black_box(z)])[0]
    });
    let dualrev = g.add("nilang-dualrev", || {
        peers::dualrev_gradient(|x| besselj(nu, x[0]), &[black_box(z)])[0]
    });
    let hessian = g.add("forward-over-reversal second derivative", || {
        nilang_apps::bessel::second_derivative(black_box(nu), black_box(z))
    });
    let m = ctx.run("bessel", g);

    let mut t = Table::new(&[
        "what",
        "engine",
        "time / call",
        "÷ native objective",
        "heap allocations / call",
    ]);
    let rows = [
        ("objective", "native f64 (the paper's series)", native),
        (
            "objective",
            "native f64, generic code used by the peers",
            native_generic,
        ),
        (
            "objective",
            "reversible forward (`ibesselj`, checks off)",
            forward,
        ),
        ("objective", "reversible inverse (`ibesselj_inv`)", inverse),
        (
            "objective",
            "reversible forward, terms kept (`ibesselj_terms`, checks off)",
            forward_terms,
        ),
        (
            "gradient",
            "**reversal** (`ibesselj_terms_vjp`: forward + adjoint on caller buffers)",
            reversal,
        ),
        (
            "gradient",
            "reversal of the paper's program (`ibesselj_vjp`)",
            paper,
        ),
        (
            "gradient",
            "reversal of the paper's program, old path (`ibesselj_grad`: adjoint on copies, `GVar` results)",
            old_path,
        ),
        ("gradient", "forward dual (num-dual `Dual64`)", num_dual),
        ("gradient", "tape (echidna)", echidna),
        ("gradient", "tape (easy-ml)", easy_ml),
        ("gradient", "dual-numbers reverse (nilang-dualrev)", dualrev),
        (
            "second derivative",
            "forward over reversal (`ibesselj_hessian`)",
            hessian,
        ),
    ];
    let bars: Vec<(String, f64)> = rows
        .iter()
        .map(|&(what, engine, id)| (plain(&format!("{what}: {engine}")), m.get(id).seconds))
        .collect();
    let plots = write_plot(ctx, "bessel.svg", |path| {
        bar_plot(path, "Bessel J₂(1.0): time per call", "seconds", &bars)
    });
    for (what, engine, id) in rows {
        let timing = m.get(id);
        t.row(vec![
            what.into(),
            engine.into(),
            format!("{:.1} ns", timing.seconds * 1e9),
            m.ratio(id, native).cell(),
            timing.allocations.to_string(),
        ]);
    }
    let g_over_o = m.ratio(reversal, native);
    let best_peer = m.fastest(&[echidna, easy_ml, dualrev]);
    let over_peer = m.ratio(reversal, best_peer);
    Section {
        title: "Bessel J₂(1.0)".into(),
        intro: "The arXiv paper's Bessel table: `J₂(1.0)` by the series with `atol = 1e-8`. The reversible program \
                (`nilang::special::ibesselj`) uncomputes its loop arithmetically, so it does about twice the \
                arithmetic of the plain series. `ibesselj_terms` is the same series written for speed: `(z/2)^ν Σₖ cₖ ((z/2)²)ᵏ` with the \
                coefficients from a table, the powers kept in the slots of a fixed stack array (the running power \
                in a register, one multiplication per term: no arithmetic uncomputing, no division), summed, then \
                uncomputed; its gradient is the bold row (`f_vjp`: the powers computed on values, then the adjoint \
                program walks them back on values and gradients). Every \
                other gradient engine differentiates the same generic plain series (`nilang_apps::bessel::besselj`)."
            .into(),
        tables: vec![t],
        notes: vec![
            format!(
                "reversal gradient ÷ native objective = {} (target ≤ 3, issue \"Gradients at hand-written speed\"; the paper's NiLang: 201 ns ÷ 18 ns ≈ 11); {}",
                g_over_o.cell(),
                g_over_o.verdict(3.0).words("the forward alone costs more than the native series (the slots are zeroed, each term's coefficient is looked up twice), and the adjoint walks the powers back restoring every ancilla's value besides moving the gradients")
            ),
            format!("reversal gradient ÷ fastest tape peer = {}", over_peer.cell()),
            format!("the reversal gradient allocates {} times per call (no tape)", m.get(reversal).allocations),
        ],
        plots,
    }
}
