//! Helpers shared by the IR's integration tests.

use nilang_ir::ast::Stmt;
use nilang_ir::print::block_tokens;
use nilang_ir::text::tokens_text;
use nilang_ir::Analyzed;

/// The one reversible function of a source text.
pub fn parse(src: &str) -> Analyzed {
    let mut functions = nilang_ir::parse_file(src).unwrap();
    assert_eq!(functions.len(), 1);
    functions.pop().unwrap()
}

/// Statements printed in the language's syntax.
#[allow(dead_code)] // not every test file that shares these helpers prints statements
pub fn text(stmts: &[Stmt]) -> String {
    tokens_text(&block_tokens(stmts))
}

/// The compile errors of a source text, one a line.
#[allow(dead_code)] // not every test file that shares these helpers reads errors
pub fn errors(src: &str) -> String {
    let e = nilang_ir::parse_file(src).unwrap_err();
    e.into_iter().map(|e| e.to_string() + "\n").collect()
}
