//! Runs one of the guide's worked examples (`nilang_apps::guide`) in a loop, for a profiler:
//!
//! ```text
//! cargo build --release -p nilang-apps --example guide_profile
//! perf record -g target/release/examples/guide_profile gmm64 gradient 3
//! ```
//!
//! Programs: `gmm10` (d 10, k 25, n 1 000), `gmm64` (d 64, k 100, n 1 000), `rk4` (10⁴
//! steps), `mlp` (32-64-1, batch 256); what: `native`, `forward`, `gradient` (the reversible
//! program as the guide teaches) or `ordinary` (the gradient of the same program written as
//! ordinary Rust, `nilang_apps::guide::ordinary`); then the number of calls.

use nilang_apps::guide::{gmm, mlp, ordinary, rk4};
use std::hint::black_box;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: guide_profile gmm10|gmm64|rk4|mlp native|forward|gradient|ordinary CALLS";
    let [program, what, calls] = args.as_slice() else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let calls: usize = calls.parse().expect("CALLS is a number");
    let mut run: Box<dyn FnMut() -> f64> = match program.as_str() {
        "gmm10" | "gmm64" => {
            let p = if program == "gmm10" {
                gmm::Problem::random(10, 25, 1000, 1)
            } else {
                gmm::Problem::random(64, 100, 1000, 1)
            };
            let mut theta = p.theta.clone();
            match what.as_str() {
                "native" => Box::new(move || p.native(&p.theta)),
                "forward" => Box::new(move || p.forward(&mut theta)),
                "ordinary" => Box::new(move || ordinary::gmm_gradient_of(&p).0),
                _ => Box::new(move || p.gradient(&mut theta).0),
            }
        }
        "rk4" => {
            let mut p = rk4::Problem::new(10_000);
            match what.as_str() {
                "native" => Box::new(move || p.native()),
                "forward" => Box::new(move || p.forward()),
                "ordinary" => Box::new(move || ordinary::rk4_gradient_of(&p).0),
                _ => Box::new(move || p.gradient().0),
            }
        }
        "mlp" => {
            let p = mlp::Problem::random(32, 64, 256, 1);
            let mut theta = p.theta.clone();
            match what.as_str() {
                "native" => Box::new(move || p.native(&p.theta)),
                "forward" => Box::new(move || p.forward(&mut theta)),
                "ordinary" => Box::new(move || ordinary::mlp_gradient_of(&p).0),
                _ => Box::new(move || p.gradient(&mut theta).0),
            }
        }
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    let start = std::time::Instant::now();
    let mut value = 0.0;
    for _ in 0..calls {
        value = black_box(run());
    }
    println!(
        "{program} {what}: {value} ({:.3e} s per call, wall)",
        start.elapsed().as_secs_f64() / calls.max(1) as f64
    );
}
