//! The printed adjoint programs of the papers' small programs, pinned: the multiplier, the
//! Bessel function (with its call of the integer program `ifactorial` and its `while` loop)
//! and a loop under a routine. The text is printed from the same IR the macro generates the
//! adjoint from, so a change of either shows here.
//!
//! `UPDATE_SNAPSHOTS=1 cargo test -p nilang-ir --test adjoint_view` rewrites the files after an
//! intended change; review the diff.

use nilang_ir::adjoint_view::adjoint_text;
use nilang_ir::parse_file;
use std::path::PathBuf;

fn snapshot(name: &str, text: &str) {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "snapshots", name]
        .iter()
        .collect();
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, text).unwrap();
    }
    let pinned = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_SNAPSHOTS=1 writes it)", path.display()));
    assert_eq!(text, pinned, "the adjoint view of {name} changed");
}

fn adjoint_of(src: &str, function: &str) -> String {
    let functions = parse_file(src).unwrap();
    let f = functions
        .iter()
        .find(|f| f.sig.ident == function)
        .unwrap_or_else(|| panic!("no `{function}`"));
    adjoint_text(f)
}

#[test]
fn multiplier() {
    let src = "#[i] fn multiplier<T: Real>(y: &mut T, a: &mut T, b: &mut T) { y += a * b; }";
    let text = adjoint_of(src, "multiplier");
    assert!(text.contains("a_grad += y_grad * d0_mul(a, b);"), "{text}");
    snapshot("multiplier.txt", &text);
}

#[test]
fn bessel() {
    let src = include_str!("../../nilang/src/stdlib/special.rs");
    let text = adjoint_of(src, "ibesselj");
    assert!(
        text.contains("ifactorial_adjoint(fact_nu, fact_nu_grad, nu, ());"),
        "{text}"
    );
    snapshot("ibesselj.txt", &text);
}

#[test]
fn loop_with_a_routine() {
    let src = r#"
        #[i]
        fn lse<T: Real>(out: &mut T, x: &mut [T]) {
            let s = T::zero();
            routine! {
                for i in 0..x.len() {
                    s += exp(x[i]);
                }
            }
            out += log(s);
            uncompute!();
            dealloc!(s = T::zero());
        }
    "#;
    snapshot("loop_with_a_routine.txt", &adjoint_of(src, "lse"));
}

#[test]
fn nilang_instructions() {
    let src = "#[i] fn ops<T: Real>(a: &mut T, b: &mut T, f: &mut bool) { flip(f); inv(a); hadamard(a, b); }";
    let text = adjoint_of(src, "ops");
    // the rules: ¬ has no gradient, ā ← −ā a² before a is inverted, H on the gradients
    assert!(text.contains("a_grad *= -square(a);"), "{text}");
    assert!(text.contains("hadamard(a_grad, b_grad);"), "{text}");
    assert!(!text.contains("flip(f_grad)"), "{text}");
    snapshot("nilang_instructions.txt", &text);
}
