//! Control flow: `if (pre, post)`, `while (pre, post)` and `for` over a range (with
//! `.step_by`, `.rev()`, `.par()` and `.weight(w)`).

use super::*;

impl Parser<'_> {
    pub(super) fn if_stmt(&mut self, i: &syn::ExprIf, whole: &dyn ToTokens) -> Option<Stmt> {
        let (pre, post, explicit_post) = match &*i.cond {
            Expr::Tuple(t) if t.elems.len() == 2 => (t.elems[0].clone(), t.elems[1].clone(), true),
            Expr::Tuple(t) => {
                self.errors.spanned(
                    &t,
                    "a reversible `if` takes `(precondition, postcondition)` or a single condition",
                );
                return None;
            }
            c => (c.clone(), c.clone(), false),
        };
        let then = self.block(&i.then_branch.stmts);
        let els = match &i.else_branch {
            None => Vec::new(),
            Some((_, e)) => match &**e {
                Expr::Block(b) => self.block(&b.block.stmts),
                Expr::If(inner) => self.if_stmt(inner, inner).into_iter().collect(),
                other => {
                    self.errors.spanned(&other, "expected a block after `else`");
                    Vec::new()
                }
            },
        };
        Some(stmt(
            StmtKind::If {
                pre,
                post,
                explicit_post,
                then,
                els,
            },
            whole,
        ))
    }

    pub(super) fn while_stmt(
        &mut self,
        w: &syn::ExprWhile,
        whole: &dyn ToTokens,
        out: &mut Vec<Stmt>,
    ) {
        let Expr::Tuple(t) = &*w.cond else {
            self.errors.spanned(
                &w.cond,
                "a reversible `while` needs a postcondition: write `while (pre, post) { … }` \
                 where `post` is false on entry and true after every iteration",
            );
            return;
        };
        if t.elems.len() != 2 {
            self.errors.spanned(
                &t,
                "a reversible `while` takes `(precondition, postcondition)`",
            );
            return;
        }
        let body = self.block(&w.body.stmts);
        out.push(stmt(
            StmtKind::While {
                pre: t.elems[0].clone(),
                post: t.elems[1].clone(),
                body,
            },
            whole,
        ));
    }

    pub(super) fn for_stmt(
        &mut self,
        f: &syn::ExprForLoop,
        whole: &dyn ToTokens,
        out: &mut Vec<Stmt>,
    ) {
        let syn::Pat::Ident(pi) = &*f.pat else {
            self.errors
                .spanned(&f.pat, "the loop variable must be a plain name");
            return;
        };
        let Some(range) = self.range(&f.expr) else {
            self.errors.spanned(
                &f.expr,
                "a reversible `for` iterates over a range: `a..b`, `a..=b`, `(a..b).rev()`, \
                 `(a..b).step_by(s)`, or `(a..b).par()` for a parallel loop (`(a..b).par().weight(w)` \
                 with the work `w` of one iteration)",
            );
            return;
        };
        let body = self.block(&f.body.stmts);
        out.push(stmt(
            StmtKind::For {
                var: pi.ident.clone(),
                range,
                body,
            },
            whole,
        ));
    }

    pub(super) fn range(&self, e: &Expr) -> Option<RangeSpec> {
        match e {
            Expr::Paren(p) => self.range(&p.expr),
            Expr::Range(r) => Some(RangeSpec {
                start: (**r.start.as_ref()?).clone(),
                end: (**r.end.as_ref()?).clone(),
                inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
                step: None,
                rev: false,
                parallel: false,
                weight: None,
                broadcast: None,
            }),
            Expr::MethodCall(m) if m.method == "par" && m.args.is_empty() => {
                let mut r = self.range(&m.receiver)?;
                if r.parallel {
                    return None;
                }
                r.parallel = true;
                Some(r)
            }
            Expr::MethodCall(m) if m.method == "weight" && m.args.len() == 1 => {
                let mut r = self.range(&m.receiver)?;
                if !r.parallel || r.weight.is_some() {
                    return None;
                }
                r.weight = Some(m.args[0].clone());
                Some(r)
            }
            Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
                let mut r = self.range(&m.receiver)?;
                r.rev = !r.rev;
                Some(r)
            }
            Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                let mut r = self.range(&m.receiver)?;
                if r.step.is_some() || r.rev || r.parallel {
                    return None;
                }
                r.step = Some(m.args[0].clone());
                Some(r)
            }
            _ => None,
        }
    }
}
