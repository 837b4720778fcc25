//! Local matrices as flat vectors in row-major order (see the parent module).

use super::{operand, Flatten, View};
use crate::resolve::{err, Result};
use proc_macro2::Span;
use syn::parse_quote_spanned;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

/// A matrix's shape, as expressions that stay valid where it is visible (literals, constants,
/// or the fresh variables bound where it was declared).
#[derive(Clone)]
pub(super) struct Shape {
    rows: syn::Expr,
    cols: syn::Expr,
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
pub(super) fn is_matrix_literal(e: &syn::Expr) -> bool {
    literal(e).is_some_and(|l| l.parts().into_iter().any(|p| literal(p).is_some()))
}

impl Flatten<'_> {
    /// The shape of the matrix `e` names here, if it names one.
    pub(super) fn matrix(&self, e: &syn::Expr) -> Option<Shape> {
        match self.view(e)? {
            View::Matrix(shape) => Some(shape),
            _ => None,
        }
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

    /// The rewritten form of an expression that uses a matrix; `None` if `e` does not.
    pub(super) fn rewrite_matrix(&mut self, e: &syn::Expr) -> Option<Result<syn::Expr>> {
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
                    err(
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
                        _ => err(
                            call,
                            format!(
                                "`.{method}()` of a local matrix is not supported: loop over \
                                 its rows, `for row in m.iter()` or `for i in 0..m.len()`, and \
                                 read `row[j]` or `m[i][j]`"
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
                    _ => err(
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
            syn::Expr::Path(_) if self.matrix(e).is_some() => Some(err(
                e,
                "a local matrix is used by element (`m[i][j]`), by row (`&m[i]`, \
                 `m[i].iter()`) or by its number of rows (`m.len()`); it cannot be passed, \
                 copied or assigned whole",
            )),
            _ if is_matrix_literal(e) => Some(err(
                e,
                "a matrix is declared by a `let` of its own, `let mut m = [[0.0; cols]; rows];` \
                 or `vec![vec![0.0; cols]; rows]`",
            )),
            _ => None,
        }
    }

    /// `let m = <matrix>;` as the statements of its flat vector (and of its shape's
    /// variables), with `m` entered into the scope; `None` if the `let` declares no matrix.
    pub(super) fn matrix_let(&mut self, local: &syn::Local) -> Option<Result<Vec<syn::Stmt>>> {
        let init = local.init.as_ref()?;
        if !is_matrix_literal(&init.expr) {
            return None;
        }
        let pat = match &local.pat {
            syn::Pat::Type(t) => &*t.pat,
            p => p,
        };
        let syn::Pat::Ident(name) = pat else {
            return Some(err(
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
            return err(
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
                    return err(
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
                        return err(
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

    /// `let row = m[i];` (a copy of a row of an array matrix) as `let row = m[i].to_vec();`.
    pub(super) fn let_row(&mut self, init: &mut syn::Expr) {
        if let syn::Expr::Index(ix) = &*init {
            if self.matrix(&ix.expr).is_some() {
                let span = init.span();
                *init = parse_quote_spanned!(span=> #init.to_vec());
            }
        }
    }

    /// `for row in m.iter()` (`&m`, `.iter_mut()`, `&mut m`, `.enumerate()` of them) over a
    /// matrix's rows as `for r in 0..rows { let row = &m[r]; … }`, whose `let` names a part.
    pub(super) fn loop_over_rows(&mut self, f: &mut syn::ExprForLoop) {
        let (mut source, mut index) = (&*f.expr, None);
        let mut row = &*f.pat;
        if let (syn::Expr::MethodCall(c), syn::Pat::Tuple(t)) = (source, row) {
            if c.method == "enumerate" && c.args.is_empty() && t.elems.len() == 2 {
                (source, index, row) = (&*c.receiver, Some(&t.elems[0]), &t.elems[1]);
            }
        }
        let (matrix, mutable) = match source {
            syn::Expr::MethodCall(c) if c.args.is_empty() && c.method == "iter" => {
                (&*c.receiver, false)
            }
            syn::Expr::MethodCall(c) if c.args.is_empty() && c.method == "iter_mut" => {
                (&*c.receiver, true)
            }
            syn::Expr::Reference(r) => (&*r.expr, r.mutability.is_some()),
            _ => return,
        };
        let (Some(shape), syn::Pat::Ident(row)) = (self.matrix(matrix), row) else {
            return;
        };
        let span = f.expr.span();
        let index: syn::Pat = match index {
            Some(syn::Pat::Ident(i)) if i.by_ref.is_none() && i.mutability.is_none() => {
                syn::Pat::Ident(i.clone())
            }
            Some(_) => return,
            None => {
                let fresh = self.names.user_fresh("row", span);
                parse_quote_spanned!(span=> #fresh)
            }
        };
        let (rows, name) = (&shape.rows, &row.ident);
        let reference = if mutable {
            quote::quote_spanned!(span=> &mut #matrix[#index])
        } else {
            quote::quote_spanned!(span=> &#matrix[#index])
        };
        f.body
            .stmts
            .insert(0, parse_quote_spanned!(span=> let #name = #reference;));
        *f.expr = parse_quote_spanned!(span=> 0..#rows);
        *f.pat = index;
    }
}
