//! Reversal: the one place where the inverse of every statement is defined.
//!
//! Architecture Invariant: `reverse_block(&reverse_block(b))` is `b` (reversal is an
//! involution), which the tests check on every example program.
//!
//! A routine (`P X ~P`) runs its computation's reversal too ([`routine_steps`]), and
//! [`function_text`] prints a function's forward and inverse programs.

use crate::ast::*;
use crate::print::block_tokens;
use crate::text::tokens_text;
use quote::quote;

/// The inverse of a block: the inverse of each statement, in the opposite order.
pub fn reverse_block(stmts: &[Stmt]) -> Vec<Stmt> {
    stmts.iter().rev().map(reverse_stmt).collect()
}

/// The inverse of a constructor (the destructor on the same names) and of a destructor.
pub fn reverse_fields(f: &Fields) -> Fields {
    Fields {
        construct: !f.construct,
        ..f.clone()
    }
}

/// The inverse of one statement (the papers' table of reversible statements).
pub fn reverse_stmt(s: &Stmt) -> Stmt {
    let kind = match &s.kind {
        StmtKind::Instr(i) => StmtKind::Instr(Instr {
            op: i.op.inverse(),
            ..i.clone()
        }),
        StmtKind::XorExpr { .. } | StmtKind::Safe(_) => s.kind.clone(),
        StmtKind::Builtin { op, args, operand } => StmtKind::Builtin {
            op: op.inverse(),
            args: args.clone(),
            operand: operand.clone(),
        },
        StmtKind::Alloc(b) => StmtKind::Dealloc(b.iter().rev().cloned().collect()),
        StmtKind::Dealloc(b) => StmtKind::Alloc(b.iter().rev().cloned().collect()),
        StmtKind::If {
            pre,
            post,
            explicit_post,
            then,
            els,
        } => StmtKind::If {
            pre: post.clone(),
            post: pre.clone(),
            explicit_post: *explicit_post,
            then: reverse_block(then),
            els: reverse_block(els),
        },
        StmtKind::While { pre, post, body } => StmtKind::While {
            pre: post.clone(),
            post: pre.clone(),
            body: reverse_block(body),
        },
        // a parallel loop stays parallel: only the direction flips
        StmtKind::For { var, range, body } => StmtKind::For {
            var: var.clone(),
            range: RangeSpec {
                rev: !range.rev,
                ..range.clone()
            },
            body: reverse_block(body),
        },
        StmtKind::Call { call, uncall } => StmtKind::Call {
            call: call.clone(),
            uncall: !uncall,
        },
        StmtKind::Stack {
            stack,
            value,
            push,
            copy,
        } => StmtKind::Stack {
            stack: stack.clone(),
            value: value.clone(),
            push: !push,
            copy: *copy,
        },
        // the constructor and the destructor undo each other; nothing is computed
        StmtKind::Fields(f) => StmtKind::Fields(reverse_fields(f)),
        StmtKind::NoCheck(body) => StmtKind::NoCheck(reverse_block(body)),
        // `~(P X ~P)` is `P ~X ~P`: the computation stays, only its use is undone.
        StmtKind::Routine { compute, body } => StmtKind::Routine {
            compute: compute.clone(),
            body: reverse_block(body),
        },
    };
    let source = crate::print::header_text(&kind);
    Stmt {
        kind,
        span: s.span,
        source,
    }
}

/// A block with every routine, at any depth, replaced by its three parts: the program as it
/// runs (what `nilang expand` prints, as the papers' `macroexpand` does).
pub fn expand_routines(stmts: &[Stmt]) -> Vec<Stmt> {
    let mut out = Vec::new();
    for s in stmts {
        match &s.kind {
            StmtKind::Routine { compute, body } => {
                out.extend(expand_routines(&routine_steps(compute, body)))
            }
            _ => {
                let mut s = s.clone();
                for b in s.blocks_mut() {
                    *b = expand_routines(b);
                }
                out.push(s);
            }
        }
    }
    out
}

/// The statements a routine runs, one after another: `P`, `X`, `~P`.
pub fn routine_steps(compute: &[Stmt], body: &[Stmt]) -> Vec<Stmt> {
    let mut out = compute.to_vec();
    out.extend_from_slice(body);
    out.extend(reverse_block(compute));
    out
}

/// The forward and inverse programs of a function, as formatted text in the language's syntax,
/// with routines expanded into their three parts (what runs).
pub fn function_text(f: &Function) -> String {
    let attrs = if f.checked {
        quote!(#[i])
    } else {
        quote!(#[i(nocheck)])
    };
    let vis = &f.vis;
    let sig = &f.sig;
    let mut inv_sig = f.sig.clone();
    inv_sig.ident = f.inverse_name.clone();
    let fwd = block_tokens(&expand_routines(&f.body));
    let inv = block_tokens(&expand_routines(&reverse_block(&f.body)));
    let file = quote! {
        #attrs
        #vis #sig { #fwd }
        #attrs
        #vis #inv_sig { #inv }
    };
    match syn::parse2::<syn::File>(file.clone()) {
        Ok(parsed) => prettyplease::unparse(&parsed),
        Err(_) => tokens_text(&file),
    }
}
