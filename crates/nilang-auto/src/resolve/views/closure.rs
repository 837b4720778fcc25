//! Local closures as their bodies, written in at every call (see the parent module).
//!
//! `let f = |a, b| body;` declares nothing: each call `f(x, y)` is `(body)` with `a` and `b`
//! replaced by the arguments. A call that is the whole value of a `let` binds an argument
//! that is not a variable or a literal to a fresh variable first (`let a_1 = x;`), as Rust
//! evaluates it once; elsewhere it is written in at each use of its parameter, which gives the
//! same number. The variables the body reads from around it (its captures) must still be the
//! ones it was declared with where it is called: one declared again in between is an error.
//! Rust's borrow rules, checked on the user's own function, keep them unchanged while the
//! closure lives (a `move` closure, which copies them, is refused).

use super::{operand, Flatten, View};
use crate::resolve::{err, Result};
use std::collections::BTreeSet;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

/// A closure named by a `let`: its parameters, its body (views already written out) and the
/// variables it reads from around it with where their bindings were in the scope.
#[derive(Clone)]
pub(super) struct Closure {
    name: syn::Ident,
    params: Vec<syn::Ident>,
    /// The body's statements (none for a body that is one expression) and its value.
    stmts: Vec<syn::Stmt>,
    value: syn::Expr,
    captures: Vec<(String, Option<usize>)>,
}

/// A closure's body as its statements and its value (`|y| e`, `|y| { let s = …; e }`), or
/// an error saying what to write.
fn body_parts(c: &syn::ExprClosure) -> Result<(Vec<syn::Stmt>, syn::Expr)> {
    let syn::Expr::Block(b) = &*c.body else {
        return Ok((Vec::new(), (*c.body).clone()));
    };
    let mut stmts = b.block.stmts.clone();
    match stmts.pop() {
        Some(syn::Stmt::Expr(value, None)) => Ok((stmts, value)),
        _ => err(
            &c.body,
            "a closure's body ends in its value (`|y| { let s = y.sin(); s * s }`)",
        ),
    }
}

/// An error at a `return` in a closure's body (it would return from the function once the
/// body is written in at the call).
fn no_return(c: &syn::ExprClosure) -> Result<()> {
    struct Returns(Option<syn::Error>);
    impl syn::visit::Visit<'_> for Returns {
        fn visit_expr_return(&mut self, r: &syn::ExprReturn) {
            self.0.get_or_insert(syn::Error::new_spanned(
                r,
                "`return` in a closure is not supported: write the body as one value, \
                 `if c { a } else { b }`",
            ));
        }
        fn visit_expr_closure(&mut self, _: &syn::ExprClosure) {}
    }
    let mut returns = Returns(None);
    syn::visit::Visit::visit_expr(&mut returns, &c.body);
    returns.0.map_or(Ok(()), Err)
}

/// A parameter's name: `y` or `y: f64` (a number).
fn parameter(p: &syn::Pat) -> Result<syn::Ident> {
    let (pat, ty) = match p {
        syn::Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
        p => (p, None),
    };
    let number = |t: &syn::Type| {
        let syn::Type::Path(t) = t else { return false };
        t.path.get_ident().is_some_and(|i| {
            ["f64", "f32", "usize", "isize", "i64", "i32", "u64", "u32"].contains(&&*i.to_string())
        })
    };
    match (pat, ty) {
        (syn::Pat::Ident(i), ty)
            if ty.is_none_or(number)
                && i.by_ref.is_none()
                && i.mutability.is_none()
                && i.subpat.is_none() =>
        {
            Ok(i.ident.clone())
        }
        _ => err(
            p,
            "a closure's parameters are numbers named once (`|a, b: f64|`); for a slice or a \
             pattern, write a function under `#[differentiable]` and call it",
        ),
    }
}

impl Flatten<'_> {
    /// `let f = |…| …;` entered into the scope as a closure; `None` if the `let` declares
    /// none.
    pub(super) fn closure_let(&mut self, local: &syn::Local) -> Option<Result<()>> {
        let init = local.init.as_ref()?;
        let syn::Expr::Closure(c) = &*init.expr else {
            return None;
        };
        Some(self.declare_closure(&local.pat, c))
    }

    fn declare_closure(&mut self, pat: &syn::Pat, c: &syn::ExprClosure) -> Result<()> {
        let syn::Pat::Ident(name) = pat else {
            return err(pat, "a closure is named by `let f = |x| …;`, with one name");
        };
        if let Some(m) = c.capture {
            return err(
                m,
                "a `move` closure is not supported: drop `move` (the closure reads the \
                 variables around it where it is called)",
            );
        }
        let params = c.inputs.iter().map(parameter).collect::<Result<Vec<_>>>()?;
        no_return(c)?;
        let (stmts, value) = body_parts(c)?;
        let mut body = syn::Block {
            brace_token: Default::default(),
            stmts,
        };
        body.stmts.push(syn::Stmt::Expr(value, None));
        let mark = self.scope.len();
        for p in &params {
            self.scope.push((p.to_string(), None));
        }
        self.visit_block_mut(&mut body);
        self.scope.truncate(mark);
        let mut walk = Substitute::new(params.iter().map(|p| (p.to_string(), None)).collect());
        walk.visit_block_mut(&mut body.clone());
        let captures = walk
            .free
            .into_iter()
            .map(|n| {
                let at = self.position(&n);
                (n, at)
            })
            .collect();
        let Some(syn::Stmt::Expr(value, None)) = body.stmts.pop() else {
            unreachable!("the body ends in its value, pushed above")
        };
        let closure = Closure {
            name: name.ident.clone(),
            params,
            stmts: body.stmts,
            value,
            captures,
        };
        self.scope.push((
            name.ident.to_string(),
            Some(View::Closure(Box::new(closure))),
        ));
        Ok(())
    }

    /// The closure `e` names here, if it names one.
    fn closure(&self, e: &syn::Expr) -> Option<Closure> {
        match self.view(e)? {
            View::Closure(c) => Some(*c),
            _ => None,
        }
    }

    /// A call of a closure written out — its body, in parentheses unless it is the whole
    /// value of a `let`, whose arguments are then bound first into `bound`;
    /// a closure used otherwise is an error; `None` if `e` uses no closure.
    pub(super) fn rewrite_closure(
        &mut self,
        e: &syn::Expr,
        bound: Option<&mut Vec<syn::Stmt>>,
    ) -> Option<Result<syn::Expr>> {
        match e {
            syn::Expr::Call(call) => {
                let mut func = &*call.func;
                while let syn::Expr::Paren(p) = func {
                    func = &p.expr;
                }
                if matches!(func, syn::Expr::Closure(_)) {
                    return Some(err(func, crate::expr::CLOSURES));
                }
                let closure = self.closure(&call.func)?;
                let whole = bound.is_some();
                let body = self.inline(&closure, call, bound);
                Some(body.map(|b| if whole { b } else { operand(&b) }))
            }
            syn::Expr::Path(_) => {
                let closure = self.closure(e)?;
                Some(err(
                    e,
                    format!(
                        "`{}` is a closure: call it, `{}(…)`; passing, copying or returning it \
                         is not supported",
                        closure.name, closure.name
                    ),
                ))
            }
            _ => None,
        }
    }

    fn inline(
        &mut self,
        closure: &Closure,
        call: &syn::ExprCall,
        mut bound: Option<&mut Vec<syn::Stmt>>,
    ) -> Result<syn::Expr> {
        for (name, at) in &closure.captures {
            if self.position(name) != *at {
                return err(
                    call,
                    format!(
                        "`{name}`, which the closure `{}` reads, is declared again before this \
                         call: give the new variable another name",
                        closure.name
                    ),
                );
            }
        }
        if call.args.len() != closure.params.len() {
            return err(
                &call.args,
                format!(
                    "the closure `{}` takes {} argument(s), not {}",
                    closure.name,
                    closure.params.len(),
                    call.args.len()
                ),
            );
        }
        let mut values = Vec::new();
        for (param, arg) in closure.params.iter().zip(&call.args) {
            let mut arg = arg.clone();
            self.visit_expr_mut(&mut arg);
            let span = arg.span();
            let simple = matches!(arg, syn::Expr::Lit(_) | syn::Expr::Path(_));
            let value = match bound.as_deref_mut() {
                Some(stmts) if !simple => {
                    let var = self.names.user_fresh(&param.to_string(), span);
                    stmts.push(syn::parse_quote_spanned!(span=> let #var = #arg;));
                    syn::parse_quote_spanned!(span=> #var)
                }
                _ => operand(&arg),
            };
            values.push((param.to_string(), Some(value)));
        }
        let mut walk = Substitute::new(values);
        walk.renamed_from = walk.argument_names();
        walk.names = Some(&mut *self.names);
        match bound {
            Some(stmts) => {
                // the body's own `let`s join the caller's block: each gets a fresh name
                walk.rename_all = true;
                for mut s in closure.stmts.iter().cloned() {
                    walk.statement(&mut s);
                    stmts.push(s);
                }
                walk.rename_all = false;
            }
            None if !closure.stmts.is_empty() => {
                return err(
                    call,
                    format!(
                        "the closure `{}` has statements: call it as the whole value of a \
                         `let`, `let v = {}(…);`",
                        closure.name, closure.name
                    ),
                )
            }
            None => {}
        }
        let mut value = closure.value.clone();
        walk.visit_expr_mut(&mut value);
        Ok(value)
    }
}

/// Writes the arguments in for a closure's parameters, respecting the bindings of its body (a
/// `.map(|v| …)` pattern, a `let` in a mapped block, a `for` pattern): one that hides a
/// parameter stops its replacement, one that would capture a name of an argument is renamed.
/// Collects the names read that nothing in the body binds (its captures).
struct Substitute<'n> {
    /// The visible names, innermost last: a parameter (with its argument), an inner binding
    /// (`None`), or an inner binding renamed (with its new name).
    scope: Vec<(String, Option<syn::Expr>)>,
    /// Names the arguments read: an inner binding of one of them is renamed.
    renamed_from: BTreeSet<String>,
    names: Option<&'n mut crate::Names>,
    /// Rename every binding (the body's top-level `let`s, written into the caller's block).
    rename_all: bool,
    free: BTreeSet<String>,
}

impl<'n> Substitute<'n> {
    fn new(scope: Vec<(String, Option<syn::Expr>)>) -> Self {
        Substitute {
            scope,
            renamed_from: BTreeSet::new(),
            names: None,
            rename_all: false,
            free: BTreeSet::new(),
        }
    }

    /// One statement of a block; the names a `let` binds stay visible after it.
    fn statement(&mut self, s: &mut syn::Stmt) {
        match s {
            syn::Stmt::Local(local) => {
                if let Some(init) = &mut local.init {
                    self.visit_expr_mut(&mut init.expr);
                }
                self.bind(&mut local.pat);
            }
            other => self.visit_stmt_mut(other),
        }
    }

    /// The names the arguments read.
    fn argument_names(&self) -> BTreeSet<String> {
        struct Read<'s>(&'s mut BTreeSet<String>);
        impl syn::visit::Visit<'_> for Read<'_> {
            fn visit_expr_path(&mut self, p: &syn::ExprPath) {
                if let Some(i) = p.path.get_ident() {
                    self.0.insert(i.to_string());
                }
            }
        }
        let mut names = BTreeSet::new();
        for (_, value) in &self.scope {
            if let Some(v) = value {
                syn::visit::Visit::visit_expr(&mut Read(&mut names), v);
            }
        }
        names
    }

    /// Enters the names a pattern binds, renaming those an argument reads.
    fn bind(&mut self, p: &mut syn::Pat) {
        struct Binder<'w, 'n>(&'w mut Substitute<'n>);
        impl VisitMut for Binder<'_, '_> {
            fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
                let name = p.ident.to_string();
                let fresh = match self.0.names.as_deref_mut() {
                    Some(names) if self.0.rename_all || self.0.renamed_from.contains(&name) => {
                        Some(names.user_fresh(&name, p.ident.span()))
                    }
                    _ => None,
                };
                let value = fresh.map(|f| {
                    p.ident = f.clone();
                    syn::parse_quote!(#f)
                });
                self.0.scope.push((name, value));
                syn::visit_mut::visit_pat_ident_mut(self, p);
            }
            fn visit_expr_mut(&mut self, _: &mut syn::Expr) {}
        }
        Binder(self).visit_pat_mut(p);
    }
}

impl VisitMut for Substitute<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        let syn::Expr::Path(p) = e else {
            return syn::visit_mut::visit_expr_mut(self, e);
        };
        let Some(ident) = p.path.get_ident() else {
            return;
        };
        let name = ident.to_string();
        match self.scope.iter().rposition(|(n, _)| *n == name) {
            Some(at) => {
                if let Some(value) = &self.scope[at].1 {
                    *e = value.clone();
                }
            }
            None => {
                self.free.insert(name);
            }
        }
    }

    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let mark = self.scope.len();
        for s in &mut b.stmts {
            self.statement(s);
        }
        self.scope.truncate(mark);
    }

    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        let mark = self.scope.len();
        for p in &mut c.inputs {
            self.bind(p);
        }
        self.visit_expr_mut(&mut c.body);
        self.scope.truncate(mark);
    }

    fn visit_expr_for_loop_mut(&mut self, f: &mut syn::ExprForLoop) {
        self.visit_expr_mut(&mut f.expr);
        let mark = self.scope.len();
        self.bind(&mut f.pat);
        self.visit_block_mut(&mut f.body);
        self.scope.truncate(mark);
    }

    fn visit_arm_mut(&mut self, a: &mut syn::Arm) {
        let mark = self.scope.len();
        self.bind(&mut a.pat);
        if let Some((_, guard)) = &mut a.guard {
            self.visit_expr_mut(guard);
        }
        self.visit_expr_mut(&mut a.body);
        self.scope.truncate(mark);
    }
}
