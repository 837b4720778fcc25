//! `nilang-gradbench`: the GradBench tool for nilang. Reads GradBench messages from stdin, one
//! JSON object per line, and writes one response line per message to stdout. Exits when stdin
//! closes (or stdout does).
//!
//! `--threads N` (default 1, at most 64 per core and 4096) sizes the rayon pool that serves the
//! messages and on which the evals' parallel loops run (`kmeans` switches to its parallel
//! program above one thread). `--engine natural` (or `--natural`) answers with the evals'
//! natural programs where they have one (`nilang_gradbench::evals::natural`), `--engine
//! dualrev` with ordinary generic Rust differentiated by `nilang-dualrev`
//! (`nilang_gradbench::evals::dualrev`). The caps on what one message may ask for (memory, runs, solver
//! steps) come from environment variables (`nilang_gradbench::limits`).

const USAGE: &str = "\
nilang-gradbench: nilang as a GradBench tool. Reads GradBench messages on stdin (one JSON object
per line) and answers each with one line on stdout; exits when stdin closes.

Usage: nilang-gradbench [--threads N] [--engine expert|natural|dualrev]

Options:
  --threads N   threads of the pool the evals' parallel loops run on (default 1; at most 64
                per core, and 4096)
  --engine E    the programs that answer (default expert: the reversible programs):
                natural  the evals' natural programs (plain Rust under #[differentiable])
                dualrev  the evals as ordinary generic Rust over nilang-dualrev's Scalar,
                         differentiated by its dual-numbers reverse AD (a tape)
                both for lse, llsq, gmm, ode's gradient, det, kmeans, lstm and ba; the
                expert programs answer the others
  --natural     the same as --engine natural
  -h, --help    print this help and exit
  -V, --version print the version and exit

Caps on what one message may ask for (environment variables; a message over a cap is
answered with an error, and the next one served):
  NILANG_GRADBENCH_MAX_BYTES    memory one evaluation allocates (default 4G; K, M, G, T suffixes)
  NILANG_GRADBENCH_MAX_RUNS     runs of one evaluation (default 1000000)
  NILANG_GRADBENCH_MAX_SECONDS  largest min_seconds (default 3600)
  NILANG_GRADBENCH_MAX_STEPS    steps of one solver loop, descent or integration (default 100000)";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `let _`: a closed stdout (`… --help | head -1`) is not an error worth a panic
    use std::io::Write as _;
    if args.iter().any(|a| a == "--help" || a == "-h") {
        let _ = writeln!(std::io::stdout(), "{USAGE}");
        return;
    }
    if args.iter().any(|a| a == "--version" || a == "-V") {
        let _ = writeln!(
            std::io::stdout(),
            "nilang-gradbench {}",
            env!("CARGO_PKG_VERSION")
        );
        return;
    }
    // a bad option or cap variable is a usage error (2), refused before serving
    let threads = nilang_gradbench::threads_option(&args)
        .and_then(|n| nilang_gradbench::limits::Limits::from_env().map(|_| n));
    let threads = match threads {
        Ok(n) => n,
        Err(e) => {
            eprintln!("nilang-gradbench: {e}");
            std::process::exit(2);
        }
    };
    let engine = match nilang_gradbench::engine_option(&args) {
        Ok(engine) => engine,
        Err(e) => {
            eprintln!("nilang-gradbench: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = nilang_gradbench::serve_stdio_engine(threads, engine) {
        eprintln!("nilang-gradbench: {e}");
        std::process::exit(1);
    }
}
