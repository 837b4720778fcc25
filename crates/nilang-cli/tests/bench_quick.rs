//! `nilang bench --quick` runs and writes its report (the main job's smoke test; the full run
//! is documented in docs/benchmarks.md).

use std::process::Command;

#[test]
fn quick_bench_writes_the_report() {
    let out = std::env::temp_dir().join(format!("nilang-bench-{}", std::process::id()));
    let status = Command::new(env!("CARGO_BIN_EXE_nilang"))
        .args(["bench", "--quick", "--only", "bessel", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("## Bessel J₂(1.0)"), "{report}");
    assert!(
        report.contains("reversal gradient ÷ native objective"),
        "{report}"
    );
    let stdout = String::from_utf8(status.stdout).unwrap();
    assert!(stdout.contains("report written to"), "{stdout}");
}

/// The guide's worked examples: one row per program, and the build's checks named (a test
/// build of `nilang-apps` has `debug_assertions`, so its programs are the checked ones).
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn quick_guide_table_has_every_program() {
    let tmp = std::env::temp_dir().join(format!("nilang-bench-guide-cwd-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let (output, report) = bench_in(&tmp, &["--only", "guide", "--threads", "1"], "guide");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = report.expect("a report");
    assert!(
        report.contains("## The guide's worked examples (checks on)"),
        "{report}"
    );
    for program in [
        "| GMM d 10, k 25",
        "| RK4 Lotka–Volterra",
        "| MLP 32-64-1",
        "| k-means k 32",
    ] {
        assert!(report.contains(program), "{program} missing:\n{report}");
    }
    assert!(
        report.contains("gradient ÷ native objective ≤ 4"),
        "{report}"
    );
}

/// Runs `nilang bench --quick ARGS --out OUT` in `dir`; returns the output and the report
/// (if one was written).
fn bench_in(
    dir: &std::path::Path,
    args: &[&str],
    name: &str,
) -> (std::process::Output, Option<String>) {
    let out = std::env::temp_dir().join(format!("nilang-bench-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let output = Command::new(env!("CARGO_BIN_EXE_nilang"))
        .current_dir(dir)
        .args(["bench", "--quick"])
        .args(args)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    (output, std::fs::read_to_string(out.join("report.md")).ok())
}

#[test]
fn without_data_gmm_runs_seeded_instances_and_the_report_says_where_it_looked() {
    // a working directory with no `../shared/data/adbench`
    let dir = std::env::temp_dir().join(format!("nilang-bench-cwd-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("cwd")).unwrap();
    let (output, report) = bench_in(&dir.join("cwd"), &["--only", "gmm"], "seeded");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = report.unwrap();
    assert!(report.contains("seeded d=2 K=5"), "{report}");
    assert!(report.contains("`../shared/data/adbench/gmm`"), "{report}");
}

#[test]
fn a_data_directory_that_does_not_exist_is_an_error() {
    let (output, report) = bench_in(
        &std::env::temp_dir(),
        &["--only", "gmm", "--data", "/nonexistent-adbench"],
        "nodata",
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("`--data /nonexistent-adbench` is not a directory"),
        "{stderr}"
    );
    assert!(report.is_none(), "no report is written");
}

#[test]
fn the_report_names_the_data_directory_given() {
    let data = std::env::temp_dir().join(format!("nilang-adbench-empty-{}", std::process::id()));
    std::fs::create_dir_all(&data).unwrap();
    let (output, report) = bench_in(
        &std::env::temp_dir(),
        &["--only", "gmm", "--data", data.to_str().unwrap()],
        "named",
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = report.unwrap();
    assert!(
        report.contains(&format!("`{}`", data.join("gmm").display())),
        "{report}"
    );
    assert!(!report.contains("../shared/data/adbench"), "{report}");
}

#[test]
fn only_a_name_that_matches_no_table_is_an_error_and_keeps_the_old_report() {
    let out = std::env::temp_dir().join(format!("nilang-bench-only-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("report.md"), "the previous report").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_nilang"))
        .args(["bench", "--quick", "--only", "nonsense", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("`--only nonsense` matches no table"),
        "{stderr}"
    );
    assert!(
        stderr.contains("bessel, sparse, graph, gmm, ba"),
        "{stderr}"
    );
    let kept = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert_eq!(kept, "the previous report");
}

/// `--threads N` runs the tables on an `N`-thread pool, timed by wall time when `N > 1` and
/// by the thread's CPU clock for `N = 1`; the report says which. `--threads 0` is an error.
#[test]
fn threads_choose_the_pool_and_the_clock() {
    let tmp = std::env::temp_dir();
    let (output, report) = bench_in(&tmp, &["--only", "gmm", "--threads", "2"], "threads2");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = report.unwrap();
    assert!(
        report.contains("`nilang bench --quick --threads 2`"),
        "{report}"
    );
    assert!(report.contains("of wall time"), "{report}");
    assert!(report.contains("run on 2 threads"), "{report}");
    let (output, report) = bench_in(&tmp, &["--only", "bessel", "--threads", "1"], "threads1");
    assert!(output.status.success());
    let report = report.unwrap();
    assert!(report.contains("of CPU time"), "{report}");
    let (output, report) = bench_in(&tmp, &["--only", "bessel", "--threads", "0"], "threads0");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("`--threads 0`"), "{stderr}");
    assert!(report.is_none(), "no report is written");
}

/// `--only apps`: the quantum circuit and the spin glass of `nilang-apps`, and no other table
/// (names are matched by substring); the checks made outside the timing pass.
#[test]
fn quick_apps_table_checks_the_gradients() {
    let tmp = std::env::temp_dir();
    let (output, report) = bench_in(&tmp, &["--only", "apps", "--threads", "1"], "apps");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = report.expect("a report");
    assert!(
        report.contains(
            "## Quantum circuit (10 qubits, 2 layers), spin glass (6 × 6) and normalizing flows (100 samples)"
        ),
        "{report}"
    );
    assert_eq!(report.matches("\n## ").count(), 1, "one table:\n{report}");
    for row in [
        "| energy, the reversible program",
        "| energy, a plain state-vector simulator",
        "| **energy and gradient by reversal**",
        "| gradient by a tape: nilang-dualrev on `plain::energy_generic`",
        "| gradient by a tape: echidna on `plain::energy_generic`",
        "| gradient by a tape: easy-ml on `plain::energy_generic`",
        "| E₀ by the reversible tropical contraction",
        "| **value + gradient by reversal**",
        "| E₀ by plain dynamic programming",
        "| NICE: **NLL and gradient by reversal**",
        "| RealNVP: NLL and gradient by a tape (nilang-dualrev)",
    ] {
        assert!(report.contains(row), "{row} missing:\n{report}");
    }
    assert!(
        report.contains("agrees with the parameter-shift rule"),
        "{report}"
    );
    assert!(
        report.contains("gradients of the plain simulator agree with the reversal gradient"),
        "{report}"
    );
    assert!(report.contains("(equal)"), "{report}");
    assert!(
        report.contains("agrees with the tape's") && !report.contains("**disagrees**"),
        "{report}"
    );
    assert!(report.contains("= E₀: a ground state"), "{report}");
}
