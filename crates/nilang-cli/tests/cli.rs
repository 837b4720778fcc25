//! `nilang --help` and `nilang --version` answer at once, on stdout, with success, without
//! reading stdin; so does `--help` of every subcommand.

use std::process::{Command, Stdio};

fn run(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nilang"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("nilang runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn version_prints_the_crate_version() {
    let (ok, out) = run(&["--version"]);
    assert!(ok);
    assert_eq!(out.trim(), format!("nilang {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn help_lists_every_subcommand() {
    let (ok, out) = run(&["--help"]);
    assert!(ok);
    for sub in ["expand", "demo", "gradbench", "bench"] {
        assert!(out.contains(sub), "`{sub}` missing from --help:\n{out}");
    }
    for sub in ["expand", "demo", "gradbench", "bench"] {
        let (ok, out) = run(&[sub, "--help"]);
        assert!(
            ok && out.contains("Usage: nilang"),
            "nilang {sub} --help:\n{out}"
        );
    }
}

#[test]
fn a_missing_subcommand_is_an_error_with_usage() {
    let out = Command::new(env!("CARGO_BIN_EXE_nilang"))
        .stdin(Stdio::null())
        .output()
        .expect("nilang runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("Usage: nilang"));
}
