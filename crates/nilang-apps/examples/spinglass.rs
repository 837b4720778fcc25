//! The ground state of a 10 × 10 ±J spin glass: its energy by the reversible tropical
//! contraction, one ground-state configuration from the gradient of that energy with respect
//! to the local fields, and checks against plain dynamic programming.
//!
//! Run with `cargo run --release -p nilang-apps --example spinglass` (arguments: side, seed,
//! runs; default 10 1 5). Times are medians of `runs` runs.

use nilang_apps::spinglass::{dynamic_programming, ground_energy, tropical_gradient, Lattice};
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn time<R>(runs: usize, mut f: impl FnMut() -> R) -> (f64, R) {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let r = f();
        times.push(t.elapsed().as_secs_f64());
        last = Some(r);
    }
    (median(times), last.unwrap())
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("side seed runs"))
        .collect();
    let l = *args.first().unwrap_or(&10) as usize;
    let seed = *args.get(1).unwrap_or(&1);
    let runs = *args.get(2).unwrap_or(&5) as usize;
    let lattice = Lattice::random(l, seed);
    println!(
        "{l} × {l} spin glass, ±1 couplings (seed {seed}), zero fields: {} sites, frontier of 2^{l} configurations",
        l * l
    );

    let (t_fwd, e0) = time(runs, || ground_energy(&lattice));
    let (t_grad, (neg_e0, _, _, h_grad)) = time(runs, || tropical_gradient(&lattice));
    let (t_dp, e_dp) = time(runs, || dynamic_programming(&lattice));
    let spins: Vec<i8> = h_grad.iter().map(|&g| g as i8).collect();
    assert!(h_grad.iter().all(|&g| g == 1.0 || g == -1.0));
    let e_spins = lattice.energy(&spins);
    println!("E₀ by the reversible tropical contraction  {e0}");
    println!("E₀ by plain dynamic programming            {e_dp}");
    println!("−(value of the gradient run)               {}", -neg_e0);
    println!("H(s*) of the configuration s* = ∂(−E₀)/∂h  {e_spins}");
    assert_eq!(e0, e_dp);
    assert_eq!(
        e_spins, e0,
        "the configuration from the gradient is a ground state"
    );
    println!("s* (+ for +1, - for −1):");
    for r in 0..l {
        let row: String = spins[r * l..(r + 1) * l]
            .iter()
            .map(|&s| if s > 0 { '+' } else { '-' })
            .collect();
        println!("  {row}");
    }
    println!(
        "contraction, reversible (Tropical<f64>)  {:9.3} ms",
        t_fwd * 1e3
    );
    println!(
        "value + gradient (forward, then adjoint) {:9.3} ms  = {:.2} × contraction",
        t_grad * 1e3,
        t_grad / t_fwd
    );
    println!(
        "plain dynamic programming (f64)          {:9.3} ms",
        t_dp * 1e3
    );
}
