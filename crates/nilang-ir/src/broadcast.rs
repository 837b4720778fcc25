//! Broadcast statements: an instruction or a builtin over whole slices, `x[..]`.
//!
//! `y[..] += a * x[..]` applies the element instruction `y[i] += a * x[i]` to every index of
//! the slices; an operand written without `[..]` (`a`) is the same for every element
//! (NiLang's `y .+= a .* x`). The parser lowers such a statement to a plain `for` loop over
//! the element statement:
//!
//! ```text
//! for i in 0..::nilang::__private::broadcast_len("f", "y[..] += a * x[..]", &[("y", y.len()), ("x", x.len())]) {
//!     y[i] += a * x[i];
//! }
//! ```
//!
//! so that every view of the IR — the inverse, the adjoint programs, the printed text, the
//! C++/CUDA generator, the static checks (a target among the operands, a shared write),
//! bounds hoisting — sees a loop of element instructions and derives its rule from the
//! element instruction. The range's end checks, once before the loop, that the slices have one
//! length (a runtime error naming each slice and its length otherwise).
//!
//! Forms: the places an instruction or builtin changes must all be whole slices when any
//! operand is (`s += x[..]` would add every element into one scalar, a reduction: write the
//! loop), and one `[..]` per place. `[..]` in a call's argument (`g(x[..])`) keeps its Rust
//! meaning: the whole slice is passed.

use crate::ast::*;
use proc_macro2::Span;
use quote::quote;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident};

/// Is this index `..`, the whole slice?
pub fn is_whole_slice(index: &Expr) -> bool {
    matches!(index, Expr::Range(r)
        if r.start.is_none() && r.end.is_none() && matches!(r.limits, syn::RangeLimits::HalfOpen(_)))
}

/// Does the statement name a whole slice `x[..]` in a place it changes or reads?
pub fn is_broadcast(s: &Stmt) -> bool {
    let mut probe = Lowering::new(Ident::new("__probe", Span::call_site()));
    probe.stmt(&mut s.clone());
    !probe.bases.is_empty() || !probe.errors.is_empty()
}

/// Lowers a broadcast statement to its loop (see the module doc); a statement without `[..]`
/// is returned unchanged. `function` names the function in the runtime length error.
/// Errors are the spans and messages of malformed broadcasts.
pub fn lower(s: Stmt, function: &str) -> Result<Stmt, Vec<(Span, String)>> {
    if !is_broadcast(&s) {
        return Ok(s);
    }
    form_errors(&s)?;
    let var = loop_variable(&s);
    let mut lowering = Lowering::new(var.clone());
    let mut element = s.clone();
    lowering.stmt(&mut element);
    if !lowering.errors.is_empty() {
        return Err(lowering.errors);
    }
    let names = lowering.bases.iter().map(|(name, _)| name);
    let lens = lowering.bases.iter().map(|(_, base)| base);
    let source = &s.source;
    let end: Expr = syn::parse_quote!(::nilang::__private::broadcast_len(
        #function, #source, &[#((#names, #lens.len())),*]
    ));
    let range = RangeSpec {
        start: syn::parse_quote!(0),
        end,
        inclusive: false,
        step: None,
        rev: false,
        parallel: false,
        weight: None,
    };
    Ok(Stmt {
        kind: StmtKind::For {
            var,
            range,
            body: vec![element],
        },
        span: s.span,
        source: s.source,
    })
}

/// The index variable of a loop made by [`lower`] (recognised by its range's end, the call of
/// `broadcast_len`); `None` for any other statement.
pub fn loop_index(s: &Stmt) -> Option<&Ident> {
    match &s.kind {
        StmtKind::For { var, range, .. } => slice_lengths(&range.end).map(|_| var),
        _ => None,
    }
}

/// The lengths a broadcast loop's end checks (`y.len()`, `x.len()`), when `end` is the call of
/// `broadcast_len` that [`lower`] writes; `None` for any other expression.
pub fn slice_lengths(end: &Expr) -> Option<Vec<&Expr>> {
    let Expr::Call(c) = end else { return None };
    let Expr::Path(p) = &*c.func else { return None };
    let names: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    if names != ["nilang", "__private", "broadcast_len"] {
        return None;
    }
    let Some(Expr::Reference(r)) = c.args.last() else {
        return None;
    };
    let Expr::Array(pairs) = &*r.expr else {
        return None;
    };
    pairs
        .elems
        .iter()
        .map(|pair| match pair {
            Expr::Tuple(t) if t.elems.len() == 2 => Some(&t.elems[1]),
            _ => None,
        })
        .collect()
}

/// A dataview of an element statement as the user wrote it: `[var]` shown as `[..]`.
pub fn user_text(v: &Dataview, var: &Ident) -> String {
    let mut shown = v.clone();
    for a in &mut shown.path {
        if matches!(a, Access::Index(Expr::Path(p)) if p.path.is_ident(var)) {
            *a = Access::Index(syn::parse_quote!(..));
        }
    }
    shown.text()
}

/// The places a statement changes: an instruction's target, a builtin's places (for a
/// routine made by `expand!`, those of the statements that use the computed ancillas).
fn changed_places(s: &Stmt) -> Vec<&Dataview> {
    match &s.kind {
        StmtKind::Instr(i) => vec![&i.target],
        StmtKind::XorExpr { target, .. } => vec![target],
        StmtKind::Builtin { args, .. } => args.iter().collect(),
        StmtKind::Routine { body, .. } => body.iter().flat_map(changed_places).collect(),
        _ => Vec::new(),
    }
}

fn has_whole_slice(v: &Dataview) -> bool {
    v.path
        .iter()
        .any(|a| matches!(a, Access::Index(e) if is_whole_slice(e)))
}

/// Every place a broadcast changes must be a whole slice.
fn form_errors(s: &Stmt) -> Result<(), Vec<(Span, String)>> {
    let mut probe = Lowering::new(Ident::new("i", Span::call_site()));
    probe.stmt(&mut s.clone());
    let slice = probe
        .bases
        .first()
        .map_or("x".to_string(), |(t, _)| t.clone());
    let errors: Vec<(Span, String)> = changed_places(s)
        .into_iter()
        .filter(|v| !has_whole_slice(v))
        .map(|v| {
            let name = v.text();
            let help = match &s.kind {
                StmtKind::Builtin { op, .. } => format!(
                    "write `{name}[..]`: a broadcast `{}` changes each element of every place \
                     it is given",
                    op.name()
                ),
                _ => format!(
                    "write `{name}[..]` to apply the statement to each element of `{name}`; to \
                     accumulate a slice into one place (a reduction), write the loop: \
                     `for i in 0..{slice}.len() {{ {name} += … {slice}[i] …; }}`"
                ),
            };
            (
                v.span,
                format!(
                    "`{name}` is not a whole slice, but this statement names whole slices \
                     (`{slice}[..]`): a broadcast changes every element of the slices it \
                     writes\nhelp: {help}"
                ),
            )
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// A loop variable the statement does not mention: `i`, `j`, `k`, then `i1`, `i2`, ….
fn loop_variable(s: &Stmt) -> Ident {
    let mut mentioned = std::collections::HashSet::new();
    collect_idents(crate::print::stmt_tokens(s), &mut mentioned);
    let candidates = ["i", "j", "k"]
        .into_iter()
        .map(String::from)
        .chain((1..).map(|n| format!("i{n}")));
    let name = candidates
        .into_iter()
        .find(|c| !mentioned.contains(c))
        .expect("an unused name");
    Ident::new(&name, Span::call_site())
}

fn collect_idents(ts: proc_macro2::TokenStream, out: &mut std::collections::HashSet<String>) {
    for t in ts {
        match t {
            proc_macro2::TokenTree::Ident(i) => {
                out.insert(i.to_string());
            }
            proc_macro2::TokenTree::Group(g) => collect_idents(g.stream(), out),
            _ => {}
        }
    }
}

/// Replaces every `[..]` of a statement by `[var]`, recording the slices (their text and
/// expression, each once).
struct Lowering {
    var: Ident,
    bases: Vec<(String, Expr)>,
    errors: Vec<(Span, String)>,
}

impl Lowering {
    fn new(var: Ident) -> Lowering {
        Lowering {
            var,
            bases: Vec::new(),
            errors: Vec::new(),
        }
    }

    fn record(&mut self, base: Expr) {
        let text = crate::print::expr_text(&base);
        if !self.bases.iter().any(|(t, _)| *t == text) {
            self.bases.push((text, base));
        }
    }

    fn index(&self) -> Expr {
        let var = &self.var;
        syn::parse_quote!(#var)
    }

    fn stmt(&mut self, s: &mut Stmt) {
        match &mut s.kind {
            StmtKind::Instr(i) => {
                self.view(&mut i.target);
                i.args.iter_mut().for_each(|a| self.operand(a));
            }
            StmtKind::XorExpr { target, expr } => {
                self.view(target);
                self.visit_expr_mut(expr);
            }
            StmtKind::Builtin { args, operand, .. } => {
                args.iter_mut().for_each(|v| self.view(v));
                operand.iter_mut().for_each(|a| self.operand(a));
            }
            StmtKind::Alloc(bindings) | StmtKind::Dealloc(bindings) => {
                for b in bindings {
                    self.visit_expr_mut(&mut b.value);
                }
            }
            StmtKind::Routine { compute, body } => {
                compute.iter_mut().for_each(|s| self.stmt(s));
                body.iter_mut().for_each(|s| self.stmt(s));
            }
            // not lowered: calls pass `x[..]` as the whole slice
            _ => {}
        }
    }

    fn operand(&mut self, o: &mut Operand) {
        match o {
            Operand::View(v) => self.view(v),
            Operand::Const(e) => self.visit_expr_mut(e),
        }
    }

    fn view(&mut self, v: &mut Dataview) {
        let whole: Vec<usize> = (0..v.path.len())
            .filter(|&k| matches!(&v.path[k], Access::Index(e) if is_whole_slice(e)))
            .collect();
        let Some(&k) = whole.first() else { return };
        if whole.len() > 1 {
            self.errors.push((
                v.span,
                format!(
                    "`{}` takes whole slices twice: a broadcast runs over one index\n\
                     help: keep one `[..]` and index the other level (`m[k][..]`), or write \
                     nested `for` loops",
                    v.text()
                ),
            ));
            return;
        }
        let base = Dataview {
            root: v.root.clone(),
            path: v.path[..k].to_vec(),
            span: v.span,
        };
        let tokens = crate::print::view_tokens(&base);
        self.record(syn::parse2(quote!(#tokens)).expect("a dataview is an expression"));
        v.path[k] = Access::Index(self.index());
    }
}

impl VisitMut for Lowering {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Index(ix) = e {
            if is_whole_slice(&ix.index) {
                self.visit_expr_mut(&mut ix.expr);
                self.record((*ix.expr).clone());
                *ix.index = self.index();
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}
