//! Writes GradBench sessions for `llsq`, `gmm` and `kmeans` at the sizes GradBench's evals
//! send by default (their `run.py` argument defaults), for timing the tool on exactly those
//! sizes: `llsq_defaults.jsonl`, `gmm_defaults.jsonl` and `kmeans_defaults.jsonl` under the
//! directory given as argument (default `target/gradbench`).
//!
//! ```sh
//! cargo build --release -p nilang-gradbench --example record_defaults --bin nilang-gradbench
//! target/release/examples/record_defaults target/gradbench
//! target/release/nilang-gradbench < target/gradbench/llsq_defaults.jsonl > target/gradbench/llsq_defaults.out
//! ```
//!
//! * `llsq`: `m = 128` coefficients, `n` = 16, 32, …, 4096, 8196, 16392 points (the eval's
//!   list, typos included); `x` uniform in `[0, 1)` as the eval's `np.random.rand`.
//! * `gmm`: `n = 1000` points, `d` ∈ {2, 10, 20, 32, 64}, `K` ∈ {5, 10, 25, 50, 100}, `γ = 1`,
//!   `m = 0`, in the eval's current (split, log-posterior) layout, drawn as the eval draws them
//!   (normal `x`, `α`, `q`, `l`; uniform `μ`) but from our seeded generator
//!   ([`gmm::Problem::random`]), not numpy's.
//! * `kmeans`: `k` ∈ {10, 100, 1000}, `n` ∈ {1000, 10000}, `d` ∈ {8, 16}; points uniform in
//!   `[0, 1)`, centroids the last `k` points (as the eval does).
//!
//! Every evaluation asks for `min_runs = 3`, `min_seconds = 0` (the evals send
//! `min_seconds = 1` by default; repeated runs only add timings).

use nilang_gradbench::evals::gmm;
use nilang_gradbench::seeded::uniform;
use serde_json::{json, Value};
use std::fs;
use std::io::Write;

struct Session {
    lines: Vec<String>,
    id: u64,
}

impl Session {
    fn new(module: &str) -> Session {
        let mut s = Session {
            lines: Vec::new(),
            id: 0,
        };
        s.push(json!({"kind": "start", "eval": module}));
        s.push(json!({"kind": "define", "module": module}));
        s
    }
    fn push(&mut self, mut m: Value) {
        m["id"] = json!(self.id);
        self.id += 1;
        self.lines.push(m.to_string());
    }
    fn eval(&mut self, module: &str, function: &str, mut input: Value, description: &str) {
        input["min_runs"] = json!(3);
        input["min_seconds"] = json!(0);
        let of = self.id;
        self.push(json!({"kind": "evaluate", "module": module, "function": function, "input": input, "description": description}));
        self.push(json!({"kind": "analysis", "of": of, "valid": true}));
    }
    fn write(&self, dir: &str, name: &str) {
        let mut f = fs::File::create(format!("{dir}/{name}.jsonl")).unwrap();
        for l in &self.lines {
            writeln!(f, "{l}").unwrap();
        }
    }
}

/// `count` values uniform in `[0, 1)`.
fn unit(seed: u64, count: usize) -> Vec<f64> {
    uniform(seed, count)
        .iter()
        .map(|v| 0.5 * (v + 1.0))
        .collect()
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/gradbench".into());
    fs::create_dir_all(&dir).unwrap();

    let mut s = Session::new("llsq");
    let m = 128usize;
    for n in [
        16usize, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8196, 16392,
    ] {
        let x = unit(n as u64, m);
        for f in ["primal", "gradient"] {
            s.eval("llsq", f, json!({"x": x, "n": n}), &format!("n={n},m={m}"));
        }
    }
    s.write(&dir, "llsq_defaults");

    let mut s = Session::new("gmm");
    let mut sizes: Vec<(usize, usize)> = [2usize, 10, 20, 32, 64]
        .iter()
        .flat_map(|&d| [5usize, 10, 25, 50, 100].map(|k| (d, k)))
        .collect();
    sizes.sort_by_key(|&(d, k)| d * k);
    for (d, k) in sizes {
        let mut p = gmm::Problem::random(d, k, 1000, (d * 1000 + k) as u64);
        p.layout = gmm::Layout::Split;
        for f in ["objective", "jacobian"] {
            s.eval("gmm", f, p.to_json(), &format!("{d}_{k}_1000"));
        }
    }
    s.write(&dir, "gmm_defaults");

    let mut s = Session::new("kmeans");
    let mut sizes: Vec<(usize, usize, usize)> = Vec::new();
    for k in [10usize, 100, 1000] {
        for n in [1000usize, 10000] {
            for d in [8usize, 16] {
                sizes.push((k, n, d));
            }
        }
    }
    sizes.sort_by_key(|&(k, n, d)| k * n * d);
    for (k, n, d) in sizes {
        let points: Vec<Vec<f64>> = unit((k * 7 + n * 3 + d) as u64, n * d)
            .chunks(d)
            .map(<[f64]>::to_vec)
            .collect();
        let centroids = points[n - k..].to_vec();
        for f in ["cost", "dir"] {
            s.eval(
                "kmeans",
                f,
                json!({"points": points, "centroids": centroids}),
                &format!("k={k},n={n},d={d}"),
            );
        }
    }
    s.write(&dir, "kmeans_defaults");
}
