//! Helpers shared by the tests that hold an engine's answers against the expert programs'.
#![allow(dead_code)] // each test file uses the helpers it needs

use nilang_gradbench::evals::{gmm, kmeans, lstm};
use nilang_gradbench::seeded::uniform;
use nilang_gradbench::Tool;
use serde_json::{json, Value};

pub const TOL: f64 = 1e-10;

pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= TOL * 1f64.max(a.abs()).max(b.abs())
}

pub fn assert_all_close(what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(close(*g, *w), "{what}[{i}]: got {g}, expert {w}");
    }
}

pub fn kmeans_problem(n: usize, k: usize, d: usize, seed: u64) -> kmeans::Problem {
    let rows = |v: Vec<f64>| v.chunks(d).map(<[f64]>::to_vec).collect::<Vec<_>>();
    kmeans::Problem::from_input(&kmeans::Input {
        points: rows(uniform(seed, n * d)),
        centroids: rows(uniform(seed + 100, k * d)),
    })
    .unwrap()
}

/// One `evaluate` message's response from a tool that has defined `module`.
pub fn answer(tool: &mut Tool, module: &str, function: &str, input: Value) -> Value {
    let define = json!({"id": 0, "kind": "define", "module": module});
    assert_eq!(tool.handle(&define)["success"], json!(true));
    let message = json!({"id": 1, "kind": "evaluate", "module": module, "function": function,
                         "input": input});
    tool.handle(&message)
}

/// Two outputs of the same shape whose numbers agree to [`TOL`].
pub fn assert_same_shape(what: &str, got: &Value, want: &Value) {
    match (got, want) {
        (Value::Array(g), Value::Array(w)) => {
            assert_eq!(g.len(), w.len(), "{what}: lengths");
            for (i, (g, w)) in g.iter().zip(w).enumerate() {
                assert_same_shape(&format!("{what}[{i}]"), g, w);
            }
        }
        (Value::Object(g), Value::Object(w)) => {
            assert_eq!(
                g.keys().collect::<Vec<_>>(),
                w.keys().collect::<Vec<_>>(),
                "{what}: keys"
            );
            for (key, w) in w {
                assert_same_shape(&format!("{what}.{key}"), &g[key], w);
            }
        }
        (Value::Number(g), Value::Number(w)) => {
            let (g, w) = (g.as_f64().unwrap(), w.as_f64().unwrap());
            assert!(close(g, w), "{what}: got {g}, expert {w}");
        }
        _ => panic!("{what}: got {got}, expert {want}"),
    }
}

/// Every function of every eval an engine answers, served by the tools `make` returns and by
/// the expert programs: the same keys, the same format, the same numbers to [`TOL`] (and the
/// timings of one run); an eval the engine does not answer answers as the expert's, and a bad
/// input is refused.
pub fn assert_served_like_expert(make: impl Fn() -> Tool) {
    let gmm_input = gmm::Problem::random(3, 4, 5, 2).to_json();
    let kmeans_input = json!({"points": [[0.1, 0.2], [0.9, -0.3], [0.4, 0.4]],
                              "centroids": [[0.0, 0.0], [1.0, 0.0]]});
    let lstm_input = lstm::Problem::random(2, 4, 3, 5).to_json();
    let ba_input = json!({"n": 1, "m": 1, "p": 3, "w": 0.8, "feat": [0.3, -0.2],
        "cam": uniform(6, 11), "x": [0.5, -0.4, 3.0]});
    let cases = [
        ("lse", "primal", json!({"x": uniform(1, 9)})),
        ("logsumexp", "gradient", json!({"x": uniform(1, 9)})),
        ("llsq", "primal", json!({"x": uniform(2, 4), "n": 9})),
        ("llsq", "gradient", json!({"x": uniform(2, 4), "n": 9})),
        ("gmm", "objective", gmm_input.clone()),
        ("gmm", "jacobian", gmm_input),
        ("ode", "primal", json!({"x": uniform(3, 4), "s": 5})),
        ("an_ode", "gradient", json!({"x": uniform(3, 4), "s": 5})),
        ("det", "primal", json!({"A": uniform(4, 16), "ell": 4})),
        (
            "det_by_minor",
            "gradient",
            json!({"A": uniform(4, 16), "ell": 4}),
        ),
        ("kmeans", "cost", kmeans_input.clone()),
        ("kmeans", "dir", kmeans_input),
        ("lstm", "objective", lstm_input.clone()),
        ("lstm", "jacobian", lstm_input),
        ("ba", "objective", ba_input.clone()),
        ("ba", "jacobian", ba_input),
    ];
    for (module, function, input) in cases {
        let what = format!("{module}.{function}");
        let got = answer(&mut make(), module, function, input.clone());
        let want = answer(&mut Tool::new(), module, function, input);
        assert_eq!(got["success"], json!(true), "{what}: {got}");
        assert_eq!(want["success"], json!(true), "{what}: {want}");
        assert_eq!(got["timings"].as_array().unwrap().len(), 1, "{what}");
        assert_same_shape(&what, &got["output"], &want["output"]);
    }
    // an eval without a natural version answers as without the option
    let hello = answer(&mut make(), "hello", "square", json!(3.0));
    assert_eq!(hello["output"], json!(9.0));
    // and a bad input is refused as by the expert program
    let bad = answer(&mut make(), "lse", "gradient", json!({"x": []}));
    assert_eq!(bad["success"], json!(false));
}
