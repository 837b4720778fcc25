//! `nilang gradbench` is the GradBench tool: one response line per message on stdin.

use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn gradbench_answers_a_session_on_stdin() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nilang"))
        .arg("gradbench")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let session = [
        r#"{"id": 0, "kind": "start", "eval": "saddle"}"#,
        r#"{"id": 1, "kind": "define", "module": "saddle"}"#,
        r#"{"id": 2, "kind": "evaluate", "module": "saddle", "function": "rr", "input": {"start": [1.0, -1.0], "min_runs": 1, "min_seconds": 0}}"#,
        r#"{"id": 3, "kind": "analysis", "of": 2, "valid": true}"#,
    ];
    let mut stdin = child.stdin.take().unwrap();
    for line in session {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["tool"], "nilang");
    assert_eq!(lines[1]["success"], true);
    assert_eq!(lines[2]["success"], true, "{}", lines[2]);
    // the saddle point of x₁² + x₂² − y₁² − y₂² is the origin
    let point = lines[2]["output"].as_array().unwrap();
    assert_eq!(point.len(), 4);
    assert!(point.iter().all(|v| v.as_f64().unwrap().abs() < 1e-3));
    assert_eq!(lines[3], serde_json::json!({"id": 3}));
}

/// `nilang gradbench --natural` serves the natural programs: lse's gradient (the softmax) as
/// the expert program answers it.
#[test]
fn gradbench_natural_answers_as_the_expert_program() {
    let answer = |natural: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_nilang"));
        cmd.arg("gradbench");
        if natural {
            cmd.arg("--natural");
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, r#"{{"id": 1, "kind": "define", "module": "lse"}}"#).unwrap();
        writeln!(
            stdin,
            r#"{{"id": 2, "kind": "evaluate", "module": "lse", "function": "gradient", "input": {{"x": [1.0, 2.0, 3.0]}}}}"#
        )
        .unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_eq!(last["success"], true, "{last}");
        let g: Vec<f64> = serde_json::from_value(last["output"].clone()).unwrap();
        g
    };
    let (natural, expert) = (answer(true), answer(false));
    assert_eq!(natural.len(), 3);
    for (a, b) in natural.iter().zip(&expert) {
        assert!((a - b).abs() <= 1e-12, "{natural:?} vs {expert:?}");
    }
}

/// `nilang gradbench --threads 0` is refused (rayon would read 0 as every core).
#[test]
fn gradbench_refuses_zero_threads() {
    let out = Command::new(env!("CARGO_BIN_EXE_nilang"))
        .args(["gradbench", "--threads", "0"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("positive number"), "{stderr}");
}

/// Runs `nilang ARGS` with nothing on stdin; its exit status and stderr, or a failure if it
/// is still running after 30 s (it is killed then): before the bound, `--threads 200000`
/// never got past starting its pool.
fn run_with_patience(args: &[&str]) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nilang"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`nilang {}` did not exit within 30 s", args.join(" "));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `--threads` beyond 64 per core (and 4096) is refused at start, with the bound, by both
/// subcommands that take it.
#[test]
fn threads_beyond_the_bound_are_refused_at_start() {
    let (status, stderr) = run_with_patience(&["gradbench", "--threads", "200000"]);
    assert!(!status.success());
    assert!(stderr.contains("positive number of at most"), "{stderr}");
    let out = std::env::temp_dir().join(format!("nilang-threads-{}", std::process::id()));
    let out = out.to_string_lossy();
    let args = [
        "bench",
        "--quick",
        "--only",
        "bessel",
        "--threads",
        "200000",
        "--out",
        &out,
    ];
    let (status, stderr) = run_with_patience(&args);
    assert!(!status.success());
    assert!(stderr.contains("`--threads 200000`: at most"), "{stderr}");
    assert!(
        !std::path::Path::new(&*out).join("report.md").exists(),
        "no report is written"
    );
}
