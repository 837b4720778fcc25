//! `nilang expand` prints the forward and inverse programs.

use std::process::Command;

#[test]
fn expand_prints_forward_and_inverse() {
    let dir = std::env::temp_dir().join(format!("nilang-expand-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("prog.rs");
    std::fs::write(
        &file,
        r#"
        #[i]
        fn f<T: Real>(y: &mut T, x: &mut T) {
            let a = T::zero();
            routine! { a += sin(x); }
            y += a * x;
            uncompute!();
            dealloc!(a = T::zero());
        }
        fn not_reversible() {}
        "#,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_nilang"))
        .arg("expand")
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let expected_forward = "fn f<T: Real>(y: &mut T, x: &mut T) {\n    let a = T::zero();\n    a += sin(x);\n    y += a * x;\n    a -= sin(x);\n    dealloc!(a = T::zero());\n}";
    let expected_inverse = "fn f_inv<T: Real>(y: &mut T, x: &mut T) {\n    let a = T::zero();\n    a += sin(x);\n    y -= a * x;\n    a -= sin(x);\n    dealloc!(a = T::zero());\n}";
    assert!(text.contains(expected_forward), "{text}");
    assert!(text.contains(expected_inverse), "{text}");
}

#[test]
fn expand_reports_errors_with_position() {
    let dir = std::env::temp_dir().join(format!("nilang-expand-err-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.rs");
    std::fs::write(
        &file,
        "#[i]\nfn f(y: &mut f64, x: &mut f64) {\n    y = x;\n}\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_nilang"))
        .arg("expand")
        .arg(&file)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("line 3"), "{err}");
    assert!(err.contains("assignment"), "{err}");
}

/// A thousand nested `if`s (deeper than rustc compiles): `nilang expand` prints them on a
/// stack of its own (`nilang_ir::on_deep_stack`); on the main thread's 8 MiB it overflowed.
#[test]
fn expand_prints_a_thousand_nested_ifs() {
    let dir = std::env::temp_dir().join(format!("nilang-expand-deep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("deep.rs");
    let depth = 1000;
    let src = format!(
        "#[i]\nfn f<T: Real>(y: &mut T, x: &mut T, n: usize) {{\n{}y += sin(x);\n{}}}\n",
        "if n > 0 {\n".repeat(depth),
        "}\n".repeat(depth)
    );
    std::fs::write(&file, src).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_nilang"))
        .arg("expand")
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // the forward, the inverse and the adjoint program, each with every `if`
    for (name, instruction) in [
        ("fn f<", "y += sin(x);"),
        ("fn f_inv<", "y -= sin(x);"),
        ("fn f_adjoint<", ""),
    ] {
        assert!(text.contains(name), "{name} in\n{text}");
        if !instruction.is_empty() {
            assert!(text.contains(instruction), "{instruction}");
        }
    }
    assert!(
        text.matches("if n > 0").count() >= 2 * depth,
        "every if, twice"
    );
}
