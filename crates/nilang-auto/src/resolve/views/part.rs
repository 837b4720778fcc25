//! Named parts of vectors as their bounds (see the parent module).

use super::{is_zero, operand, Flatten, View};
use crate::resolve::{err, Result};
use proc_macro2::Span;
use syn::parse_quote_spanned;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

/// A named part of a vector: `base[start..end]`, written through when `mutable`.
#[derive(Clone)]
pub(super) struct Part {
    base: syn::Ident,
    /// Where `base`'s binding was in the scope when the part was named (`None`: outside the
    /// body, a parameter).
    base_at: Option<usize>,
    start: syn::Expr,
    end: syn::Expr,
    mutable: bool,
}

impl Flatten<'_> {
    /// The part `e` names here, if it names one; an error if its vector's name has been
    /// declared again since.
    pub(super) fn part(&self, e: &syn::Expr) -> Option<Result<Part>> {
        let View::Part(part) = self.view(e)? else {
            return None;
        };
        if self.position(&part.base.to_string()) != part.base_at {
            return Some(err(
                e,
                format!(
                    "`{}` is declared again while this part of it is in use: give the new \
                     variable another name",
                    part.base
                ),
            ));
        }
        Some(Ok(part))
    }

    /// The rewritten form of an expression that uses a named part; `None` if `e` does not.
    pub(super) fn rewrite_part(&mut self, e: &syn::Expr) -> Option<Result<syn::Expr>> {
        let span = e.span();
        match e {
            syn::Expr::Index(ix) => {
                let part = self.part(&ix.expr)?;
                let mut index = (*ix.index).clone();
                self.visit_expr_mut(&mut index);
                Some(part.map(|p| p.index(&index, span)))
            }
            syn::Expr::MethodCall(call) if call.method == "len" && call.args.is_empty() => {
                Some(self.part(&call.receiver)?.map(|p| p.len(span)))
            }
            syn::Expr::MethodCall(call) => {
                let part = self.part(&call.receiver)?;
                let mut call = call.clone();
                for a in &mut call.args {
                    self.visit_expr_mut(a);
                }
                Some(part.map(|p| {
                    *call.receiver = p.slice(span);
                    syn::Expr::MethodCall(call)
                }))
            }
            syn::Expr::Path(_) => Some(self.part(e)?.map(|p| p.reference(span))),
            _ => None,
        }
    }

    /// `let name = &v[a..b];` (or `&mut`) as the bindings of its bounds, with `name` entered
    /// into the scope as a part of `v`; `None` if the `let` names no part of a vector.
    pub(super) fn part_let(&mut self, local: &syn::Local) -> Option<Vec<syn::Stmt>> {
        let pat = match &local.pat {
            syn::Pat::Type(t) => &*t.pat,
            p => p,
        };
        let (syn::Pat::Ident(name), Some(init)) = (pat, &local.init) else {
            return None;
        };
        let syn::Expr::Reference(r) = &*init.expr else {
            return None;
        };
        let syn::Expr::Index(ix) = &*r.expr else {
            return None;
        };
        let (syn::Expr::Path(base), syn::Expr::Range(range)) = (&*ix.expr, &*ix.index) else {
            return None;
        };
        let base = base.path.get_ident()?.clone();
        let span = init.expr.span();
        let mut stmts = Vec::new();
        let start = match &range.start {
            Some(a) => self.shape_variable("start", (**a).clone(), false, &mut stmts),
            None => parse_quote_spanned!(span=> 0),
        };
        let end = match (&range.end, range.limits) {
            (Some(b), syn::RangeLimits::HalfOpen(_)) => (**b).clone(),
            (Some(b), syn::RangeLimits::Closed(_)) => {
                let b = operand(b);
                parse_quote_spanned!(span=> #b + 1)
            }
            (None, _) => parse_quote_spanned!(span=> #base.len()),
        };
        let end = self.shape_variable("end", end, false, &mut stmts);
        let part = Part {
            base_at: self.position(&base.to_string()),
            base,
            start,
            end,
            mutable: r.mutability.is_some(),
        };
        self.scope
            .push((name.ident.to_string(), Some(View::Part(part))));
        Some(stmts)
    }
}

impl Part {
    /// `i` counted from the part's start.
    fn shifted(&self, i: &syn::Expr, span: Span) -> syn::Expr {
        if is_zero(&self.start) {
            return i.clone();
        }
        let (start, i) = (operand(&self.start), operand(i));
        parse_quote_spanned!(span=> #start + #i)
    }

    /// `part[index]` on the vector: an element, or a part of the part.
    fn index(&self, index: &syn::Expr, span: Span) -> syn::Expr {
        let base = &self.base;
        let syn::Expr::Range(r) = index else {
            let at = self.shifted(index, span);
            return parse_quote_spanned!(span=> #base[#at]);
        };
        let from = match &r.start {
            Some(a) => self.shifted(a, span),
            None => self.start.clone(),
        };
        match &r.end {
            Some(b) => {
                let (to, limits) = (self.shifted(b, span), r.limits);
                parse_quote_spanned!(span=> #base[#from #limits #to])
            }
            None => {
                let end = &self.end;
                parse_quote_spanned!(span=> #base[#from..#end])
            }
        }
    }

    /// `v[start..end]`.
    pub(super) fn slice(&self, span: Span) -> syn::Expr {
        let (base, start, end) = (&self.base, &self.start, &self.end);
        parse_quote_spanned!(span=> #base[#start..#end])
    }

    /// `part.len()`: `end - start`.
    fn len(&self, span: Span) -> syn::Expr {
        if is_zero(&self.start) {
            return self.end.clone();
        }
        let (start, end) = (operand(&self.start), operand(&self.end));
        parse_quote_spanned!(span=> (#end - #start))
    }

    /// The part itself, `&v[start..end]` (`&mut` for a part named by `&mut`).
    fn reference(&self, span: Span) -> syn::Expr {
        let slice = self.slice(span);
        if self.mutable {
            parse_quote_spanned!(span=> &mut #slice)
        } else {
            parse_quote_spanned!(span=> &#slice)
        }
    }
}
