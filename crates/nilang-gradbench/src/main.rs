//! `nilang-gradbench`: the GradBench tool for nilang. Reads GradBench messages from stdin, one
//! JSON object per line, and writes one response line per message to stdout. Exits when stdin
//! closes (or stdout does).
//!
//! `--threads N` (default 1) sizes rayon's global pool, on which the evals' parallel loops run
//! (`kmeans` switches to its parallel program above one thread).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let threads = match nilang_gradbench::threads_option(&args) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("nilang-gradbench: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = nilang_gradbench::use_threads(threads) {
        eprintln!("nilang-gradbench: {e}");
        std::process::exit(1);
    }
    if let Err(e) = nilang_gradbench::protocol::serve_stdio() {
        eprintln!("nilang-gradbench: {e}");
        std::process::exit(1);
    }
}
