//! A 16-qubit variational circuit for the transverse-field Ising chain: the energy, its
//! gradient with respect to every angle by reversal (`vqe_energy_vjp`), and the same gradient
//! by the parameter-shift rule (two energies per angle), with their times.
//!
//! Run with `cargo run --release -p nilang-apps --example quantum` (arguments: qubits, layers,
//! runs; default 16 4 5). Times are medians of `runs` runs (the parameter-shift gradient: one
//! run).

use nilang_apps::quantum::{energy_and_gradient, parameter_shift, plain, Circuit};
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
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("qubits layers runs"))
        .collect();
    let (n, layers, runs) = (
        *args.first().unwrap_or(&16),
        *args.get(1).unwrap_or(&4),
        *args.get(2).unwrap_or(&5),
    );
    let c = Circuit {
        qubits: n,
        layers,
        j: 1.0,
        g: 1.0,
    };
    let p = c.parameters();
    let theta: Vec<f64> = (0..p).map(|k| 0.37 * k as f64 % 3.1 - 1.5).collect();
    println!(
        "{n} qubits (2^{n} = {} amplitudes, {:.1} MiB per state vector), {layers} layers, {p} angles",
        1usize << n,
        (16usize << n) as f64 / (1 << 20) as f64
    );

    let (t_fwd, e) = time(runs, || c.energy(&theta));
    let (t_plain, e_plain) = time(runs, || plain::energy(&c, &theta));
    let (t_grad, (e_grad, grad)) = time(runs, || energy_and_gradient(&c, &theta));
    println!(
        "energy  reversible {e:.12}  plain {e_plain:.12}  (from the gradient run {e_grad:.12})"
    );
    println!(
        "forward, reversible program          {:9.2} ms",
        t_fwd * 1e3
    );
    println!(
        "forward, plain state-vector sim      {:9.2} ms",
        t_plain * 1e3
    );
    println!(
        "gradient by reversal (vjp)           {:9.2} ms  = {:.2} × forward",
        t_grad * 1e3,
        t_grad / t_fwd
    );

    let t = Instant::now();
    let shift = parameter_shift(&c, &theta);
    let t_shift = t.elapsed().as_secs_f64();
    println!(
        "gradient by parameter shift ({} energies) {:9.2} ms  = {:.1} × forward, {:.1} × reversal",
        2 * p,
        t_shift * 1e3,
        t_shift / t_fwd,
        t_shift / t_grad
    );
    let diff = grad
        .iter()
        .zip(&shift)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    let norm = grad.iter().map(|g| g * g).sum::<f64>().sqrt();
    println!("max |reversal − parameter shift| = {diff:.2e}  (|∇E| = {norm:.4})");
}
