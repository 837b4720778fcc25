//! From `syn` to the IR: the preprocessing stage of the papers.
//!
//! `routine! { A } X uncompute!()` becomes one [`StmtKind::Routine`] node (`A X ~A`), and so
//! does a nested right-hand side inside `expand! { … }` (or a function marked
//! `#[i(expand)]`): ancillas computed, used by the instruction and uncomputed. Other shortcuts
//! are expanded here: `reverse! { A }` becomes `~A`, a tuple target `(s, c) += sincos(x)`
//! becomes two instructions.
//!
//! Errors are accumulated so that the user sees every problem of a function at once; each
//! error points at the user's tokens and says how to fix it.

mod call;
mod control;
mod instr;
mod macros;

use crate::ast::*;
use crate::constructors::{parse_fields, Parsed};
pub use crate::diag::Errors;
pub use crate::options::Options;
use crate::reverse::reverse_block;
use crate::text::tokens_text;
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr, Ident};

/// A function in the IR with the errors found while parsing it: every construct that could
/// be read is in `function`, so that the checker (`crate::lower`) can add its own errors and
/// the user sees them all at once.
pub struct ParsedFunction {
    /// The function, as far as it could be read.
    pub function: Function,
    /// What could not be read.
    pub errors: Errors,
}

/// Parses a function carrying the `#[i]` attribute (already removed) into the IR, without
/// checking it: [`crate::lower()`] parses and checks.
pub fn parse_function(options: &Options, item: syn::ItemFn) -> ParsedFunction {
    parse_signature_and_body(options, item.attrs, item.vis, item.sig, &item.block)
}

/// Parses a method of an `impl` block into the IR, without checking it
/// ([`crate::lower::lower_method`] parses and checks).
pub fn parse_method(options: &Options, item: syn::ImplItemFn) -> ParsedFunction {
    parse_signature_and_body(options, item.attrs, item.vis, item.sig, &item.block)
}

fn parse_signature_and_body(
    options: &Options,
    attrs: Vec<syn::Attribute>,
    vis: syn::Visibility,
    sig: syn::Signature,
    block: &syn::Block,
) -> ParsedFunction {
    let mut errors = Errors::default();
    crate::names::reserved_names(&sig, block, &mut errors);
    if let syn::ReturnType::Type(_, ty) = &sig.output {
        errors.spanned(
            &ty,
            "a reversible function returns nothing: its outputs are its `&mut` arguments, \
             changed in place; remove the return type",
        );
    }
    let mut params = Vec::new();
    for input in &sig.inputs {
        match input {
            syn::FnArg::Receiver(r) => {
                let kind = if r.reference.is_none() {
                    ParamKind::Value
                } else if r.mutability.is_some() {
                    ParamKind::MutRef
                } else {
                    ParamKind::SharedRef
                };
                params.push(Param {
                    name: Ident::new("self", r.self_token.span),
                    kind,
                });
            }
            syn::FnArg::Typed(pt) => {
                let name = match &*pt.pat {
                    syn::Pat::Ident(pi) => pi.ident.clone(),
                    other => {
                        errors.spanned(
                            &other,
                            "parameters of a reversible function must be plain names (`x: &mut T`)",
                        );
                        continue;
                    }
                };
                let kind = match &*pt.ty {
                    syn::Type::Reference(r) if r.mutability.is_some() => ParamKind::MutRef,
                    syn::Type::Reference(_) => ParamKind::SharedRef,
                    _ => ParamKind::Value,
                };
                params.push(Param { name, kind });
            }
        }
    }
    let inverse_name = options
        .inverse
        .clone()
        .unwrap_or_else(|| Ident::new(&format!("{}_inv", sig.ident), sig.ident.span()));
    let state_names = params
        .iter()
        .filter(|p| p.kind == ParamKind::MutRef)
        .map(|p| p.name.to_string())
        .collect();
    let mut names = std::collections::BTreeSet::new();
    crate::names::identifiers(sig.to_token_stream(), &mut names);
    crate::names::identifiers(block.to_token_stream(), &mut names);
    let mut parser = Parser {
        errors: &mut errors,
        expand: options.expand,
        temp_counter: 0,
        state_names,
        names,
        params: params.clone(),
        functions: crate::fn_params::function_params(&sig)
            .into_iter()
            .map(|p| p.name)
            .collect(),
    };
    let body = parser.block(&block.stmts);
    let function = Function {
        attrs,
        vis,
        sig,
        inverse_name,
        checked: !options.nocheck,
        params,
        body,
    };
    ParsedFunction { function, errors }
}

struct Parser<'a> {
    errors: &'a mut Errors,
    expand: bool,
    temp_counter: usize,
    /// Names of state: `&mut` parameters and every ancilla allocated so far. An expression
    /// that mentions none of them is a constant operand, however it is computed.
    state_names: std::collections::HashSet<String>,
    /// Every identifier of the function as written: the loops the parser writes for the user
    /// take names outside it ([`crate::names`]).
    names: std::collections::BTreeSet<String>,
    /// The parameters, and those that are reversible functions ([`crate::fn_params`]).
    params: Vec<Param>,
    functions: Vec<Ident>,
}

fn stmt(kind: StmtKind, tokens: &dyn ToTokens) -> Stmt {
    let ts = tokens.to_token_stream();
    let source = match &kind {
        StmtKind::If { .. }
        | StmtKind::While { .. }
        | StmtKind::For { .. }
        | StmtKind::NoCheck(_)
        | StmtKind::Routine { .. } => crate::print::header_text(&kind),
        _ => crate::text::pretty_stmt_text(&ts).unwrap_or_else(|| tokens_text(&ts)),
    };
    Stmt {
        kind,
        span: spanned_of(&ts),
        source,
    }
}

fn spanned_of(ts: &TokenStream) -> Span {
    let mut it = ts.clone().into_iter();
    let first = match it.next() {
        Some(t) => t.span(),
        None => return Span::call_site(),
    };
    match ts.clone().into_iter().last() {
        Some(last) => first.join(last.span()).unwrap_or(first),
        None => first,
    }
}

/// The statements of a block being parsed, and the routines opened in it (`routine! { P }`)
/// whose `uncompute!()` has not come yet: statements go into the innermost open routine.
#[derive(Default)]
struct Sink {
    done: Vec<Stmt>,
    /// For each open routine: its statement (for the span), its computation, its body so far.
    open: Vec<(Stmt, Vec<Stmt>)>,
}

impl Sink {
    fn open_routine(&mut self, compute: Vec<Stmt>, whole: &dyn ToTokens) {
        let routine = StmtKind::Routine {
            compute,
            body: Vec::new(),
        };
        self.open.push((stmt(routine, whole), Vec::new()));
    }

    /// Closes the innermost open routine into one statement; `false` when none is open.
    fn close_routine(&mut self) -> bool {
        let Some((mut routine, statements)) = self.open.pop() else {
            return false;
        };
        if let StmtKind::Routine { body, .. } = &mut routine.kind {
            *body = statements;
        }
        self.push(routine);
        true
    }

    /// The block: a routine never uncomputed leaves its computation and body as written.
    fn finish(mut self) -> Vec<Stmt> {
        while let Some((routine, statements)) = self.open.pop() {
            if let StmtKind::Routine { compute, .. } = routine.kind {
                self.extend(compute);
                self.extend(statements);
            }
        }
        self.done
    }
}

impl std::ops::Deref for Sink {
    type Target = Vec<Stmt>;
    fn deref(&self) -> &Vec<Stmt> {
        self.open.last().map_or(&self.done, |(_, body)| body)
    }
}

impl std::ops::DerefMut for Sink {
    fn deref_mut(&mut self) -> &mut Vec<Stmt> {
        match self.open.last_mut() {
            Some((_, body)) => body,
            None => &mut self.done,
        }
    }
}

impl Parser<'_> {
    /// Parses a block of statements; `routine! { P } X uncompute!();` becomes one
    /// [`StmtKind::Routine`] node.
    fn block(&mut self, stmts: &[syn::Stmt]) -> Vec<Stmt> {
        let mut out = Sink::default();
        for s in stmts {
            self.statement(s, &mut out);
        }
        out.finish()
    }

    fn statement(&mut self, s: &syn::Stmt, out: &mut Sink) {
        match s {
            syn::Stmt::Local(local) => self.local(local, out),
            syn::Stmt::Item(item) => self.errors.spanned(
                &item,
                "items cannot be declared inside a reversible function; move them outside",
            ),
            syn::Stmt::Macro(m) => self.macro_stmt(&m.mac, s, out),
            syn::Stmt::Expr(e, _) => self.expr_stmt(e, s, out),
        }
    }

    fn local(&mut self, local: &syn::Local, out: &mut Vec<Stmt>) {
        let init = local.init.as_ref().filter(|i| i.diverge.is_none());
        if let Some(parsed) = init.and_then(|i| parse_fields(&local.pat, &i.expr)) {
            return self.fields(parsed, local, out);
        }
        let bindings = match &local.init {
            None => {
                self.errors.spanned(
                    &local,
                    format!(
                        "an ancilla needs a known initial value: write `let {} = value;`",
                        tokens_text(&local.pat.to_token_stream())
                    ),
                );
                None
            }
            Some(init) if init.diverge.is_some() => {
                let (_, diverge) = init.diverge.as_ref().unwrap();
                self.errors
                    .spanned(&diverge, "`let … else` is not reversible");
                None
            }
            Some(init) => self.bindings(&local.pat, &init.expr),
        };
        // After an error the names are still declared, so that their uses and their
        // `dealloc!` do not report the same mistake again.
        let bindings = bindings.unwrap_or_else(|| placeholder_bindings(&local.pat));
        self.state_names
            .extend(bindings.iter().map(|b| b.name.to_string()));
        if !bindings.is_empty() {
            out.push(stmt(StmtKind::Alloc(bindings), local));
        }
    }

    /// A reversible constructor or destructor (`crate::constructors`).
    fn fields(&mut self, parsed: Parsed, local: &syn::Local, out: &mut Vec<Stmt>) {
        if let Some(e) = parsed.errors {
            self.errors.add(e);
        }
        if let Some(f) = parsed.fields {
            let created = f.created().into_iter().map(Ident::to_string);
            self.state_names.extend(created);
            out.push(stmt(StmtKind::Fields(f), local));
        }
    }

    /// Pairs the names of a `let` pattern (or of a `dealloc!` left side) with values.
    fn bindings(&mut self, pat: &syn::Pat, value: &Expr) -> Option<Vec<Binding>> {
        match pat {
            syn::Pat::Ident(pi) => Some(vec![Binding {
                name: pi.ident.clone(),
                ty: None,
                value: value.clone(),
            }]),
            syn::Pat::Type(pt) => {
                let mut b = self.bindings(&pt.pat, value)?;
                if b.len() == 1 {
                    b[0].ty = Some((*pt.ty).clone());
                    Some(b)
                } else {
                    self.errors
                        .spanned(&pt, "write the types of several ancillas one by one");
                    None
                }
            }
            syn::Pat::Tuple(tp) => {
                let Expr::Tuple(values) = value else {
                    self.errors.spanned(
                        &value,
                        "several ancillas take a tuple of values: `let (a, b) = (x, y);`",
                    );
                    return None;
                };
                if values.elems.len() != tp.elems.len() {
                    self.errors.spanned(
                        &value,
                        format!(
                            "{} ancillas but {} values: give one value per ancilla",
                            tp.elems.len(),
                            values.elems.len()
                        ),
                    );
                    return None;
                }
                let mut all = Vec::new();
                for (p, v) in tp.elems.iter().zip(values.elems.iter()) {
                    all.extend(self.bindings(p, v)?);
                }
                Some(all)
            }
            other => {
                self.errors.spanned(
                    &other,
                    "an ancilla is a plain name or a tuple of names: `let x = 0.0;`",
                );
                None
            }
        }
    }

    fn expr_stmt(&mut self, e: &Expr, whole: &dyn ToTokens, out: &mut Sink) {
        match e {
            Expr::Binary(b) => self.instruction(b, whole, out),
            Expr::Assign(a) => self.errors.push(
                a.eq_token.span,
                "assignment `=` is not reversible: accumulate with `y += identity(x)` \
                 into a zero-initialised ancilla, or allocate one with `let y = x;`",
            ),
            Expr::Return(r) => self.errors.spanned(
                &r,
                "`return` is not allowed in a reversible function: control must reach the end \
                 so the program can run backwards; restructure with `if`",
            ),
            Expr::Break(b) => self.errors.spanned(
                &b,
                "`break` is not reversible: use `while (pre, post)` with an explicit condition",
            ),
            Expr::Continue(c) => self.errors.spanned(
                &c,
                "`continue` is not reversible: put the rest of the body under an `if`",
            ),
            Expr::Loop(l) => self.errors.push(
                l.loop_token.span,
                "`loop` is not reversible: use `while (pre, post) { … }` with a postcondition",
            ),
            Expr::If(i) => {
                if let Some(s) = self.if_stmt(i, whole) {
                    out.push(s)
                }
            }
            Expr::While(w) => self.while_stmt(w, whole, out),
            Expr::ForLoop(f) => self.for_stmt(f, whole, out),
            Expr::Call(_) | Expr::MethodCall(_) => {
                if let Some(s) = self.call_or_builtin(e, whole, false) {
                    out.push(s)
                }
            }
            Expr::Macro(m) => self.macro_stmt(&m.mac, whole, out),
            Expr::Paren(p) => self.expr_stmt(&p.expr, whole, out),
            other => self.errors.spanned(
                &other,
                "not a statement of the reversible language: expected an instruction \
                 (`y += f(x)`), a call, `let`, `dealloc!`, `if`, `while`, `for`, or a macro \
                 statement (`routine!`, `uncompute!`, `reverse!`, `uncall!`, `push!`, `pop!`, \
                 `safe!`, `nocheck!`, `expand!`)",
            ),
        }
    }

    fn dataview(&self, e: &Expr) -> Option<Dataview> {
        dataview(e)
    }
}

/// The names of a pattern, each bound to a placeholder value: what a malformed `let` or
/// `dealloc!` declares so that the checks after it do not cascade. Never generated, since
/// the function already has an error.
fn placeholder_bindings(pat: &syn::Pat) -> Vec<Binding> {
    match pat {
        syn::Pat::Ident(pi) => {
            vec![Binding {
                name: pi.ident.clone(),
                ty: None,
                value: syn::parse_quote!(()),
            }]
        }
        syn::Pat::Type(pt) => placeholder_bindings(&pt.pat),
        syn::Pat::Paren(pp) => placeholder_bindings(&pp.pat),
        syn::Pat::Tuple(tp) => tp.elems.iter().flat_map(placeholder_bindings).collect(),
        _ => Vec::new(),
    }
}

/// The single identifier of a path expression, if it is one.
fn path_ident(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) if p.path.segments.len() == 1 && p.qself.is_none() => {
            Some(p.path.segments[0].ident.to_string())
        }
        _ => None,
    }
}

/// Does the expression mention an identifier spelled `name`?
fn mentions_name(e: &Expr, name: &str) -> bool {
    fn walk(ts: TokenStream, name: &str) -> bool {
        ts.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => i == name,
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), name),
            _ => false,
        })
    }
    walk(e.to_token_stream(), name)
}

/// Does the expression mention the identifier?
fn mentions(e: &Expr, id: &Ident) -> bool {
    fn walk(ts: TokenStream, id: &Ident) -> bool {
        ts.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => &i == id,
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), id),
            _ => false,
        })
    }
    walk(e.to_token_stream(), id)
}

/// Parses a dataview: `x`, `*x`, `self`, `x.f`, `x[i]`, and chains of them; `None` for any
/// other expression.
pub fn dataview(e: &Expr) -> Option<Dataview> {
    let span = e.span();
    let mut path = Vec::new();
    let mut cur = e;
    loop {
        match cur {
            Expr::Paren(p) => cur = &p.expr,
            Expr::Group(g) => cur = &g.expr,
            Expr::Unary(syn::ExprUnary {
                op: syn::UnOp::Deref(_),
                expr,
                ..
            }) if path.is_empty() => cur = expr,
            Expr::Field(f) => {
                path.push(Access::Field(f.member.clone()));
                cur = &f.base;
            }
            Expr::Index(i) => {
                path.push(Access::Index((*i.index).clone()));
                cur = &i.expr;
            }
            Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
                let seg = &p.path.segments[0];
                if !seg.arguments.is_empty() {
                    return None;
                }
                path.reverse();
                return Some(Dataview {
                    root: seg.ident.clone(),
                    path,
                    span,
                });
            }
            _ => return None,
        }
    }
}
