//! Trains a NICE normalizing flow on the two-moons data by reversal (constant memory), printing
//! the mean negative log-likelihood.
//!
//! Run with `cargo run --release -p nilang-apps --example flow`.

use nilang_apps::flow::*;

const D: usize = 2;
const H: usize = 16;

fn main() {
    let layers = 6;
    let data = two_moons(1000, 0.05, 1);
    let p = initial_parameters(D, H, layers, 2);
    println!(
        "{} parameters, {} samples, {layers} coupling layers",
        p.len(),
        data.len() / D
    );
    let (_, history) = train::<D, H>(p, &data, layers, 0.01, 1000);
    for step in (0..history.len()).step_by(100).chain([history.len() - 1]) {
        println!("step {step:>4}: mean NLL {:.4}", history[step]);
    }
}
