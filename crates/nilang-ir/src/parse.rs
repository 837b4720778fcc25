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

    fn instruction(&mut self, b: &syn::ExprBinary, whole: &dyn ToTokens, out: &mut Vec<Stmt>) {
        let op = match b.op {
            syn::BinOp::AddAssign(_) => AccOp::Add,
            syn::BinOp::SubAssign(_) => AccOp::Sub,
            syn::BinOp::BitXorAssign(_) => AccOp::Xor,
            syn::BinOp::MulAssign(_) => AccOp::Mul,
            syn::BinOp::DivAssign(_) => AccOp::Div,
            syn::BinOp::RemAssign(_)
            | syn::BinOp::BitAndAssign(_)
            | syn::BinOp::BitOrAssign(_)
            | syn::BinOp::ShlAssign(_)
            | syn::BinOp::ShrAssign(_) => {
                self.errors.spanned(
                    &b.op,
                    "this compound assignment is not reversible: the instructions are \
                     `+=`, `-=`, `^=` (and `*=`, `/=` for multiplicative number systems)",
                );
                return;
            }
            _ => {
                self.errors.spanned(
                    &b,
                    "an expression is not a statement: write an instruction such as `y += f(x)`",
                );
                return;
            }
        };
        // Tuple targets: `(s, c) += sincos(x)`.
        if let Expr::Tuple(t) = &*b.left {
            self.tuple_instruction(t, op, &b.right, whole, out);
            return;
        }
        let Some(target) = self.dataview(&b.left) else {
            self.errors.spanned(
                &b.left,
                "the target of an instruction must be a dataview: a variable, a field (`z.re`), \
                 an element (`x[i]`) or a chain of them",
            );
            return;
        };
        if op == AccOp::Xor {
            let expr = match &*b.right {
                Expr::Call(c)
                    if path_ident(&c.func).as_deref() == Some("identity") && c.args.len() == 1 =>
                {
                    c.args[0].clone()
                }
                other => other.clone(),
            };
            if mentions(&expr, &target.root) && !target.has_index() {
                self.errors.spanned(
                    &expr,
                    format!(
                        "the right-hand side of `^=` reads its own target `{}`: the instruction \
                         would not be its own inverse; xor into another variable",
                        target.root
                    ),
                );
                return;
            }
            let xor = stmt(StmtKind::XorExpr { target, expr }, whole);
            out.extend(self.lowered(xor));
            return;
        }
        let mut pre = Vec::new();
        let Some((prim, args)) = self.rhs(&b.right, &target, &mut pre) else {
            return;
        };
        let instr = stmt(
            StmtKind::Instr(Instr {
                target,
                op,
                prim,
                args,
            }),
            whole,
        );
        if pre.is_empty() {
            out.extend(self.lowered(instr));
        } else {
            // compute the ancillas, use them, uncompute them.
            let routine = StmtKind::Routine {
                compute: pre,
                body: vec![instr],
            };
            let routine = stmt(routine, whole);
            out.extend(self.lowered(routine));
        }
    }

    /// The statement, or its loop when it is a broadcast over whole slices (`y[..] += x[..]`,
    /// [`crate::broadcast`]); `None` after an error.
    fn lowered(&mut self, s: Stmt) -> Option<Stmt> {
        match crate::broadcast::lower(s, &self.names) {
            Ok(s) => Some(s),
            Err(errors) => {
                for (span, message) in errors {
                    self.errors.push(span, message);
                }
                None
            }
        }
    }

    fn tuple_instruction(
        &mut self,
        t: &syn::ExprTuple,
        op: AccOp,
        rhs: &Expr,
        whole: &dyn ToTokens,
        out: &mut Vec<Stmt>,
    ) {
        let parts: &[&str] = match rhs {
            Expr::Call(c) if path_ident(&c.func).as_deref() == Some("sincos") => &["sin", "cos"],
            _ => {
                self.errors.spanned(
                    &rhs,
                    "a tuple target takes a primitive with several results; the built-in one is \
                     `(s, c) += sincos(x)`",
                );
                return;
            }
        };
        let Expr::Call(c) = rhs else { unreachable!() };
        if t.elems.len() != parts.len() || c.args.len() != 1 || op == AccOp::Xor {
            self.errors.spanned(
                &t,
                "`sincos` takes one operand and fills two targets: `(s, c) += sincos(x)`",
            );
            return;
        }
        for (elem, name) in t.elems.iter().zip(parts) {
            let Some(target) = self.dataview(elem) else {
                self.errors
                    .spanned(&elem, "each element of a tuple target must be a dataview");
                return;
            };
            let info = primitive(name).expect("sin and cos are primitives");
            let arg = self.operand(&c.args[0], &target, &mut Vec::new());
            let Some(arg) = arg else { return };
            let instr = stmt(
                StmtKind::Instr(Instr {
                    target,
                    op,
                    prim: Prim::Builtin(info),
                    args: vec![arg],
                }),
                whole,
            );
            out.extend(self.lowered(instr));
        }
    }

    /// Parses a right-hand side into a primitive and its operands. In expand mode, nested
    /// operands are computed into ancillas appended to `pre`.
    fn rhs(
        &mut self,
        e: &Expr,
        target: &Dataview,
        pre: &mut Vec<Stmt>,
    ) -> Option<(Prim, Vec<Operand>)> {
        match e {
            Expr::Paren(p) => self.rhs(&p.expr, target, pre),
            Expr::Group(g) => self.rhs(&g.expr, target, pre),
            Expr::Binary(b) => {
                let sym = b.op.to_token_stream().to_string();
                let Some(info) = infix_primitive(&sym) else {
                    // Any other operator (`n % 2`, `a & b`, `i << 1`) is a constant operand:
                    // computed from read-only values, accumulated with `identity`.
                    if mentions(e, &target.root) {
                        self.errors.spanned(
                            e,
                            format!(
                                "`{sym}` is not a primitive, and this expression reads the target \
                                 `{}`: the infix primitives are `*`, `/`, `+`, `-`",
                                target.root
                            ),
                        );
                        return None;
                    }
                    return Some((
                        Prim::Builtin(primitive("identity").unwrap()),
                        vec![Operand::Const(e.clone())],
                    ));
                };
                let l = self.operand(&b.left, target, pre)?;
                let r = self.operand(&b.right, target, pre)?;
                Some((Prim::Builtin(info), vec![l, r]))
            }
            Expr::Unary(syn::ExprUnary {
                op: syn::UnOp::Neg(_),
                expr,
                ..
            }) => {
                let x = self.operand(expr, target, pre)?;
                Some((Prim::Builtin(primitive("neg").unwrap()), vec![x]))
            }
            Expr::Call(c) => {
                let Some(prim) = self.prim_of(&c.func) else {
                    return None;
                };
                if let Prim::Builtin(info) = &prim {
                    if info.arity != c.args.len() {
                        self.errors.spanned(
                            &c,
                            format!(
                                "`{}` takes {} operand{}, found {}",
                                info.name,
                                info.arity,
                                if info.arity == 1 { "" } else { "s" },
                                c.args.len()
                            ),
                        );
                        return None;
                    }
                }
                let mut args = Vec::new();
                for a in &c.args {
                    args.push(self.operand(a, target, pre)?);
                }
                Some((prim, args))
            }
            // `y += x` is `y += identity(x)`.
            other => {
                let x = self.operand(other, target, pre)?;
                Some((Prim::Builtin(primitive("identity").unwrap()), vec![x]))
            }
        }
    }

    fn prim_of(&mut self, func: &Expr) -> Option<Prim> {
        let Expr::Path(p) = func else {
            self.errors
                .spanned(&func, "expected the name of a primitive");
            return None;
        };
        let last = p.path.segments.last().unwrap().ident.to_string();
        if last.starts_with(|c: char| c.is_ascii_uppercase()) {
            return Some(Prim::User(p.path.clone()));
        }
        if p.path.segments.len() == 1 {
            if let Some(info) = primitive(&last) {
                return Some(Prim::Builtin(info));
            }
        }
        let names: Vec<&str> = PRIMITIVES.iter().map(|p| p.name).collect();
        self.errors.spanned(
            &func,
            format!(
                "unknown primitive `{last}`: the primitives are {}; for your own, implement \
                 `nilang::Unary` or `nilang::Binary` for a type `MyPrim` and write `y += MyPrim(x)`",
                names.join(", ")
            ),
        );
        None
    }

    /// Is this expression a nested computation (a primitive application)? A primitive applied
    /// to values that are not state (`exp(q[0])` of a read-only `q`) is one too: the language
    /// names its primitives as functions, and plain Rust has no function `exp`.
    fn is_nested(&self, e: &Expr) -> bool {
        if !self.state_names.iter().any(|n| mentions_name(e, n)) {
            return self.is_primitive_call(e);
        }
        match e {
            Expr::Paren(p) => self.is_nested(&p.expr),
            Expr::Binary(b) => infix_primitive(&b.op.to_token_stream().to_string()).is_some(),
            Expr::Unary(syn::ExprUnary {
                op: syn::UnOp::Neg(_),
                expr,
                ..
            }) => !matches!(&**expr, Expr::Lit(_)),
            Expr::Call(_) => self.is_primitive_call(e),
            _ => false,
        }
    }

    /// `p(…)` for a primitive `p` of the language (`exp`, `sqrt`, …; `sincos`), possibly in
    /// parentheses.
    fn is_primitive_call(&self, e: &Expr) -> bool {
        match e {
            Expr::Paren(p) => self.is_primitive_call(&p.expr),
            Expr::Call(c) => match &*c.func {
                Expr::Path(p) if p.path.segments.len() == 1 && p.qself.is_none() => {
                    let n = p.path.segments[0].ident.to_string();
                    primitive(&n).is_some() || n == "sincos"
                }
                _ => false,
            },
            _ => false,
        }
    }

    fn operand(&mut self, e: &Expr, target: &Dataview, pre: &mut Vec<Stmt>) -> Option<Operand> {
        if self.is_primitive_method(e) {
            return None;
        }
        if self.is_nested(e) {
            if !self.expand {
                self.errors.spanned(
                    &e,
                    "the right-hand side of an instruction must be a single primitive applied \
                     to variables (`y += a * b`); split it into instructions on ancillas, or \
                     wrap the statement in `expand! { … }` to have the ancillas generated",
                );
                return None;
            }
            // expand: t ← zero; t += e; (the caller uncomputes `pre` afterwards)
            self.temp_counter += 1;
            let name = Ident::new(&format!("__nested{}", self.temp_counter), e.span());
            let mut inner = Vec::new();
            let temp = Dataview {
                root: name.clone(),
                path: vec![],
                span: e.span(),
            };
            let (prim, args) = self.rhs(e, &temp, &mut inner)?;
            let zero = crate::zeros::zero_like_expr(target);
            let alloc = Binding {
                name: name.clone(),
                ty: None,
                value: zero,
            };
            pre.push(stmt(StmtKind::Alloc(vec![alloc]), e));
            pre.extend(inner);
            pre.push(stmt(
                StmtKind::Instr(Instr {
                    target: temp.clone(),
                    op: AccOp::Add,
                    prim,
                    args,
                }),
                e,
            ));
            return Some(Operand::View(temp));
        }
        match self.dataview(e) {
            Some(v) => Some(Operand::View(v)),
            None => Some(Operand::Const(e.clone())),
        }
    }

    /// Reports a primitive written as a Rust method of a place of the state (`x.sin()`,
    /// `x[i].ln()`, `x.powi(2)`): read as a constant operand, it would fail in rustc with trait
    /// bounds that lead nowhere, so say how the language writes it.
    fn is_primitive_method(&mut self, e: &Expr) -> bool {
        let Expr::MethodCall(m) = e else {
            return false;
        };
        let Some(prim) = primitive_of_method(&m.method.to_string()) else {
            return false;
        };
        if primitive(prim).map(|p| p.arity) != Some(1 + m.args.len()) {
            return false;
        }
        // a place of the program's state (`x`, `x[i]`, `z.re`); `x.val().abs()` reads a value
        let Some(place) = self.dataview(&m.receiver) else {
            return false;
        };
        if !self.state_names.contains(&place.root.to_string()) {
            return false;
        }
        let operands: Vec<String> = std::iter::once(&*m.receiver)
            .chain(&m.args)
            .map(crate::text::expr_text)
            .collect();
        self.errors.spanned(
            e,
            format!(
                "`{}` is a Rust method call, which the reversible language can neither undo nor \
                 differentiate: its primitives are written as functions, `{prim}({})`",
                crate::text::expr_text(e),
                operands.join(", ")
            ),
        );
        true
    }

    fn dataview(&self, e: &Expr) -> Option<Dataview> {
        dataview(e)
    }

    fn if_stmt(&mut self, i: &syn::ExprIf, whole: &dyn ToTokens) -> Option<Stmt> {
        let (pre, post, explicit_post) = match &*i.cond {
            Expr::Tuple(t) if t.elems.len() == 2 => (t.elems[0].clone(), t.elems[1].clone(), true),
            Expr::Tuple(t) => {
                self.errors.spanned(
                    &t,
                    "a reversible `if` takes `(precondition, postcondition)` or a single condition",
                );
                return None;
            }
            c => (c.clone(), c.clone(), false),
        };
        let then = self.block(&i.then_branch.stmts);
        let els = match &i.else_branch {
            None => Vec::new(),
            Some((_, e)) => match &**e {
                Expr::Block(b) => self.block(&b.block.stmts),
                Expr::If(inner) => self.if_stmt(inner, inner).into_iter().collect(),
                other => {
                    self.errors.spanned(&other, "expected a block after `else`");
                    Vec::new()
                }
            },
        };
        Some(stmt(
            StmtKind::If {
                pre,
                post,
                explicit_post,
                then,
                els,
            },
            whole,
        ))
    }

    fn while_stmt(&mut self, w: &syn::ExprWhile, whole: &dyn ToTokens, out: &mut Vec<Stmt>) {
        let Expr::Tuple(t) = &*w.cond else {
            self.errors.spanned(
                &w.cond,
                "a reversible `while` needs a postcondition: write `while (pre, post) { … }` \
                 where `post` is false on entry and true after every iteration",
            );
            return;
        };
        if t.elems.len() != 2 {
            self.errors.spanned(
                &t,
                "a reversible `while` takes `(precondition, postcondition)`",
            );
            return;
        }
        let body = self.block(&w.body.stmts);
        out.push(stmt(
            StmtKind::While {
                pre: t.elems[0].clone(),
                post: t.elems[1].clone(),
                body,
            },
            whole,
        ));
    }

    fn for_stmt(&mut self, f: &syn::ExprForLoop, whole: &dyn ToTokens, out: &mut Vec<Stmt>) {
        let syn::Pat::Ident(pi) = &*f.pat else {
            self.errors
                .spanned(&f.pat, "the loop variable must be a plain name");
            return;
        };
        let Some(range) = self.range(&f.expr) else {
            self.errors.spanned(
                &f.expr,
                "a reversible `for` iterates over a range: `a..b`, `a..=b`, `(a..b).rev()`, \
                 `(a..b).step_by(s)`, or `(a..b).par()` for a parallel loop (`(a..b).par().weight(w)` \
                 with the work `w` of one iteration)",
            );
            return;
        };
        let body = self.block(&f.body.stmts);
        out.push(stmt(
            StmtKind::For {
                var: pi.ident.clone(),
                range,
                body,
            },
            whole,
        ));
    }

    fn range(&self, e: &Expr) -> Option<RangeSpec> {
        match e {
            Expr::Paren(p) => self.range(&p.expr),
            Expr::Range(r) => Some(RangeSpec {
                start: (**r.start.as_ref()?).clone(),
                end: (**r.end.as_ref()?).clone(),
                inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
                step: None,
                rev: false,
                parallel: false,
                weight: None,
                broadcast: None,
            }),
            Expr::MethodCall(m) if m.method == "par" && m.args.is_empty() => {
                let mut r = self.range(&m.receiver)?;
                if r.parallel {
                    return None;
                }
                r.parallel = true;
                Some(r)
            }
            Expr::MethodCall(m) if m.method == "weight" && m.args.len() == 1 => {
                let mut r = self.range(&m.receiver)?;
                if !r.parallel || r.weight.is_some() {
                    return None;
                }
                r.weight = Some(m.args[0].clone());
                Some(r)
            }
            Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
                let mut r = self.range(&m.receiver)?;
                r.rev = !r.rev;
                Some(r)
            }
            Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                let mut r = self.range(&m.receiver)?;
                if r.step.is_some() || r.rev || r.parallel {
                    return None;
                }
                r.step = Some(m.args[0].clone());
                Some(r)
            }
            _ => None,
        }
    }

    fn call_or_builtin(&mut self, e: &Expr, whole: &dyn ToTokens, uncall: bool) -> Option<Stmt> {
        match e {
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else {
                    self.errors
                        .spanned(&c.func, "expected the name of a reversible function");
                    return None;
                };
                if let Some(name) = path_ident(&c.func) {
                    if let Some((op, n_views, angle)) = BuiltinOp::lookup(&name) {
                        return self.builtin(c, op, n_views, angle, whole, uncall);
                    }
                    if primitive(&name).is_some() {
                        self.errors.spanned(
                            &c,
                            format!(
                                "`{name}(…)` alone does nothing: a primitive is used in an \
                                 instruction, `y += {name}(…)`"
                            ),
                        );
                        return None;
                    }
                }
                let args = c.args.iter().map(|a| self.call_arg(a)).collect();
                Some(stmt(
                    StmtKind::Call {
                        call: Call {
                            callee: Callee::Path(p.clone()),
                            args,
                        },
                        uncall,
                    },
                    whole,
                ))
            }
            Expr::MethodCall(m) => {
                let args = m.args.iter().map(|a| self.call_arg(a)).collect();
                Some(stmt(
                    StmtKind::Call {
                        call: Call {
                            callee: Callee::Method {
                                receiver: m.receiver.clone(),
                                method: m.method.clone(),
                                turbofish: m.turbofish.clone(),
                            },
                            args,
                        },
                        uncall,
                    },
                    whole,
                ))
            }
            other => {
                self.errors
                    .spanned(&other, "`uncall!` takes a call: `uncall!(g(x, y))`");
                None
            }
        }
    }

    fn builtin(
        &mut self,
        c: &syn::ExprCall,
        op: BuiltinOp,
        n_views: usize,
        angle: bool,
        whole: &dyn ToTokens,
        uncall: bool,
    ) -> Option<Stmt> {
        let expected = n_views + angle as usize;
        if c.args.len() != expected {
            self.errors.spanned(
                &c,
                format!(
                    "`{}` takes {expected} argument{}",
                    op.name(),
                    if expected == 1 { "" } else { "s" }
                ),
            );
            return None;
        }
        let mut args = Vec::new();
        for a in c.args.iter().take(n_views) {
            match self.dataview(a) {
                Some(v) => args.push(v),
                None => {
                    self.errors.spanned(
                        &a,
                        format!(
                            "`{}` changes this argument in place: it must be a dataview",
                            op.name()
                        ),
                    );
                    return None;
                }
            }
        }
        if n_views == 2 && args[0].same_as(&args[1]) {
            self.errors.spanned(
                &c.args[1],
                format!(
                    "`{}` of a variable with itself: pass two different variables",
                    op.name()
                ),
            );
            return None;
        }
        let operand = if angle {
            let a = &c.args[n_views];
            Some(match self.dataview(a) {
                Some(v) => {
                    if args.iter().any(|t| t.same_as(&v)) {
                        self.errors.spanned(
                            &a,
                            "the angle of a rotation cannot be one of the rotated variables",
                        );
                        return None;
                    }
                    Operand::View(v)
                }
                None => Operand::Const(a.clone()),
            })
        } else {
            None
        };
        let op = if uncall { op.inverse() } else { op };
        self.lowered(stmt(StmtKind::Builtin { op, args, operand }, whole))
    }

    /// A call's argument. `&mut p` of a place is the place `p` (how Rust spells lending it);
    /// `&e` is lent shared; a place is lent `&mut`; anything else is passed by value.
    fn call_arg(&self, a: &Expr) -> CallArg {
        match a {
            Expr::Reference(r) if r.mutability.is_none() => CallArg::Shared((*r.expr).clone()),
            Expr::Reference(r) => match self.dataview(&r.expr) {
                Some(v) => CallArg::View(v),
                None => CallArg::Value(a.clone()),
            },
            other => match self.dataview(other) {
                Some(v) => CallArg::View(v),
                None => CallArg::Value(other.clone()),
            },
        }
    }

    fn macro_stmt(&mut self, mac: &syn::Macro, whole: &dyn ToTokens, out: &mut Sink) {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let span = mac.path.span();
        match name.as_str() {
            "routine" => {
                let Some(stmts) = self.macro_block(mac) else {
                    return;
                };
                let compute = self.block(&stmts);
                out.open_routine(compute, whole);
            }
            "uncompute" => {
                if !mac.tokens.is_empty() {
                    self.errors
                        .spanned(&mac.tokens, "`uncompute!()` takes no arguments");
                }
                if !out.close_routine() {
                    self.errors.push(
                        span,
                        "`uncompute!()` without a `routine! { … }` before it in the same block: \
                         it undoes the most recent routine",
                    );
                }
            }
            "reverse" => {
                let Some(stmts) = self.macro_block(mac) else {
                    return;
                };
                let body = self.block(&stmts);
                out.extend(reverse_block(&body));
            }
            "expand" => {
                let Some(stmts) = self.macro_block(mac) else {
                    return;
                };
                let was = std::mem::replace(&mut self.expand, true);
                let body = self.block(&stmts);
                self.expand = was;
                out.extend(body);
            }
            "par" => {
                let Some(stmts) = self.macro_block(mac) else {
                    return;
                };
                for s in self.block(&stmts) {
                    match crate::broadcast::parallel(s) {
                        Ok(s) => out.push(s),
                        Err((span, message)) => self.errors.push(span, message),
                    }
                }
            }
            "mapfoldl" => match crate::mapfoldl::expansion(mac) {
                Ok(stmts) => {
                    let body = self.block(&stmts);
                    out.extend(body);
                }
                Err(e) => self.errors.add(e),
            },
            "nocheck" => {
                let Some(stmts) = self.macro_block(mac) else {
                    return;
                };
                let body = self.block(&stmts);
                out.push(stmt(StmtKind::NoCheck(body), whole));
            }
            "safe" => out.push(stmt(StmtKind::Safe(mac.tokens.clone()), whole)),
            "uncall" => {
                let e: Expr = match syn::parse2(mac.tokens.clone()) {
                    Ok(e) => e,
                    Err(_) => {
                        self.errors
                            .spanned(&mac.tokens, "`uncall!` takes a call: `uncall!(g(x, y))`");
                        return;
                    }
                };
                if let Some(s) = self.call_or_builtin(&e, whole, true) {
                    out.push(s)
                }
            }
            "dealloc" => self.dealloc(mac, whole, out),
            "push" | "pop" | "push_copy" | "pop_copy" => {
                let args = match mac.parse_body_with(
                    syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated,
                ) {
                    Ok(a) => a,
                    Err(e) => {
                        self.errors.add(e);
                        return;
                    }
                };
                let views: Vec<_> = args.iter().map(|a| self.dataview(a)).collect();
                if views.len() != 2 || views.iter().any(Option::is_none) {
                    self.errors.spanned(
                        &mac.tokens,
                        format!("`{name}!` takes a stack and a variable: `{name}!(stack, x)`"),
                    );
                    return;
                }
                let mut views = views.into_iter().map(Option::unwrap);
                let stack = views.next().unwrap();
                let value = views.next().unwrap();
                out.push(stmt(
                    StmtKind::Stack {
                        stack,
                        value,
                        push: name.starts_with("push"),
                        copy: name.ends_with("copy"),
                    },
                    whole,
                ));
            }
            other => self.errors.push(
                span,
                format!(
                    "unknown statement macro `{other}!`: the statement macros are `routine!`, \
                     `uncompute!`, `reverse!`, `uncall!`, `dealloc!`, `push!`, `pop!`, \
                     `push_copy!`, `pop_copy!`, `safe!`, `nocheck!`, `expand!`, `par!` and `mapfoldl!`"
                ),
            ),
        }
    }

    fn macro_block(&mut self, mac: &syn::Macro) -> Option<Vec<syn::Stmt>> {
        match mac.parse_body_with(syn::Block::parse_within) {
            Ok(s) => Some(s),
            Err(e) => {
                self.errors.add(e);
                None
            }
        }
    }

    fn dealloc(&mut self, mac: &syn::Macro, whole: &dyn ToTokens, out: &mut Vec<Stmt>) {
        let items = match mac
            .parse_body_with(syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated)
        {
            Ok(a) => a,
            Err(e) => {
                self.errors.add(e);
                return;
            }
        };
        let mut bindings = Vec::new();
        let mut fallback = Vec::new();
        let mut failed = false;
        for item in &items {
            let (left, value) = match item {
                Expr::Assign(a) => (&*a.left, Some(&*a.right)),
                other => (other, None),
            };
            let pat = syn::parse::Parser::parse2(syn::Pat::parse_single, left.to_token_stream());
            if let Ok(p) = &pat {
                fallback.extend(placeholder_bindings(p));
            }
            match (pat, value) {
                (Ok(p), Some(v)) => match self.bindings(&p, v) {
                    Some(b) => bindings.extend(b),
                    None => failed = true,
                },
                (Err(_), Some(_)) => {
                    self.errors.spanned(left, "`dealloc!` takes `name = value`");
                    failed = true;
                }
                (_, None) => {
                    self.errors.spanned(
                        item,
                        format!(
                            "`dealloc!` takes `name = value`, the value the ancilla must hold: \
                             `dealloc!({} = …)`",
                            tokens_text(&item.to_token_stream())
                        ),
                    );
                    failed = true;
                }
            }
        }
        if failed {
            // Retire the names anyway, so that they are not also reported as never deallocated.
            if !fallback.is_empty() {
                out.push(stmt(StmtKind::Dealloc(fallback), whole));
            }
            return;
        }
        if bindings.is_empty() {
            self.errors
                .spanned(&mac.path, "`dealloc!` takes `name = value`");
            return;
        }
        out.push(stmt(StmtKind::Dealloc(bindings), whole));
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

/// The primitive that a float method computes (`sin` → `sin`, `ln` → `log`, `powi` → `pow`),
/// for methods of the same arity as the primitive.
fn primitive_of_method(method: &str) -> Option<&'static str> {
    let name = match method {
        "ln" => "log",
        "ln_1p" => "log1p",
        "exp_m1" => "expm1",
        "powi" | "powf" => "pow",
        other => other,
    };
    primitive(name)
        .filter(|p| p.infix.is_none())
        .map(|p| p.name)
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
