//! Rules on names that let every analysis identify a variable by its name.
//!
//! The analyses of the IR (hoisted bounds checks, a parallel loop's owned slots, ancilla
//! scopes, effects) and the generated code name a variable by its identifier. That is sound
//! only when, at every point of a body, one name means one binding, and when the names the
//! generator makes up cannot meet the user's. Three rules make it so:
//!
//! 1. **No shadowing** ([`crate::check`], rule 7): a `let`, a loop variable or a name created
//!    by `fields!` / `new!` may not reuse a name that is bound at that point (a parameter, a
//!    live ancilla, an enclosing loop's variable). A name may be bound again once its binding
//!    has ended (after its `dealloc!`, or after the loop or block that bound it).
//! 2. **Reserved names** ([`reserved_names`]): identifiers that start with `__` belong to the
//!    generated code (its locals, the loops of `mapfoldl!`, the ancillas of `expand!`); the
//!    user's tokens may not use them.
//! 3. **Gradient names** ([`gradient_name_collisions`]): the adjoint program names the
//!    gradient of `x` `x_grad` ([`crate::adjoint::shadow_name`]), so a function may not bind
//!    both `x` and `x_grad`.
//!
//! Loops the parser writes for the user (a broadcast's, [`crate::broadcast`]) take a name
//! that no identifier of the function uses ([`unused_name`]). Expressions only read: the
//! generators evaluate every expression that [`may_change`] a variable through a `Fn`
//! closure (`nilang::__private::read`), which does not compile if it does.

use crate::ast::*;
use crate::diag::Errors;
use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use std::collections::BTreeSet;
use syn::{BinOp, Expr};

/// The prefix of the identifiers that generated code reserves.
pub const RESERVED_PREFIX: &str = "__";

/// Every identifier of a token stream, at any depth.
pub fn identifiers(ts: TokenStream, out: &mut BTreeSet<String>) {
    for t in ts {
        match t {
            TokenTree::Ident(i) => {
                out.insert(i.to_string());
            }
            TokenTree::Group(g) => identifiers(g.stream(), out),
            _ => {}
        }
    }
}

/// Reports every identifier of the user's signature and body that starts with
/// [`RESERVED_PREFIX`] and could name a local (rule 2): not a path segment after `::` or a
/// field or method after `.` (`::nilang::__private::Zeroable`, the printed form of
/// `expand!`'s zeros, reads back).
pub fn reserved_names(sig: &syn::Signature, block: &syn::Block, errors: &mut Errors) {
    fn walk(ts: TokenStream, errors: &mut Errors) {
        let mut after_path_or_dot = false;
        for t in ts {
            let follows = after_path_or_dot;
            after_path_or_dot =
                matches!(&t, TokenTree::Punct(p) if p.as_char() == '.' || p.as_char() == ':');
            match t {
                TokenTree::Ident(i) if !follows && i.to_string().starts_with(RESERVED_PREFIX) => {
                    errors.push(
                        i.span(),
                        format!(
                            "`{i}`: names that start with `{RESERVED_PREFIX}` are reserved for \
                             the code `#[i]` generates, which could otherwise mistake one for \
                             its own\nhelp: rename it without the leading underscores"
                        ),
                    )
                }
                TokenTree::Group(g) => walk(g.stream(), errors),
                _ => {}
            }
        }
    }
    walk(sig.inputs.to_token_stream(), errors);
    walk(sig.generics.to_token_stream(), errors);
    walk(block.to_token_stream(), errors);
}

/// The names a function binds: its parameters, and every ancilla, loop variable and name
/// created by `fields!` / `new!` of its body, at any depth.
fn bound_names(f: &Function) -> Vec<&syn::Ident> {
    fn walk<'a>(stmts: &'a [Stmt], out: &mut Vec<&'a syn::Ident>) {
        for s in stmts {
            match &s.kind {
                StmtKind::Alloc(b) => out.extend(b.iter().map(|b| &b.name)),
                StmtKind::Fields(f) => out.extend(f.created()),
                StmtKind::For { var, .. } => out.push(var),
                _ => {}
            }
            for block in s.blocks() {
                walk(block, out);
            }
        }
    }
    let mut out: Vec<&syn::Ident> = f.params.iter().map(|p| &p.name).collect();
    walk(&f.body, &mut out);
    out
}

/// Reports every binding `x_grad` of a function that also binds `x` (rule 3): in the
/// adjoint program `x_grad` is the gradient of `x`.
pub fn gradient_name_collisions(f: &Function, errors: &mut Errors) {
    let names = bound_names(f);
    let text: BTreeSet<String> = names.iter().map(|n| n.to_string()).collect();
    let mut reported = BTreeSet::new();
    for n in names {
        let name = n.to_string();
        let Some(base) = name.strip_suffix("_grad") else {
            continue;
        };
        if text.contains(base) && reported.insert(name.clone()) {
            errors.push(
                n.span(),
                format!(
                    "`{name}` is the name the gradient programs give to the gradient of \
                     `{base}`, which this function also binds\nhelp: rename `{name}` (e.g. \
                     `d{base}`)"
                ),
            );
        }
    }
}

/// The first of `candidates` that is not in `taken`.
pub fn unused_name(
    candidates: impl IntoIterator<Item = String>,
    taken: &BTreeSet<String>,
) -> String {
    candidates
        .into_iter()
        .find(|c| !taken.contains(c))
        .expect("an unused name")
}

/// Could evaluating an expression change a variable? Only through a method (`rows.at(i)`,
/// `v.clear()`; `len()` excepted), a macro, a block or closure, an assignment or a `&mut`:
/// arithmetic, indexing, fields, casts and calls of functions on such operands cannot (a
/// function reaches the caller's variables only through a `&mut` it is handed). The zeros
/// `expand!` allocates (`crate::zeros::is_zero_like_expr`) only read their target.
pub fn may_change(e: &Expr) -> bool {
    if crate::zeros::is_zero_like_expr(e) {
        return false;
    }
    struct Probe(bool);
    impl<'ast> syn::visit::Visit<'ast> for Probe {
        fn visit_expr(&mut self, e: &'ast Expr) {
            match e {
                Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() => {
                    syn::visit::visit_expr(self, e)
                }
                Expr::Reference(r) if r.mutability.is_none() => syn::visit::visit_expr(self, e),
                Expr::Binary(b) if !binary_assigns(&b.op) => syn::visit::visit_expr(self, e),
                Expr::Lit(_)
                | Expr::Path(_)
                | Expr::Paren(_)
                | Expr::Group(_)
                | Expr::Unary(_)
                | Expr::Field(_)
                | Expr::Index(_)
                | Expr::Cast(_)
                | Expr::Range(_)
                | Expr::Tuple(_)
                | Expr::Array(_)
                | Expr::Call(_) => syn::visit::visit_expr(self, e),
                _ => self.0 = true,
            }
        }
    }
    fn binary_assigns(op: &BinOp) -> bool {
        matches!(
            op,
            BinOp::AddAssign(_)
                | BinOp::SubAssign(_)
                | BinOp::MulAssign(_)
                | BinOp::DivAssign(_)
                | BinOp::RemAssign(_)
                | BinOp::BitXorAssign(_)
                | BinOp::BitAndAssign(_)
                | BinOp::BitOrAssign(_)
                | BinOp::ShlAssign(_)
                | BinOp::ShrAssign(_)
        )
    }
    let mut p = Probe(false);
    syn::visit::Visit::visit_expr(&mut p, e);
    p.0
}

#[cfg(test)]
mod tests {
    use crate::{lower, Options};

    fn errors_of(item: syn::ItemFn) -> String {
        match lower(&Options::default(), item) {
            Ok(_) => String::new(),
            Err(e) => e
                .into_iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }

    #[test]
    fn reserved_identifiers_are_rejected_anywhere() {
        let e = errors_of(syn::parse_quote! {
            fn f<T: Real>(y: &mut [T], __n: usize) {
                y[__n] += 1.0;
            }
        });
        assert_eq!(e.matches("are reserved").count(), 2, "{e}");
    }

    #[test]
    fn a_binding_named_as_another_ones_gradient_is_rejected() {
        let e = errors_of(syn::parse_quote! {
            fn f<T: Real>(y: &mut T, x: &T) {
                let x_grad = 0.0;
                y += identity(x_grad);
                dealloc!(x_grad = 0.0);
            }
        });
        assert!(e.contains("`x_grad` is the name"), "{e}");
        let fine = errors_of(syn::parse_quote! {
            fn f<T: Real>(y: &mut T, x_grad: &T) {
                y += identity(x_grad);
            }
        });
        assert!(fine.is_empty(), "{fine}");
    }
}
