//! Lists, for every `#[i(nocheck)]` function of a Rust file, the indexed accesses inside `for`
//! loops whose bounds checks `nilang_ir::bounds` does not hoist (a survey tool for performance
//! work: `cargo run -p nilang-ir --example unhoisted -- FILE...`).
use nilang_ir::ast::{Access, Operand, Stmt, StmtKind};
use nilang_ir::scope::{Scope, VarKind};
use quote::ToTokens;

fn main() {
    for path in std::env::args().skip(1) {
        let src = std::fs::read_to_string(&path).expect("readable file");
        let file = syn::parse_file(&src).expect("Rust file");
        for item in file.items {
            let syn::Item::Fn(f) = item else { continue };
            let Some(attr) = f.attrs.iter().find(|a| nilang_ir::is_reversible_attr(a)) else {
                continue;
            };
            let text = attr.to_token_stream().to_string();
            if !text.contains("nocheck") {
                continue;
            }
            let name = f.sig.ident.to_string();
            let Ok(func) = nilang_ir::lower(&Default::default(), f) else {
                continue;
            };
            let mut scope = Scope::for_function(&func);
            scope.push();
            walk(&func.body, &mut scope, &format!("{path}::{name}"));
        }
    }
}

fn walk(body: &[Stmt], scope: &mut Scope, at: &str) {
    for s in body {
        match &s.kind {
            StmtKind::Alloc(b) => b
                .iter()
                .for_each(|b| scope.declare(&b.name, VarKind::Ancilla)),
            StmtKind::For { var, range, body } => {
                let hoisted = nilang_ir::bounds::hoistable(
                    var,
                    range,
                    body,
                    scope,
                    &mut nilang_ir::bounds::numbered_locals(),
                )
                .hoisted;
                let mut seen = Vec::new();
                direct_indices(body, &mut seen);
                for v in seen {
                    if !hoisted.iter().any(|h| h.matches(v)) {
                        let idx = match v.path.first() {
                            Some(Access::Index(e)) => e.to_token_stream().to_string(),
                            _ => continue,
                        };
                        println!("{at}: for {var}: {}[{idx}]", v.root);
                    }
                }
                scope.push();
                scope.declare(var, VarKind::LoopVar);
                walk(body, scope, at);
                scope.pop();
            }
            _ => {
                for b in s.blocks() {
                    scope.push();
                    walk(b, scope, at);
                    scope.pop();
                }
            }
        }
    }
}

/// Indexed views of the loop's own statements (not of nested loops).
fn direct_indices<'a>(body: &'a [Stmt], out: &mut Vec<&'a nilang_ir::ast::Dataview>) {
    for s in body {
        match &s.kind {
            StmtKind::Instr(i) => {
                let mut vs = vec![&i.target];
                vs.extend(i.args.iter().filter_map(|a| match a {
                    Operand::View(v) => Some(v),
                    _ => None,
                }));
                out.extend(
                    vs.into_iter()
                        .filter(|v| matches!(v.path.first(), Some(Access::Index(_)))),
                );
            }
            StmtKind::For { .. } => {}
            _ => s.blocks().into_iter().for_each(|b| direct_indices(b, out)),
        }
    }
}
