//! `nilang-gradbench`: the GradBench tool for nilang. Reads GradBench messages from stdin, one
//! JSON object per line, and writes one response line per message to stdout. Exits when stdin
//! closes (or stdout does).

use nilang_gradbench::Tool;
use std::io::{self, BufRead, Write};

fn main() {
    // Panics inside an evaluation become `success: false` responses; keep their report short.
    std::panic::set_hook(Box::new(|info| eprintln!("nilang-gradbench: {info}")));
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut tool = Tool::new();
    let mut line = String::new();
    loop {
        line.clear();
        match stdin.lock().read_line(&mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                // Not UTF-8, or a read error: answer it like any other malformed line.
                eprintln!("nilang-gradbench: could not read a line: {e}");
                let error = serde_json::json!({"id": null, "success": false, "error": format!("unreadable line: {e}")});
                if writeln!(out, "{error}").and_then(|_| out.flush()).is_err() {
                    break;
                }
                if e.kind() != io::ErrorKind::InvalidData {
                    break;
                }
                continue;
            }
        }
        if let Some(response) = tool.handle_line(&line) {
            if writeln!(out, "{response}")
                .and_then(|_| out.flush())
                .is_err()
            {
                break;
            }
        }
    }
}
