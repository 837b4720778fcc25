//! Table: sparse matrices (arXiv paper, sparse table) — Frobenius dot and complex sparse × dense.

use super::measure::{sci, Group};
use super::{Ctx, Section, Table};
use nilang::GVar;
use nilang_apps::sparse::*;
use num_complex::Complex;
use std::hint::black_box;

/// Number of measurements of this section.
pub const MEASUREMENTS: u64 = 6;

/// Runs the section.
pub fn run(ctx: &Ctx) -> Section {
    let n = if ctx.quick { 300 } else { 1000 };
    let density = 0.05;
    let a = random_csc(n, n, density, 1);
    let b = random_csc(n, n, density, 2);
    let (pa, pb) = (Pattern::of(&a).expect("CSC"), Pattern::of(&b).expect("CSC"));

    // dot
    let (mut av, mut bv) = (a.data().to_vec(), b.data().to_vec());
    let r0 = sparse_dot(&a, &b);
    let mut ag: Vec<GVar<f64>> = av.iter().map(|&v| GVar::new(v)).collect();
    let mut bg: Vec<GVar<f64>> = bv.iter().map(|&v| GVar::new(v)).collect();
    let mut dot = Group::new();
    let native_dot = dot.add("native dot", || sparse_dot(black_box(&a), black_box(&b)));
    let forward_dot = dot.add("reversible dot", || {
        let mut r = 0.0;
        isparse_dot_nocheck(&mut r, &mut av, &mut bv, &pa, &pb);
        r
    });
    let backward_dot = dot.add("dot backward", || {
        let mut r = GVar::with_grad(r0, 1.0);
        isparse_dot_nocheck_inv(&mut r, &mut ag, &mut bg, &pa, &pb);
        r
    });
    let dot = ctx.run("sparse", dot);

    // complex sparse × dense vector
    let ac: sprs::CsMat<Complex<f64>> = a.map(|&v| Complex::new(v, 0.5 * v));
    let pc = Pattern::of(&ac).expect("CSC");
    let x: Vec<Complex<f64>> = (0..n)
        .map(|i| Complex::new((i as f64).sin(), (i as f64).cos()))
        .collect();
    let (mut acv, mut xv) = (ac.data().to_vec(), x.clone());
    let mut y0 = vec![Complex::new(0.0, 0.0); n];
    sparse_matmul(&mut y0, &ac, &x, 1);
    let wrap = |v: &[Complex<f64>], g: f64| -> Vec<Complex<GVar<f64>>> {
        v.iter()
            .map(|c| Complex::new(GVar::with_grad(c.re, g), GVar::with_grad(c.im, g)))
            .collect()
    };
    let (mut acg, mut xg) = (wrap(&acv, 0.0), wrap(&xv, 0.0));
    let mut mul = Group::new();
    let native_mul = mul.add("native mul", || {
        let mut y = vec![Complex::new(0.0, 0.0); n];
        sparse_matmul(&mut y, black_box(&ac), black_box(&x), 1);
        y
    });
    let forward_mul = mul.add("reversible mul", || {
        let mut y = vec![Complex::new(0.0, 0.0); n];
        isparse_matmul(&mut y, &mut acv, &mut xv, &pc, 1);
        y
    });
    let backward_mul = mul.add("mul backward", || {
        let mut yg = wrap(&y0, 1.0);
        isparse_matmul_inv(&mut yg, &mut acg, &mut xg, &pc, 1);
        yg
    });
    let mul = ctx.run("sparse", mul);

    let mut t = Table::new(&["", "dot", "mul! (complex valued)"]);
    t.row(vec![
        "native objective".into(),
        sci(dot.get(native_dot).seconds),
        sci(mul.get(native_mul).seconds),
    ]);
    t.row(vec![
        "reversible objective".into(),
        sci(dot.get(forward_dot).seconds),
        sci(mul.get(forward_mul).seconds),
    ]);
    t.row(vec![
        "backward pass (inverse on GVar)".into(),
        sci(dot.get(backward_dot).seconds),
        sci(mul.get(backward_mul).seconds),
    ]);
    t.row(vec![
        "backward ÷ native objective".into(),
        dot.ratio(backward_dot, native_dot).cell(),
        mul.ratio(backward_mul, native_mul).cell(),
    ]);
    let dot_ratio = dot.ratio(backward_dot, native_dot);
    Section {
        title: format!("Sparse matrices ({n}×{n}, density {density})"),
        intro: "Seconds per call. `dot` is the Frobenius product of two CSC matrices (`nilang_apps::sparse::isparse_dot`, \
                a merge per column with a branch keeper that is uncomputed); `mul!` is a complex CSC matrix times a \
                dense complex vector. The backward pass is the inverse program on `GVar` values with the output \
                gradient seeded, as in the paper (the objective is not included)."
            .into(),
        tables: vec![t],
        notes: vec![format!(
            "dot backward ÷ native objective = {} (target ≤ 1.3; the paper's NiLang: 5.8e-4 ÷ 3.5e-4 = 1.67); {}",
            dot_ratio.cell(),
            dot_ratio.verdict(1.3).words("the reversible merge walks each column twice (once to compute, once to uncompute the pointers and the branch keeper), and the backward pass does the same on GVar values")
        )],
        plots: vec![],
    }
}
