//! Time–space trade-off of Treeverse (checkpointing) and Bennett's scheme (reverse
//! computing), measured on a chain of T steps (ICLR paper, Table 1, Eqs. (1)–(2), Figure 1).
//!
//! `cargo run --release -p nilang --example tradeoff [OUT.svg] [T]` prints the table and writes
//! the plot (default `target/tradeoff.svg`, T = 10000).

use nilang::schedule::{Bennett, Transition};
use nilang::treeverse::{optimal_forward_steps, treeverse, Chain};
use plotters::prelude::*;

struct Counter;

impl Chain for Counter {
    type State = u64;
    type Grad = ();
    fn step(&self, _i: usize, x: &u64) -> u64 {
        x + 1
    }
    fn vjp(&self, _i: usize, _x: &u64, _g: &mut ()) {}
}

#[derive(Clone)]
struct Tick;

impl Transition<u64> for Tick {
    fn call(&self, out: &mut u64, inp: &mut u64) {
        *out = out.wrapping_add(inp.wrapping_add(1));
    }
    fn uncall(&self, out: &mut u64, inp: &mut u64) {
        *out = out.wrapping_sub(inp.wrapping_add(1));
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let out = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "target/tradeoff.svg".into());
    let t: usize = args
        .get(2)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(10_000);

    println!("T = {t} steps\n");
    println!(
        "Treeverse (checkpointing): S stored states, forward steps t(T,S) = rT - eta(r-1,S+1)"
    );
    println!(
        "{:>8} {:>12} {:>10} {:>10}",
        "S", "steps", "steps/T", "peak S"
    );
    let mut tv = Vec::new();
    for s in [
        1usize, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100, 200, 500, 1000, 2000, 5000, t,
    ] {
        if s > t || (s == 1 && t > 20_000) {
            continue;
        }
        let r = treeverse(&Counter, &0, t, s, |_| ());
        assert_eq!(r.stats.forward_steps, optimal_forward_steps(t, s));
        let over = r.stats.forward_steps as f64 / t as f64;
        println!(
            "{:>8} {:>12} {:>10.3} {:>10}",
            s, r.stats.forward_steps, over, r.stats.peak_snapshots
        );
        tv.push((r.stats.peak_snapshots as f64, over.max(1.0 / t as f64)));
    }

    println!("\nBennett (reverse computing): k sectors, step calls (2k-1)^n and peak n(k-1)+2 at T = k^n");
    println!(
        "{:>8} {:>12} {:>10} {:>10}",
        "k", "calls", "calls/T", "peak"
    );
    let mut bn = Vec::new();
    let steps = vec![Tick; t];
    for k in [2usize, 3, 4, 5, 6, 8, 10, 16, 22, 32, 50, 100, 200, 1000, t] {
        if k > t {
            continue;
        }
        let mut b = Bennett::new(k, 0u64, t);
        b.run(&steps);
        let over = b.program_counter() as f64 / t as f64;
        println!(
            "{:>8} {:>12} {:>10.3} {:>10}",
            k,
            b.program_counter(),
            over,
            b.peak_live_states()
        );
        bn.push((b.peak_live_states() as f64, over));
    }

    let root = SVGBackend::new(&out, (800, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let xmax = (t as f64) * 2.0;
    let ymax = tv.iter().chain(&bn).map(|p| p.1).fold(1.0, f64::max) * 2.0;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("Time-space trade-off, T = {t}"), ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d((1.0f64..xmax).log_scale(), (0.5f64..ymax).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("peak stored states")
        .y_desc("time overhead (step evaluations / T)")
        .draw()?;
    chart
        .draw_series(LineSeries::new(tv.iter().copied(), BLUE.stroke_width(2)))?
        .label("Treeverse (checkpointing)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE.stroke_width(2)));
    chart.draw_series(tv.iter().map(|&p| Circle::new(p, 4, BLUE.filled())))?;
    chart
        .draw_series(LineSeries::new(bn.iter().copied(), RED.stroke_width(2)))?
        .label("Bennett (reverse computing)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED.stroke_width(2)));
    chart.draw_series(bn.iter().map(|&p| TriangleMarker::new(p, 5, RED.filled())))?;
    chart
        .configure_series_labels()
        .border_style(BLACK)
        .background_style(WHITE)
        .draw()?;
    root.present()?;
    println!("\nplot written to {out}");
    Ok(())
}
