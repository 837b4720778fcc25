//! The GMM gradient and the BA Jacobian distributed over the ranks of an MPI job, checked
//! against the single-process programs, and timed (the crate README has the commands).
//!
//! ```text
//! sharded check [--threads]                   every result against its reference, at this job's size
//! sharded gmm D K N REPS [--threads P]        the GMM gradient's times and bytes per gradient
//! sharded heat N STEPS REPS [--threads P]     the heat equation's gradient, the same
//! ```
//!
//! `--threads P` runs `P` ranks as threads of this process instead of MPI (the in-process
//! communicator); without it the ranks are MPI's, and a build without the feature `mpi`
//! says so and exits with status 2.

use nilang_gradbench::evals::{ba, gmm};
use nilang_mpi::{
    blocked_reference, shard_range, BaShard, Comm, Counted, GmmShard, HeatShard, MpiComm,
    ThreadComm,
};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let threads = args
        .iter()
        .position(|a| a == "--threads")
        .map(|i| args.get(i + 1).and_then(|n| n.parse().ok()).unwrap_or(2));
    let run = |comm: &dyn Comm| match args.first().map(String::as_str) {
        Some("check") => check(comm),
        Some("gmm") => time_gmm(comm, &args[1..]),
        Some("heat") => time_heat(comm, &args[1..]),
        _ => Err(
            "usage: sharded check | sharded gmm D K N REPS | sharded heat N STEPS REPS \
             [--threads P]"
                .into(),
        ),
    };
    let outcome = match threads {
        Some(p) => ThreadComm::run(p, |c| run(c)).remove(0),
        None => match MpiComm::init() {
            Ok(world) => run(&world),
            Err(why) => {
                eprintln!("sharded: {why}");
                std::process::exit(2);
            }
        },
    };
    if let Err(e) = outcome {
        eprintln!("sharded: {e}");
        std::process::exit(1);
    }
}

/// The largest relative difference between two vectors (relative to the larger magnitude,
/// at least 1e-300).
fn max_rel(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs() / x.abs().max(y.abs()).max(1e-300))
        .fold(0.0, f64::max)
}

/// GMM's value and gradient against the blocked reference (bits) and the single-process
/// program (1e-12 relative), BA's Jacobian against the single-process one (bits).
fn check(comm: &dyn Comm) -> Result<(), String> {
    let size = comm.size();
    for (d, k, n, seed) in [(3, 4, 37, 1), (10, 5, 203, 2)] {
        let whole = gmm::Problem::random(d, k, n, seed);
        let (f, g) = GmmShard::of(&whole, comm).gradient(comm)?;
        let (rf, rg) = blocked_reference(&whole, size);
        if f.to_bits() != rf.to_bits() || g != rg {
            return Err(format!(
                "gmm d{d} k{k} n{n}: not the blocked reference's bits"
            ));
        }
        let one = whole.gradient()?;
        let flat = |g: &gmm::Gradient| [&g.alpha, &g.mu, &g.q, &g.l].map(|v| v.to_vec()).concat();
        let (ef, eg) = (
            max_rel(&[f], &[whole.objective()]),
            max_rel(&flat(&g), &flat(&one)),
        );
        if ef > 1e-12 || eg > 1e-12 {
            return Err(format!(
                "gmm d{d} k{k} n{n}: value {ef:e}, gradient {eg:e} from one process"
            ));
        }
        if comm.rank() == 0 {
            println!("gmm d{d} k{k} n{n} on {size} ranks: blocked bits equal; from one process: value {ef:.1e}, gradient {eg:.1e}");
        }
    }
    let whole = ba::Problem::random(4, 9, 31, 3);
    if BaShard::of(&whole, comm).jacobian(comm)? != whole.jacobian()? {
        return Err("ba: the Jacobian is not the single-process one's bits".into());
    }
    if comm.rank() == 0 {
        println!("ba 31 observations on {size} ranks: Jacobian bit for bit");
    }
    check_heat(comm)?;
    refusals(comm)
}

/// The heat equation's value and gradient against the same program on one rank of this
/// process (1e-13 and 1e-12 relative).
fn check_heat(comm: &dyn Comm) -> Result<(), String> {
    let (n, steps, r) = (29, 30, 0.45);
    let u0: Vec<f64> = (0..n).map(|i| (0.3 * i as f64).cos()).collect();
    let (f, g) = HeatShard::of(&u0, steps, r, comm).gradient(comm)?;
    let (rf, rg) = ThreadComm::run(1, |c| HeatShard::of(&u0, steps, r, c).gradient(c)).remove(0)?;
    let mine = &rg[shard_range(n, comm.rank(), comm.size())];
    let (ef, eg) = (max_rel(&[f], &[rf]), max_rel(&g, mine));
    if ef > 1e-13 || eg > 1e-12 {
        return Err(format!(
            "heat n{n}: value {ef:e}, gradient {eg:e} from one rank"
        ));
    }
    if comm.rank() == 0 {
        println!(
            "heat n{n} {steps} steps on {} ranks: from one rank: value {ef:.1e}, gradient {eg:.1e} (rank 0's cells)",
            comm.size()
        );
    }
    Ok(())
}

/// Ranks that disagree on a size, and shards that miss points: every rank gets the same error
/// (none waits for another).
fn refusals(comm: &dyn Comm) -> Result<(), String> {
    let (rank, size) = (comm.rank(), comm.size());
    let k = if rank + 1 == size && size > 1 { 3 } else { 2 };
    let disagree = GmmShard::of(&gmm::Problem::random(3, k, 10, 1), comm).gradient(comm);
    let mut short = GmmShard::of(&gmm::Problem::random(3, 2, 10, 1), comm);
    short.n_total += 1;
    let missing = short.objective(comm);
    match (&disagree, &missing, size) {
        (Ok(_), Err(m), 1) | (Err(_), Err(m), _) if m.contains("11") => {}
        _ => {
            return Err(format!(
                "expected refusals, got {disagree:?} and {missing:?}"
            ))
        }
    }
    if rank == 0 {
        let disagree = disagree
            .err()
            .unwrap_or("(one rank: nothing to disagree on)".into());
        println!(
            "refused on every rank: {disagree}; {}",
            missing.unwrap_err()
        );
    }
    Ok(())
}

/// `REPS` gradients of a random GMM problem (`D`, `K`, `N` points over all ranks): the median
/// time and the bytes this rank moved per gradient, printed by rank 0.
fn time_gmm(comm: &dyn Comm, args: &[String]) -> Result<(), String> {
    let [d, k, n, reps] = numbers(args, "gmm needs D K N REPS")?;
    let shard = GmmShard::of(&gmm::Problem::random(d, k, n, 11), comm);
    let label = format!("gmm d{d} k{k} n{n}");
    time(comm, &label, reps, |c| shard.gradient(c).map(|_| ()))
}

/// `REPS` gradients of the heat equation on `N` cells over all ranks, `STEPS` steps: as
/// [`time_gmm`].
fn time_heat(comm: &dyn Comm, args: &[String]) -> Result<(), String> {
    let [n, steps, reps] = numbers(args, "heat needs N STEPS REPS")?;
    let u0: Vec<f64> = (0..n).map(|i| (i as f64 * 0.01).sin()).collect();
    let shard = HeatShard::of(&u0, steps, 0.4, comm);
    let label = format!("heat n{n} steps{steps}");
    time(comm, &label, reps, |c| shard.gradient(c).map(|_| ()))
}

/// The first `N` arguments as numbers, or `usage`.
fn numbers<const N: usize>(args: &[String], usage: &str) -> Result<[usize; N], String> {
    let mut out = [0; N];
    for (k, v) in out.iter_mut().enumerate() {
        let a = args.get(k).ok_or(usage)?;
        *v = a.parse().map_err(|_| format!("not a number: {a}"))?;
    }
    Ok(out)
}

/// `reps` runs of `gradient` through a counting communicator: the median time and, per
/// gradient, rank 0's time on a core, time in collectives and bytes, printed by rank 0.
fn time(
    comm: &dyn Comm,
    label: &str,
    reps: usize,
    gradient: impl Fn(&dyn Comm) -> Result<(), String>,
) -> Result<(), String> {
    let reps = reps.max(1);
    let counted = Counted::new(comm);
    let mut times = Vec::with_capacity(reps);
    let cpu_start = cpu_seconds();
    for _ in 0..reps {
        let t = Instant::now();
        gradient(&counted)?;
        times.push(t.elapsed().as_secs_f64());
    }
    let cpu = cpu_start.and_then(|s| cpu_seconds().map(|e| (e - s) / reps as f64));
    times.sort_by(f64::total_cmp);
    let reps = reps as u64;
    if comm.rank() == 0 {
        println!(
            "{label} ranks {}: median {:.4e} s (min {:.4e}, max {:.4e}); per gradient rank 0 ran {} on a core, spent {:.2e} s in {} collectives, sent {} B, received {} B",
            comm.size(),
            times[times.len() / 2],
            times[0],
            times[times.len() - 1],
            cpu.map_or("n/a".into(), |c| format!("{c:.4e} s")),
            counted.seconds() / reps as f64,
            counted.calls() / reps,
            counted.sent() / reps,
            counted.received() / reps,
        );
    }
    Ok(())
}

/// The seconds this thread has run on a core (Linux: `/proc/thread-self/schedstat`, in
/// nanoseconds); with `RAYON_NUM_THREADS=1` the programs' loops run on this thread.
fn cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns * 1e-9)
}
