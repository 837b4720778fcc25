//! Views the reversible language does not have — local matrices and named parts of vectors —
//! written before name resolution as index arithmetic on the vectors they view, in the user's
//! own syntax (decision 0051).
//!
//! A **local matrix** (`let mut m = [[0.0; 3]; 3];`, `vec![vec![0.0; cols]; rows]`, `[[c, -s],
//! [s, c]]`) becomes one vector of `rows · cols` numbers in row-major order: `m[i][j]` is
//! `m[i * cols + j]` (read, assigned, compounded), a row `m[i]` is the part `m[i * cols..i *
//! cols + cols]` (`&m[i]`, `&mut m[i]`, `m[i].iter()`, `m[i].to_vec()`, `let row = m[i];`),
//! `m[i].len()` is `cols` and `m.len()` is `rows`. A row length or row count that is not a
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

use super::Result;
use crate::Names;
use proc_macro2::Span;
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

/// A matrix's shape, as expressions that stay valid where it is visible (literals, constants,
/// or the fresh variables bound where it was declared).
#[derive(Clone)]
struct Shape {
    rows: syn::Expr,
    cols: syn::Expr,
}

/// A named part of a vector: `base[start..end]`, written through when `mutable`.
#[derive(Clone)]
struct Part {
    base: syn::Ident,
    /// Where `base`'s binding was in the scope when the part was named (`None`: outside the
    /// body, a parameter).
    base_at: Option<usize>,
    start: syn::Expr,
    end: syn::Expr,
    mutable: bool,
}

#[derive(Clone)]
enum View {
    Matrix(Shape),
    Part(Part),
}

struct Flatten<'n> {
    names: &'n mut Names,
    /// The visible bindings, innermost last: the user's spelling and, for a view, what it
    /// views.
    scope: Vec<(String, Option<View>)>,
    error: Option<syn::Error>,
}

/// A vector written in place: `[fill; len]` / `vec![fill; len]` (`constant`: an array, whose
/// length is a constant), or `[a, b, …]` / `vec![a, b, …]`.
enum Literal {
    Repeat {
        fill: Box<syn::Expr>,
        len: Box<syn::Expr>,
        constant: bool,
    },
    List(Vec<syn::Expr>),
}

fn literal(e: &syn::Expr) -> Option<Literal> {
    match e {
        syn::Expr::Repeat(r) => Some(Literal::Repeat {
            fill: r.expr.clone(),
            len: r.len.clone(),
            constant: true,
        }),
        syn::Expr::Array(a) => Some(Literal::List(a.elems.iter().cloned().collect())),
        syn::Expr::Macro(m) if m.mac.path.is_ident("vec") => m
            .mac
            .parse_body_with(|input: syn::parse::ParseStream| {
                let first: syn::Expr = input.parse()?;
                if input.parse::<Option<syn::Token![;]>>()?.is_some() {
                    let len: syn::Expr = input.parse()?;
                    return Ok(Literal::Repeat {
                        fill: Box::new(first),
                        len: Box::new(len),
                        constant: false,
                    });
                }
                let mut elems = vec![first];
                while input.parse::<Option<syn::Token![,]>>()?.is_some() && !input.is_empty() {
                    elems.push(input.parse()?);
                }
                Ok(Literal::List(elems))
            })
            .ok(),
        _ => None,
    }
}

impl Literal {
    /// The elements, or the fill: what a nested vector would be made of.
    fn parts(&self) -> Vec<&syn::Expr> {
        match self {
            Literal::Repeat { fill, .. } => vec![&**fill],
            Literal::List(elems) => elems.iter().collect(),
        }
    }
}

/// Is `e` a vector of vectors written in place?
fn is_matrix_literal(e: &syn::Expr) -> bool {
    literal(e).is_some_and(|l| l.parts().into_iter().any(|p| literal(p).is_some()))
}

fn unsupported<T>(tokens: impl quote::ToTokens, message: impl std::fmt::Display) -> Result<T> {
    Err(syn::Error::new_spanned(tokens, message))
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
    matches!(e, syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(_), .. }))
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

    /// The shape of the matrix `e` names here, if it names one.
    fn matrix(&self, e: &syn::Expr) -> Option<Shape> {
        match self.view(e)? {
            View::Matrix(shape) => Some(shape),
            View::Part(_) => None,
        }
    }

    /// The part `e` names here, if it names one; an error if its vector's name has been
    /// declared again since.
    fn part(&self, e: &syn::Expr) -> Option<Result<Part>> {
        let View::Part(part) = self.view(e)? else {
            return None;
        };
        if self.position(&part.base.to_string()) != part.base_at {
            return Some(unsupported(
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
    fn rewrite_part(&mut self, e: &syn::Expr) -> Option<Result<syn::Expr>> {
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
                    call.receiver = Box::new(p.slice(span));
                    syn::Expr::MethodCall(call)
                }))
            }
            syn::Expr::Path(_) => Some(self.part(e)?.map(|p| p.reference(span))),
            _ => None,
        }
    }

    /// `let name = &v[a..b];` (or `&mut`) as the bindings of its bounds, with `name` entered
    /// into the scope as a part of `v`; `None` if the `let` names no part of a vector.
    fn part_let(&mut self, local: &syn::Local) -> Option<Vec<syn::Stmt>> {
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

    /// `m[i]` of a matrix `m`: the matrix's name, its shape and the row index (rewritten).
    fn row(&mut self, e: &syn::Expr) -> Option<(syn::Expr, Shape, syn::Expr)> {
        let syn::Expr::Index(ix) = e else { return None };
        let shape = self.matrix(&ix.expr)?;
        let mut i = (*ix.index).clone();
        self.visit_expr_mut(&mut i);
        Some(((*ix.expr).clone(), shape, i))
    }

    /// The part of the flat vector that is row `i`: `m[i * cols..i * cols + cols]`.
    fn row_part(m: &syn::Expr, shape: &Shape, i: &syn::Expr, span: Span) -> syn::Expr {
        let (i, cols) = (operand(i), operand(&shape.cols));
        parse_quote_spanned!(span=> #m[#i * #cols..#i * #cols + #cols])
    }

    /// The rewritten form of an expression that uses a view; `None` if `e` does not.
    fn rewrite(&mut self, e: &syn::Expr) -> Option<Result<syn::Expr>> {
        if let Some(rewritten) = self.rewrite_part(e) {
            return Some(rewritten);
        }
        let span = e.span();
        match e {
            syn::Expr::Index(outer) => {
                if let Some((m, shape, i)) = self.row(&outer.expr) {
                    let mut j = (*outer.index).clone();
                    self.visit_expr_mut(&mut j);
                    let (i, j, cols) = (operand(&i), operand(&j), operand(&shape.cols));
                    return Some(Ok(parse_quote_spanned!(span=> #m[#i * #cols + #j])));
                }
                self.matrix(&outer.expr).map(|_| {
                    unsupported(
                        e,
                        "a row of a local matrix is read as `&m[i]`, `m[i].iter()` or \
                         `m[i].to_vec()` here, or by element, `m[i][j]`",
                    )
                })
            }
            syn::Expr::MethodCall(call) => {
                let method = call.method.to_string();
                if let Some(shape) = self.matrix(&call.receiver) {
                    return Some(match method.as_str() {
                        "len" if call.args.is_empty() => Ok(shape.rows),
                        _ => unsupported(
                            call,
                            format!(
                                "`.{method}()` of a local matrix is not supported: loop over \
                                 its rows by index, `for i in 0..m.len()`, and read `m[i][j]`"
                            ),
                        ),
                    });
                }
                let (m, shape, i) = self.row(&call.receiver)?;
                Some(match method.as_str() {
                    "len" if call.args.is_empty() => Ok(shape.cols),
                    "iter" | "to_vec" if call.args.is_empty() => {
                        let part = Self::row_part(&m, &shape, &i, call.receiver.span());
                        let method = &call.method;
                        Ok(parse_quote_spanned!(span=> #part.#method()))
                    }
                    _ => unsupported(
                        call,
                        format!(
                            "`.{method}()` of a row of a local matrix is not supported: use \
                             `m[i].iter()`, `m[i].len()`, `m[i].to_vec()` or its elements"
                        ),
                    ),
                })
            }
            syn::Expr::Reference(r) => {
                let (m, shape, i) = self.row(&r.expr)?;
                let part = Self::row_part(&m, &shape, &i, r.expr.span());
                let mutability = r.mutability;
                Some(Ok(parse_quote_spanned!(span=> &#mutability #part)))
            }
            syn::Expr::Path(_) if self.matrix(e).is_some() => Some(unsupported(
                e,
                "a local matrix is used by element (`m[i][j]`), by row (`&m[i]`, \
                 `m[i].iter()`) or by its number of rows (`m.len()`); it cannot be passed, \
                 copied or assigned whole",
            )),
            _ if is_matrix_literal(e) => Some(unsupported(
                e,
                "a matrix is declared by a `let` of its own, `let mut m = [[0.0; cols]; rows];` \
                 or `vec![vec![0.0; cols]; rows]`",
            )),
            _ => None,
        }
    }

    /// `let m = <matrix>;` as the statements of its flat vector (and of its shape's
    /// variables), with `m` entered into the scope; `None` if the `let` declares no matrix.
    fn matrix_let(&mut self, local: &syn::Local) -> Option<Result<Vec<syn::Stmt>>> {
        let init = local.init.as_ref()?;
        if !is_matrix_literal(&init.expr) {
            return None;
        }
        let pat = match &local.pat {
            syn::Pat::Type(t) => &*t.pat,
            p => p,
        };
        let syn::Pat::Ident(name) = pat else {
            return Some(unsupported(
                pat,
                "a local matrix is declared by `let m = …;` with one name",
            ));
        };
        Some(self.flat_let(name, &init.expr))
    }

    fn flat_let(&mut self, name: &syn::PatIdent, value: &syn::Expr) -> Result<Vec<syn::Stmt>> {
        let span = value.span();
        let too_deep = |l: &Literal| l.parts().into_iter().any(is_matrix_literal);
        let outer = literal(value).expect("a matrix literal is a literal");
        if too_deep(&outer) {
            return unsupported(
                value,
                "only matrices (vectors of vectors) are supported, not deeper nestings: use one \
                 flat vector, `v[(i * n + j) * m + k]`",
            );
        }
        let mut stmts = Vec::new();
        let (flat, shape): (syn::Expr, Shape) = match outer {
            Literal::Repeat {
                fill,
                len: rows,
                constant,
            } => match literal(&fill) {
                Some(Literal::Repeat {
                    fill: zero,
                    len: cols,
                    constant: cols_constant,
                }) => {
                    let cols = self.shape_variable("cols", *cols, cols_constant, &mut stmts);
                    let rows = self.shape_variable("rows", *rows, constant, &mut stmts);
                    let (r, c) = (operand(&rows), operand(&cols));
                    (
                        parse_quote_spanned!(span=> vec![#zero; #r * #c]),
                        Shape { rows, cols },
                    )
                }
                _ => {
                    return unsupported(
                        &fill,
                        "a matrix starts as zeros, `[[0.0; cols]; rows]`, or lists its rows \
                         in full, `[[a, b], [c, d]]`",
                    )
                }
            },
            Literal::List(row_list) => {
                let mut elems = Vec::new();
                let mut cols = None;
                for row in &row_list {
                    let Some(Literal::List(row_elems)) = literal(row) else {
                        return unsupported(
                            row,
                            "a matrix listed by rows writes each row in full, `[[a, b], [c, d]]`",
                        );
                    };
                    cols.get_or_insert(row_elems.len());
                    elems.extend(row_elems);
                }
                let (rows, cols) = (row_list.len(), cols.unwrap_or(0));
                (
                    parse_quote_spanned!(span=> [#(#elems),*]),
                    Shape {
                        rows: parse_quote_spanned!(span=> #rows),
                        cols: parse_quote_spanned!(span=> #cols),
                    },
                )
            }
        };
        let (ident, mutability) = (&name.ident, &name.mutability);
        stmts.push(parse_quote_spanned!(span=> let #mutability #ident = #flat;));
        for s in &mut stmts {
            if let syn::Stmt::Local(syn::Local {
                init: Some(init), ..
            }) = s
            {
                self.visit_expr_mut(&mut init.expr);
            }
        }
        self.scope
            .push((ident.to_string(), Some(View::Matrix(shape))));
        Ok(stmts)
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
                match self.matrix_let(local) {
                    Some(Ok(stmts)) => {
                        b.stmts.extend(stmts);
                        continue;
                    }
                    Some(Err(e)) => self.fail(e),
                    None => {
                        if let Some(init) = &mut local.init {
                            self.let_row(&mut init.expr);
                            self.visit_expr_mut(&mut init.expr);
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

impl Flatten<'_> {
    /// `let row = m[i];` (a copy of a row of an array matrix) as `let row = m[i].to_vec();`.
    fn let_row(&mut self, init: &mut syn::Expr) {
        if let syn::Expr::Index(ix) = &*init {
            if self.matrix(&ix.expr).is_some() {
                let span = init.span();
                *init = parse_quote_spanned!(span=> #init.to_vec());
            }
        }
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
    fn slice(&self, span: Span) -> syn::Expr {
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
