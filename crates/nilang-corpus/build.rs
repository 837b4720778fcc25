//! Writes the corpus of compiled random programs (see the crate doc): `$OUT_DIR/corpus.rs`,
//! one module per program with its seed, after the library they call.

#[allow(dead_code)]
#[path = "src/generator/mod.rs"]
mod generator;
#[allow(dead_code)]
#[path = "src/ordinary.rs"]
mod ordinary;

use std::fmt::Write;

/// How many programs the corpus holds unless `NILANG_CORPUS_PROGRAMS` says.
const DEFAULT_PROGRAMS: u64 = 300;
/// How many ordinary-Rust programs (`#[differentiable]`) unless `NILANG_ORDINARY_PROGRAMS`
/// says.
const DEFAULT_ORDINARY: u64 = 80;

fn main() {
    println!("cargo:rerun-if-changed=src/generator");
    println!("cargo:rerun-if-changed=src/ordinary.rs");
    println!("cargo:rerun-if-env-changed=NILANG_CORPUS_PROGRAMS");
    println!("cargo:rerun-if-env-changed=NILANG_ORDINARY_PROGRAMS");
    write_ordinary();
    let count = match std::env::var("NILANG_CORPUS_PROGRAMS") {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("NILANG_CORPUS_PROGRAMS={v:?} is not a count")),
        Err(_) => DEFAULT_PROGRAMS,
    };
    let mut out = format!("{}\n", generator::LIBRARY);
    let mut cases = String::new();
    for k in 0..count {
        let seed = seed(k);
        // not `fixed_point`: the adjoint programs give every `&mut` parameter a gradient of the
        // scalar's gradient type, which `q: &mut [I21F43]` in a `T: Real` function cannot
        // have (they do not compile); the IR-level tests run those programs
        let f = generator::function(seed, generator::Features::COMPILED);
        write!(
            out,
            "mod p{k} {{\n    use super::*;\n{f}\n    pub fn program() -> Program {{\n        \
             Program {{ seed: {seed}, source: {f:?}, f: f::<f64>, f_inv: f_inv::<f64>, \
             f_vjp: f_vjp::<f64, f64>, f_grad: f_grad::<f64>, f_tape: f::<DualRev> }}\n    }}\n}}\n"
        )
        .expect("writing to a String");
        writeln!(cases, "    p{k}::program,").expect("writing to a String");
    }
    write!(
        out,
        "pub const PROGRAMS: &[fn() -> Program] = &[\n{cases}];\n"
    )
    .expect("a String");
    let dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(std::path::Path::new(&dir).join("corpus.rs"), out).expect("writing the corpus");
}

/// The seed of the `k`-th program (spread over the seeds' range, none of them zero).
fn seed(k: u64) -> u64 {
    (k + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xC0DE
}

/// Writes `$OUT_DIR/ordinary.rs`: the ordinary-Rust programs under `#[differentiable]`, one
/// module each, after the library they call.
fn write_ordinary() {
    let count = match std::env::var("NILANG_ORDINARY_PROGRAMS") {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("NILANG_ORDINARY_PROGRAMS={v:?} is not a count")),
        Err(_) => DEFAULT_ORDINARY,
    };
    let mut out = format!("{}\n", ordinary::ORDINARY_LIBRARY);
    let mut cases = String::new();
    for k in 0..count {
        let seed = seed(k);
        let f = ordinary::ordinary_function(seed);
        write!(
            out,
            "mod o{k} {{\n    use super::*;\n    #[nilang::differentiable]\n{f}\n    \
             pub fn program() -> Ordinary {{\n        Ordinary {{ seed: {seed}, source: {f:?}, \
             plain: f, rev: f_rev::<f64>, rev_inv: f_rev_inv::<f64>, \
             dual: f_rev::<nilang::Dual<f64>>, gradient: f_gradient }}\n    }}\n}}\n"
        )
        .expect("writing to a String");
        writeln!(cases, "    o{k}::program,").expect("writing to a String");
    }
    write!(
        out,
        "pub const ORDINARY: &[fn() -> Ordinary] = &[\n{cases}];\n"
    )
    .expect("a String");
    let dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(std::path::Path::new(&dir).join("ordinary.rs"), out)
        .expect("writing the ordinary programs");
}
