//! Recorded GradBench sessions replayed through the `nilang-gradbench` binary, one message at
//! a time as an eval sends them (each response is read before the next message is written).
//! The messages follow each eval's README (`evals/<name>/README.md` in gradbench/gradbench).

#![allow(clippy::excessive_precision)] // ADBench's published objective, digit for digit

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

struct Tool {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Tool {
    fn spawn() -> Tool {
        let mut child = Command::new(env!("CARGO_BIN_EXE_nilang-gradbench"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn nilang-gradbench");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Tool {
            child,
            stdin,
            stdout,
        }
    }

    /// Sends one raw line and reads the one response line.
    fn send_raw(&mut self, line: &str) -> Value {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let mut response = String::new();
        let n = self.stdout.read_line(&mut response).unwrap();
        assert!(n > 0, "the tool exited after {line:?}");
        assert!(response.ends_with('\n'));
        serde_json::from_str(&response)
            .unwrap_or_else(|e| panic!("response {response:?} is not JSON: {e}"))
    }

    /// Sends a message and checks the response carries its id.
    fn send(&mut self, message: Value) -> Value {
        let r = self.send_raw(&message.to_string());
        assert_eq!(r["id"], message["id"], "response {r} to {message}");
        r
    }

    /// Closes stdin and checks the tool exits cleanly without further output.
    fn finish(mut self) {
        drop(self.stdin.take());
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut self.stdout, &mut rest).unwrap();
        assert_eq!(rest, "", "output after the last response");
        assert!(self.child.wait().unwrap().success());
    }
}

/// A session of one eval: start, define, then `evaluate` + `analysis` for each (function,
/// input); returns the evaluate outputs.
fn replay(module: &str, evaluations: &[(&str, Value)]) -> Vec<Value> {
    let mut tool = Tool::spawn();
    let mut id = 0;
    let mut next = || {
        id += 1;
        id - 1
    };
    let r = tool.send(json!({"id": next(), "kind": "start", "eval": module}));
    assert_eq!(r["tool"], "nilang");
    let r = tool.send(json!({"id": next(), "kind": "define", "module": module}));
    assert_eq!(r["success"], true, "{r}");
    let mut outputs = Vec::new();
    for (function, input) in evaluations {
        let eid = next();
        let r = tool.send(
            json!({"id": eid, "kind": "evaluate", "module": module, "function": function,
                                 "input": input, "description": "test"}),
        );
        assert_eq!(r["success"], true, "{module}::{function}: {r}");
        check_timings(&r, input);
        outputs.push(r["output"].clone());
        let r = tool.send(json!({"id": next(), "kind": "analysis", "of": eid, "valid": true}));
        assert_eq!(r, json!({"id": eid + 1}));
    }
    tool.finish();
    outputs
}

/// One `evaluate` timing per run, at least `min_runs` of them, adding up to `min_seconds`.
fn check_timings(r: &Value, input: &Value) {
    let timings = r["timings"].as_array().expect("timings");
    assert!(!timings.is_empty());
    assert!(timings
        .iter()
        .all(|t| t["name"] == "evaluate" && t["nanoseconds"].is_u64()));
    let min_runs = input.get("min_runs").and_then(Value::as_u64).unwrap_or(1) as usize;
    assert!(
        timings.len() >= min_runs,
        "{} runs for min_runs = {min_runs}",
        timings.len()
    );
    let total: u64 = timings
        .iter()
        .map(|t| t["nanoseconds"].as_u64().unwrap())
        .sum();
    let min_seconds = input
        .get("min_seconds")
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    assert!(
        total as f64 * 1e-9 >= min_seconds,
        "{total} ns for min_seconds = {min_seconds}"
    );
}

fn close(a: &Value, b: f64, tol: f64) -> bool {
    let a = a.as_f64().unwrap_or_else(|| panic!("{a} is not a number"));
    (a - b).abs() <= tol * 1f64.max(a.abs()).max(b.abs())
}

fn all_close(a: &Value, b: &[f64], tol: f64) -> bool {
    let a = a
        .as_array()
        .unwrap_or_else(|| panic!("{a} is not an array"));
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| close(x, *y, tol))
}

#[test]
fn hello_session() {
    // the eval alternates square and double, feeding each output to the next input
    let out = replay(
        "hello",
        &[
            ("square", json!(1.0)),
            ("double", json!(1.0)),
            ("square", json!(2.0)),
            ("double", json!(4.0)),
            ("square", json!(8.0)),
            ("double", json!(64.0)),
        ],
    );
    assert_eq!(
        out,
        vec![
            json!(1.0),
            json!(2.0),
            json!(4.0),
            json!(8.0),
            json!(64.0),
            json!(128.0)
        ]
    );
}

#[test]
fn lse_session() {
    let x = json!([1.0, 2.0, 3.0, -1.5]);
    let runs = json!({"x": x, "min_runs": 3, "min_seconds": 0.001});
    let out = replay("lse", &[("primal", runs.clone()), ("gradient", runs)]);
    let xs = [1.0f64, 2.0, 3.0, -1.5];
    let s: f64 = xs.iter().map(|v| v.exp()).sum();
    assert!(close(&out[0], s.ln(), 1e-14));
    assert!(all_close(&out[1], &xs.map(|v| v.exp() / s), 1e-14));
}

#[test]
fn llsq_session() {
    let input = json!({"x": [0.5, -1.0, 2.0], "n": 3, "min_runs": 1, "min_seconds": 0});
    let out = replay("llsq", &[("primal", input.clone()), ("gradient", input)]);
    // t = (-1, 0, 1), s = (-1, 0, 1); residuals r_i = s_i - (0.5 - t_i + 2 t_i²)
    let t = [-1.0f64, 0.0, 1.0];
    let r: Vec<f64> = t
        .iter()
        .map(|&t| t.signum() * (t != 0.0) as i32 as f64 - (0.5 - t + 2.0 * t * t))
        .collect();
    assert!(close(
        &out[0],
        0.5 * r.iter().map(|v| v * v).sum::<f64>(),
        1e-15
    ));
    let g: Vec<f64> = (0..3)
        .map(|j| -(0..3).map(|i| r[i] * t[i].powi(j)).sum::<f64>())
        .collect();
    assert!(all_close(&out[1], &g, 1e-15));
}

#[test]
fn gmm_session_adbench_layout() {
    // ADBench's test instance (d = 2, k = 3, n = 1) in the README's layout
    let text = std::fs::read_to_string("/work/shared/data/adbench/gmm/test.txt").unwrap();
    let p = nilang_gradbench::evals::gmm::Problem::from_adbench(&text).unwrap();
    let mut input = p.to_json();
    input["min_runs"] = json!(2);
    input["min_seconds"] = json!(0);
    assert!(input.get("icf").is_some());
    let out = replay("gmm", &[("objective", input.clone()), ("jacobian", input)]);
    assert!(close(&out[0], 8.07380408004975791, 1e-12), "{}", out[0]);
    let g = out[1].as_array().unwrap();
    assert_eq!(g.len(), 3 + 3 * 2 + 3 * 3); // alpha, means, icf
    let direct = p.gradient().unwrap();
    assert!(all_close(&Value::from(g[..3].to_vec()), &direct.alpha, 0.0));
    // ∂f/∂α sums to zero when n·LSE(α) is the only other α term: Σ_c softmax = 1 per point, n = 1
    let sum: f64 = g[..3].iter().map(|v| v.as_f64().unwrap()).sum();
    assert!(sum.abs() < 1e-12, "{sum}");
}

#[test]
fn gmm_session_split_layout() {
    let input = json!({
        "d": 2, "k": 2, "n": 3,
        "alpha": [0.1, -0.2],
        "mu": [[0.0, 0.5], [1.0, -0.5]],
        "q": [[0.1, -0.1], [0.2, 0.0]],
        "l": [[0.3], [-0.4]],
        "x": [[0.2, 0.1], [-1.0, 0.5], [0.7, 0.7]],
        "gamma": 1.0, "m": 0,
        "min_runs": 1, "min_seconds": 0
    });
    let out = replay(
        "gmm",
        &[("objective", input.clone()), ("jacobian", input.clone())],
    );
    let raw = serde_json::from_value(input).unwrap();
    let p = nilang_gradbench::evals::gmm::Problem::from_raw(raw).unwrap();
    assert!(close(
        &out[0],
        p.reference(&p.alpha, &p.mu, &p.q, &p.l),
        1e-13
    ));
    let g = &out[1];
    for key in ["alpha", "mu", "q", "l"] {
        assert!(g.get(key).is_some(), "jacobian output has `{key}`: {g}");
    }
    assert_eq!(g["mu"].as_array().unwrap().len(), 2);
    assert_eq!(g["l"][0].as_array().unwrap().len(), 1);
}

#[test]
fn ba_session() {
    let input = json!({
        "n": 2, "m": 3, "p": 20,
        "cam": [1.797201, 0.590697, -0.635786, 90.859550, 29.361415, 28.777534, 211.628116, -0.284531, -14.762924, 0.058931, 0.069976],
        "x": [4.173048, 5.586898, 1.403869],
        "w": 0.417022,
        "feat": [-525.672849, 161.811929]
    });
    let out = replay("ba", &[("objective", input.clone()), ("jacobian", input)]);
    let cam: [f64; 11] = [
        1.797201, 0.590697, -0.635786, 90.859550, 29.361415, 28.777534, 211.628116, -0.284531,
        -14.762924, 0.058931, 0.069976,
    ];
    let want = nilang_gradbench::evals::ba::reference_reproj(
        &cam,
        &[4.173048, 5.586898, 1.403869],
        0.417022,
        &[-525.672849, 161.811929],
    );
    let o = &out[0];
    assert!(
        all_close(&o["reproj_error"]["elements"], &want, 1e-12),
        "{o}"
    );
    assert_eq!(o["reproj_error"]["repeated"], 20);
    assert!(close(
        &o["w_err"]["element"],
        1.0 - 0.417022f64 * 0.417022,
        1e-15
    ));
    assert_eq!(o["w_err"]["repeated"], 20);
    let j = &out[1];
    let rows: Vec<u64> = j["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let cols: Vec<u64> = j["cols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(rows.len(), 31);
    assert_eq!(cols.len(), 31);
    assert_eq!(j["vals"].as_array().unwrap().len(), 31);
    assert_eq!(rows[..4], [0, 15, 30, 45]);
    assert_eq!(*rows.last().unwrap(), 31 * 20); // nnz
                                                // first row: camera 0 (cols 0..11), point 0 (22..25), weight 0 (31)
    assert_eq!(
        cols[..15],
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 22, 23, 24, 31]
    );
    assert_eq!(*cols.last().unwrap(), 22 + 9 + 19);
    assert!(close(
        j["vals"].as_array().unwrap().last().unwrap(),
        -2.0 * 0.417022,
        1e-15
    ));
    // ∂e₀/∂w = e₀/w
    assert!(close(&j["vals"][14], want[0] / 0.417022, 1e-10));
}

#[test]
fn kmeans_session() {
    let input = json!({
        "points": [[0.0, 0.0], [1.0, 0.0], [10.0, 10.0], [11.0, 12.0], [0.5, 1.0]],
        "centroids": [[0.2, 0.1], [9.0, 11.0]],
        "min_runs": 2, "min_seconds": 0
    });
    let out = replay("kmeans", &[("cost", input.clone()), ("dir", input)]);
    // cluster 0: points 0, 1, 4; cluster 1: points 2, 3
    let sq = |a: [f64; 2], b: [f64; 2]| (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2);
    let cost = sq([0.0, 0.0], [0.2, 0.1])
        + sq([1.0, 0.0], [0.2, 0.1])
        + sq([0.5, 1.0], [0.2, 0.1])
        + sq([10.0, 10.0], [9.0, 11.0])
        + sq([11.0, 12.0], [9.0, 11.0]);
    assert!(close(&out[0], cost, 1e-14));
    // J·H⁻¹ = centroid − cluster mean
    let want = [[0.2 - 0.5, 0.1 - 1.0 / 3.0], [9.0 - 10.5, 11.0 - 11.0]];
    for (c, w) in want.iter().enumerate() {
        assert!(all_close(&out[1][c], w, 1e-14), "{}", out[1]);
    }
}

#[test]
fn det_session() {
    let a = [2.0, -1.0, 0.0, 1.0, 3.0, 1.0, 0.5, 0.0, 4.0];
    let input = json!({"A": a, "ell": 3, "min_runs": 1, "min_seconds": 0});
    let out = replay("det", &[("primal", input.clone()), ("gradient", input)]);
    let det = 2.0 * (12.0 - 0.0) + 1.0 * (4.0 - 0.5) + 0.0;
    assert!(close(&out[0], det, 1e-15));
    // gradient = cofactor matrix
    let cof = [12.0, -3.5, -1.5, 4.0, 8.0, -0.5, -1.0, -2.0, 7.0];
    assert!(all_close(&out[1], &cof, 1e-15), "{}", out[1]);
}

#[test]
fn lstm_session() {
    // l = 1, c = 3, b = 2: one layer of two cells over a three-character one-hot sequence
    let input = json!({
        "main_params": [[0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7, -0.8], [0.05, 0.1, -0.15, 0.2, 0.0, 0.3, -0.1, 0.25]],
        "extra_params": [[0.9, -1.1], [1.2, 0.8], [-0.3, 0.4]],
        "state": [[0.2, -0.4], [0.1, 0.3]],
        "sequence": [[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]],
        "min_runs": 2, "min_seconds": 0
    });
    let out = replay(
        "lstm",
        &[("objective", input.clone()), ("jacobian", input.clone())],
    );
    let inp: nilang_gradbench::evals::lstm::Input = serde_json::from_value(input).unwrap();
    let p = nilang_gradbench::evals::lstm::Problem::from_input(&inp).unwrap();
    assert!(
        close(&out[0], p.reference(&p.main, &p.extra), 1e-14),
        "{}",
        out[0]
    );
    // main (2 × 8) then extra (3 × 2), rows adjacent
    let g = out[1].as_array().unwrap();
    assert_eq!(g.len(), 16 + 6);
    let direct = p.gradient().unwrap();
    assert!(all_close(&out[1], &direct, 1e-15));
    // the output bias b_out[i] enters y[i] once per step: ∂L/∂b_out = Σ_t (softmax₊₂(y_t) − gold_t) / (c − 1)b
    let sum_gold_minus: f64 = g[20].as_f64().unwrap() + g[21].as_f64().unwrap();
    assert!(
        sum_gold_minus < 0.0,
        "the +2 in the LSE makes Σ softmax < 1: {sum_gold_minus}"
    );
}

/// A 21-bone hand (ADBench's pose mapping reaches bone 20): root, wrist, five fingers of
/// four bones (the last finger one bone short), each bone translated along y from its parent.
fn ht_model(triangles: Value) -> Value {
    let nb = 21;
    let translate = |x: f64, y: f64, z: f64| {
        json!([
            [1.0, 0.0, 0.0, x],
            [0.0, 1.0, 0.0, y],
            [0.0, 0.0, 1.0, z],
            [0.0, 0.0, 0.0, 1.0]
        ])
    };
    let mut parents = vec![-1, 0];
    for f in 0..5 {
        parents.push(1);
        for k in 1..4 {
            if parents.len() < nb {
                parents.push(2 + 4 * f + k - 1);
            }
        }
    }
    let rel: Vec<Value> = (0..nb)
        .map(|b| translate(0.01 * b as f64, 0.25, 0.0))
        .collect();
    let inv: Vec<Value> = (0..nb)
        .map(|b| translate(0.0, -0.1 * b as f64, 0.02))
        .collect();
    // four vertices: bone 0 only, wrist + thumb, index tip, pinky base and ring tip
    let mut weights = vec![vec![0.0; nb]; 4];
    weights[0][0] = 1.0;
    (weights[1][1], weights[1][3]) = (0.4, 0.6);
    weights[2][9] = 1.0;
    (weights[3][14], weights[3][17]) = (0.5, 0.5);
    json!({
        "bone_count": nb,
        "bone_names": (0..nb).map(|b| format!("b{b}")).collect::<Vec<_>>(),
        "parents": parents,
        "base_relatives": rel,
        "inverse_base_absolutes": inv,
        "base_positions": [[0.1, 0.2, 0.3, 1.0], [-0.2, 0.5, 0.1, 1.0], [0.3, 1.2, -0.1, 1.0], [0.0, 0.9, 0.2, 1.0]],
        "weights": weights,
        "triangles": triangles,
        "is_mirrored": true,
    })
}

#[test]
fn ht_session() {
    use nilang_gradbench::evals::ht;
    let theta = json!([
        0.3, -0.2, 0.1, 1.0, 2.0, -0.5, 0.1, 0.2, -0.1, 0.3, 0.05, -0.2, 0.15, 0.1, 0.2, -0.3, 0.4,
        0.1, -0.1, 0.2, 0.3, 0.05, 0.1, -0.2, 0.25, 0.1
    ]);
    let points = json!([[1.0, 2.0, 0.0], [1.5, 2.5, -0.5], [0.5, 3.0, -0.2]]);
    let simple = json!({
        "theta": theta,
        "us": [],
        "data": {"model": ht_model(json!([])), "correspondences": [0, 2, 3], "points": points},
        "min_runs": 2, "min_seconds": 0
    });
    let complicated = json!({
        "theta": theta,
        "us": [[0.2, 0.3], [0.5, 0.1], [0.0, 1.0]],
        "data": {"model": ht_model(json!([[0, 1, 2], [1, 2, 3], [3, 0, 2]])), "correspondences": [0, 1, 2], "points": points},
    });
    let out = replay(
        "ht",
        &[
            ("objective", simple.clone()),
            ("jacobian", simple.clone()),
            ("objective", complicated.clone()),
            ("jacobian", complicated.clone()),
        ],
    );
    for (k, input) in [simple, complicated].iter().enumerate() {
        let p = ht::Problem::from_input(&serde_json::from_value(input.clone()).unwrap()).unwrap();
        let want = p.reference(&p.theta, &p.us);
        assert!(all_close(&out[2 * k], &want, 1e-12), "{}", out[2 * k]);
        let j = out[2 * k + 1].as_array().unwrap();
        assert_eq!(j.len(), 9);
        let o = if p.complicated() { 2 } else { 0 };
        for (row, jr) in j.iter().enumerate() {
            let jr: Vec<f64> = jr
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            assert_eq!(jr.len(), 26 + o);
            // ∂err/∂translation = −I
            for c in 0..3 {
                assert_eq!(jr[o + 3 + c], if c == row % 3 { -1.0 } else { 0.0 });
            }
            // every entry against central differences of the plain objective
            let i = row / 3;
            for (c, &got) in jr.iter().enumerate() {
                let (mut theta, mut us) = (p.theta.clone(), p.us.clone());
                let h = 1e-6;
                let mut at = |d: f64| {
                    if c < o {
                        us[2 * i + c] += d;
                    } else {
                        theta[c - o] += d;
                    }
                    let r = p.reference(&theta, &us)[row];
                    if c < o {
                        us[2 * i + c] -= d;
                    } else {
                        theta[c - o] -= d;
                    }
                    r
                };
                let fd = (at(h) - at(-h)) / (2.0 * h);
                assert!(
                    (got - fd).abs() <= 1e-6 * 1f64.max(fd.abs()),
                    "row {row} col {c}: {got} vs {fd}"
                );
            }
        }
    }
}

#[test]
fn ode_session() {
    // three components: the solution is polynomial of degree ≤ 3, which RK4 integrates exactly:
    // y(2) = (2x₀, 2x₀x₁, 4/3·x₀x₁x₂)
    let input = json!({"x": [0.5, -1.5, 2.0], "s": 7, "min_runs": 2, "min_seconds": 0});
    let out = replay("ode", &[("primal", input.clone()), ("gradient", input)]);
    let (a, b, c) = (0.5f64, -1.5f64, 2.0f64);
    assert!(
        all_close(
            &out[0],
            &[2.0 * a, 2.0 * a * b, 4.0 / 3.0 * a * b * c],
            1e-14
        ),
        "{}",
        out[0]
    );
    assert!(
        all_close(
            &out[1],
            &[4.0 / 3.0 * b * c, 4.0 / 3.0 * a * c, 4.0 / 3.0 * a * b],
            1e-14
        ),
        "{}",
        out[1]
    );
}

#[test]
fn saddle_session() {
    let input = json!({"start": [1.0, -1.0], "min_runs": 1, "min_seconds": 0});
    let calls: Vec<_> = ["ff", "fr", "rf", "rr"]
        .into_iter()
        .map(|f| (f, input.clone()))
        .collect();
    let out = replay("saddle", &calls);
    assert_eq!(out.len(), 4);
    let want = nilang_gradbench::evals::saddle::reference([1.0, -1.0]).unwrap();
    for o in &out {
        assert!(all_close(o, &want, 1e-12), "{o}");
        // the saddle point of x₁² + x₂² − y₁² − y₂² is the origin
        assert!(all_close(o, &[0.0; 4], 1e-3), "{o}");
    }
}

#[test]
fn particle_session() {
    let input = json!({"w": 0.0, "min_runs": 1, "min_seconds": 0});
    let calls: Vec<_> = ["ff", "fr", "rf", "rr"]
        .into_iter()
        .map(|f| (f, input.clone()))
        .collect();
    let out = replay("particle", &calls);
    use nilang_gradbench::evals::{gd::Nesting, particle};
    assert_eq!(out.len(), 4);
    let w = out[3].as_f64().unwrap();
    for o in &out {
        assert!(close(o, w, 1e-12), "{o} {w}");
    }
    assert!(close(
        &out[3],
        particle::particle(0.0, Nesting::parse("rr").unwrap()).unwrap(),
        1e-15
    ));
    // the optimised control makes the particle cross the axis at the origin
    assert!(particle::reference_cost(w).unwrap() < 1e-6, "w = {w}");
}

/// GradBench's cmpad-derived eval names (`logsumexp`, `llsq_obj`, `det_by_minor`, `an_ode`)
/// are the same problems as `lse`, `llsq`, `det`, `ode`: defined, and answered identically.
#[test]
fn cmpad_names_answer_as_their_evals() {
    let cases = [
        ("logsumexp", "lse", json!({"x": [1.0, 2.0, -0.5]})),
        ("llsq_obj", "llsq", json!({"x": [0.5, -1.0, 2.0], "n": 5})),
        (
            "det_by_minor",
            "det",
            json!({"A": [2.0, -1.0, 0.0, 1.0, 3.0, 1.0, 0.5, 0.0, 4.0], "ell": 3}),
        ),
        ("an_ode", "ode", json!({"x": [0.5, -1.5, 2.0], "s": 4})),
    ];
    for (alias, eval, mut input) in cases {
        input["min_runs"] = json!(1);
        input["min_seconds"] = json!(0);
        let calls = [("primal", input.clone()), ("gradient", input)];
        assert_eq!(replay(alias, &calls), replay(eval, &calls), "{alias}");
    }
}

#[test]
fn malformed_messages_are_answered_and_the_tool_keeps_running() {
    let mut tool = Tool::spawn();
    let ok = json!({"id": 0, "kind": "start"});
    assert_eq!(tool.send(ok), json!({"id": 0, "tool": "nilang"}));
    // not JSON
    let r = tool.send_raw("this is not json");
    assert_eq!(r["success"], false);
    assert!(r["error"].as_str().unwrap().contains("invalid JSON"));
    // JSON, but not an object / no kind
    let r = tool.send_raw("[1, 2, 3]");
    assert_eq!(r["success"], false);
    let r = tool.send_raw(r#"{"id": 1}"#);
    assert_eq!(
        (r["id"].clone(), r["success"].clone()),
        (json!(1), json!(false))
    );
    // unknown kind: answered with the id only
    assert_eq!(
        tool.send(json!({"id": 2, "kind": "frobnicate", "x": 1})),
        json!({"id": 2})
    );
    // unknown module
    let r = tool.send(json!({"id": 3, "kind": "define", "module": "no_such_eval"}));
    assert_eq!(r["success"], false);
    assert!(r["error"].as_str().unwrap().contains("no_such_eval"));
    let r = tool.send(json!({"id": 4, "kind": "evaluate", "module": "no_such_eval", "function": "f", "input": {}}));
    assert_eq!(r["success"], false);
    // unknown function
    let r = tool.send(json!({"id": 5, "kind": "evaluate", "module": "lse", "function": "hessian", "input": {"x": [1.0]}}));
    assert_eq!(r["success"], false);
    assert!(r["error"].as_str().unwrap().contains("hessian"));
    // bad inputs: wrong types, missing fields, inconsistent sizes, bad Runs fields
    let bad = [
        ("hello", "square", json!("three")),
        ("lse", "primal", json!({"y": [1.0]})),
        ("lse", "gradient", json!({"x": []})),
        ("lse", "primal", json!({"x": [1.0], "min_runs": -1})),
        ("llsq", "primal", json!({"x": [1.0], "n": 1})),
        (
            "gmm",
            "objective",
            json!({"d": 2, "k": 1, "n": 1, "alpha": [0.0], "mu": [[0.0]], "q": [[0.0, 0.0]], "l": [[0.0]], "x": [[1.0, 2.0]], "gamma": 1.0, "m": 0}),
        ),
        (
            "gmm",
            "jacobian",
            json!({"d": 2, "k": 1, "n": 1, "alpha": [0.0], "x": [[1.0, 2.0]], "gamma": 1.0, "m": 0}),
        ),
        (
            "ba",
            "objective",
            json!({"n": 1, "m": 1, "p": 1, "cam": [1.0], "x": [1.0, 2.0, 3.0], "w": 1.0, "feat": [0.0, 0.0]}),
        ),
        (
            "kmeans",
            "dir",
            json!({"points": [[0.0, 1.0]], "centroids": [[0.0, 1.0, 2.0]]}),
        ),
        ("det", "primal", json!({"A": [1.0, 2.0, 3.0], "ell": 2})),
        ("det", "gradient", json!({"A": [1.0], "ell": 0})),
        ("ode", "primal", json!({"x": [], "s": 3})),
        ("saddle", "ff", json!({"start": [1.0]})),
        ("particle", "fr", json!({"w0": 1.0})),
        ("particle", "rx", json!({"w": 0.0})),
        ("saddle", "rr", json!({"start": [1.0, 2.0, 3.0]})),
        ("saddle", "rf", json!({"start": ["1", 2.0]})),
        ("ode", "gradient", json!({"x": [1.0], "s": 0})),
        (
            "lstm",
            "objective",
            json!({"main_params": vec![vec![0.0; 8]], "extra_params": vec![vec![0.0; 2]; 3], "state": vec![vec![0.0; 2]; 2], "sequence": vec![vec![1.0, 0.0]; 3]}),
        ),
        (
            "ht",
            "objective",
            json!({"theta": vec![0.0; 26], "us": [], "data": {"model": ht_model(json!([])), "correspondences": [4], "points": [[0.0, 0.0, 0.0]]}}),
        ),
        (
            "ht",
            "jacobian",
            json!({"theta": vec![0.0; 25], "us": [], "data": {"model": ht_model(json!([])), "correspondences": [0], "points": [[0.0, 0.0, 0.0]]}}),
        ),
        (
            "lstm",
            "jacobian",
            json!({"main_params": vec![vec![0.0; 8]; 2], "extra_params": vec![vec![0.0; 2]; 3], "state": vec![vec![0.0; 2]; 2], "sequence": vec![vec![1.0, 0.0]]}),
        ),
    ];
    for (i, (module, function, input)) in bad.iter().enumerate() {
        let id = 100 + i;
        let r = tool.send(json!({"id": id, "kind": "evaluate", "module": module, "function": function, "input": input}));
        assert_eq!(r["success"], false, "{module}::{function} on {input}: {r}");
        assert!(r["error"].as_str().is_some_and(|e| !e.is_empty()), "{r}");
        assert!(r.get("output").is_none());
    }
    // missing fields of the message itself
    let r = tool.send(json!({"id": 6, "kind": "evaluate", "module": "lse", "function": "primal"}));
    assert_eq!(r["success"], false);
    let r = tool.send(json!({"id": 7, "kind": "define"}));
    assert_eq!(r["success"], false);
    // blank lines are skipped; the tool still works
    let stdin = tool.stdin.as_mut().unwrap();
    writeln!(stdin).unwrap();
    let r = tool.send(json!({"id": 8, "kind": "evaluate", "module": "hello", "function": "double", "input": 21.0}));
    assert_eq!(
        (r["success"].clone(), r["output"].clone()),
        (json!(true), json!(42.0))
    );
    tool.finish();
}

/// `--threads N` / `--threads=N` (default 1); anything else is refused with a message.
#[test]
fn threads_option() {
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(nilang_gradbench::threads_option(&args(&[])), Ok(1));
    assert_eq!(
        nilang_gradbench::threads_option(&args(&["--threads", "2"])),
        Ok(2)
    );
    assert_eq!(
        nilang_gradbench::threads_option(&args(&["--threads=8"])),
        Ok(8)
    );
    for bad in [
        &["--threads"][..],
        &["--threads", "0"],
        &["--threads=x"],
        &["-j", "2"],
    ] {
        let e = nilang_gradbench::threads_option(&args(bad)).unwrap_err();
        assert!(
            e.contains("--threads") || e.contains("unknown argument"),
            "{e}"
        );
    }
}

/// `--help` and `--version` answer at once and exit 0, without reading stdin (which stays
/// open here: a tool that waited on it would hang the test); an unknown argument exits 2.
#[test]
fn help_and_version_do_not_read_stdin() {
    use std::time::{Duration, Instant};
    let run = |arg: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_nilang-gradbench"))
            .arg(arg)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let _open_stdin = child.stdin.take();
        let start = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if start.elapsed() > Duration::from_secs(20) {
                child.kill().unwrap();
                panic!("`nilang-gradbench {arg}` waited on stdin");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        child.wait_with_output().unwrap()
    };
    let help = run("--help");
    assert!(help.status.success());
    let text = String::from_utf8(help.stdout).unwrap();
    assert!(
        text.contains("Usage: nilang-gradbench [--threads N]"),
        "{text}"
    );
    let version = run("--version");
    assert!(version.status.success());
    let text = String::from_utf8(version.stdout).unwrap();
    assert!(text.starts_with("nilang-gradbench 0."), "{text}");
    let unknown = run("--frobnicate");
    assert_eq!(unknown.status.code(), Some(2));
    let text = String::from_utf8(unknown.stderr).unwrap();
    assert!(text.contains("unknown argument `--frobnicate`"), "{text}");
}

/// A `NILANG_MIN_PARALLEL_WORK` that is not a whole number is refused at start, with a message
/// that names it, before any message is read.
#[test]
fn a_bad_min_parallel_work_is_refused_at_start() {
    let out = Command::new(env!("CARGO_BIN_EXE_nilang-gradbench"))
        .args(["--threads", "2"])
        .env(nilang::parallel::MIN_PARALLEL_WORK_VAR, "0.1 ms")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let text = String::from_utf8(out.stderr).unwrap();
    assert!(
        text.contains("NILANG_MIN_PARALLEL_WORK must be a whole number")
            && text.contains("`0.1 ms`"),
        "{text}"
    );
}
