//! Views the reversible language does not have — local matrices, named parts of vectors and
//! local closures — written before name resolution as index arithmetic on the vectors they
//! view, or as the closure's body at each call, in the user's own syntax (decisions 0051,
//! 0053; closures in `closure.rs`).
//!
//! A **local matrix** (`let mut m = [[0.0; 3]; 3];`, `vec![vec![0.0; cols]; rows]`, `[[c, -s],
//! [s, c]]`) becomes one vector of `rows · cols` numbers in row-major order: `m[i][j]` is
//! `m[i * cols + j]` (read, assigned, compounded), a row `m[i]` is the part `m[i * cols..i *
//! cols + cols]` (`&m[i]`, `&mut m[i]`, `m[i].iter()`, `m[i].to_vec()`, `let row = m[i];`),
//! `m[i].len()` is `cols` and `m.len()` is `rows`; `for row in m.iter()` is `for r in 0..rows
//! { let row = &m[r]; … }`. A row length or row count that is not a
//! literal is bound first to a fresh plain variable (`let cols_1 = n;`,
//! [`Names::user_fresh`]), in Rust's order of evaluation, so the indices keep the shape the
//! matrix was made with.
//!
//! A **named part** (`let row = &v[a..b];`, `&mut v[a..]`, a row `&m[i]`) is its bounds,
//! bound to fresh plain variables (`let start_1 = a; let end_1 = b;`), and each use is the
//! vector's: `row[j]` is `v[start_1 + j]`, `row[p..q]` is `v[start_1 + p..start_1 + q]`,
//! `row.len()` is `end_1 - start_1`, a method `row.iter()` is `v[start_1..end_1].iter()`, and
//! `row` itself (an argument, a loop's iterator) is `&v[start_1..end_1]`. Rust's borrow rules
//! keep `v` unchanged (or changed only through `row`) while `row` is in use, so the two mean
//! the same.
//!
//! Names are resolved by scope: a later binding of the same name (a `let`, a loop or closure
//! pattern) hides a view as it does in Rust, and a part whose vector's name is declared again
//! while the part is in use is an error.

mod closure;
mod matrix;
mod part;

use super::Result;
use crate::Names;
use closure::Closure;
use matrix::Shape;
use part::Part;
use syn::parse_quote_spanned;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

/// The body with every local matrix and named part written on the vectors they view.
pub(super) fn desugar(block: &syn::Block, names: &mut Names) -> Result<syn::Block> {
    let mut flatten = Flatten {
        names,
        scope: Vec::new(),
        error: None,
    };
    let mut block = block.clone();
    flatten.visit_block_mut(&mut block);
    match flatten.error {
        Some(e) => Err(e),
        None => Ok(block),
    }
}

#[derive(Clone)]
enum View {
    Matrix(Shape),
    Part(Part),
    Closure(Box<Closure>),
}

struct Flatten<'n> {
    names: &'n mut Names,
    /// The visible bindings, innermost last: the user's spelling and, for a view, what it
    /// views.
    scope: Vec<(String, Option<View>)>,
    error: Option<syn::Error>,
}

/// `e` as an operand of `*` or `+` (in parentheses unless it is one already).
fn operand(e: &syn::Expr) -> syn::Expr {
    match e {
        syn::Expr::Lit(_)
        | syn::Expr::Path(_)
        | syn::Expr::Paren(_)
        | syn::Expr::Index(_)
        | syn::Expr::MethodCall(_)
        | syn::Expr::Call(_)
        | syn::Expr::Field(_) => e.clone(),
        other => parse_quote_spanned!(other.span()=> (#other)),
    }
}

/// Is `e` the integer literal `0`?
fn is_zero(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(z), .. }) if z.base10_digits() == "0")
}

/// Is `e` an integer literal (a shape that needs no variable of its own)?
fn is_integer(e: &syn::Expr) -> bool {
    matches!(
        e,
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(_),
            ..
        })
    )
}

impl Flatten<'_> {
    fn fail(&mut self, e: syn::Error) {
        self.error.get_or_insert(e);
    }

    /// Where the innermost binding named `ident` is in the scope (`None`: outside the body).
    fn position(&self, ident: &str) -> Option<usize> {
        self.scope.iter().rposition(|(name, _)| name == ident)
    }

    /// The view `e` names here, if it names one.
    fn view(&self, e: &syn::Expr) -> Option<View> {
        let syn::Expr::Path(p) = e else { return None };
        let at = self.position(&p.path.get_ident()?.to_string())?;
        self.scope[at].1.clone()
    }

    /// The rewritten form of an expression that uses a view; `None` if `e` does not.
    fn rewrite(&mut self, e: &syn::Expr) -> Option<Result<syn::Expr>> {
        self.rewrite_part(e)
            .or_else(|| self.rewrite_matrix(e))
            .or_else(|| self.rewrite_closure(e, None))
    }

    /// A row length or count: itself when it cannot change (a literal, or an array's
    /// constant length), else a fresh variable bound to it in `stmts`.
    fn shape_variable(
        &mut self,
        base: &str,
        e: syn::Expr,
        constant: bool,
        stmts: &mut Vec<syn::Stmt>,
    ) -> syn::Expr {
        if constant || is_integer(&e) {
            return e;
        }
        let span = e.span();
        let var = self.names.user_fresh(base, span);
        stmts.push(parse_quote_spanned!(span=> let #var = #e;));
        parse_quote_spanned!(span=> #var)
    }

    /// Enters the names a pattern binds into the scope (hiding matrices of the same name).
    fn bind_pattern(&mut self, p: &syn::Pat) {
        struct Names<'s>(&'s mut Vec<(String, Option<View>)>);
        impl syn::visit::Visit<'_> for Names<'_> {
            fn visit_pat_ident(&mut self, p: &syn::PatIdent) {
                self.0.push((p.ident.to_string(), None));
                syn::visit::visit_pat_ident(self, p);
            }
            fn visit_expr(&mut self, _: &syn::Expr) {}
        }
        syn::visit::Visit::visit_pat(&mut Names(&mut self.scope), p);
    }
}

impl VisitMut for Flatten<'_> {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let mark = self.scope.len();
        for mut s in std::mem::take(&mut b.stmts) {
            if let syn::Stmt::Local(local) = &mut s {
                if let Some(declared) = self.closure_let(local) {
                    declared.unwrap_or_else(|e| self.fail(e));
                    continue;
                }
                match self.matrix_let(local) {
                    Some(Ok(stmts)) => {
                        b.stmts.extend(stmts);
                        continue;
                    }
                    Some(Err(e)) => self.fail(e),
                    None => {
                        if let Some(init) = &mut local.init {
                            self.let_row(&mut init.expr);
                            let mut bound = Vec::new();
                            match self.rewrite_closure(&init.expr, Some(&mut bound)) {
                                Some(Ok(body)) => *init.expr = body,
                                Some(Err(e)) => self.fail(e),
                                None => self.visit_expr_mut(&mut init.expr),
                            }
                            b.stmts.extend(bound);
                        }
                        if let Some(bounds) = self.part_let(local) {
                            b.stmts.extend(bounds);
                            continue;
                        }
                        self.bind_pattern(&local.pat);
                    }
                }
            } else {
                self.visit_stmt_mut(&mut s);
            }
            b.stmts.push(s);
        }
        self.scope.truncate(mark);
    }

    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        match self.rewrite(e) {
            Some(Ok(rewritten)) => *e = rewritten,
            Some(Err(err)) => self.fail(err),
            None => syn::visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_expr_for_loop_mut(&mut self, f: &mut syn::ExprForLoop) {
        self.loop_over_rows(f);
        if let Some(part) = self.part(&f.expr) {
            // `for v in row` walks the part as `for v in v[start..end].iter()` does
            let span = f.expr.span();
            match part {
                Ok(p) => {
                    let slice = p.slice(span);
                    *f.expr = parse_quote_spanned!(span=> #slice.iter());
                }
                Err(e) => self.fail(e),
            }
        }
        self.visit_expr_mut(&mut f.expr);
        let mark = self.scope.len();
        self.bind_pattern(&f.pat);
        self.visit_block_mut(&mut f.body);
        self.scope.truncate(mark);
    }

    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        let mark = self.scope.len();
        for p in &c.inputs {
            self.bind_pattern(p);
        }
        self.visit_expr_mut(&mut c.body);
        self.scope.truncate(mark);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
