//! Writes GradBench sessions (JSON Lines, as the evals send them) for timing the tool:
//! one file per eval under the directory given as argument (default `target/gradbench`).
//!
//! ```sh
//! cargo run --release -p nilang-gradbench --example record -- target/gradbench
//! for f in target/gradbench/*.jsonl; do
//!   target/release/nilang-gradbench < $f > ${f%.jsonl}.out
//! done
//! ```
//!
//! Sizes follow the evals' defaults where they are ADBench files (`gmm`, `ba`, from
//! `/work/shared/data/adbench`) and are chosen here otherwise; inputs are seeded
//! pseudo-random. Every evaluation asks for `min_runs = 3`, `min_seconds = 0`.

use nilang_gradbench::evals::{ba, gmm, lstm};
use nilang_gradbench::seeded::uniform as lcg;
use serde_json::{json, Value};
use std::fs;
use std::io::Write;

const ADBENCH: &str = "/work/shared/data/adbench";

fn rows(v: Vec<f64>, cols: usize) -> Vec<Vec<f64>> {
    v.chunks(cols).map(<[f64]>::to_vec).collect()
}

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

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/gradbench".into());
    fs::create_dir_all(&dir).unwrap();

    let mut s = Session::new("lse");
    for n in [1_000usize, 100_000, 1_000_000] {
        let x: Vec<f64> = lcg(n as u64, n).iter().map(|v| 5.0 * v).collect();
        for f in ["primal", "gradient"] {
            s.eval("lse", f, json!({"x": x}), &format!("n={n}"));
        }
    }
    s.write(&dir, "lse");

    let mut s = Session::new("llsq");
    for (m, n) in [(16usize, 1_000usize), (64, 10_000), (256, 10_000)] {
        for f in ["primal", "gradient"] {
            s.eval(
                "llsq",
                f,
                json!({"x": lcg(m as u64, m), "n": n}),
                &format!("m={m},n={n}"),
            );
        }
    }
    s.write(&dir, "llsq");

    let mut s = Session::new("gmm");
    for file in [
        "gmm_d2_K5",
        "gmm_d10_K25",
        "gmm_d20_K50",
        "gmm_d64_K10",
        "gmm_d64_K100",
    ] {
        let text = fs::read_to_string(format!("{ADBENCH}/gmm/1k/{file}.txt")).unwrap();
        let p = gmm::Problem::from_adbench(&text).unwrap();
        for f in ["objective", "jacobian"] {
            s.eval("gmm", f, p.to_json(), &format!("{file}_n1000"));
        }
    }
    s.write(&dir, "gmm");

    let mut s = Session::new("ba");
    for file in [
        "ba1_n49_m7776_p31843",
        "ba2_n21_m11315_p36455",
        "ba3_n161_m48126_p182072",
    ] {
        let text = fs::read_to_string(format!("{ADBENCH}/ba/{file}.txt")).unwrap();
        let inp = ba::Problem::input_from_adbench(&text).unwrap();
        let v = json!({"n": inp.n, "m": inp.m, "p": inp.p, "cam": inp.cam, "x": inp.x, "w": inp.w, "feat": inp.feat});
        for f in ["objective", "jacobian"] {
            s.eval("ba", f, v.clone(), file);
        }
    }
    s.write(&dir, "ba");

    let mut s = Session::new("kmeans");
    for (n, k, d) in [
        (1_000usize, 10usize, 8usize),
        (10_000, 100, 8),
        (100_000, 10, 2),
    ] {
        let points = rows(lcg(n as u64, n * d), d);
        let centroids: Vec<Vec<f64>> = points[..k].to_vec();
        for f in ["cost", "dir"] {
            s.eval(
                "kmeans",
                f,
                json!({"points": points, "centroids": centroids}),
                &format!("n={n},k={k},d={d}"),
            );
        }
    }
    s.write(&dir, "kmeans");

    let mut s = Session::new("det");
    for ell in 5..=11usize {
        let a: Vec<f64> = lcg(ell as u64, ell * ell)
            .iter()
            .map(|v| 0.5 * (v + 1.0))
            .collect();
        for f in ["primal", "gradient"] {
            s.eval("det", f, json!({"A": a, "ell": ell}), &format!("ell={ell}"));
        }
    }
    s.write(&dir, "det");

    let mut s = Session::new("lstm");
    for file in [
        "lstm_l2_c1024",
        "lstm_l2_c4096",
        "lstm_l4_c1024",
        "lstm_l4_c4096",
    ] {
        let text = fs::read_to_string(format!("{ADBENCH}/lstm/{file}.txt")).unwrap();
        let p = lstm::Problem::from_adbench(&text).unwrap();
        for f in ["objective", "jacobian"] {
            s.eval("lstm", f, p.to_json(), file);
        }
    }
    s.write(&dir, "lstm");

    let mut s = Session::new("ode");
    for (n, steps) in [(10usize, 1_000usize), (1_000, 100), (1_000, 1_000)] {
        let x: Vec<f64> = lcg(n as u64, n).iter().map(|v| 0.5 * (v + 1.0)).collect();
        for f in ["primal", "gradient"] {
            s.eval(
                "ode",
                f,
                json!({"x": x, "s": steps}),
                &format!("n={n},s={steps}"),
            );
        }
    }
    s.write(&dir, "ode");

    let mut s = Session::new("saddle");
    for start in [[1.0, -1.0], [-2.5, 0.7]] {
        for f in ["ff", "fr", "rf", "rr"] {
            s.eval(
                "saddle",
                f,
                json!({ "start": start }),
                &format!("start={start:?}"),
            );
        }
    }
    s.write(&dir, "saddle");

    let mut s = Session::new("particle");
    for w in [0.0, 0.5] {
        for f in ["ff", "fr", "rf", "rr"] {
            s.eval("particle", f, json!({ "w": w }), &format!("w={w}"));
        }
    }
    s.write(&dir, "particle");
}
