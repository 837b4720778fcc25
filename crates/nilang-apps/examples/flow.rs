//! Trains a NICE and a RealNVP normalizing flow on the two-moons data by reversal (constant
//! memory in the number of samples), printing the mean negative log-likelihood of each.
//!
//! Run with `cargo run --release -p nilang-apps --example flow`.

use nilang_apps::{flow, realnvp};

const D: usize = 2;
const H: usize = 16;

fn main() {
    let layers = 6;
    let data = flow::two_moons(1000, 0.05, 1);
    let nice = flow::initial_parameters(D, H, layers, 2);
    let affine = realnvp::initial_parameters(D, H, layers, 2);
    println!(
        "{} samples, {layers} coupling layers; NICE {} parameters, RealNVP {}",
        data.len() / D,
        nice.len(),
        affine.len()
    );
    let (_, nice) = flow::train::<D, H>(nice, &data, layers, 0.01, 1000);
    let (_, affine) = realnvp::train::<D, H>(affine, &data, layers, 0.01, 1000);
    println!("| step | NICE mean NLL | RealNVP mean NLL |\n|---:|---:|---:|");
    for step in (0..nice.len()).step_by(100).chain([nice.len() - 1]) {
        println!("| {step} | {:.4} | {:.4} |", nice[step], affine[step]);
    }
}
