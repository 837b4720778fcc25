//! From the user's function to the natural IR: name resolution (scopes, shadowing), typing of
//! bindings, and the diagnostics for everything outside the accepted subset of Rust.

mod call_into;
mod exits;
mod for_loop;
mod loop_attributes;
mod matches;
mod vectors;
mod views;
mod while_loop;

use crate::expr::Rewriter;
use crate::nir::{Bind, Expr, Function, Id, Init, Op, Origin, Place, Range, Stmt, StmtKind, Ty};
use crate::signature::Signature;
use crate::Names;
use proc_macro2::Span;
use quote::ToTokens;
use std::collections::BTreeSet;
use syn::spanned::Spanned;

/// Name resolution state: every binding, the scopes, and the statements hoisted out of the
/// expression being read.
pub struct Resolver<'a> {
    pub(crate) sig: &'a Signature,
    pub(crate) names: &'a mut Names,
    pub(crate) binds: Vec<Bind>,
    /// The visible bindings, innermost last: (the user's spelling, binding).
    scope: Vec<(String, Id)>,
    /// Statements the expression being read needs first (calls, selections).
    pub(crate) hoisted: Vec<Stmt>,
    /// Bindings that look plain where they are declared but hold a float the function
    /// computes with (found by a first resolution: see [`floats`]).
    floats: BTreeSet<Id>,
}

type Result<T> = syn::Result<T>;

fn err<T>(tokens: impl ToTokens, message: impl std::fmt::Display) -> Result<T> {
    Err(syn::Error::new_spanned(tokens, message))
}

impl<'a> Resolver<'a> {
    /// The bindings so far and the signature, to type expressions by.
    pub(crate) fn typing(&self) -> crate::expr::Typing<'_> {
        crate::expr::Typing {
            binds: &self.binds,
            sig: self.sig,
        }
    }

    /// Resolves the body of a function whose parameters `sig` has classified.
    pub fn function(
        sig: &'a Signature,
        names: &'a mut Names,
        block: &syn::Block,
    ) -> Result<Function> {
        let block = views::desugar(&matches::desugar(block)?, names)?;
        let block = &exits::desugar(&block, names, !sig.has_outputs())?;
        let mut first_names = names.clone();
        let first = pass(sig, &mut first_names, block, BTreeSet::new())?;
        let floats = floats(&first);
        if floats.is_empty() {
            *names = first_names;
            return Ok(first);
        }
        pass(sig, names, block, floats)
    }

    /// One resolution, with the bindings of `floats` typed as differentiable scalars.
    fn resolve(
        sig: &'a Signature,
        names: &'a mut Names,
        block: &syn::Block,
        floats: BTreeSet<Id>,
    ) -> Result<Function> {
        let mut r = Resolver {
            sig,
            names,
            binds: Vec::new(),
            scope: Vec::new(),
            hoisted: Vec::new(),
            floats,
        };
        for p in &sig.params {
            let name = r.names.binding(&p.ident);
            let origin = if p.shape == crate::signature::Shape::Output {
                Origin::Output
            } else {
                Origin::Param
            };
            let id = r.bind(name, p.ty, origin);
            r.scope.push((p.ident.to_string(), id));
        }
        let (body, ret) = r.body(block)?;
        Ok(Function {
            binds: r.binds,
            body,
            ret,
        })
    }

    fn bind(&mut self, name: syn::Ident, ty: Ty, origin: Origin) -> Id {
        self.binds.push(Bind { name, ty, origin });
        self.binds.len() - 1
    }

    /// The binding a user's identifier refers to here.
    pub(crate) fn lookup(&self, ident: &syn::Ident) -> Option<Id> {
        let s = ident.to_string();
        self.scope
            .iter()
            .rev()
            .find(|(n, _)| *n == s)
            .map(|(_, id)| *id)
    }

    /// A new local binding the user named `ident`, visible from now on in this block.
    fn declare(&mut self, ident: &syn::Ident, ty: Ty, origin: Origin) -> Id {
        let ty = match ty {
            Ty::Plain if self.floats.contains(&self.binds.len()) => Ty::Real,
            other => other,
        };
        let name = self.names.binding(ident);
        let id = self.bind(name, ty, origin);
        self.scope.push((ident.to_string(), id));
        id
    }

    /// A temporary of the front end's own, for a hoisted computation.
    pub(crate) fn temporary(&mut self, base: &str, ty: Ty, span: Span) -> Id {
        let name = self.names.fresh(base, span);
        self.bind(name, ty, Origin::Local)
    }

    /// The function body: its statements and the returned value (none when the function
    /// writes output parameters).
    fn body(&mut self, block: &syn::Block) -> Result<(Vec<Stmt>, Option<Expr>)> {
        if self.sig.has_outputs() {
            if let Some(syn::Stmt::Expr(e, None)) = block.stmts.last() {
                if !matches!(
                    e,
                    syn::Expr::ForLoop(_)
                        | syn::Expr::While(_)
                        | syn::Expr::If(_)
                        | syn::Expr::Block(_)
                ) {
                    return err(
                        e,
                        "a function that writes output parameters returns nothing: write the \
                         value into an output (`out[0] = …;`)",
                    );
                }
            }
            let mut body = Vec::new();
            for s in &block.stmts {
                self.stmt(s, &mut body)?;
            }
            body.append(&mut self.hoisted);
            return Ok((body, None));
        }
        let Some((last, init)) = block.stmts.split_last() else {
            return err(
                block,
                "the function returns nothing: end its body with the value it returns",
            );
        };
        let value = match last {
            syn::Stmt::Expr(e, None) => e,
            syn::Stmt::Expr(syn::Expr::Return(syn::ExprReturn { expr: Some(e), .. }), _) => e,
            other => {
                return err(
                    other,
                    "the body must end with the value the function returns (an expression \
                     without `;`, or `return value;`)",
                )
            }
        };
        let mark = self.scope.len();
        let mut body = Vec::new();
        for s in init {
            self.stmt(s, &mut body)?;
        }
        let ret = self.expr(value)?;
        body.append(&mut self.hoisted);
        if !ret.real {
            return err(
                value,
                "the returned value is not a differentiable scalar: return the loss (an `f64`)",
            );
        }
        self.scope.truncate(mark);
        Ok((body, Some(ret)))
    }

    /// The statements of a nested block (a loop body, a branch).
    fn block(&mut self, block: &syn::Block) -> Result<Vec<Stmt>> {
        let mark = self.scope.len();
        let mut out = Vec::new();
        for s in &block.stmts {
            self.stmt(s, &mut out)?;
        }
        self.scope.truncate(mark);
        Ok(out)
    }

    fn stmt(&mut self, s: &syn::Stmt, out: &mut Vec<Stmt>) -> Result<()> {
        match s {
            syn::Stmt::Local(local) => self.local(local, out),
            syn::Stmt::Expr(e, _) => self.expr_stmt(e, out),
            syn::Stmt::Item(item) => err(
                item,
                "items inside a differentiable function are not supported: define them outside",
            ),
            syn::Stmt::Macro(m) => err(
                &m.mac,
                format!(
                    "`{}!` is not supported in a differentiable function: only `vec![zero; n]` \
                     in a `let`; move printing and assertions to the caller",
                    m.mac.path.to_token_stream()
                ),
            ),
        }
    }

    /// Moves the statements hoisted out of the expressions just read into `out`.
    fn flush(&mut self, out: &mut Vec<Stmt>) {
        out.append(&mut self.hoisted);
    }

    fn local(&mut self, local: &syn::Local, out: &mut Vec<Stmt>) -> Result<()> {
        let Some(init) = &local.init else {
            return err(local, "a `let` needs a value here: write `let x = value;`");
        };
        if let Some((_, diverge)) = &init.diverge {
            return err(
                diverge,
                "`let … else` is not supported in a differentiable function",
            );
        }
        let (pat, annotated) = match &local.pat {
            syn::Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
            p => (p, None),
        };
        match pat {
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                self.let_one(&p.ident, annotated, &init.expr, local.span(), out)
            }
            syn::Pat::Tuple(t) if annotated.is_none() => {
                let pair = sin_cos(&init.expr);
                let syn::Expr::Tuple(values) = pair.as_ref().unwrap_or(&*init.expr) else {
                    return err(
                        &init.expr,
                        "a tuple pattern needs a tuple of values here: `let (a, b) = (x, y);`",
                    );
                };
                if values.elems.len() != t.elems.len() {
                    return err(
                        &init.expr,
                        "the tuple pattern and the tuple have different lengths",
                    );
                }
                // All values are read before any name is bound, as in Rust.
                let mut staged = Vec::new();
                for (p, v) in t.elems.iter().zip(&values.elems) {
                    let syn::Pat::Ident(p) = p else {
                        return err(p, "only names are supported in a tuple pattern");
                    };
                    staged.push((p.ident.clone(), self.let_value(None, v, out)?));
                }
                for (ident, (ty, init)) in staged {
                    let id = self.declare(&ident, ty, Origin::Local);
                    out.push(Stmt {
                        kind: StmtKind::Let { id, init },
                        span: ident.span(),
                    });
                }
                Ok(())
            }
            other => err(
                other,
                "only `let name = value;` and `let (a, b) = (x, y);` are supported here",
            ),
        }
    }

    fn let_one(
        &mut self,
        ident: &syn::Ident,
        annotated: Option<&syn::Type>,
        value: &syn::Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> Result<()> {
        if let syn::Expr::Array(elements) = value {
            return self.let_array(ident, elements, span, out);
        }
        if self.let_vector(ident, value, span, out)? {
            return Ok(());
        }
        let (ty, init) = self.let_value(annotated, value, out)?;
        let id = self.declare(ident, ty, Origin::Local);
        out.push(Stmt {
            kind: StmtKind::Let { id, init },
            span,
        });
        Ok(())
    }

    /// `let a = [e₀, e₁, …];`: a local vector of zeros, then `a[k] += eₖ` (the elements are
    /// read before the name is bound, as in Rust).
    fn let_array(
        &mut self,
        ident: &syn::Ident,
        elements: &syn::ExprArray,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> Result<()> {
        let mut values = Vec::new();
        for e in &elements.elems {
            let value = self.expr(e)?;
            if !value.real {
                return err(
                    e,
                    "an array of plain values (indices, counts) is not supported here: an array \
                     in a differentiable function holds `f64`s",
                );
            }
            values.push(value);
        }
        self.flush(out);
        let len = elements.elems.len();
        let len = Expr {
            syn: syn::parse_quote!(#len),
            reads: BTreeSet::new(),
            real: false,
        };
        let id = self.declare(ident, Ty::RealVec, Origin::Local);
        out.push(Stmt {
            kind: StmtKind::Let {
                id,
                init: Init::Zeros { len },
            },
            span,
        });
        for (k, value) in values.into_iter().enumerate() {
            let index = Expr {
                syn: syn::parse_quote!(#k),
                reads: BTreeSet::new(),
                real: false,
            };
            out.push(Stmt {
                kind: StmtKind::Assign {
                    place: Place {
                        root: id,
                        index: Some(index),
                    },
                    op: Op::Add,
                    value,
                },
                span,
            });
        }
        Ok(())
    }

    /// A `let`'s type and value; what its value needs first goes to `out`.
    fn let_value(
        &mut self,
        annotated: Option<&syn::Type>,
        value: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Result<(Ty, Init)> {
        let declared = annotated.map(|t| self.sig.type_kind(t));
        if let Some(len) = crate::expr::zeros_len(value) {
            let len = self.expr(&len)?;
            self.flush(out);
            return Ok((Ty::RealVec, Init::Zeros { len }));
        }
        if declared == Some(Ty::RealVec) {
            return err(
                value,
                "a local vector of differentiable numbers starts as zeros, `vec![0.0; n]` \
                 (then write its elements), or as a copy of another, `x.to_vec()`",
            );
        }
        let init = self.init(value)?;
        self.flush(out);
        let ty = match (&init, declared) {
            (_, Some(t)) => t,
            (Init::Expr(e), None) if !e.real => Ty::Plain,
            _ => Ty::Real,
        };
        Ok((ty, init))
    }

    /// The value of a `let`: a selection stays one (it is computed in place), anything else is
    /// an expression.
    fn init(&mut self, value: &syn::Expr) -> Result<Init> {
        if let Some((cond, then, els)) = crate::expr::selection(value) {
            let cond = self.expr(cond)?;
            let then = self.expr(then)?;
            let els = self.expr(els)?;
            return Ok(Init::Select { cond, then, els });
        }
        if let syn::Expr::Call(c) = value {
            if let Some(call) = self.user_call(c)? {
                return Ok(call);
            }
        }
        Ok(Init::Expr(self.expr(value)?))
    }

    /// An expression in the reversible language's spelling.
    pub(crate) fn expr(&mut self, e: &syn::Expr) -> Result<Expr> {
        let mut reads = BTreeSet::new();
        let syn = Rewriter::new(self, &mut reads).expr(e)?;
        let real = crate::expr::is_real(self, &syn, &reads);
        Ok(Expr { syn, reads, real })
    }

    /// `g(args)` with a differentiable argument: a call to another function under the front
    /// end, whose reversible program is `g_rev`.
    pub(crate) fn user_call(&mut self, c: &syn::ExprCall) -> Result<Option<Init>> {
        let syn::Expr::Path(p) = &*c.func else {
            return Ok(None);
        };
        if crate::expr::is_constructor(self.sig, &p.path) {
            return Ok(None);
        }
        let mut args = Vec::new();
        for a in &c.args {
            args.push(self.expr(a)?);
        }
        if !args.iter().any(|a| a.real || self.is_real_vec(a)) {
            return Ok(None);
        }
        let mut path = p.path.clone();
        let last = path.segments.last_mut().expect("a path has a segment");
        last.ident = quote::format_ident!("{}_rev", last.ident, span = last.ident.span());
        Ok(Some(Init::Call { func: path, args }))
    }

    /// Is this expression a vector of differentiable numbers (a binding, or a sub-slice)?
    pub(crate) fn is_real_vec(&self, e: &Expr) -> bool {
        let mut syn = &e.syn;
        while let syn::Expr::Reference(r) = syn {
            syn = &r.expr;
        }
        let root = match syn {
            syn::Expr::Path(p) => p.path.get_ident(),
            syn::Expr::Index(i) if matches!(&*i.index, syn::Expr::Range(_)) => match &*i.expr {
                syn::Expr::Path(p) => p.path.get_ident(),
                _ => None,
            },
            _ => None,
        };
        root.is_some_and(|r| {
            e.reads
                .iter()
                .any(|id| self.binds[*id].name == *r && self.binds[*id].ty == Ty::RealVec)
        })
    }

    fn expr_stmt(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Result<()> {
        match e {
            syn::Expr::Assign(a) => self.assign(&a.left, Op::Set, &a.right, e, out),
            syn::Expr::Binary(b) => {
                let op = match b.op {
                    syn::BinOp::AddAssign(_) => Op::Add,
                    syn::BinOp::SubAssign(_) => Op::Sub,
                    syn::BinOp::MulAssign(_) => Op::Mul,
                    syn::BinOp::DivAssign(_) => Op::Div,
                    _ => {
                        return err(
                            e,
                            "this expression statement does nothing: assign its value \
                             (`x = …`, `x += …`) or return it at the end",
                        )
                    }
                };
                self.assign(&b.left, op, &b.right, e, out)
            }
            syn::Expr::Call(c) => self.call_into(c, out),
            syn::Expr::MethodCall(m) if self.copy_from_slice(m, out)? => Ok(()),
            syn::Expr::MethodCall(m) => err(
                e,
                format!(
                    "`.{}(…)` as a statement is not supported: a differentiable function changes \
                     a vector by element (`v[i] = …`) or by `v.copy_from_slice(&x)`, and a local \
                     vector has a fixed length (`let v = vec![0.0; n];`)",
                    m.method
                ),
            ),
            syn::Expr::ForLoop(f) => self.for_loop(f, out),
            syn::Expr::While(w) => self.while_loop(w, out),
            syn::Expr::If(i) => {
                let s = self.if_stmt(i, out)?;
                out.push(s);
                Ok(())
            }
            syn::Expr::Return(_) => err(
                e,
                "a `return` inside an expression is not supported: return from a statement \
                 (`if c { return v; }`)",
            ),
            syn::Expr::Break(_) | syn::Expr::Continue(_) => err(
                e,
                "`break` and `continue` are supported as statements of a loop's body (also \
                 inside its `if`s), not inside an expression",
            ),
            syn::Expr::Loop(_) => err(e, "`loop` is not supported: use `while condition { … }`"),
            syn::Expr::Block(b) => {
                let mut inner = self.block(&b.block)?;
                out.append(&mut inner);
                Ok(())
            }
            _ => err(
                e,
                "this statement is not supported in a differentiable function: the statements \
                 are `let`, assignments (`x = …`, `x += …`, `v[i] = …`), `for`, `while` and `if`",
            ),
        }
    }

    fn if_stmt(&mut self, i: &syn::ExprIf, out: &mut Vec<Stmt>) -> Result<Stmt> {
        let cond = self.expr(&i.cond)?;
        self.flush(out);
        let then = self.block(&i.then_branch)?;
        let els = match &i.else_branch {
            None => Vec::new(),
            Some((_, e)) => match &**e {
                syn::Expr::Block(b) => self.block(&b.block)?,
                syn::Expr::If(inner) => {
                    let mut pre = Vec::new();
                    let s = self.if_stmt(inner, &mut pre)?;
                    pre.push(s);
                    pre
                }
                other => return err(other, "expected a block after `else`"),
            },
        };
        Ok(Stmt {
            kind: StmtKind::If { cond, then, els },
            span: i.span(),
        })
    }

    fn assign(
        &mut self,
        left: &syn::Expr,
        op: Op,
        right: &syn::Expr,
        whole: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Result<()> {
        let place = self.place(left)?;
        let bind = self.binds[place.root].clone();
        match (&bind.origin, bind.ty, place.index.is_some()) {
            (Origin::Param, ..) => {
                return err(
                    left,
                    format!(
                        "`{}` is a parameter, which a differentiable function only reads: \
                         copy it into a local first (`let mut {0} = {0};`)",
                        left.to_token_stream()
                    ),
                )
            }
            (Origin::LoopVar | Origin::Element { .. }, ..) => {
                return err(left, "a loop variable cannot be assigned")
            }

            (_, Ty::Plain, _) if !matches!(op, Op::Add | Op::Sub) => {
                return err(
                    left,
                    "an index or count can only be changed by `+=` or `-=` (an overwritten \
                     integer would have to be saved): compute a new one with `let`",
                )
            }
            (_, Ty::RealVec, false) => {
                return err(
                    left,
                    "a whole vector cannot be assigned: write its elements (`v[i] = …`)",
                )
            }
            _ => {}
        }
        let value = self.expr(right)?;
        self.flush(out);
        out.push(Stmt {
            kind: StmtKind::Assign { place, op, value },
            span: whole.span(),
        });
        Ok(())
    }

    /// The place an assignment writes: a local variable or an element of a local vector.
    fn place(&mut self, e: &syn::Expr) -> Result<Place> {
        match e {
            syn::Expr::Paren(p) => self.place(&p.expr),
            syn::Expr::Path(p) => {
                let Some(ident) = p.path.get_ident() else {
                    return err(p, "expected a variable");
                };
                let Some(root) = self.lookup(ident) else {
                    return err(
                        ident,
                        format!("`{ident}` is not a variable of this function"),
                    );
                };
                Ok(Place { root, index: None })
            }
            syn::Expr::Index(i) => {
                let syn::Expr::Path(p) = &*i.expr else {
                    return err(
                        &i.expr,
                        "only an element of a vector variable can be assigned: `v[i] = …`",
                    );
                };
                let Some(root) = p.path.get_ident().and_then(|id| self.lookup(id)) else {
                    return err(&i.expr, "expected a vector variable of this function");
                };
                if self.binds[root].ty != Ty::RealVec {
                    return err(
                        &i.expr,
                        "only elements of a vector of differentiable numbers can be assigned",
                    );
                }
                let index = self.expr(&i.index)?;
                Ok(Place {
                    root,
                    index: Some(index),
                })
            }
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => err(
                e,
                "a differentiable function does not write through references: it returns its \
                 value",
            ),
            other => err(
                other,
                "only a variable or an element of a vector can be assigned (`x = …`, `v[i] = …`)",
            ),
        }
    }

    fn range(&mut self, e: &syn::Expr) -> Result<Range> {
        let rewritten = self.expr(e)?;
        Ok(Range {
            syn: rewritten.syn,
            reads: rewritten.reads,
        })
    }
}

/// `x.sin_cos()` as the pair it is, `(x.sin(), x.cos())`.
fn sin_cos(e: &syn::Expr) -> Option<syn::Expr> {
    match e {
        syn::Expr::MethodCall(m) if m.method == "sin_cos" && m.args.is_empty() => {
            let x = &m.receiver;
            Some(syn::parse_quote_spanned!(m.span()=> ((#x).sin(), (#x).cos())))
        }
        _ => None,
    }
}

/// [`Resolver::resolve`] with lifetimes of its own (a first resolution runs on a copy of the
/// names).
fn pass(
    sig: &Signature,
    names: &mut Names,
    block: &syn::Block,
    floats: BTreeSet<Id>,
) -> Result<Function> {
    Resolver::resolve(sig, names, block, floats)
}

/// The plain locals of a resolved function that hold floats it computes with: assigned a
/// differentiable value (`let mut r = s(i); r -= x[j];`), or an operand of arithmetic beside a
/// differentiable value (`let ti = i as f64; … x[j] * ti`). Typed as differentiable scalars,
/// they hold constants until a differentiable value reaches them.
fn floats(f: &Function) -> BTreeSet<Id> {
    let mut out = BTreeSet::new();
    let plain_local =
        |id: Id| f.binds[id].ty == Ty::Plain && matches!(f.binds[id].origin, Origin::Local);
    let (mut exprs, mut flows) = (Vec::new(), Vec::new());
    collect(
        &f.body,
        &mut exprs,
        &mut |place: &Place, value: &'_ Expr| {
            if value.real && place.index.is_none() && plain_local(place.root) {
                out.insert(place.root);
            }
        },
    );
    collect(&f.body, &mut Vec::new(), &mut |place: &Place, value| {
        flows.push((place.root, value.clone()))
    });
    // a plain local that is a bare operand of arithmetic whose value goes into a float (`s +=
    // w * w` with `w` read from a constant table) holds a float too, and so do those its own
    // value is computed from
    loop {
        let before = out.len();
        for (target, value) in &flows {
            if f.binds[*target].ty == Ty::Plain && !out.contains(target) {
                continue;
            }
            crate::expr::arithmetic_operands(&value.syn, &mut |name| {
                let id = value.reads.iter().find(|id| f.binds[**id].name == *name);
                if let Some(&id) = id.filter(|id| plain_local(**id)) {
                    out.insert(id);
                }
            });
        }
        if out.len() == before {
            break;
        }
    }
    exprs.extend(&f.ret);
    for e in exprs {
        crate::expr::operands_beside_reals(&e.syn, &f.binds, &mut |name| {
            if let Some(id) = e
                .reads
                .iter()
                .copied()
                .find(|id| f.binds[*id].name == *name)
            {
                if plain_local(id) {
                    out.insert(id);
                }
            }
        });
    }
    out
}

/// Every expression of a block, and each assignment's (and `let`'s) place and value to
/// `assigned`.
fn collect<'f>(
    stmts: &'f [Stmt],
    exprs: &mut Vec<&'f Expr>,
    assigned: &mut dyn FnMut(&Place, &Expr),
) {
    for s in stmts {
        match &s.kind {
            StmtKind::Let { init, id } => match init {
                Init::Expr(e) => {
                    let place = Place {
                        root: *id,
                        index: None,
                    };
                    assigned(&place, e);
                    exprs.push(e)
                }
                Init::Zeros { len: e } => exprs.push(e),
                Init::Select { cond, then, els } => exprs.extend([cond, then, els]),
                Init::Call { args, .. } => exprs.extend(args),
            },
            StmtKind::CallInto { args, .. } => exprs.extend(args),
            StmtKind::Assign { place, value, .. } => {
                assigned(place, value);
                exprs.push(value);
            }
            StmtKind::For { body, .. } => collect(body, exprs, assigned),
            StmtKind::While { cond, body } => {
                exprs.push(cond);
                collect(body, exprs, assigned);
            }
            StmtKind::If { cond, then, els } => {
                exprs.push(cond);
                collect(then, exprs, assigned);
                collect(els, exprs, assigned);
            }
        }
    }
}
