//! The search of a reduction, unrolled and jammed: four iterations of the searched loop at
//! once, their inner loops merged into one.
//!
//! A nearest-neighbour search (`for j in 0..k { let mut dist = 0.0; for e in 0..d { dist +=
//! … } best = best.min(dist); }`) is a chain of dependent additions per candidate: each `+=`
//! waits for the one before, and Rust may not reorder floating-point sums to hide that. Four
//! candidates side by side make four independent chains in one inner loop, which the processor
//! overlaps (and the compiler may put in vector lanes), while each candidate's value is summed
//! in its own order, so the values, and the position chosen, are those of the plain loop:
//!
//! ```text
//! while hi - at >= 4 {
//!     let (j_1, j_2, j_3, j_4) = (at, at + 1, at + 2, at + 3);
//!     let mut dist_1 = 0.0; … let mut dist_4 = 0.0;
//!     for e in 0..d { dist_1 += …; … dist_4 += …; }
//!     (compare dist_1, …, dist_4 in order)
//!     at += 4;
//! }
//! for j in at..hi { (the plain iteration) }
//! if nothing beat ∞ { (the plain search from the start) }
//! ```
//!
//! The jammed candidates are compared with `x < chosen` alone, `chosen` starting at `∞`
//! (`−∞` for a maximum), so no branch asks whether anything is chosen yet; when nothing beat
//! `∞` (every value NaN or infinite) the plain search runs again from the start and chooses
//! as the fold does. Where the candidates are rows of a parameter, sixteen, eight, four and
//! two of them run side by side on a transposed table instead ([`Columns`]).
//!
//! It applies when the searched loop runs over `a..b` and its body computes the value with one
//! inner loop whose range reads neither the searched variable nor what the body declares. Each
//! copy's bindings get fresh names; a binding is renamed by its spelling, which is unique in
//! the function ([`crate::nir::Bind::name`]), so renaming a spelling renames one binding.

use super::columns::Columns;
use super::{plain_stmt, Reduction};
use crate::expr::Typing;
use crate::nir::{self, Id, Origin, StmtKind};
use crate::Names;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use std::collections::{BTreeSet, HashMap};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

/// How many iterations run side by side.
const WIDTH: usize = 4;

/// The search's pieces shared with the plain search: its result variables and comparison.
pub struct Search<'s> {
    pub pos: &'s syn::Ident,
    pub chosen: &'s syn::Ident,
    pub k: &'s syn::Ident,
    /// `x` against `chosen`, updating `pos` and `chosen` when it is strictly better: the
    /// comparison of a search that starts from `chosen = worst`, so that no branch tests
    /// whether anything is chosen yet (compiled to a select where the compiler can).
    pub improve: &'s dyn Fn(&syn::Ident) -> TokenStream,
    /// The value no candidate improves on (`f64::INFINITY` for a minimum).
    pub worst: TokenStream,
    /// One plain iteration (its prefix, value and comparison) of the variable `var`.
    pub plain_iteration: TokenStream,
}

/// A jammed search: the plain Rust block, and the table it reads, which the function declares
/// (`nilang::__private::search::SearchTable`), if it reads one ([`Columns`]).
pub struct Jammed {
    pub block: syn::Expr,
    pub table: Option<syn::Ident>,
}

/// How many iterations run side by side on a table, in turn while that many are left (the
/// table is built when [`WIDTH`] are).
const TABLE_WIDTHS: [usize; 4] = [16, 8, 4, 2];

/// What the blocks of one search share.
struct Blocks<'a> {
    t: Typing<'a>,
    var: Id,
    inner: Inner<'a>,
    /// The prefix's statements as plain Rust: before the inner loop, its body, after it.
    before: TokenStream,
    body: TokenStream,
    after: TokenStream,
    value: syn::Expr,
    /// The bindings each copy renames.
    renamed: Vec<Id>,
    at: syn::Ident,
    end: syn::Ident,
}

impl Reduction<'_> {
    /// The jammed search (see the module), or `None` where it does not apply. `fixed`: the
    /// bindings that hold one value for the whole call (a table's key may read them); a
    /// search without it reads no table.
    pub(super) fn jammed_search(
        &self,
        t: Typing,
        names: &mut Names,
        (var, range): (Id, &nir::Range),
        s: &Search,
        fixed: Option<&BTreeSet<Id>>,
    ) -> Option<Jammed> {
        let (lo, hi) = half_open(&range.syn)?;
        let inner = self.inner_loop(t, var)?;
        let written = nir::written(self.prefix);
        let plain = |stmts: &[nir::Stmt]| -> TokenStream {
            stmts.iter().map(|s| plain_stmt(t, s, &written)).collect()
        };
        let span = Span::call_site();
        let blocks = Blocks {
            t,
            var,
            before: plain(&self.prefix[..inner.at]),
            body: plain(inner.body),
            after: plain(&self.prefix[inner.at + 1..]),
            value: crate::expr::plain(t, self.value.clone()),
            renamed: nir::declared(self.prefix)
                .into_iter()
                .filter(|id| *id != inner.var)
                .chain([var])
                .collect(),
            inner,
            at: names.fresh("at", span),
            end: names.fresh("end", span),
        };
        let (pos, chosen, k, plain, worst) = (s.pos, s.chosen, s.k, &s.plain_iteration, &s.worst);
        let (at, end, var_name) = (&blocks.at, &blocks.end, &t.binds[var].name);
        let start = quote!(
            let mut #pos = usize::MAX;
            let mut #chosen = #worst;
            let mut #k = 0usize;
            let (mut #at, #end) = (#lo, #hi);
        );
        // The blocks choose only values strictly better than `worst`; when none is (every
        // value NaN or infinite), the plain search from the start finds the first that is not
        // NaN, as the fold does.
        let finish = quote!(
            for #var_name in #at..#end { #plain }
            if #chosen == #worst || #pos == usize::MAX {
                #pos = usize::MAX;
                #k = 0;
                for #var_name in #lo..#hi { #plain }
            }
            #pos
        );
        let columns = fixed.and_then(|fixed| {
            let invariant = range.reads.is_subset(fixed) && blocks.inner.reads.is_subset(fixed);
            invariant
                .then(|| Columns::find(t, &blocks.body, (var, blocks.inner.var), fixed))
                .flatten()
        });
        match columns {
            None => {
                let jammed = blocks.block(names, WIDTH, s, None)?;
                Some(Jammed {
                    block: syn::parse_quote!({ #start #jammed #finish }),
                    table: None,
                })
            }
            Some(columns) => blocks.on_table(names, s, &columns, (start, finish)),
        }
    }
}

impl Blocks<'_> {
    /// The search on a table of `columns`' values, between `start` and `finish`: blocks of
    /// [`TABLE_WIDTHS`], in a closure compiled for AVX2 where the processor has it.
    fn on_table(
        &self,
        names: &mut Names,
        s: &Search,
        columns: &Columns,
        (start, finish): (TokenStream, TokenStream),
    ) -> Option<Jammed> {
        let (e_lo, e_hi) = half_open(self.inner.range)?;
        let [table, cols, count, first, row] =
            ["table", "cols", "count", "first", "row"].map(|n| names.fresh(n, Span::call_site()));
        let (slice, stride) = (&columns.slice, &columns.stride);
        let (at, end, e) = (&self.at, &self.end, &self.t.binds[self.inner.var].name);
        let least = proc_macro2::Literal::usize_unsuffixed(WIDTH);
        let mut jammed = Vec::new();
        for width in TABLE_WIDTHS {
            let w = proc_macro2::Literal::usize_unsuffixed(width);
            let row_of =
                quote!(let #row = &#cols[(#e - (#e_lo)) * #count + (#at - #first)..][..#w];);
            jammed.push(self.block(names, width, s, Some((columns, &row, row_of)))?);
        }
        let block = syn::parse_quote!({
            ::nilang::__private::search::dispatch(#[inline(always)] || {
                #start
                if #end - #at.min(#end) >= #least {
                    let (#first, #count) = (#at, #end - #at);
                    let #cols = #table.columns(&#slice[..], (#at, #end), (#e_lo, #e_hi), #stride);
                    #(#jammed)*
                }
                #finish
            })
        });
        Some(Jammed {
            block,
            table: Some(table),
        })
    }

    /// `while` at least `width` iterations are left, `width` of them side by side; their
    /// table reads go through `row` (declared by `row_of` in the inner loop) when `table` is
    /// given.
    fn block(
        &self,
        names: &mut Names,
        width: usize,
        s: &Search,
        table: Option<(&Columns, &syn::Ident, TokenStream)>,
    ) -> Option<TokenStream> {
        let (t, span) = (self.t, Span::call_site());
        let var_name = &t.binds[self.var].name;
        let inner_var = &t.binds[self.inner.var].name;
        let body = match &table {
            Some((columns, row, _)) => {
                columns.rewrite(self.body.clone(), (var_name, inner_var), (row, &self.at))?
            }
            None => self.body.clone(),
        };
        let (mut heads, mut bodies, mut tails) = (Vec::new(), Vec::new(), Vec::new());
        for c in 0..width {
            let copy: HashMap<String, syn::Ident> = self
                .renamed
                .iter()
                .map(|id| {
                    let name = &t.binds[*id].name;
                    let fresh = names.fresh(&format!("{name}_{}", c + 1), span);
                    (name.to_string(), fresh)
                })
                .collect();
            let v = &copy[&var_name.to_string()];
            let at = &self.at;
            let c = proc_macro2::Literal::usize_unsuffixed(c);
            let x = names.fresh("x", span);
            let before = renamed_tokens(self.before.clone(), &copy)?;
            heads.push(quote!(let #v = #at + #c; #before));
            bodies.push(renamed_tokens(body.clone(), &copy)?);
            let after = renamed_tokens(self.after.clone(), &copy)?;
            let value = &self.value;
            let value = renamed_tokens(quote!(#value), &copy)?;
            let improve = (s.improve)(&x);
            let k = s.k;
            tails.push(quote!(#after let #x: f64 = #value; #improve #k += 1;));
        }
        let (at, end, range) = (&self.at, &self.end, self.inner.range);
        let row_of = table.map(|(_, _, row_of)| row_of);
        let width = proc_macro2::Literal::usize_unsuffixed(width);
        Some(quote!(
            while #end - #at.min(#end) >= #width {
                #(#heads)*
                for #inner_var in #range { #row_of #(#bodies)* }
                #(#tails)*
                #at += #width;
            }
        ))
    }
}

/// `lo..hi`: its bounds.
fn half_open(range: &syn::Expr) -> Option<(&syn::Expr, &syn::Expr)> {
    match range {
        syn::Expr::Range(syn::ExprRange {
            start: Some(lo),
            limits: syn::RangeLimits::HalfOpen(_),
            end: Some(hi),
            ..
        }) => Some((lo, hi)),
        _ => None,
    }
}

impl Reduction<'_> {
    /// The one inner loop of the prefix, if its range reads neither `var` nor a binding the
    /// prefix declares, the searched loop is not over a slice's elements, and nothing in the
    /// prefix renders as a macro (whose tokens renaming does not see).
    fn inner_loop(&self, t: Typing, var: Id) -> Option<Inner<'_>> {
        let over_elements = t
            .binds
            .iter()
            .any(|b| matches!(b.origin, Origin::Element { index, .. } if index == var));
        let loops: Vec<usize> = (0..self.prefix.len())
            .filter(|&k| matches!(self.prefix[k].kind, StmtKind::For { .. }))
            .collect();
        let [at] = loops.as_slice() else {
            return None;
        };
        let StmtKind::For {
            var: inner_var,
            range,
            body,
            ..
        } = &self.prefix[*at].kind
        else {
            return None;
        };
        let declared = nir::declared(self.prefix);
        let independent = !range.reads.contains(&var) && range.reads.is_disjoint(&declared);
        let no_vectors = !contains_zeros(self.prefix);
        (independent && no_vectors && !over_elements).then_some(Inner {
            at: *at,
            var: *inner_var,
            range: &range.syn,
            reads: &range.reads,
            body,
        })
    }
}

/// The inner loop of a jammed search.
struct Inner<'a> {
    /// Its position in the prefix.
    at: usize,
    var: Id,
    range: &'a syn::Expr,
    /// The bindings its range reads.
    reads: &'a BTreeSet<Id>,
    body: &'a [nir::Stmt],
}

/// Whether a block allocates a vector (`vec![0.0; n]`, rendered as a macro).
fn contains_zeros(stmts: &[nir::Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Let { init, .. } => matches!(init, nir::Init::Zeros { .. }),
        StmtKind::For { body, .. } | StmtKind::While { body, .. } => contains_zeros(body),
        StmtKind::If { then, els, .. } => contains_zeros(then) || contains_zeros(els),
        StmtKind::Assign { .. } | StmtKind::CallInto { .. } => false,
    })
}

/// The statements `tokens` with the bindings spelled as `copy`'s keys renamed to its values
/// (variables read and `let` or `for` patterns; not fields, methods or paths of more than one
/// segment). `None` if they hold a macro, whose tokens would escape the renaming.
fn renamed_tokens(tokens: TokenStream, copy: &HashMap<String, syn::Ident>) -> Option<TokenStream> {
    let mut block: syn::Block = syn::parse2(quote!({ #tokens })).ok()?;
    let mut macros = HasMacro(false);
    macros.visit_block(&block);
    if macros.0 {
        return None;
    }
    Rename(copy).visit_block_mut(&mut block);
    let stmts = &block.stmts;
    Some(quote!(#(#stmts)*))
}

struct Rename<'m>(&'m HashMap<String, syn::Ident>);

impl Rename<'_> {
    fn rename(&self, ident: &mut syn::Ident) {
        if let Some(new) = self.0.get(&ident.to_string()) {
            *ident = new.clone();
        }
    }
}

impl VisitMut for Rename<'_> {
    fn visit_expr_path_mut(&mut self, e: &mut syn::ExprPath) {
        if e.qself.is_none() && e.path.leading_colon.is_none() && e.path.segments.len() == 1 {
            self.rename(&mut e.path.segments[0].ident);
        }
        syn::visit_mut::visit_expr_path_mut(self, e);
    }

    fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
        self.rename(&mut p.ident);
        syn::visit_mut::visit_pat_ident_mut(self, p);
    }
}

struct HasMacro(bool);

impl Visit<'_> for HasMacro {
    fn visit_macro(&mut self, _: &syn::Macro) {
        self.0 = true;
    }
}
