//! Reversal is an involution on the papers' programs (the modules of the library's `stdlib`
//! and the programs of `nilang/tests/programs.rs`): reversing a body twice prints the
//! same program, and reversing once gives a different one.

use nilang_ir::print::block_tokens;
use nilang_ir::reverse::reverse_block;
use nilang_ir::text::tokens_text;

const SOURCES: [(&str, &str); 9] = [
    (
        "special.rs",
        include_str!("../../nilang/src/stdlib/special.rs"),
    ),
    ("blas.rs", include_str!("../../nilang/src/stdlib/blas.rs")),
    ("stats.rs", include_str!("../../nilang/src/stdlib/stats.rs")),
    (
        "linalg.rs",
        include_str!("../../nilang/src/stdlib/linalg.rs"),
    ),
    ("fft.rs", include_str!("../../nilang/src/stdlib/fft.rs")),
    ("nn.rs", include_str!("../../nilang/src/stdlib/nn.rs")),
    (
        "sorting.rs",
        include_str!("../../nilang/src/stdlib/sorting.rs"),
    ),
    (
        "mapreduce.rs",
        include_str!("../../nilang/src/stdlib/mapreduce.rs"),
    ),
    (
        "programs.rs",
        include_str!("../../nilang/tests/programs.rs"),
    ),
];

#[test]
fn reverse_is_an_involution_on_paper_programs() {
    let mut names = Vec::new();
    for (file, src) in SOURCES {
        let functions = nilang_ir::parse_file(src).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(!functions.is_empty(), "{file} has reversible functions");
        for f in functions {
            let name = f.sig.ident.to_string();
            let body = tokens_text(&block_tokens(&f.body));
            let once = reverse_block(&f.body);
            let twice = reverse_block(&once);
            assert_eq!(tokens_text(&block_tokens(&twice)), body, "{file}: {name}");
            assert_ne!(
                tokens_text(&block_tokens(&once)),
                body,
                "{file}: {name} is not self-inverse"
            );
            names.push(name);
        }
    }
    for expected in [
        "ibesselj",
        "iexp",
        "ifactorial",
        "imul",
        "idot",
        "i_umm",
        "i_affine",
        "rrfib",
        "complex_log",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} was parsed: {names:?}"
        );
    }
}
