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

#[test]
fn a_missing_data_directory_falls_back_to_seeded_instances() {
    let out = std::env::temp_dir().join(format!("nilang-bench-seeded-{}", std::process::id()));
    let status = Command::new(env!("CARGO_BIN_EXE_nilang"))
        .args([
            "bench",
            "--quick",
            "--only",
            "gmm",
            "--data",
            "/nonexistent-adbench",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("seeded d=2 K=5"), "{report}");
}
