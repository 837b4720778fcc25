//! Broadcast statements: an instruction or a builtin over whole slices, `x[..]`.
//!
//! `y[..] += a * x[..]` applies the element instruction `y[i] += a * x[i]` to every index of
//! the slices; an operand written without `[..]` (`a`) is the same for every element
//! (NiLang's `y .+= a .* x`). The parser lowers such a statement to a `for` loop over the
//! element statement whose range says where it comes from ([`RangeSpec::broadcast`], the
//! slices `y` and `x`), printed as
//!
//! ```text
//! for i in broadcast!(y, x) {
//!     y[i] += a * x[i];
//! }
//! ```
//!
//! so that every view of the IR — the inverse, the adjoint programs, the printed text, the
//! C++/CUDA generator, the static checks (a target among the operands, a shared write),
//! bounds hoisting — sees a loop of element instructions and derives its rule from the
//! element instruction. The loop runs from `0` to `y.len()`; the generators check, once before
//! the loop, that the slices have one length (`__private::broadcast_len` in Rust, a runtime
//! error naming each slice and its length otherwise; `nl_same_len` in C++). A loop is a
//! broadcast only by that field: no generator or check looks at the shape of its range.
//!
//! `par! { … }` around broadcast statements makes their loops parallel ([`parallel`]):
//! `for i in broadcast!(y, x).par()`, checked and run as any `for i in (0..n).par()`.
//!
//! Forms: the places an instruction or builtin changes must all be whole slices when any
//! operand is (`s += x[..]` would add every element into one scalar, a reduction: write the
//! loop), and one `[..]` per place. `[..]` in a call's argument (`g(x[..])`) keeps its Rust
//! meaning: the whole slice is passed.

use crate::ast::*;
use proc_macro2::Span;
use quote::quote;
use std::collections::BTreeSet;
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
/// is returned unchanged. Errors are the spans and messages of malformed broadcasts.
/// The loop variable is a name that no identifier of the function uses (`taken`, see
/// [`crate::names`]), so that it cannot shadow or be mistaken for a user's variable.
pub fn lower(s: Stmt, taken: &BTreeSet<String>) -> Result<Stmt, Vec<(Span, String)>> {
    if !is_broadcast(&s) {
        return Ok(s);
    }
    form_errors(&s)?;
    let var = loop_variable(&s, taken);
    let mut lowering = Lowering::new(var.clone());
    let mut element = s.clone();
    lowering.stmt(&mut element);
    if !lowering.errors.is_empty() {
        return Err(lowering.errors);
    }
    let slices: Vec<Expr> = lowering.bases.into_iter().map(|(_, base)| base).collect();
    let first = &slices[0];
    let range = RangeSpec {
        start: syn::parse_quote!(0),
        end: syn::parse_quote!(#first.len()),
        inclusive: false,
        step: None,
        rev: false,
        parallel: false,
        weight: None,
        broadcast: Some(Broadcast { slices }),
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

/// The loop of a broadcast statement written in `par! { … }`: the same loop, parallel
/// ([`RangeSpec::parallel`]; its iterations are checked and run as those of
/// `for i in (0..n).par()`). Any other statement is an error: its span and message.
pub fn parallel(mut s: Stmt) -> Result<Stmt, (Span, String)> {
    match &mut s.kind {
        StmtKind::For { var, range, body } if range.broadcast.is_some() && !range.parallel => {
            if let Some(v) = body
                .iter()
                .flat_map(changed_places)
                .find(|v| !matches!(v.path.first(), Some(Access::Index(Expr::Path(p))) if p.path.is_ident(var)))
            {
                let shown = crate::print::user_text(v, var);
                return Err((
                    v.span,
                    format!(
                        "`{shown}` is not a variable's elements: `par!` runs a broadcast in \
                         parallel when every slice it changes is a variable (`y[..]`, \
                         `z[..].re`), whose elements the iterations own\nhelp: write this \
                         statement outside `par!`, or pass the slice to a function as a \
                         parameter"
                    ),
                ));
            }
            range.parallel = true;
            Ok(s)
        }
        StmtKind::For { range, .. } if range.broadcast.is_some() => Err((
            s.span,
            "this broadcast is in `par!` twice\nhelp: write it in one `par! { … }`".to_string(),
        )),
        _ => Err((
            s.span,
            format!(
                "`par!` runs broadcast statements in parallel, and `{}` is not one: it names no \
                 whole slice `x[..]`\nhelp: write the statement outside `par!`, or, for a \
                 parallel loop, `for i in (0..n).par() {{ … }}`",
                s.source
            ),
        )),
    }
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

/// A loop variable that neither the statement nor the function (`taken`) mentions: `i`, `j`,
/// `k`, then `i1`, `i2`, ….
fn loop_variable(s: &Stmt, taken: &BTreeSet<String>) -> Ident {
    let mut mentioned = taken.clone();
    crate::names::identifiers(crate::print::stmt_tokens(s), &mut mentioned);
    let candidates = ["i", "j", "k"]
        .into_iter()
        .map(String::from)
        .chain((1..).map(|n| format!("i{n}")));
    Ident::new(
        &crate::names::unused_name(candidates, &mentioned),
        Span::call_site(),
    )
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
        let text = crate::text::expr_text(&base);
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
