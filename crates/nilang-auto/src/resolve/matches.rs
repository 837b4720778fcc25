//! `match` on plain values (a model's kind, an index, a flag), written as the `if`/`else if`
//! chain it means before name resolution: each arm's patterns become a test of the scrutinee
//! (`0 => …` is `k == 0`, `1 | 2` is `k == 1 || k == 2`, `3..=5` is `k >= 3 && k <= 5`, a
//! guard is `&& (guard)`), the last arm is the `else` (a `match` is exhaustive, so it is
//! taken whenever no arm before it is), and an arm that binds the value (`n => …`) starts
//! with `let n = k;`. The scrutinee is evaluated by each test, which is why it must be plain
//! (a match on a differentiable value would compare a number the gradient flows through).

use super::Result;
use syn::parse_quote_spanned;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

/// The body with every `match` rewritten as an `if` chain.
pub(super) fn desugar(block: &syn::Block) -> Result<syn::Block> {
    let mut rewriter = Chains { error: None };
    let mut block = block.clone();
    rewriter.visit_block_mut(&mut block);
    match rewriter.error {
        Some(e) => Err(e),
        None => Ok(block),
    }
}

struct Chains {
    error: Option<syn::Error>,
}

impl VisitMut for Chains {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        // inner matches first, so the arms' bodies are rewritten too
        syn::visit_mut::visit_expr_mut(self, e);
        if let syn::Expr::Match(m) = e {
            match chain(m) {
                Ok(rewritten) => *e = rewritten,
                Err(err) => {
                    self.error.get_or_insert(err);
                }
            }
        }
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// `match scrutinee { arms }` as `if test₁ { body₁ } else if … else { bodyₙ }`.
fn chain(m: &syn::ExprMatch) -> Result<syn::Expr> {
    let scrutinee = &*m.expr;
    let Some((last, init)) = m.arms.split_last() else {
        return Err(syn::Error::new(
            m.span(),
            "a `match` without arms is not supported",
        ));
    };
    let mut out = arm_body(last, scrutinee)?;
    for arm in init.iter().rev() {
        let mut test = pattern_test(&arm.pat, scrutinee)?;
        if let Some((_, guard)) = &arm.guard {
            if binds(&arm.pat) {
                return Err(syn::Error::new(
                    guard.span(),
                    "a guard on an arm that binds the value is not supported: test the value \
                     itself (`k if k > 3` is `_ if k > 3`)",
                ));
            }
            test = parse_quote_spanned!(guard.span()=> (#test) && (#guard));
        }
        let body = arm_body(arm, scrutinee)?;
        out = quote::quote_spanned!(arm.span()=> if #test { #body } else { #out });
    }
    Ok(if init.is_empty() {
        parse_quote_spanned!(m.span()=> { #out })
    } else {
        parse_quote_spanned!(m.span()=> #out)
    })
}

/// An arm's body as a block's contents, after `let n = scrutinee;` for a binding pattern.
fn arm_body(arm: &syn::Arm, scrutinee: &syn::Expr) -> Result<proc_macro2::TokenStream> {
    let body = &arm.body;
    let span = arm.span();
    let binding = match &arm.pat {
        syn::Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => Some(&p.ident),
        _ => None,
    };
    let body = match &**body {
        syn::Expr::Block(b) if b.label.is_none() => {
            let stmts = &b.block.stmts;
            quote::quote_spanned!(span=> #(#stmts)*)
        }
        other => quote::quote_spanned!(span=> #other),
    };
    Ok(match binding {
        Some(n) => quote::quote_spanned!(span=> let #n = #scrutinee; #body),
        None => body,
    })
}

/// Whether a pattern binds the value to a name.
fn binds(p: &syn::Pat) -> bool {
    match p {
        syn::Pat::Ident(_) => true,
        syn::Pat::Or(o) => o.cases.iter().any(binds),
        _ => false,
    }
}

/// The test that `scrutinee` matches `p`.
fn pattern_test(p: &syn::Pat, scrutinee: &syn::Expr) -> Result<syn::Expr> {
    let span = p.span();
    Ok(match p {
        syn::Pat::Lit(lit) => parse_quote_spanned!(span=> #scrutinee == #lit),
        syn::Pat::Wild(_) => parse_quote_spanned!(span=> true),
        syn::Pat::Ident(i) if i.subpat.is_none() => parse_quote_spanned!(span=> true),
        syn::Pat::Paren(inner) => pattern_test(&inner.pat, scrutinee)?,
        syn::Pat::Or(o) => {
            let tests = o
                .cases
                .iter()
                .map(|c| pattern_test(c, scrutinee))
                .collect::<Result<Vec<_>>>()?;
            parse_quote_spanned!(span=> #((#tests))||*)
        }
        syn::Pat::Range(r) => {
            let mut tests: Vec<syn::Expr> = Vec::new();
            if let Some(lo) = &r.start {
                tests.push(parse_quote_spanned!(span=> #scrutinee >= #lo));
            }
            if let Some(hi) = &r.end {
                tests.push(match r.limits {
                    syn::RangeLimits::Closed(_) => parse_quote_spanned!(span=> #scrutinee <= #hi),
                    syn::RangeLimits::HalfOpen(_) => parse_quote_spanned!(span=> #scrutinee < #hi),
                });
            }
            parse_quote_spanned!(span=> #(#tests)&&*)
        }
        other => {
            return Err(syn::Error::new(
                other.span(),
                "this pattern is not supported in a differentiable function's `match`: the \
                 patterns are literals (`0`, `'a'`, `true`), ranges (`3..=5`), `|` of them, `_` \
                 and a name; for an enum, compare with `if kind == Kind::A` (derive \
                 `PartialEq`)",
            ))
        }
    })
}
