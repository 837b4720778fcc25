//! `break`, `continue`, `loop` and an early `return`, written as the loops and branches the
//! rest of the front end reverses (decision 0049).
//!
//! Before name resolution, the body is rewritten in the user's own syntax with fresh names
//! ([`crate::Names::user_fresh`]): each way out is a plain counter that the exit adds one to
//! (`stopped_1 += 1;` for a `break`, `skipped_1 += 1;` for a `continue`, `result_1 = v;
//! returned_1 += 1;` for `return v;`), and the statements after a statement that may take it
//! run under `if stopped_1 == 0 { … }`. A loop with a `break` (or a `return` inside) stops
//! when its counter is set: `for i in a..b` becomes
//!
//! ```text
//! let end_1 = b;
//! let mut next_1 = a;
//! while next_1 < end_1 && stopped_1 == 0 { next_1 += 1; let i = next_1 - 1; … }
//! ```
//!
//! (so a series summed until it converges runs as many iterations as it needs, both ways),
//! `while c` becomes `while stopped_1 == 0 && c`, `loop` becomes `while stopped_1 == 0`, and a
//! `for` over anything else runs its remaining iterations without their body. A `continue`
//! counter is declared at the top of the body, so every iteration starts with it at zero.
//!
//! Nothing here is a new rule for the reversal: the conditions read counters that only the
//! branches before them change, so they are computed again when the program runs backwards
//! (no decision is kept), and the `while` keeps its trip count as any `while` does.

use super::{err, Result};
use crate::Names;
use proc_macro2::Span;
use quote::quote_spanned;
use syn::parse_quote_spanned;
use syn::spanned::Spanned;
use syn::visit::Visit;

/// The counters a statement may set on its way out, and what `return` writes.
#[derive(Clone, Default)]
struct Exits {
    /// Set by `break` in the innermost loop.
    stopped: Option<syn::Ident>,
    /// Set by `continue` in the innermost loop.
    skipped: Option<syn::Ident>,
    /// Set by `return`: the counter, and the variable the value goes to (none when the
    /// function writes outputs and returns nothing).
    returned: Option<(syn::Ident, Option<syn::Ident>)>,
}

/// The function body with its exits rewritten; the body unchanged when it has none.
pub(super) fn desugar(block: &syn::Block, names: &mut Names, value: bool) -> Result<syn::Block> {
    let early = early_return(block);
    if !early && !Exiting::of(&block.stmts).loop_exits {
        return Ok(block.clone());
    }
    let mut rewriter = Rewriter { names };
    let mut stmts = block.stmts.clone();
    let (mut exits, mut out, mut tail) = (Exits::default(), Vec::new(), None);
    if early {
        let (flag, result) = rewriter.returning(block, value, &mut stmts, &mut out)?;
        tail = result.clone();
        exits.returned = Some((flag, result));
    }
    out.extend(rewriter.stmts(&stmts, &exits)?);
    if let Some(tail) = tail {
        out.push(syn::Stmt::Expr(
            parse_quote_spanned!(tail.span()=> #tail),
            None,
        ));
    }
    Ok(syn::Block {
        brace_token: block.brace_token,
        stmts: out,
    })
}

struct Rewriter<'n> {
    names: &'n mut Names,
}

impl Rewriter<'_> {
    /// For a body that returns early: the counter `returned_1` and (for a function with a
    /// value) the variable `result_1` the value goes to, declared into `head`, and the body's
    /// last value turned into the last `return`.
    fn returning(
        &mut self,
        block: &syn::Block,
        value: bool,
        stmts: &mut Vec<syn::Stmt>,
        head: &mut Vec<syn::Stmt>,
    ) -> Result<(syn::Ident, Option<syn::Ident>)> {
        let span = block.span();
        let flag = self.names.user_fresh("returned", span);
        head.push(parse_quote_spanned!(span=> let mut #flag = 0usize;));
        if !value {
            return Ok((flag, None));
        }
        let result = self.names.user_fresh("result", span);
        // Rust's sums start from −0, which keeps a returned −0 as it is.
        head.push(parse_quote_spanned!(span=> let mut #result = -0.0;));
        let last = match stmts.pop() {
            Some(syn::Stmt::Expr(syn::Expr::Return(r), _)) => r.expr.map(|e| *e),
            Some(syn::Stmt::Expr(e, None)) => Some(e),
            Some(other) => {
                return err(
                    other,
                    "the body must end with the value the function returns (an expression \
                     without `;`, or `return value;`)",
                )
            }
            None => None,
        };
        let Some(last) = last else {
            return err(
                block,
                "the function returns nothing: end its body with the value it returns",
            );
        };
        stmts.push(parse_quote_spanned!(last.span()=> return #last;));
        Ok((flag, Some(result)))
    }

    /// `stmts` with each exit rewritten, the statements after one that may exit guarded by
    /// the counters it may set.
    fn stmts(&mut self, stmts: &[syn::Stmt], exits: &Exits) -> Result<Vec<syn::Stmt>> {
        let mut out = Vec::new();
        for (k, s) in stmts.iter().enumerate() {
            let (rewritten, sets) = self.stmt(s, exits)?;
            out.extend(rewritten);
            if !sets.is_empty() {
                let rest = self.stmts(&stmts[k + 1..], exits)?;
                if !rest.is_empty() {
                    let span = s.span();
                    let go = none_set(&sets, span);
                    out.push(parse_quote_spanned!(span=> if #go { #(#rest)* }));
                }
                break;
            }
        }
        Ok(out)
    }

    /// One statement rewritten, and the counters it may set.
    fn stmt(&mut self, s: &syn::Stmt, exits: &Exits) -> Result<(Vec<syn::Stmt>, Vec<syn::Ident>)> {
        let syn::Stmt::Expr(e, _) = s else {
            return Ok((vec![s.clone()], Vec::new()));
        };
        let span = e.span();
        match e {
            syn::Expr::Break(b) => {
                if b.label.is_some() || b.expr.is_some() {
                    return err(
                        b,
                        "a `break` with a label or a value is not supported: write `break;` \
                         in the loop it leaves",
                    );
                }
                counted(&exits.stopped, b, "`break` outside a loop")
            }
            syn::Expr::Continue(c) => {
                if c.label.is_some() {
                    return err(c, "a `continue` with a label is not supported");
                }
                counted(&exits.skipped, c, "`continue` outside a loop")
            }
            syn::Expr::Return(r) => {
                let Some((flag, result)) = &exits.returned else {
                    return err(r, "`return` is not supported here");
                };
                let mut out: Vec<syn::Stmt> = Vec::new();
                match (result, &r.expr) {
                    (Some(result), Some(value)) => {
                        out.push(parse_quote_spanned!(span=> #result = #value;))
                    }
                    (None, None) => {}
                    (Some(_), None) => {
                        return err(r, "`return` needs the value the function returns")
                    }
                    (None, Some(_)) => {
                        return err(
                            r,
                            "a function that writes output parameters returns nothing: write \
                             `return;`",
                        )
                    }
                }
                out.push(parse_quote_spanned!(span=> #flag += 1;));
                Ok((out, vec![flag.clone()]))
            }
            syn::Expr::If(i) => {
                let mut sets = Vec::new();
                let i = self.if_expr(i, exits, &mut sets)?;
                Ok((vec![syn::Stmt::Expr(syn::Expr::If(i), None)], sets))
            }
            syn::Expr::Block(b) if b.label.is_none() => {
                let (stmts, sets) = self.block(&b.block.stmts, exits)?;
                let block: syn::Stmt = parse_quote_spanned!(span=> { #(#stmts)* });
                Ok((vec![block], sets))
            }
            syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Loop(_) => {
                self.loop_stmt(e, exits)
            }
            _ => Ok((vec![s.clone()], Vec::new())),
        }
    }

    /// The statements of a nested block, and the counters they may set.
    fn block(
        &mut self,
        stmts: &[syn::Stmt],
        exits: &Exits,
    ) -> Result<(Vec<syn::Stmt>, Vec<syn::Ident>)> {
        let out = self.stmts(stmts, exits)?;
        let sets = exits
            .counters()
            .filter(|c| Exiting::of(stmts).sets(exits, c))
            .collect();
        Ok((out, sets))
    }

    /// `if c { … } else { … }` with both branches rewritten (an `else if` chain included).
    fn if_expr(
        &mut self,
        i: &syn::ExprIf,
        exits: &Exits,
        sets: &mut Vec<syn::Ident>,
    ) -> Result<syn::ExprIf> {
        let mut out = i.clone();
        let (then, then_sets) = self.block(&i.then_branch.stmts, exits)?;
        out.then_branch.stmts = then;
        add(sets, then_sets);
        if let Some((token, els)) = &i.else_branch {
            let els: syn::Expr = match &**els {
                syn::Expr::If(inner) => syn::Expr::If(self.if_expr(inner, exits, sets)?),
                syn::Expr::Block(b) => {
                    let (stmts, els_sets) = self.block(&b.block.stmts, exits)?;
                    add(sets, els_sets);
                    let mut b = b.clone();
                    b.block.stmts = stmts;
                    syn::Expr::Block(b)
                }
                other => other.clone(),
            };
            out.else_branch = Some((*token, Box::new(els)));
        }
        Ok(out)
    }

    /// A loop: its own `break` and `continue` rewritten with counters of its own, a `return`
    /// inside it (which stops it too) with the function's.
    fn loop_stmt(
        &mut self,
        e: &syn::Expr,
        outer: &Exits,
    ) -> Result<(Vec<syn::Stmt>, Vec<syn::Ident>)> {
        let (attrs, body, label) = match e {
            syn::Expr::ForLoop(f) => (&f.attrs, &f.body, &f.label),
            syn::Expr::While(w) => (&w.attrs, &w.body, &w.label),
            syn::Expr::Loop(l) => (&l.attrs, &l.body, &l.label),
            _ => unreachable!("called on loops only"),
        };
        let span = e.span();
        let Exiting {
            breaks,
            continues,
            returns,
            ..
        } = Exiting::of(&body.stmts);
        let returns = outer.returned.is_some() && returns;
        if label.is_some() && (breaks || continues || returns) {
            return err(label, "loop labels are not supported");
        }
        let mut inner = Exits {
            stopped: breaks.then(|| self.names.user_fresh("stopped", span)),
            skipped: continues.then(|| self.names.user_fresh("skipped", span)),
            returned: outer.returned.clone(),
        };
        if !returns {
            inner.returned = None;
        }
        let mut body_stmts = Vec::new();
        if let Some(skipped) = &inner.skipped {
            body_stmts.push(parse_quote_spanned!(span=> let mut #skipped = 0usize;));
        }
        body_stmts.extend(self.stmts(&body.stmts, &inner)?);
        let mut ends: Vec<syn::Ident> = inner.stopped.iter().cloned().collect();
        ends.extend(inner.returned.as_ref().map(|(flag, _)| flag.clone()));
        if !ends.is_empty() && !attrs.is_empty() {
            return err(
                &attrs[0],
                "a loop that can end early (`break`, `return`) takes no attribute: remove it, or \
                 end the loop by its range",
            );
        }
        let mut out: Vec<syn::Stmt> = inner
            .stopped
            .iter()
            .map(|s| parse_quote_spanned!(span=> let mut #s = 0usize;))
            .collect();
        out.push(self.loop_form(e, &ends, body_stmts, span)?);
        let sets = inner.returned.map(|(flag, _)| flag).into_iter().collect();
        Ok((out, sets))
    }

    /// The loop itself, ending when any of `ends` is set.
    fn loop_form(
        &mut self,
        e: &syn::Expr,
        ends: &[syn::Ident],
        body: Vec<syn::Stmt>,
        span: Span,
    ) -> Result<syn::Stmt> {
        let go = none_set(ends, span);
        Ok(match e {
            syn::Expr::ForLoop(f) if ends.is_empty() => {
                let (attrs, pat, iter) = (&f.attrs, &f.pat, &f.expr);
                parse_quote_spanned!(span=> #(#attrs)* for #pat in #iter { #(#body)* })
            }
            syn::Expr::ForLoop(f) => match (&*f.expr, &*f.pat) {
                (
                    syn::Expr::Range(syn::ExprRange {
                        start: Some(start),
                        limits: syn::RangeLimits::HalfOpen(_),
                        end: Some(end),
                        ..
                    }),
                    pat @ (syn::Pat::Ident(_) | syn::Pat::Wild(_)),
                ) => {
                    let (last, next) = (
                        self.names.user_fresh("end", span),
                        self.names.user_fresh("next", span),
                    );
                    let bind: Option<syn::Stmt> = match pat {
                        syn::Pat::Ident(p) => {
                            Some(parse_quote_spanned!(span=> let #p = #next - 1;))
                        }
                        _ => None,
                    };
                    parse_quote_spanned!(span=> {
                        let #last = #end;
                        let mut #next = #start;
                        while #next < #last && #go {
                            #next += 1;
                            #bind
                            #(#body)*
                        }
                    })
                }
                (iter, pat) => {
                    parse_quote_spanned!(span=> for #pat in #iter { if #go { #(#body)* } })
                }
            },
            syn::Expr::While(w) => {
                let (attrs, cond) = (&w.attrs, &w.cond);
                if ends.is_empty() {
                    parse_quote_spanned!(span=> #(#attrs)* while #cond { #(#body)* })
                } else {
                    parse_quote_spanned!(span=> while #go && (#cond) { #(#body)* })
                }
            }
            syn::Expr::Loop(l) => {
                if ends.is_empty() {
                    return err(
                        l.loop_token,
                        "this `loop` has no `break`, so it never ends: add `if done { break; }`, \
                         or write `while condition { … }`",
                    );
                }
                parse_quote_spanned!(span=> while #go { #(#body)* })
            }
            _ => unreachable!("called on loops only"),
        })
    }
}

impl Exits {
    fn counters(&self) -> impl Iterator<Item = syn::Ident> + '_ {
        self.stopped
            .iter()
            .chain(&self.skipped)
            .chain(self.returned.as_ref().map(|(flag, _)| flag))
            .cloned()
    }
}

/// `a == 0 && b == 0`: none of the counters is set (`true` when there are none).
fn none_set(counters: &[syn::Ident], span: Span) -> syn::Expr {
    if counters.is_empty() {
        return parse_quote_spanned!(span=> true);
    }
    let tests = counters.iter().map(|c| quote_spanned!(span=> #c == 0));
    parse_quote_spanned!(span=> #(#tests)&&*)
}

fn add(sets: &mut Vec<syn::Ident>, more: Vec<syn::Ident>) {
    for s in more {
        if !sets.contains(&s) {
            sets.push(s);
        }
    }
}

/// A `break` or `continue` (`exit`) as `flag += 1;`, with the counter it sets; an error
/// saying `missing` where no loop gives it a counter.
fn counted(
    flag: &Option<syn::Ident>,
    exit: impl quote::ToTokens + Spanned,
    missing: &str,
) -> Result<(Vec<syn::Stmt>, Vec<syn::Ident>)> {
    let Some(flag) = flag else {
        return err(exit, missing);
    };
    let span = exit.span();
    Ok((
        vec![parse_quote_spanned!(span=> #flag += 1;)],
        vec![flag.clone()],
    ))
}

/// Whether the body returns before its end: a `return` anywhere but as its last statement.
fn early_return(block: &syn::Block) -> bool {
    let Some((last, init)) = block.stmts.split_last() else {
        return false;
    };
    let mut found = Exiting::of(init);
    if let syn::Stmt::Expr(syn::Expr::Return(r), _) = last {
        if let Some(e) = &r.expr {
            found.visit_expr(e);
        }
    } else {
        found.visit_stmt(last);
    }
    found.returns
}

/// Which exits a piece of code takes: `break` and `continue` of the loop it is in (not of
/// loops nested in it), and `return` anywhere. Closures and items are not entered.
#[derive(Default)]
struct Exiting {
    /// How many loops inside the code the visitor is in.
    depth: usize,
    breaks: bool,
    continues: bool,
    returns: bool,
    /// Whether a loop anywhere inside has a `break` or `continue` of its own.
    loop_exits: bool,
}

impl Exiting {
    /// The exits `stmts` take.
    fn of(stmts: &[syn::Stmt]) -> Exiting {
        let mut found = Exiting::default();
        for s in stmts {
            found.visit_stmt(s);
        }
        found
    }

    /// Whether code with these exits may set `counter` of `exits`.
    fn sets(&self, exits: &Exits, counter: &syn::Ident) -> bool {
        (exits.stopped.as_ref() == Some(counter) && self.breaks)
            || (exits.skipped.as_ref() == Some(counter) && self.continues)
            || (exits.returned.as_ref().map(|r| &r.0) == Some(counter) && self.returns)
    }

    fn nested(&mut self, visit: impl FnOnce(&mut Self)) {
        self.depth += 1;
        visit(self);
        self.depth -= 1;
    }
}

impl<'ast> Visit<'ast> for Exiting {
    fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
        if self.depth == 0 {
            self.breaks = true;
        } else {
            self.loop_exits = true;
        }
        syn::visit::visit_expr_break(self, b);
    }
    fn visit_expr_continue(&mut self, _: &'ast syn::ExprContinue) {
        if self.depth == 0 {
            self.continues = true;
        } else {
            self.loop_exits = true;
        }
    }
    fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
        self.returns = true;
        syn::visit::visit_expr_return(self, r);
    }
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        self.nested(|v| v.visit_block(&f.body));
    }
    fn visit_expr_while(&mut self, w: &'ast syn::ExprWhile) {
        self.visit_expr(&w.cond);
        self.nested(|v| v.visit_block(&w.body));
    }
    fn visit_expr_loop(&mut self, l: &'ast syn::ExprLoop) {
        self.loop_exits = true;
        self.nested(|v| v.visit_block(&l.body));
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}
