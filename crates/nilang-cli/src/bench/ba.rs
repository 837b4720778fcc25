//! Table: bundle adjustment (ADBench definition) — objective and sparse Jacobian.

use super::measure::{sci, Group, Ratio, Verdict};
use super::{ratio_plot, Ctx, Section, Table};
use nilang::Loss;
use nilang_apps::adbench::ba_residual;
use nilang_apps::plain::peers;
use nilang_gradbench::evals::ba::{ba_weight_grad, reproj_rows, Problem, NCAM};
use rayon::prelude::*;
use std::path::Path;

fn files(quick: bool) -> Vec<&'static str> {
    if quick {
        vec!["ba1_n49_m7776_p31843.txt"]
    } else {
        vec![
            "ba1_n49_m7776_p31843.txt",
            "ba4_n372_m47423_p204472.txt",
            "ba6_n539_m65220_p277273.txt",
            "ba10_n1197_m126327_p563734.txt",
            "ba19_n4585_m1324582_p9125125.txt",
        ]
    }
}

/// `(cameras, points, observations)` from an ADBench name such as `ba1_n49_m7776_p31843.txt`.
fn sizes_of(file: &str) -> Option<(usize, usize, usize)> {
    let mut parts = file.strip_suffix(".txt")?.split('_').skip(1);
    let n = parts.next()?.strip_prefix('n')?.parse().ok()?;
    let m = parts.next()?.strip_prefix('m')?.parse().ok()?;
    let p = parts.next()?.strip_prefix('p')?.parse().ok()?;
    Some((n, m, p))
}

/// Number of measurements of this section.
pub fn measurements(quick: bool) -> u64 {
    5 * files(quick).len() as u64
}

/// Values of one observation's blocks: two reprojection rows of 15 and the weight row's one.
const BLOCK: usize = 2 * (NCAM + 4) + 1;

/// The Jacobian blocks of every observation by reversal: for each observation the 2 × 15
/// reprojection block (`reproj_rows`: one forward run and one adjoint sweep with both rows in
/// two lanes) and the weight row (`ba_weight_grad`), observations split over the current
/// rayon pool's threads when it has several. Returns the number of non-zeros written.
fn jacobian_by_reversal(p: &Problem, out: &mut Vec<f64>) -> usize {
    out.resize(BLOCK * p.obs.len(), 0.0);
    let block = |(k, o): (usize, &mut [f64])| {
        let (c, pt) = p.obs[k];
        let [r0, r1] = reproj_rows(&p.cams[c], &p.x[pt], p.w[k], &p.feats[k]);
        o[..NCAM + 4].copy_from_slice(&r0);
        o[NCAM + 4..BLOCK - 1].copy_from_slice(&r1);
        let (mut e, mut ww) = (0.0, p.w[k]);
        let (_, gw) = ba_weight_grad(Loss::arg(0), &mut e, &mut ww).expect("the weight residual");
        o[BLOCK - 1] = gw.g;
    };
    if rayon::current_num_threads() > 1 {
        out.par_chunks_mut(BLOCK).enumerate().for_each(block);
    } else {
        out.chunks_mut(BLOCK).enumerate().for_each(block);
    }
    out.len()
}

/// The same blocks by a peer (one record per observation, one sweep per output).
fn jacobian_by_dualrev(p: &Problem, out: &mut Vec<f64>) -> usize {
    out.clear();
    let mut input = [0.0; 15];
    for (k, &(c, pt)) in p.obs.iter().enumerate() {
        input[..11].copy_from_slice(&p.cams[c]);
        input[11..14].copy_from_slice(&p.x[pt]);
        input[14] = p.w[k];
        let feat = p.feats[k];
        let rows =
            nilang_dualrev::record(|v| ba_residual(&v[..11], &v[11..14], v[14], feat), &input)
                .expect("a recording")
                .jacobian();
        for row in rows {
            out.extend_from_slice(&row);
        }
        out.push(-2.0 * p.w[k]);
    }
    out.len()
}

/// Runs the section.
pub fn run(ctx: &Ctx) -> Section {
    let mut t = Table::new(&[
        "file (observations)",
        "native objective",
        "reversible objective",
        "**Jacobian: reversal**",
        "Jacobian: forward dual (num-dual, 15 passes)",
        "Jacobian: nilang-dualrev",
        "reversal Jacobian ÷ native objective",
        "reversal Jacobian ÷ fastest peer",
    ]);
    let mut worst: Option<Ratio> = None;
    let mut verdicts = Vec::new();
    let mut missing = Vec::new();
    let mut buffer = Vec::new();
    // Jacobian ÷ native objective against the number of observations, per engine
    let mut ratios: Vec<(String, Vec<(f64, f64)>)> =
        ["reversal", "forward dual (num-dual)", "nilang-dualrev"]
            .iter()
            .map(|name| (name.to_string(), Vec::new()))
            .collect();
    for file in files(ctx.quick) {
        let path = Path::new(&ctx.data).join("ba").join(file);
        let (problem, source) = match std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|s| Problem::input_from_adbench(&s))
            .and_then(|i| Problem::from_input(&i))
        {
            Ok(p) => (p, file.to_string()),
            Err(e) => match sizes_of(file) {
                // No file: an instance of the same size from a seed.
                Some((n, m, p)) => (Problem::random(n, m, p, 1), format!("seeded n={n} m={m}")),
                None => {
                    missing.push(format!("{}: {e}", path.display()));
                    ctx.progress.inc(5);
                    continue;
                }
            },
        };
        let mut reference = Vec::new();
        jacobian_by_dualrev(&problem, &mut reference);
        jacobian_by_reversal(&problem, &mut buffer);
        assert!(
            buffer
                .iter()
                .zip(&reference)
                .all(|(a, b)| (a - b).abs() <= 1e-9 * (1.0 + b.abs())),
            "BA Jacobians disagree on {file}"
        );
        let mut g = Group::new();
        let native = g.add("native objective", || {
            let mut s = 0.0;
            for (k, &(c, pt)) in problem.obs.iter().enumerate() {
                let r = ba_residual(
                    &problem.cams[c],
                    &problem.x[pt],
                    problem.w[k],
                    problem.feats[k],
                );
                s += r[0] + r[1] + (1.0 - problem.w[k] * problem.w[k]);
            }
            s
        });
        let reversible = g.add("reversible objective", || problem.objective());
        let reversal = g.add("reversal Jacobian", || {
            jacobian_by_reversal(&problem, &mut buffer)
        });
        let num_dual = g.add("num-dual Jacobian", || {
            let mut n = 0;
            for (k, &(c, pt)) in problem.obs.iter().enumerate() {
                let mut v: Vec<num_dual::Dual64> = problem.cams[c]
                    .iter()
                    .chain(&problem.x[pt])
                    .chain([&problem.w[k]])
                    .map(|&x| num_dual::Dual64::from(x))
                    .collect();
                for i in 0..15 {
                    v[i].eps = 1.0;
                    let r = ba_residual(&v[..11], &v[11..14], v[14], problem.feats[k]);
                    n += (r[0].eps != 0.0) as usize + (r[1].eps != 0.0) as usize;
                    v[i].eps = 0.0;
                }
            }
            n
        });
        let dualrev = g.add("dualrev Jacobian", || {
            jacobian_by_dualrev(&problem, &mut reference)
        });
        let m = ctx.run(&format!("ba {source}"), g);
        let ratio = m.ratio(reversal, native);
        if worst.is_none_or(|w| ratio.median > w.median) {
            worst = Some(ratio);
        }
        verdicts.push(ratio.verdict(5.0));
        for ((_, points), id) in ratios.iter_mut().zip([reversal, num_dual, dualrev]) {
            points.push((problem.obs.len() as f64, m.ratio(id, native).median));
        }
        t.row(vec![
            format!("{source} ({})", problem.obs.len()),
            sci(m.get(native).seconds),
            sci(m.get(reversible).seconds),
            sci(m.get(reversal).seconds),
            sci(m.get(num_dual).seconds),
            sci(m.get(dualrev).seconds),
            ratio.cell(),
            m.ratio(reversal, m.fastest(&[num_dual, dualrev])).cell(),
        ]);
    }
    let _ = peers::value(0.0);
    let mut notes = Vec::new();
    if !verdicts.is_empty() {
        notes.push(format!(
            "largest reversal Jacobian ÷ objective = {} (target ≤ 5 on every file; the paper's NiLang: 5.5 ÷ 0.67 ≈ 8.3 at 9.1e6 observations); {}",
            worst.expect("a ratio per verdict").cell(),
            Verdict::all(verdicts).words("each observation's residual is computed once forward and undone once, with both rows' gradients in two lanes")
        ));
    }
    notes.extend(missing.into_iter().map(|m| format!("not measured: {m}")));
    let plots = ratio_plot(
        ctx,
        "ba.svg",
        "BA: Jacobian time ÷ native objective time",
        "observations",
        "Jacobian ÷ objective",
        &ratios,
    );
    Section {
        title: "Bundle adjustment (ADBench)".into(),
        intro: format!(
            "Seconds per call on ADBench's BA files (`{}`; an instance of the same size from a seed when a file is absent). The Jacobian has 15 non-zeros per \
                reprojection row and 1 per weight row; by reversal each observation's 2 × 15 block is one forward run \
                and one adjoint sweep with both rows in two lanes of `nilang_gradbench::evals::ba::ba_reproj` (`reproj_rows`), observations split over the bench's {} thread(s) \
                (the native objective and the peers run on one). The blocks are asserted equal to \
                nilang-dualrev's before timing.",
            Path::new(&ctx.data).join("ba").display(),
            rayon::current_num_threads()
        ),
        tables: vec![t],
        notes,
        plots,
    }
}
