//! The searched slice read through a transposed table: a jammed search whose candidates read
//! `c[j * s + e]` (`j` the searched variable, `e` the inner loop's) reads them from
//! `nilang::__private::search::SearchTable`, where the `W` candidates side by side find their
//! coordinate `e` in `W` contiguous values (one vector load, the `W` sums in vector lanes), and
//! runs compiled for AVX2 where the processor has it (`search::dispatch`). This is what the
//! expert kmeans program does by hand (`Centroids`); natural kmeans' search read its
//! candidates 16 bytes apart on dual numbers, one load each.
//!
//! The table is built once per call of the function and reused by every search of the call
//! (the nearest centroid of each point), so it applies only where that is right and cheap —
//! to a search inside a loop of the function (the caller passes no `fixed` set otherwise):
//! - `c` is a parameter `&[T]`, which the function cannot write, so the values do not change
//!   during the call;
//! - the stride `s` and the bounds of both loops read only parameters and `let`s of the
//!   function's top level that nothing assigns, so every search of the call asks for the same
//!   table (the table checks its key anyway, and builds again if it changed);
//! - the reads are made by every iteration of the inner loop (in its top-level statements, not
//!   under a branch or right of `&&`/`||`), so the table holds only values the plain search
//!   reads, and a read past the slice panics as the plain search's would.
//!
//! Each candidate's sum keeps its order and operations (no fused multiply–add in either
//! variant), so the values, and the position chosen, are those of the plain loop.

use crate::expr::Typing;
use crate::nir::{Id, Origin};
use crate::signature::Shape;
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::BTreeSet;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

/// A searched slice to read through a table.
pub(super) struct Columns {
    /// The slice parameter.
    pub slice: syn::Ident,
    /// The stride `s` between candidates.
    pub stride: syn::Expr,
}

impl Columns {
    /// The first read `c[j * s + e]` (or `c[s * j + e]`, `c[e + j * s]`) in the top-level
    /// statements `inner` (plain Rust, as rendered) of a qualifying slice and stride, if any.
    /// `fixed`: the bindings a table's key may read.
    pub fn find(
        t: Typing,
        inner: &TokenStream,
        (var, inner_var): (Id, Id),
        fixed: &BTreeSet<Id>,
    ) -> Option<Columns> {
        let block: syn::Block = syn::parse2(quote!({ #inner })).ok()?;
        let mut found = None;
        for e in unconditional_exprs(&block) {
            let mut finder = Finder {
                t,
                var,
                inner_var,
                fixed,
                found: None,
            };
            finder.visit_expr(e);
            if finder.found.is_some() {
                found = finder.found;
                break;
            }
        }
        found
    }

    /// `inner` with every read of this slice at this stride replaced by `row[j - at]`, where
    /// `row` holds coordinate `e` of the candidates from `at` on.
    pub fn rewrite(
        &self,
        inner: TokenStream,
        (var, inner_var): (&syn::Ident, &syn::Ident),
        (row, at): (&syn::Ident, &syn::Ident),
    ) -> Option<TokenStream> {
        let mut block: syn::Block = syn::parse2(quote!({ #inner })).ok()?;
        for stmt in &mut block.stmts {
            let mut rewriter = Rewriter {
                columns: self,
                var,
                inner_var,
                replacement: syn::parse_quote!(#row[#var - #at]),
            };
            match stmt {
                syn::Stmt::Local(l) => {
                    if let Some(init) = &mut l.init {
                        rewriter.visit_expr_mut(&mut init.expr);
                    }
                }
                syn::Stmt::Expr(e, _) => rewriter.visit_expr_mut(e),
                _ => {}
            }
        }
        let stmts = &block.stmts;
        Some(quote!(#(#stmts)*))
    }
}

/// The expressions every iteration evaluates: `let` initialisers and expression statements
/// at the top of the block (the unconditional parts of each are what [`Finder`] and
/// [`Rewriter`] descend into).
fn unconditional_exprs(block: &syn::Block) -> Vec<&syn::Expr> {
    block
        .stmts
        .iter()
        .filter_map(|s| match s {
            syn::Stmt::Local(l) => l.init.as_ref().map(|i| &*i.expr),
            syn::Stmt::Expr(e, _) => Some(e),
            _ => None,
        })
        .collect()
}

/// Whether evaluating `e` evaluates every operand: arithmetic, assignments, parentheses,
/// references, calls and method calls (not `&&`, `||`, branches, loops or closures).
fn descends(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Binary(b) => !matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)),
        syn::Expr::Assign(_)
        | syn::Expr::Unary(_)
        | syn::Expr::Paren(_)
        | syn::Expr::Reference(_)
        | syn::Expr::Call(_)
        | syn::Expr::MethodCall(_)
        | syn::Expr::Cast(_)
        | syn::Expr::Index(_) => true,
        _ => false,
    }
}

/// `j * s` or `s * j`: the stride `s`.
fn stride_of<'e>(e: &'e syn::Expr, var: &syn::Ident) -> Option<&'e syn::Expr> {
    let syn::Expr::Binary(m) = strip_parens(e) else {
        return None;
    };
    if !matches!(m.op, syn::BinOp::Mul(_)) {
        return None;
    }
    match (is_ident(&m.left, var), is_ident(&m.right, var)) {
        (true, false) => Some(&m.right),
        (false, true) => Some(&m.left),
        _ => None,
    }
}

/// `j * s + e` (either order of both): the stride `s`.
fn candidate_index<'e>(
    index: &'e syn::Expr,
    var: &syn::Ident,
    inner_var: &syn::Ident,
) -> Option<&'e syn::Expr> {
    let syn::Expr::Binary(sum) = strip_parens(index) else {
        return None;
    };
    if !matches!(sum.op, syn::BinOp::Add(_)) {
        return None;
    }
    if is_ident(&sum.right, inner_var) {
        stride_of(&sum.left, var)
    } else if is_ident(&sum.left, inner_var) {
        stride_of(&sum.right, var)
    } else {
        None
    }
}

fn strip_parens(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip_parens(&p.expr),
        _ => e,
    }
}

fn is_ident(e: &syn::Expr, ident: &syn::Ident) -> bool {
    matches!(strip_parens(e), syn::Expr::Path(p) if p.path.is_ident(ident))
}

/// Looks for the first qualifying read, descending only into operands evaluated always.
struct Finder<'a> {
    t: Typing<'a>,
    var: Id,
    inner_var: Id,
    fixed: &'a BTreeSet<Id>,
    found: Option<Columns>,
}

impl Finder<'_> {
    /// The read `slice[index]` as a table's, if it qualifies.
    fn qualifies(&self, slice: &syn::Expr, index: &syn::Expr) -> Option<Columns> {
        let binds = self.t.binds;
        let syn::Expr::Path(p) = strip_parens(slice) else {
            return None;
        };
        let slice = p.path.get_ident()?;
        let id = binds.iter().position(|b| b.name == *slice)?;
        let param = self.t.sig.params.get(id)?;
        if !matches!(binds[id].origin, Origin::Param) || param.shape != Shape::Slice {
            return None;
        }
        let (var, inner_var) = (&binds[self.var].name, &binds[self.inner_var].name);
        let stride = candidate_index(index, var, inner_var)?;
        let mut reads = Reads(Vec::new());
        reads.visit_expr(stride);
        let invariant = reads.0.iter().all(|name| {
            binds
                .iter()
                .position(|b| b.name == *name)
                .is_some_and(|id| self.fixed.contains(&id))
        });
        invariant.then(|| Columns {
            slice: slice.clone(),
            stride: stride.clone(),
        })
    }
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        if self.found.is_some() || !descends(e) {
            return;
        }
        if let syn::Expr::Index(i) = e {
            self.found = self.qualifies(&i.expr, &i.index);
            if self.found.is_some() {
                return;
            }
        }
        syn::visit::visit_expr(self, e);
    }
}

/// The single-segment names an expression reads.
struct Reads(Vec<syn::Ident>);

impl<'ast> Visit<'ast> for Reads {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if let Some(ident) = p.path.get_ident() {
            self.0.push(ident.clone());
        }
    }
}

/// Replaces the table's reads, descending only into operands evaluated always (the reads
/// [`Columns::find`] vouched for are among those).
struct Rewriter<'a> {
    columns: &'a Columns,
    var: &'a syn::Ident,
    inner_var: &'a syn::Ident,
    replacement: syn::Expr,
}

impl VisitMut for Rewriter<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if !descends(e) {
            return;
        }
        if let syn::Expr::Index(i) = e {
            let same = is_ident(&i.expr, &self.columns.slice)
                && candidate_index(&i.index, self.var, self.inner_var)
                    .is_some_and(|s| *s == self.columns.stride);
            if same {
                *e = self.replacement.clone();
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}
