//! Hostile messages sent to the `nilang-gradbench` binary, one session per test: each is
//! answered with an error (never an abort, a hang, a panic's message or a wrong number), and
//! a valid message of the same eval sent right after it on the same session is answered
//! correctly. Every answer is awaited at most [`PATIENCE`], so a hang fails the test instead
//! of stalling it; an abort shows as the tool's exit status.
//!
//! The caps the tool applies (`nilang_gradbench::limits`) are the defaults here, except in
//! the sessions started with smaller ones through their environment variables, where inputs
//! of a few megabytes or a few dozen solver steps already pass them.

use nilang_gradbench::evals::{ba, det, gmm, ht, llsq, lse, lstm, ode};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long one answer may take before the test calls it a hang (debug builds on busy cores;
/// every answer here takes well under a second).
const PATIENCE: Duration = Duration::from_secs(30);

/// The caps' environment variables, cleared in every session unless it sets them.
const CAP_VARS: [&str; 4] = [
    "NILANG_GRADBENCH_MAX_BYTES",
    "NILANG_GRADBENCH_MAX_RUNS",
    "NILANG_GRADBENCH_MAX_SECONDS",
    "NILANG_GRADBENCH_MAX_STEPS",
];

const BIN: &str = env!("CARGO_BIN_EXE_nilang-gradbench");

/// The binary on a session: messages in, answers read on a thread of their own so that
/// waiting for one can time out.
struct Session {
    child: Child,
    stdin: ChildStdin,
    answers: Receiver<String>,
    id: u64,
}

impl Session {
    /// The binary with these caps' variables set (the others cleared), after `start`.
    fn start(env: &[(&str, &str)]) -> Session {
        let mut command = Command::new(BIN);
        for var in CAP_VARS {
            command.env_remove(var);
        }
        let mut child = command
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn nilang-gradbench");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, answers) = channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut session = Session {
            child,
            stdin,
            answers,
            id: 0,
        };
        let r = session.send(json!({"id": 0, "kind": "start"}));
        assert_eq!(r["tool"], "nilang");
        session
    }

    /// Sends one line and returns its one answer; fails the test if the tool exits or takes
    /// longer than [`PATIENCE`].
    fn send_line(&mut self, line: &str) -> Value {
        let shown: String = line.chars().take(160).collect();
        if let Err(e) = writeln!(self.stdin, "{line}").and_then(|_| self.stdin.flush()) {
            panic!("the tool stopped reading ({e}; {}) at {shown}", self.exit());
        }
        match self.answers.recv_timeout(PATIENCE) {
            Ok(answer) => serde_json::from_str(&answer)
                .unwrap_or_else(|e| panic!("answer {answer:?} is not JSON: {e}")),
            Err(RecvTimeoutError::Timeout) => {
                panic!("no answer within {PATIENCE:?} (a hang) to {shown}")
            }
            Err(RecvTimeoutError::Disconnected) => {
                panic!("the tool exited ({}) on {shown}", self.exit())
            }
        }
    }

    /// How the tool ended (after its output closed), or that it still runs.
    fn exit(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return format!("{status}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        "still running".into()
    }

    /// Sends a message and checks its answer carries the message's id.
    fn send(&mut self, message: Value) -> Value {
        let r = self.send_line(&message.to_string());
        assert_eq!(r["id"], message["id"], "answer {r} to {message}");
        r
    }

    fn evaluate(&mut self, module: &str, function: &str, input: Value) -> Value {
        self.id += 1;
        self.send(json!({"id": self.id, "kind": "evaluate", "module": module,
                         "function": function, "input": input}))
    }

    /// `module`'s `function` on `input` is refused with an error holding each of `words`
    /// (not a caught panic's), and the session goes on serving `module`.
    fn refuses(&mut self, module: &str, function: &str, input: Value, words: &[&str]) {
        let shown: String = input.to_string().chars().take(160).collect();
        let r = self.evaluate(module, function, input);
        assert_refusal(&r, words, &format!("{module}::{function} on {shown}"));
        self.serves(module);
    }

    /// A raw line is refused with an error holding each of `words`; the session goes on.
    fn refuses_line(&mut self, line: &str, words: &[&str]) {
        let r = self.send_line(line);
        let shown: String = line.chars().take(160).collect();
        assert_refusal(&r, words, &shown);
        self.serves("hello");
    }

    /// A valid message of `module` is answered correctly ([`valid`]).
    fn serves(&mut self, module: &str) {
        let (function, input, check) = valid(module);
        let r = self.evaluate(module, function, input);
        assert_eq!(
            r["success"], true,
            "{module}::{function} after a hostile message: {r}"
        );
        check(&r["output"]);
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn assert_refusal(r: &Value, words: &[&str], what: &str) {
    assert_eq!(r["success"], false, "{what} was not refused: {r}");
    let error = r["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error: {r}"));
    assert!(
        !error.contains("panic"),
        "{what}: a panic's message: {error}"
    );
    for w in words {
        assert!(
            error.contains(w),
            "{what}: `{w}` is not in the error: {error}"
        );
    }
}

/// The numbers of a JSON value in order (objects by key, as serde_json orders them).
fn numbers(v: &Value) -> Vec<f64> {
    match v {
        Value::Number(n) => vec![n.as_f64().unwrap()],
        Value::Array(a) => a.iter().flat_map(numbers).collect(),
        Value::Object(o) => o.values().flat_map(numbers).collect(),
        _ => panic!("{v} holds something other than numbers"),
    }
}

fn close_to(want: Vec<f64>, tol: f64) -> Box<dyn Fn(&Value)> {
    Box::new(move |got: &Value| {
        let got = numbers(got);
        assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
        for (g, w) in got.iter().zip(&want) {
            assert!(
                (g - w).abs() <= tol * 1f64.max(w.abs()),
                "{got:?} vs {want:?}"
            );
        }
    })
}

/// A valid message of `module` (function and input) and the check of its output, against
/// the plain references of the evals (or known values).
fn valid(module: &str) -> (&'static str, Value, Box<dyn Fn(&Value)>) {
    match module {
        "hello" => ("square", json!(3.0), close_to(vec![9.0], 0.0)),
        "lse" => {
            let x = [1.0, 2.0, 3.0];
            (
                "primal",
                json!({"x": x}),
                close_to(vec![lse::reference(&x)], 1e-14),
            )
        }
        "llsq" => {
            let x = [0.5, -1.0, 0.25];
            let want = vec![llsq::reference(&x, 7)];
            ("primal", json!({"x": x, "n": 7}), close_to(want, 1e-13))
        }
        "det" => {
            let a = [2.0, 1.0, 0.5, 1.0, 3.0, 1.0, 0.0, 1.0, 4.0];
            let want = vec![det::reference(&a, 3)];
            ("primal", json!({"A": a, "ell": 3}), close_to(want, 1e-14))
        }
        "ode" => {
            let x = [1.0, 2.0];
            (
                "primal",
                json!({"x": x, "s": 10}),
                close_to(ode::reference(&x, 10), 1e-12),
            )
        }
        "kmeans" => {
            let input = json!({"points": [[0.0], [1.0], [3.0]], "centroids": [[0.0], [2.0]]});
            ("cost", input, close_to(vec![2.0], 0.0))
        }
        "gmm" => {
            let p = gmm::Problem::random(2, 2, 3, 1);
            let want = vec![p.reference(&p.alpha, &p.mu, &p.q, &p.l)];
            ("objective", p.to_json(), close_to(want, 1e-12))
        }
        "lstm" => {
            let p = lstm::Problem::random(1, 3, 2, 1);
            let want = vec![p.reference(&p.main, &p.extra)];
            ("objective", p.to_json(), close_to(want, 1e-12))
        }
        "ht" => {
            let p = ht::Problem::random(6, 4, false, 1);
            let want = p.reference(&p.theta, &p.us);
            ("objective", p.to_input(), close_to(want, 1e-12))
        }
        "ba" => valid_ba(),
        // the saddle point of x₁² + x₂² − y₁² − y₂² is the origin
        "saddle" => ("rr", json!({"start": [1.0, -1.0]}), near_origin()),
        // GradBench's expected output (evals/particle/run.py)
        "particle" => (
            "rr",
            json!({"w": 0.0}),
            close_to(vec![0.2071918746486116], 1e-9),
        ),
        _ => panic!("no valid message for {module}"),
    }
}

fn near_origin() -> Box<dyn Fn(&Value)> {
    Box::new(|got: &Value| {
        let got = numbers(got);
        assert_eq!(got.len(), 4);
        assert!(got.iter().all(|v| v.abs() < 1e-3), "{got:?}");
    })
}

fn ba_input(n: u64, m: u64, p: u64) -> Value {
    let cam = [
        0.1, -0.2, 0.05, 0.3, -0.1, 0.2, 400.0, 2.0, -3.0, 0.01, -0.001,
    ];
    json!({"n": n, "m": m, "p": p, "cam": cam, "x": [0.5, -0.5, 7.0], "w": 0.8,
           "feat": [20.0, -10.0]})
}

fn valid_ba() -> (&'static str, Value, Box<dyn Fn(&Value)>) {
    let input = ba_input(2, 3, 4);
    let cam: [f64; ba::NCAM] = serde_json::from_value(input["cam"].clone()).unwrap();
    let e = ba::reference_reproj(&cam, &[0.5, -0.5, 7.0], 0.8, &[20.0, -10.0]);
    // {"reproj_error": {"elements", "repeated"}, "w_err": {"element", "repeated"}}
    let want = vec![e[0], e[1], 4.0, 1.0 - 0.8 * 0.8, 4.0];
    ("objective", input, close_to(want, 1e-12))
}

/// `n` × `d` rows of a seeded pattern.
fn rows(n: usize, d: usize) -> Vec<Vec<f64>> {
    (0..n)
        .map(|i| {
            (0..d)
                .map(|j| ((i * 7 + j * 3) % 11) as f64 / 11.0)
                .collect()
        })
        .collect()
}

const TERA: u64 = 1_000_000_000_000;

/// Sizes that would need terabytes (or more than 2⁶⁴ bytes) are refused before anything is
/// allocated; each aborted the tool (exit 134, "memory allocation … failed") before the caps.
#[test]
fn sizes_past_the_memory_cap_are_refused_before_allocating() {
    let mut s = Session::start(&[]);
    let cap = [
        "over the cap of 4294967296 bytes",
        "NILANG_GRADBENCH_MAX_BYTES",
    ];
    for function in ["primal", "gradient"] {
        let input = json!({"x": [1.0], "n": TERA});
        s.refuses("llsq", function, input, &["`n`", "bytes", cap[0], cap[1]]);
        let input = json!({"x": [1.0], "s": TERA});
        s.refuses("ode", function, input, &["`s`", cap[0], cap[1]]);
        let input = json!({"x": [1.0, 2.0], "s": u64::MAX});
        s.refuses("ode", function, input, &["`s`", "more than 2^64"]);
    }
    for function in ["objective", "jacobian"] {
        s.refuses("ba", function, ba_input(TERA, 1, 1), &["`n`", cap[0]]);
        s.refuses("ba", function, ba_input(1, TERA, 1), &["`m`", cap[0]]);
        s.refuses("ba", function, ba_input(1, 1, TERA), &["`p`", cap[0]]);
        s.refuses("ba", function, ba_input(u64::MAX, 1, 1), &["`n`", "2^64"]);
    }
    // 1.4·10⁹ sub-minors: 22 GB in the gradient (before, it ran for ever, growing)
    let a: Vec<f64> = (0..169).map(|k| (k % 7) as f64).collect();
    s.refuses(
        "det",
        "gradient",
        json!({"A": a, "ell": 13}),
        &["`ell`", cap[0]],
    );
    // d(d − 1) overflows (before, a caught panic: "attempt to multiply with overflow")
    let d = 1u64 << 32;
    let input = json!({"d": d + 1, "k": 1, "n": 0, "alpha": [0.0], "means": [[0.0]],
                       "icf": [[0.0]], "x": [], "gamma": 1.0, "m": 0.0});
    s.refuses("gmm", "objective", input, &["`d`", cap[0]]);
    let input = json!({"d": 1, "k": 1, "n": TERA, "alpha": [0.0], "means": [[0.0]],
                       "icf": [[0.0]], "x": [], "gamma": 1.0, "m": 0.0});
    s.refuses("gmm", "jacobian", input, &["`n`", cap[0]]);
}

/// A smaller cap (`NILANG_GRADBENCH_MAX_BYTES=1M`) refuses inputs of a few megabytes in every
/// eval whose sizes drive its allocations, naming the field; inputs under it are served. The
/// cap did not exist: each of these was answered.
#[test]
fn a_smaller_memory_cap_is_applied_by_every_eval() {
    let mut s = Session::start(&[("NILANG_GRADBENCH_MAX_BYTES", "1M")]);
    let cap = "over the cap of 1048576 bytes";
    s.refuses(
        "llsq",
        "gradient",
        json!({"x": [1.0], "n": 100_000}),
        &["`n`", cap],
    );
    s.refuses(
        "ode",
        "primal",
        json!({"x": vec![1.0; 10], "s": 10_000}),
        &["`s`", cap],
    );
    s.refuses(
        "det",
        "gradient",
        json!({"A": vec![1.0; 81], "ell": 9}),
        &["`ell`", cap],
    );
    s.refuses("ba", "jacobian", ba_input(2, 3, 10_000), &["`p`", cap]);
    let x: Vec<f64> = (0..30_000).map(|k| k as f64 * 1e-4).collect();
    s.refuses("lse", "gradient", json!({"x": x}), &["`x`", cap]);
    let points = rows(50_000, 1);
    let input = json!({"points": points, "centroids": [[0.5]]});
    s.refuses("kmeans", "cost", input, &["`points`", cap]);
    // 100 points and 400 components: the n·k main terms, four times 8 bytes each
    let (n, k) = (100, 400);
    let input = json!({"d": 1, "k": k, "n": n, "alpha": vec![0.0; k], "means": rows(k, 1),
                       "icf": rows(k, 1), "x": rows(n, 1), "gamma": 1.0, "m": 0.0});
    s.refuses("gmm", "objective", input, &["`n`", cap]);
    // 40 layers of 2000 steps of one entry: the state history
    let mut p = lstm::Problem::random(40, 2000, 1, 3).to_json();
    s.refuses("lstm", "objective", p.take(), &["`sequence`", cap]);
    // 300 correspondences' rows of 26 derivatives
    let p = ht::Problem::random(6, 300, false, 2);
    s.refuses("ht", "jacobian", p.to_input(), &["`correspondences`", cap]);
    let r = s.evaluate("ht", "objective", p.to_input());
    assert_eq!(r["success"], true, "the objective needs far less: {r}");
}

/// `min_runs` and `min_seconds` beyond their caps are refused before the eval allocates or
/// runs anything: `min_runs` = 10¹² aborted (a timing buffer of 48 TB), `min_seconds` = 10⁹
/// ran for 30 years. Malformed values are refused too.
#[test]
fn absurd_run_counts_are_refused() {
    let mut s = Session::start(&[]);
    let x = json!([1.0, 2.0]);
    let cases = [
        (
            json!({"x": x, "min_runs": TERA}),
            vec!["`min_runs`", "cap of 1000000 runs"],
        ),
        (
            json!({"x": x, "runs": TERA}),
            vec!["`min_runs`", "NILANG_GRADBENCH_MAX_RUNS"],
        ),
        (
            json!({"x": x, "min_runs": 1e12}),
            vec!["`min_runs`", "integer"],
        ),
        (json!({"x": x, "min_runs": -3}), vec!["`min_runs`"]),
        (json!({"x": x, "min_runs": "3"}), vec!["`min_runs`"]),
        (
            json!({"x": x, "min_seconds": 1e9}),
            vec!["`min_seconds`", "cap of 3600 seconds"],
        ),
        (json!({"x": x, "min_seconds": -1.0}), vec!["`min_seconds`"]),
        (json!({"x": x, "min_seconds": [1]}), vec!["`min_seconds`"]),
    ];
    for (input, words) in cases {
        s.refuses("lse", "gradient", input, &words);
    }
    // checked before the sizes: no buffer of 8 TB is allocated for a refused run count
    let input = json!({"x": [1.0], "n": TERA / 8, "min_runs": TERA});
    s.refuses("llsq", "primal", input, &["`min_runs`"]);
}

/// Smaller run caps: `min_runs` and `min_seconds` above them are refused, and a `min_seconds`
/// a short function would fill only after hundreds of thousands of runs stops at the run cap
/// (before the cap, it ran on for the whole `min_seconds`).
#[test]
fn smaller_run_caps_bound_the_runs() {
    let env = [
        ("NILANG_GRADBENCH_MAX_RUNS", "5"),
        ("NILANG_GRADBENCH_MAX_SECONDS", "100"),
    ];
    let mut s = Session::start(&env);
    s.refuses(
        "lse",
        "primal",
        json!({"x": [1.0], "min_runs": 6}),
        &["cap of 5 runs"],
    );
    let input = json!({"x": [1.0], "min_seconds": 101});
    s.refuses("lse", "primal", input, &["cap of 100 seconds"]);
    let started = Instant::now();
    let r = s.evaluate("lse", "primal", json!({"x": [1.0], "min_seconds": 60}));
    assert_eq!(r["success"], true, "{r}");
    assert_eq!(r["timings"].as_array().unwrap().len(), 5, "{r}");
    assert!(started.elapsed() < Duration::from_secs(20));
}

/// Controls for which the particle never comes down to the axis (`w = 10`: both charges at
/// `(10, 0)`), in every nesting: an error at the Euler step cap. Each of these never answered.
#[test]
fn a_particle_that_never_lands_is_an_error() {
    let mut s = Session::start(&[]);
    let words = [
        "did not reach the x axis",
        "within 100000 steps",
        "MAX_STEPS",
    ];
    for (w, function) in [(10.0, "ff"), (10.0, "rr"), (3.0, "fr"), (-20.0, "rf")] {
        s.refuses("particle", function, json!({"w": w}), &words);
    }
    s.refuses("particle", "ff", json!({"w": 1e308}), &["not finite"]);
}

/// Smaller step caps stop the solvers of inputs that converge only later: the particle's
/// Euler integration (about 350 steps at `w = 0`) and the saddle's descents (about 170). The
/// cap did not exist: both were answered. What converges within the caps still is.
#[test]
fn a_smaller_step_cap_stops_every_solver() {
    let mut s = Session::start(&[("NILANG_GRADBENCH_MAX_STEPS", "100")]);
    let cases = [
        (
            "particle",
            json!({"w": 0.0}),
            "did not reach the x axis (w = 0.0) within 100 steps",
        ),
        (
            "saddle",
            json!({"start": [1.0, -1.0]}),
            "descent did not converge within 100 steps",
        ),
    ];
    for (module, input, words) in cases {
        for function in ["ff", "rr"] {
            let r = s.evaluate(module, function, input.clone());
            assert_refusal(&r, &[words], &format!("{module}::{function} on {input}"));
            let r = s.evaluate("saddle", function, json!({"start": [1e-300, 0.0]}));
            assert_eq!(r["output"], json!([1e-300, 0.0, 1e-300, 0.0]), "{r}");
        }
    }
}

/// Saddle starts whose objective is not finite in `f64` (`x² − y²` is `∞ − ∞`) are errors,
/// not a descent that wanders or the start answered as the saddle point.
#[test]
fn saddle_starts_out_of_range_are_errors() {
    let mut s = Session::start(&[]);
    for start in [[1e200, 1.0], [1e155, -1e155], [-f64::MAX, f64::MAX]] {
        for function in ["ff", "rr"] {
            s.refuses("saddle", function, json!({"start": start}), &["not finite"]);
        }
    }
}

/// Wrong types, missing fields, empty and mismatched arrays, numbers out of range: an error
/// each, naming what is wrong.
#[test]
fn malformed_inputs_are_errors() {
    let mut s = Session::start(&[]);
    let cases: [(&str, &str, Value, &str); 24] = [
        (
            "llsq",
            "primal",
            json!({"x": [1.0], "n": 1e12}),
            "floating point",
        ),
        (
            "llsq",
            "primal",
            json!({"x": [1.0], "n": -4}),
            "invalid value",
        ),
        (
            "llsq",
            "primal",
            json!({"x": "abc", "n": 4}),
            "invalid type",
        ),
        ("llsq", "primal", json!({"x": [1.0], "n": 1}), "at least 2"),
        ("lse", "gradient", json!({"x": []}), "empty"),
        ("lse", "gradient", json!([1.0, 2.0]), "bad `lse` input"),
        ("ode", "gradient", json!({"x": [], "s": 3}), "non-empty"),
        ("ode", "primal", json!({"x": [1.0], "s": 0}), "s ≥ 1"),
        (
            "det",
            "primal",
            json!({"A": [1.0, 2.0, 3.0], "ell": 2}),
            "ell² entries",
        ),
        ("det", "gradient", json!({"A": [], "ell": 0}), "1 ≤ ell"),
        ("det", "primal", json!({"A": [1.0], "ell": 17}), "ell ≤ 16"),
        (
            "kmeans",
            "dir",
            json!({"points": [[1.0]], "centroids": []}),
            "no centroids",
        ),
        (
            "kmeans",
            "cost",
            json!({"points": [[1.0, 2.0]], "centroids": [[0.0]]}),
            "points[0]",
        ),
        (
            "kmeans",
            "cost",
            json!({"points": [], "centroids": [[]]}),
            "no coordinates",
        ),
        (
            "gmm",
            "objective",
            json!({"d": 0, "k": 1, "n": 0}),
            "bad `gmm` input",
        ),
        (
            "ba",
            "objective",
            json!({"n": 1, "m": 1, "p": 1, "cam": [1.0], "x": [0.0, 0.0, 1.0],
                                   "w": 1.0, "feat": [0.0, 0.0]}),
            "11, 3, 2",
        ),
        ("ba", "jacobian", ba_input(0, 1, 1), "positive"),
        (
            "lstm",
            "objective",
            json!({"main_params": [], "extra_params": [], "state": [],
                                     "sequence": []}),
            "2l > 0",
        ),
        (
            "ht",
            "objective",
            json!({"theta": [0.0], "data": {}}),
            "bad `ht` input",
        ),
        (
            "saddle",
            "ff",
            json!({"start": [1.0]}),
            "bad `saddle` input",
        ),
        (
            "saddle",
            "rr",
            json!({"start": [1.0, 2.0, 3.0]}),
            "bad `saddle` input",
        ),
        ("particle", "rr", json!({"w": "0"}), "invalid type"),
        ("particle", "ff", json!({"w": null}), "invalid type"),
        ("particle", "xy", json!({"w": 0.0}), "no function `xy`"),
    ];
    for (module, function, input, words) in cases {
        s.refuses(module, function, input, &[words]);
    }
    let mut p = gmm::Problem::random(2, 3, 4, 5).to_json();
    p["alpha"] = json!([1.0]);
    s.refuses("gmm", "jacobian", p, &["`alpha` has 1 rows, expected 3"]);
    let mut p = ht::Problem::random(6, 4, false, 1).to_input();
    p["data"]["correspondences"][0] = json!(1000);
    s.refuses("ht", "jacobian", p, &["correspondence 1000 out of range"]);
}

/// Lines that are not messages: too deeply nested, numbers JSON cannot hold, not JSON at all,
/// not objects, or missing fields.
#[test]
fn malformed_lines_are_errors() {
    let mut s = Session::start(&[]);
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let line = format!(
        r#"{{"id": 7, "kind": "evaluate", "module": "lse", "function": "primal", "input": {deep}}}"#
    );
    s.refuses_line(&line, &["recursion limit"]);
    let line = r#"{"id": 8, "kind": "evaluate", "module": "particle", "function": "ff", "input": {"w": 1e400}}"#;
    s.refuses_line(line, &["out of range"]);
    s.refuses_line(&"x".repeat(1 << 20), &["invalid JSON"]);
    s.refuses_line("[1, 2, 3]", &["JSON object"]);
    s.refuses_line(r#"{"id": 9}"#, &["`kind`"]);
    s.refuses_line(
        r#"{"id": 9, "kind": "evaluate", "module": "lse"}"#,
        &["`function`"],
    );
    let line = r#"{"id": 9, "kind": "evaluate", "module": "lse", "function": "primal"}"#;
    s.refuses_line(line, &["`input`"]);
    let line =
        r#"{"id": 9, "kind": "evaluate", "module": "nonesuch", "function": "f", "input": 1}"#;
    s.refuses_line(line, &["not implemented"]);
}

/// The binary with `args` and `env` (caps' variables cleared otherwise) and no message: its
/// exit status and standard error, failing the test if it is still running after [`PATIENCE`]
/// (it is killed then).
fn run_alone(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let mut command = Command::new(BIN);
    for var in CAP_VARS {
        command.env_remove(var);
    }
    let mut child = command
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + PATIENCE;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "`nilang-gradbench {}` did not exit within {PATIENCE:?}",
                args.join(" ")
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// `--threads` beyond 64 per core (or 4096) is refused at start with the bound (200 000
/// threads: the tool never answered), and so is 0; a cap's variable that is not a positive
/// number is refused at start, naming it.
#[test]
fn bad_options_and_cap_variables_are_refused_at_start() {
    for args in [
        &["--threads", "200000"][..],
        &["--threads=5000"],
        &["--threads", "0"],
    ] {
        let (code, stderr) = run_alone(args, &[]);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("positive number of at most"),
            "{args:?}: {stderr}"
        );
    }
    for var in CAP_VARS {
        for value in ["0", "-5", "lots", ""] {
            let (code, stderr) = run_alone(&[], &[(var, value)]);
            assert_eq!(code, Some(2), "{var}={value}: {stderr}");
            assert!(stderr.contains(var), "{var}={value}: {stderr}");
        }
    }
    let (code, stderr) = run_alone(&["--threads", "2"], &[("NILANG_GRADBENCH_MAX_BYTES", "2G")]);
    assert_eq!(code, Some(0), "{stderr}");
}
