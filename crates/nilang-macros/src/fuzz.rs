//! The macro never panics: random token streams, built from the language's own vocabulary
//! (keywords, its macros and primitives, places, literals, punctuation, nested groups), are
//! put into a function body and run through everything `#[i]` does — `nilang_ir::parse`,
//! `check`, `reverse`, the code generators for the forward, inverse, adjoint and gradient
//! programs, the C++/CUDA generator, for a free function and a method, with and without
//! `expand`/`nocheck`. Every input must give tokens (possibly a spanned `compile_error!`),
//! never a panic. A fast subset runs in CI; `macro_never_panics_long` (ignored) runs
//! `NILANG_FUZZ_CASES` cases (default 200 000).

use proptest::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Sources that were Rust functions (so reached the macro), and those the macro accepted.
static REACHED: AtomicUsize = AtomicUsize::new(0);
static ACCEPTED: AtomicUsize = AtomicUsize::new(0);
use proptest::test_runner::{Config, TestRunner};

const WORDS: &[&str] = &[
    "let",
    "if",
    "else",
    "while",
    "for",
    "in",
    "fn",
    "return",
    "loop",
    "break",
    "mut",
    "as",
    "x",
    "y",
    "z",
    "t",
    "a",
    "i",
    "j",
    "n",
    "T",
    "self",
    "Self",
    "s",
    "f",
    "g",
    "k",
    "routine!",
    "uncompute!",
    "dealloc!",
    "expand!",
    "push!",
    "pop!",
    "push_copy!",
    "pop_copy!",
    "uncall!",
    "safe!",
    "nocheck!",
    "reverse!",
    "sin",
    "exp",
    "log",
    "sqrt",
    "pow",
    "atan2",
    "identity",
    "swap",
    "rot",
    "irot",
    "neg",
    "inc",
    "dec",
    "conj",
    "sincos",
    "zero",
    "lit",
    "val",
    "len",
    "par",
    "rev",
    "step_by",
    "0",
    "1",
    "2.0",
    "0.5",
    "-1",
    "0i64",
    "1e308",
    "usize",
    "f64",
    "i64",
    "Vec",
    "Real",
];

const PUNCT: &[&str] = &[
    "+=", "-=", "^=", "*=", "/=", "%=", "=", "==", "<", ">", "<=", ">=", "+", "-", "*", "/", "..",
    "..=", ".", ",", ";", ":", "::", "&", "&mut", "!", "'a", "#", "?", "|",
];

/// A random token sequence of at most `depth` nested groups, as source text.
fn tokens(depth: u32) -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        4 => prop::sample::select(WORDS).prop_map(str::to_string),
        3 => prop::sample::select(PUNCT).prop_map(str::to_string),
    ];
    leaf.prop_recursive(depth, 64, 8, |inner| {
        (
            prop::collection::vec(inner, 0..8),
            prop::sample::select(&["()", "[]", "{}", ""][..]),
        )
            .prop_map(|(items, delims)| {
                let body = items.join(" ");
                match delims {
                    "" => body,
                    d => format!("{}{body}{}", &d[..1], &d[1..]),
                }
            })
    })
}

/// Statements: random token runs, each ended by `;` or a block, sometimes a well-formed one.
fn body() -> impl Strategy<Value = String> {
    let valid = prop::sample::select(
        &[
            "y += sin(x);",
            "let t = T::zero(); t += exp(x); y += t * x; t -= exp(x); dealloc!(t = T::zero());",
            "if (x.val() > 0.0, x.val() > 0.0) { y += identity(x); }",
            "for i in 0..2 { y += x * x; }",
            "routine! { let t = T::zero(); t += sqrt(x); } y += identity(t); uncompute!();",
            "swap(x, y);",
            "expand! { y += sin(x * x); }",
        ][..],
    );
    let stmt = prop_oneof![
        3 => (tokens(3), prop::sample::select(&[";", "", " {}"][..]))
            .prop_map(|(t, end)| format!("{t}{end}")),
        1 => valid.prop_map(str::to_string),
    ];
    prop::collection::vec(stmt, 0..8).prop_map(|s| s.join("\n"))
}

/// Runs every stage of the macro on one body; `Err` with the input when something panics.
fn run_macro(body: &str) -> Result<(), String> {
    let sources = [
        format!("fn f<T: Real>(y: &mut T, x: &mut T, v: &mut [T], n: usize) {{ {body} }}"),
        format!("fn f(y: &mut f64, x: &mut f64, v: &mut [f64]) {{ {body} }}"),
    ];
    for src in &sources {
        let Ok(item) = syn::parse_str::<syn::ItemFn>(src) else {
            continue; // not Rust at all: rustc reports it before the macro runs
        };
        REACHED.fetch_add(1, Ordering::Relaxed);
        for attr in ["", "expand", "nocheck", "expand, nocheck, cuda"] {
            let options = nilang_ir::Options::parse(attr.parse().unwrap()).unwrap();
            let item = item.clone();
            let outcome = std::panic::catch_unwind(move || {
                let _ = crate::function(&options, item.clone());
                let method: syn::ImplItemFn = syn::parse_quote!(#item);
                let _ = crate::method(&options, method);
                if let Ok(ir) = nilang_ir::lower(&options, item) {
                    ACCEPTED.fetch_add(1, Ordering::Relaxed);
                    let _ = nilang_ir::adjoint_view::adjoint_text(&ir);
                    let _ = nilang_ir::reverse::function_text(&ir);
                }
            });
            if outcome.is_err() {
                return Err(format!("#[i({attr})] panicked on:\n{src}"));
            }
        }
    }
    Ok(())
}

fn fuzz(cases: u32) {
    // panics are what we look for: keep their messages off the test output
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let start = std::time::Instant::now();
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&body(), |b| {
        run_macro(&b).map_err(proptest::test_runner::TestCaseError::fail)
    });
    std::panic::set_hook(hook);
    if let Err(e) = result {
        panic!("{e}");
    }
    let (reached, accepted) = (
        REACHED.load(Ordering::Relaxed),
        ACCEPTED.load(Ordering::Relaxed),
    );
    eprintln!(
        "{cases} random bodies, {reached} function sources that parse as Rust through the macro \
         (4 option sets each; {accepted} runs accepted by parse and check), no panic, in {:.1?}",
        start.elapsed()
    );
    assert!(
        reached > 0 && accepted > 0,
        "the generator reaches the macro and its checks"
    );
}

#[test]
fn macro_never_panics() {
    fuzz(300);
}

#[test]
#[ignore = "long run: NILANG_FUZZ_CASES cases (default 200000)"]
fn macro_never_panics_long() {
    let cases = std::env::var("NILANG_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    fuzz(cases);
}
