//! Embedding the Petersen graph (arXiv paper §"Solving a graph embedding problem"): scans the
//! dimension k = 1…10 with the trust-region Newton method (Hessians by forward-over-reversal),
//! prints the lowest loss and l₂/l₁ per k, then trains k = 5 with Adam (lr 0.01).
//!
//! Run with `cargo run --release -p nilang-apps --example graph_embedding`.
//! Seeds 0…4 give the initial positions (uniform in [−1, 1]ᵏ); vertices 0 and 1 are fixed.

use nilang_apps::graph::*;

fn main() {
    println!(
        "{:>3} {:>12} {:>10} {:>5}",
        "k", "best loss", "l2/l1", "seed"
    );
    for row in scan(1..=10, 5, 100) {
        println!(
            "{:>3} {:>12.3e} {:>10.6} {:>5}",
            row.k, row.loss, row.ratio, row.seed
        );
    }
    println!("(√2 = {:.6})", 2f64.sqrt());
    let (_, history) = train_adam(initial_positions(5, 0), 5, 0.01, 3000);
    for step in [0, 500, 1000, 2000, 2999] {
        println!("Adam k = 5, step {step:>4}: loss {:.3e}", history[step]);
    }
}
