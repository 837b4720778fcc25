//! `nilang-gradbench`: the GradBench tool for nilang. Reads GradBench messages from stdin, one
//! JSON object per line, and writes one response line per message to stdout. Exits when stdin
//! closes (or stdout does).

fn main() {
    if let Err(e) = nilang_gradbench::protocol::serve_stdio() {
        eprintln!("nilang-gradbench: {e}");
        std::process::exit(1);
    }
}
