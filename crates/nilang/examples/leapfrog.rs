//! The round-off study of the ICLR paper's Appendix F (Figure 6): a reversible leapfrog
//! integration of the Sun and the giant planets, in `f64` and `f32`, with the acceleration of
//! Listing 25 ("reversible") and Listing 26 ("cumulative"), against the irreversible
//! integrator ("regular"). Errors are measured against the same integrator in double-double
//! arithmetic (about 106 bits).
//!
//! `cargo run --release -p nilang --example leapfrog [OUT.svg] [MAX_STEPS]` prints the
//! numbers and writes the plot (default `target/leapfrog.svg`, 10⁶ steps of 0.01 years; the
//! run-and-inverse part stops at 10⁵ steps).

use nilang::leapfrog::*;
use nilang::numbers::DoubleDouble;
use nilang::Real;
use plotters::prelude::*;

fn checkpoints(max: usize) -> Vec<usize> {
    let mut c = Vec::new();
    let mut n = 10usize;
    while n <= max {
        c.push(n);
        if 3 * n <= max {
            c.push(3 * n);
        }
        n *= 10;
    }
    c
}

/// Mean planet position error against the double-double run at each checkpoint.
fn final_errors<T: Real + nilang::leapfrog::Arith>(
    sys: &Bodies<f64>,
    conv: impl Fn(f64) -> T + Copy,
    cps: &[usize],
    refs: &[Bodies<DoubleDouble>],
) -> [Vec<f64>; 3] {
    let (mut reg, mut rev, mut cum) = (sys.convert(conv), sys.convert(conv), sys.convert(conv));
    let mut out: [Vec<f64>; 3] = Default::default();
    let mut done = 0;
    for (c, r) in cps.iter().zip(refs) {
        for _ in done..*c {
            regular_step(&mut reg);
        }
        run_reversible(&mut rev, c - done, false);
        run_reversible(&mut cum, c - done, true);
        done = *c;
        for (o, b) in out.iter_mut().zip([&reg, &rev, &cum]) {
            o.push(mean_position_error(
                b,
                r,
                |v: T| v.val(),
                |v: DoubleDouble| v.to_f64(),
            ));
        }
    }
    out
}

/// Largest state error after `n` steps forward and `n` backward.
fn reversibility<T: Real>(
    sys: &Bodies<f64>,
    conv: impl Fn(f64) -> T + Copy,
    n: usize,
    cumulative: bool,
) -> f64 {
    let start = sys.convert(conv);
    let mut b = start.clone();
    run_reversible(&mut b, n, cumulative);
    run_reversible_inv(&mut b, n, cumulative);
    max_state_difference(&b, &start)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let out = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "target/leapfrog.svg".into());
    let max: usize = args
        .get(2)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(1_000_000);
    let sys = solar_system();
    let cps = checkpoints(max);

    let t0 = std::time::Instant::now();
    // The reference starts from the same (rounded) initial state as the run it judges, so
    // that only the integration's round-off is measured.
    let references = |start: &Bodies<f64>| {
        let mut dd = start.convert(DoubleDouble::new);
        let mut refs = Vec::new();
        let mut done = 0;
        for &c in &cps {
            for _ in done..c {
                regular_step(&mut dd);
            }
            done = c;
            refs.push(dd.clone());
        }
        refs
    };
    let sys32 = sys.convert(|v| v as f32 as f64);
    let e64 = final_errors(&sys, |v| v, &cps, &references(&sys));
    let e32 = final_errors(&sys32, |v| v as f32, &cps, &references(&sys32));
    println!("Sun + Jupiter, Saturn, Uranus, Neptune; dt = {DT} yr; reference: double-double");
    println!("\nmean planet position error (AU) vs the reference (Figure 6)");
    println!(
        "{:>8} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}",
        "steps", "f64 reg", "f64 rev", "f64 cum", "f32 reg", "f32 rev", "f32 cum"
    );
    for (k, c) in cps.iter().enumerate() {
        println!(
            "{:>8} {:>11.3e} {:>11.3e} {:>11.3e} {:>11.3e} {:>11.3e} {:>11.3e}",
            c, e64[0][k], e64[1][k], e64[2][k], e32[0][k], e32[1][k], e32[2][k]
        );
    }

    println!("\nreversibility: largest state error after n steps forward and n back");
    println!(
        "{:>8} {:>11} {:>11} {:>11} {:>11}",
        "n", "f64 rev", "f64 cum", "f32 rev", "f32 cum"
    );
    let rcps: Vec<usize> = cps
        .iter()
        .copied()
        .filter(|&c| c <= max.min(100_000))
        .collect();
    let mut rv: [Vec<f64>; 4] = Default::default();
    for &n in &rcps {
        let row = [
            reversibility(&sys, |v| v, n, false),
            reversibility(&sys, |v| v, n, true),
            reversibility(&sys, |v| v as f32, n, false),
            reversibility(&sys, |v| v as f32, n, true),
        ];
        println!(
            "{:>8} {:>11.3e} {:>11.3e} {:>11.3e} {:>11.3e}",
            n, row[0], row[1], row[2], row[3]
        );
        for (r, e) in rv.iter_mut().zip(row) {
            r.push(e);
        }
    }
    println!("\n(total {:.1} s)", t0.elapsed().as_secs_f64());

    let root = SVGBackend::new(&out, (1200, 520)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(600);
    let floor = 1e-18;
    let styles = [
        ("f64 (regular)", BLUE, 0),
        ("f64 (reversible)", CYAN, 1),
        ("f64 (cumulative)", GREEN, 2),
        ("f32 (regular)", RED, 0),
        ("f32 (reversible)", MAGENTA, 1),
        ("f32 (cumulative)", BLACK, 2),
    ];
    let xr = (cps[0] as f64 * 0.8)..(*cps.last().unwrap() as f64 * 1.25);
    let all: Vec<f64> = e64.iter().chain(&e32).flatten().copied().collect();
    let ymax = all.iter().copied().fold(floor, f64::max) * 10.0;
    let ymin = all.iter().copied().filter(|&v| v > 0.0).fold(1.0, f64::min) / 10.0;
    let mut chart = ChartBuilder::on(&left)
        .caption(
            "Error of final positions vs double-double",
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(65)
        .build_cartesian_2d(xr.clone().log_scale(), (ymin.max(floor)..ymax).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("steps")
        .y_desc("mean position error (AU)")
        .draw()?;
    for (k, (name, color, _)) in styles.iter().enumerate() {
        let series = if k < 3 { &e64[k] } else { &e32[k - 3] };
        let pts: Vec<(f64, f64)> = cps
            .iter()
            .zip(series)
            .map(|(&c, &e)| (c as f64, e.max(floor)))
            .collect();
        let dashed = k % 3 == 1;
        let style = color.stroke_width(if dashed { 1 } else { 2 });
        chart
            .draw_series(LineSeries::new(pts.clone(), style))?
            .label(*name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .border_style(BLACK)
        .background_style(WHITE)
        .draw()?;

    let allr: Vec<f64> = rv.iter().flatten().copied().collect();
    let ymax = allr.iter().copied().fold(floor, f64::max) * 10.0;
    let ymin = allr
        .iter()
        .copied()
        .filter(|&v| v > 0.0)
        .fold(1.0, f64::min)
        / 10.0;
    let xr = (rcps[0] as f64 * 0.8)..(*rcps.last().unwrap() as f64 * 1.25);
    let mut chart = ChartBuilder::on(&right)
        .caption(
            "Run, inverse run: distance to the start",
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(65)
        .build_cartesian_2d(xr.log_scale(), (ymin.max(floor)..ymax).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("steps each way")
        .y_desc("largest state error")
        .draw()?;
    for (k, (name, color)) in [
        ("f64 (reversible)", CYAN),
        ("f64 (cumulative)", GREEN),
        ("f32 (reversible)", MAGENTA),
        ("f32 (cumulative)", BLACK),
    ]
    .into_iter()
    .enumerate()
    {
        let pts: Vec<(f64, f64)> = rcps
            .iter()
            .zip(&rv[k])
            .map(|(&c, &e)| (c as f64, e.max(floor)))
            .collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))?
            .label(name)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .border_style(BLACK)
        .background_style(WHITE)
        .draw()?;
    root.present()?;
    println!("plot written to {out}");
    Ok(())
}
