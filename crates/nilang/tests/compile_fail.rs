//! Every malformed reversible program is a compile error that points at the offending tokens
//! and says how to fix it. One file per diagnostic under `tests/ui/`, with its expected
//! `.stderr`; regenerate with `TRYBUILD=overwrite cargo test -p nilang --test compile_fail`.

#[test]
fn ui() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
