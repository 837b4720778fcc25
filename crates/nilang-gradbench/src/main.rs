//! `nilang-gradbench`: the GradBench tool for nilang. Reads GradBench messages from stdin, one
//! JSON object per line, and writes one response line per message to stdout. Exits when stdin
//! closes (or stdout does).
//!
//! `--threads N` (default 1) sizes the rayon pool that serves the messages and on which the
//! evals' parallel loops run (`kmeans` switches to its parallel program above one thread).

const USAGE: &str = "\
nilang-gradbench: nilang as a GradBench tool. Reads GradBench messages on stdin (one JSON object
per line) and answers each with one line on stdout; exits when stdin closes.

Usage: nilang-gradbench [--threads N]

Options:
  --threads N   threads of the pool the evals' parallel loops run on (default 1)
  -h, --help    print this help and exit
  -V, --version print the version and exit";

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
    let threads = match nilang_gradbench::threads_option(&args) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("nilang-gradbench: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = nilang_gradbench::serve_stdio_on(threads) {
        eprintln!("nilang-gradbench: {e}");
        std::process::exit(1);
    }
}
