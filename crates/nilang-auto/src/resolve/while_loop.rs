//! `while` loops: the condition, the body, and the condition's temporaries computed again at
//! the end of every iteration.

use super::{err, Resolver, Result};
use crate::nir::{Expr, Op, Place, Stmt, StmtKind};
use std::collections::BTreeSet;
use syn::spanned::Spanned;

impl Resolver<'_> {
    /// `while cond { body }`: the temporaries the condition computes (a call, a selection)
    /// before the loop, and again at the end of the body ([`Resolver::reevaluated`]).
    pub(super) fn while_loop(&mut self, w: &syn::ExprWhile, out: &mut Vec<Stmt>) -> Result<()> {
        if w.label.is_some() {
            return err(w, "loop labels are not supported");
        }
        let cond = self.expr(&w.cond)?;
        let hoisted = std::mem::take(&mut self.hoisted);
        let mut body = self.block(&w.body)?;
        body.extend(self.reevaluated(&w.cond, &hoisted)?);
        out.extend(hoisted);
        out.push(Stmt {
            kind: StmtKind::While { cond, body },
            span: w.span(),
        });
        Ok(())
    }

    /// What a `while` loop's body ends with when its condition computes temporaries first
    /// (`hoisted`: a call `g(y) > 1.0`, a selection): the condition's parts computed again
    /// into fresh temporaries, each assigned to the one the condition reads, so that the next
    /// test sees this iteration's values, as Rust evaluates the condition before every
    /// iteration.
    fn reevaluated(&mut self, cond: &syn::Expr, hoisted: &[Stmt]) -> Result<Vec<Stmt>> {
        if hoisted.is_empty() {
            return Ok(Vec::new());
        }
        self.expr(cond)?;
        let again = std::mem::take(&mut self.hoisted);
        let mut out = Vec::new();
        for (first, next) in hoisted.iter().zip(&again) {
            let (StmtKind::Let { id: first, .. }, StmtKind::Let { id: next, .. }) =
                (&first.kind, &next.kind)
            else {
                unreachable!("the condition's hoisted statements are `let`s")
            };
            let name = &self.binds[*next].name;
            out.push(Stmt {
                kind: StmtKind::Assign {
                    place: Place {
                        root: *first,
                        index: None,
                    },
                    op: Op::Set,
                    value: Expr {
                        syn: syn::parse_quote!(#name),
                        reads: BTreeSet::from([*next]),
                        real: true,
                    },
                },
                span: cond.span(),
            });
        }
        let mut stmts = again;
        stmts.extend(out);
        Ok(stmts)
    }
}
