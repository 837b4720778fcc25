//! The zeros `expand!` allocates: an ancilla `{ use ::nilang::__private::Zeroable as _;
//! (y).additive_zero() }` that takes the type of the place `y` it is computed for (`−0` for
//! floats: the ancilla is computed by `+=`). The analyses recognise them (such an expression
//! only reads its place).

use crate::ast::Dataview;
use syn::Expr;

/// The expression of a zero of the same type as a dataview (used for generated ancillas).
pub(crate) fn zero_like_expr(target: &Dataview) -> Expr {
    let view: Expr = syn::parse_str(&target.text()).expect("a dataview is an expression");
    syn::parse_quote!({ use ::nilang::__private::Zeroable as _; (#view).additive_zero() })
}

/// Is this the zero of a target's type that `expand!` gives its ancillas
/// (`(y).additive_zero()`)?
pub fn is_zero_like_expr(e: &Expr) -> bool {
    crate::text::expr_text(e).contains("__private::Zeroable as _")
}

/// The place whose type a generated zero takes (`y` in `(y).additive_zero()`), if `e` is one.
pub fn zero_like_of(e: &Expr) -> Option<&Expr> {
    let Expr::Block(b) = e else { return None };
    match b.block.stmts.last() {
        Some(syn::Stmt::Expr(Expr::MethodCall(m), None))
            if m.method == "additive_zero" && m.args.is_empty() && is_zero_like_expr(e) =>
        {
            match &*m.receiver {
                Expr::Paren(p) => Some(&p.expr),
                other => Some(other),
            }
        }
        _ => None,
    }
}
