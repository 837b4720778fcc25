//! Writes GradBench `ht` sessions (JSON Lines, as the eval sends them) for timing the tool:
//! `ht.jsonl` under the directory given as argument (default `target/gradbench`).
//!
//! ```sh
//! cargo run --release -p nilang-gradbench --example ht_record -- target/gradbench
//! target/release/nilang-gradbench < target/gradbench/ht.jsonl > target/gradbench/ht.out
//! python3 crates/nilang-gradbench/examples/summarize.py target/gradbench/ht.jsonl target/gradbench/ht.out
//! ```
//!
//! No ADBench hand file is at hand, so the inputs are seeded random hands of ADBench's hand
//! model size (22 bones, 544 vertices, one triangle per correspondence in the complicated
//! variant) with ADBench's correspondence counts and bone tree, not mirrored (as ADBench's
//! hand files; GradBench's `manual` tool does not mirror its derivative, so
//! `examples/compare_manual.py` can only check unmirrored hands). Every evaluation asks for
//! `min_runs = 3`, `min_seconds = 0`.
//!
//! Correspondence counts after the directory replace the default `100 1600 12800` (for the
//! largest GradBench input: `100000`; the file is then named `ht_<counts>.jsonl`).

use nilang_gradbench::evals::ht;
use serde_json::json;
use std::io::Write;

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/gradbench".into());
    std::fs::create_dir_all(&dir).unwrap();
    let mut lines = vec![
        json!({"id": 0, "kind": "start", "eval": "ht"}).to_string(),
        json!({"id": 1, "kind": "define", "module": "ht"}).to_string(),
    ];
    let counts: Vec<usize> = std::env::args()
        .skip(2)
        .map(|a| a.parse().expect("a correspondence count"))
        .collect();
    let name = if counts.is_empty() {
        "ht".to_string()
    } else {
        let list: Vec<String> = counts.iter().map(usize::to_string).collect();
        format!("ht_{}", list.join("_"))
    };
    let counts = if counts.is_empty() {
        vec![100, 1_600, 12_800]
    } else {
        counts
    };
    let mut id = 2;
    for complicated in [false, true] {
        for &n in &counts {
            let mut input = ht::Problem::random(544, n, complicated, n as u64).to_input();
            input["data"]["model"]["is_mirrored"] = json!(false);
            input["min_runs"] = json!(3);
            input["min_seconds"] = json!(0);
            let variant = if complicated { "complicated" } else { "simple" };
            for function in ["objective", "jacobian"] {
                lines.push(
                    json!({"id": id, "kind": "evaluate", "module": "ht", "function": function,
                           "input": input, "description": format!("{variant} c{n}")})
                    .to_string(),
                );
                id += 1;
            }
        }
    }
    let mut f = std::fs::File::create(format!("{dir}/{name}.jsonl")).unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
}
