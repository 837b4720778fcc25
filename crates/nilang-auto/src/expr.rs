//! Expressions: Rust's spellings become the reversible language's (`x.sin()` is `sin(x)`,
//! `x.powi(2)` is `square(x)`, `a.max(b)` a selection computed first), each variable its
//! binding's spelling, and the bindings read are collected.

mod methods;

use crate::nir::{Id, Init, Origin, Stmt, StmtKind, Ty};
use crate::resolve::Resolver;
use crate::signature::Signature;
use methods::{float_method_call, method_of_primitive};
use proc_macro2::Span;
use quote::ToTokens;
use std::collections::BTreeSet;
use syn::spanned::Spanned;

type Result<T> = syn::Result<T>;

fn err<T>(tokens: impl ToTokens, message: impl std::fmt::Display) -> Result<T> {
    Err(syn::Error::new_spanned(tokens, message))
}

/// Where a closure may stand, for the error at one that stands elsewhere.
pub const CLOSURES: &str = "a closure is supported named by a `let` and called (`let f = |v| v \
     * 2.0;` then `f(x)`), and in `.map(…)` before a sum";

/// Is `name` a primitive of the language (a row of the primitive table)?
pub fn is_primitive(name: &str) -> bool {
    macro_rules! names {
        ([] unary { $(($ty:ident $name:ident $($unary:tt)*))* }
            binary { $(($bty:ident $bname:ident $($binary:tt)*))* }) => {
            &[$(stringify!($name),)* $(stringify!($bname),)*]
        };
    }
    const NAMES: &[&str] = nilang_prims::primitives!(names);
    NAMES.contains(&name)
}

/// The right-hand side of an accumulation as the language reads it: a call that is not a
/// primitive (a plain function computing a constant) is a constant operand, `identity(…)`.
pub fn accumulated(e: syn::Expr) -> syn::Expr {
    let plain_call = match &e {
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(p) => p
                .path
                .get_ident()
                .is_none_or(|i| !is_primitive(&i.to_string())),
            _ => true,
        },
        _ => false,
    };
    if plain_call {
        syn::parse_quote!(identity(#e))
    } else {
        e
    }
}

/// Rewrites one expression for a [`Resolver`], collecting the bindings it reads.
pub struct Rewriter<'r, 'a> {
    r: &'r mut Resolver<'a>,
    reads: &'r mut BTreeSet<Id>,
    /// Inside a comparison or a cast: the value is computed on plain `f64`s, so nothing is
    /// hoisted out for the gradient's sake (a `while` condition is evaluated every iteration).
    plain: bool,
}

impl<'r, 'a> Rewriter<'r, 'a> {
    /// A rewriter recording reads into `reads`.
    pub fn new(r: &'r mut Resolver<'a>, reads: &'r mut BTreeSet<Id>) -> Self {
        Rewriter {
            r,
            reads,
            plain: false,
        }
    }

    /// `f` on this rewriter in a plain context (see [`Rewriter::plain`]).
    fn in_plain<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let outer = std::mem::replace(&mut self.plain, true);
        let out = f(self);
        self.plain = outer;
        out
    }

    /// The expression in the reversible language.
    pub fn expr(&mut self, e: &syn::Expr) -> Result<syn::Expr> {
        Ok(match e {
            syn::Expr::Lit(_) => e.clone(),
            syn::Expr::Path(p) => self.path(p),
            syn::Expr::Paren(p) => {
                let inner = self.expr(&p.expr)?;
                syn::parse_quote_spanned!(p.span()=> (#inner))
            }
            syn::Expr::Group(g) => self.expr(&g.expr)?,
            syn::Expr::Index(i) => self.index(i)?,
            syn::Expr::Binary(b) => self.binary(b)?,
            syn::Expr::Unary(u) => {
                if matches!(u.op, syn::UnOp::Deref(_)) {
                    return self.expr(&u.expr);
                }
                let inner = self.expr(&u.expr)?;
                let op = u.op;
                syn::parse_quote_spanned!(u.span()=> #op #inner)
            }
            syn::Expr::MethodCall(m) => self.method(m)?,
            syn::Expr::Call(c) => self.call(c)?,
            syn::Expr::If(_) => self.hoist_selection(e)?,
            syn::Expr::Cast(c) => {
                let inner = self.in_plain(|w| w.expr(&c.expr))?;
                let inner = plain(self.r.typing(), inner);
                let ty = &c.ty;
                syn::parse_quote_spanned!(c.span()=> (#inner as #ty))
            }
            syn::Expr::Reference(r) if r.mutability.is_none() => {
                let inner = self.expr(&r.expr)?;
                syn::parse_quote_spanned!(r.span()=> &#inner)
            }
            syn::Expr::Range(r) => {
                let start = r.start.as_deref().map(|s| self.expr(s)).transpose()?;
                let end = r.end.as_deref().map(|s| self.expr(s)).transpose()?;
                let limits = r.limits;
                syn::parse_quote_spanned!(r.span()=> #start #limits #end)
            }
            syn::Expr::Macro(m) => {
                return err(
                    &m.mac,
                    "a macro is not supported inside an expression here; a vector of zeros is \
                     `let v = vec![0.0; n];`",
                )
            }
            syn::Expr::Field(f) => self.field(f)?,
            syn::Expr::Closure(_) => return err(e, CLOSURES),
            syn::Expr::Tuple(_) => {
                return err(e, "tuples are supported only in `let (a, b) = (x, y);`")
            }
            other => {
                return err(
                    other,
                    "this expression is not supported in a differentiable function: the \
                     expressions are arithmetic (`+ - * /`), comparisons, float methods \
                     (`x.sin()`, `x.powi(2)`, `a.max(b)`), indexing, `if c { a } else { b }` \
                     and calls",
                )
            }
        })
    }

    /// A variable: its binding's spelling (an element variable is the element it names).
    fn path(&mut self, p: &syn::ExprPath) -> syn::Expr {
        let Some(ident) = p.path.get_ident() else {
            return syn::Expr::Path(p.clone());
        };
        let Some(id) = self.r.lookup(ident) else {
            return syn::Expr::Path(p.clone());
        };
        let span = ident.span();
        match self.r.binds[id].origin {
            Origin::Element { vec, index } => {
                self.reads.extend([vec, index]);
                let (v, i) = (&self.r.binds[vec].name, &self.r.binds[index].name);
                let (v, i) = (respan(v, span), respan(i, span));
                syn::parse_quote_spanned!(span=> #v[#i])
            }
            _ => {
                self.reads.insert(id);
                let name = respan(&self.r.binds[id].name, span);
                syn::parse_quote!(#name)
            }
        }
    }

    /// `s.dt`, `s.grid[i]`, `s.a.b`: a field of plain data (a parameter or variable that is
    /// not differentiated, such as a struct of settings), read as plain Rust.
    fn field(&mut self, f: &syn::ExprField) -> Result<syn::Expr> {
        match self
            .root_binding(&f.base)
            .map(|id| (self.r.binds[id].ty, &self.r.binds[id].name))
        {
            Some((Ty::Plain, _)) => {
                let base = self.expr(&f.base)?;
                let member = &f.member;
                Ok(syn::parse_quote_spanned!(f.span()=> #base.#member))
            }
            Some((_, name)) => err(
                f,
                format!(
                    "`{name}` is differentiated, and a field of a differentiable value is not \
                     supported: pass the numbers to differentiate as `f64` or `&[f64]` \
                     parameters (a struct of data, left out of `wrt`, may be read by field)"
                ),
            ),
            None => err(
                f,
                "a field is read here only from a parameter or variable of plain data \
                 (`settings.dt`): bind the value to a variable first",
            ),
        }
    }

    /// The binding under a chain of fields and indices (`s` of `s.table[i].x`), if the chain
    /// starts at a variable.
    fn root_binding(&self, e: &syn::Expr) -> Option<Id> {
        let mut root = e;
        while let syn::Expr::Field(syn::ExprField { base, .. })
        | syn::Expr::Index(syn::ExprIndex { expr: base, .. })
        | syn::Expr::Paren(syn::ExprParen { expr: base, .. }) = root
        {
            root = base;
        }
        match root {
            syn::Expr::Path(p) => p.path.get_ident().and_then(|i| self.r.lookup(i)),
            _ => None,
        }
    }

    fn index(&mut self, i: &syn::ExprIndex) -> Result<syn::Expr> {
        let nested_data = matches!(&*i.expr, syn::Expr::Index(_))
            && self
                .root_binding(&i.expr)
                .is_some_and(|id| self.r.binds[id].ty == Ty::Plain);
        if matches!(&*i.expr, syn::Expr::Field(_)) || nested_data {
            // data read as plain Rust: `s.table[i]`, `points[i][j]`
            let base = self.expr(&i.expr)?;
            let index = self.in_plain(|w| w.expr(&i.index))?;
            return Ok(syn::parse_quote_spanned!(i.span()=> #base[#index]));
        }
        if !matches!(&*i.expr, syn::Expr::Path(_)) {
            return err(
                &i.expr,
                "only a variable can be indexed here: `v[i]` (or data left out of `wrt`, \
                 `points[i][j]`)",
            );
        }
        let base = self.expr(&i.expr)?;
        let index = self.expr(&i.index)?;
        Ok(syn::parse_quote_spanned!(i.span()=> #base[#index]))
    }

    fn binary(&mut self, b: &syn::ExprBinary) -> Result<syn::Expr> {
        let op = b.op;
        let (left, right) = if is_arithmetic(&op) {
            (self.expr(&b.left)?, self.expr(&b.right)?)
        } else {
            self.in_plain(|w| Ok::<_, syn::Error>((w.expr(&b.left)?, w.expr(&b.right)?)))?
        };
        if !is_arithmetic(&op) {
            // a comparison or a logical or integer operator: computed on plain values
            let (left, right) = (plain(self.r.typing(), left), plain(self.r.typing(), right));
            return Ok(syn::parse_quote_spanned!(b.span()=> #left #op #right));
        }
        if same_root(&left, &right) && !same_place(&left, &right) && self.is_real(&left) {
            // `v[i] * v[j]` may be one place at run time: the second operand is a copy
            return Ok(syn::parse_quote_spanned!(b.span()=> #left #op identity(#right)));
        }
        if same_place(&left, &right) && self.is_real(&left) {
            // One instruction reads each place once: `x * x` is `square(x)`, and the second
            // operand of any other operator is a copy.
            if matches!(op, syn::BinOp::Mul(_)) {
                return Ok(syn::parse_quote_spanned!(b.span()=> square(#left)));
            }
            return Ok(syn::parse_quote_spanned!(b.span()=> #left #op identity(#right)));
        }
        Ok(syn::parse_quote_spanned!(b.span()=> #left #op #right))
    }

    fn call(&mut self, c: &syn::ExprCall) -> Result<syn::Expr> {
        if let Some(m) = float_method_call(self.r.sig, c) {
            // `f64::max(a, b)`: the method call `a.max(b)` it names
            return self.method(&m);
        }
        if let Some(init) = self.r.user_call(c)? {
            let id = self.r.temporary("call", Ty::Real, c.span());
            return Ok(self.hoisted_let(id, init, c.span()));
        }
        let mut args = Vec::new();
        for a in &c.args {
            args.push(self.expr(a)?);
        }
        let func = &c.func;
        Ok(syn::parse_quote_spanned!(c.span()=> #func(#(#args),*)))
    }

    fn hoist_selection(&mut self, e: &syn::Expr) -> Result<syn::Expr> {
        let Some((cond, then, els)) = selection(e) else {
            return err(
                e,
                "an `if` inside an expression must be `if condition { value } else { value }`",
            );
        };
        let cond = self.expr(cond)?;
        let then = self.expr(then)?;
        let els = self.expr(els)?;
        self.hoist(cond, then, els, e.span())
    }

    /// `if cond { a } else { b }` computed into a temporary first; the temporary is the value.
    fn hoist(
        &mut self,
        cond: syn::Expr,
        a: syn::Expr,
        b: syn::Expr,
        span: proc_macro2::Span,
    ) -> Result<syn::Expr> {
        let reads = self.reads.clone();
        let part = |syn: syn::Expr, real: bool| crate::nir::Expr {
            syn,
            reads: reads.clone(),
            real,
        };
        let init = Init::Select {
            cond: part(cond, false),
            then: part(a, true),
            els: part(b, true),
        };
        let id = self.r.temporary("select", Ty::Real, span);
        Ok(self.hoisted_let(id, init, span))
    }

    /// Adds `let temporary = init;` before the statement being read and reads the temporary.
    fn hoisted_let(&mut self, id: Id, init: Init, span: proc_macro2::Span) -> syn::Expr {
        self.r.hoisted.push(Stmt {
            kind: StmtKind::Let { id, init },
            span,
        });
        self.reads.insert(id);
        let name = &self.r.binds[id].name;
        syn::parse_quote!(#name)
    }

    /// Is this (rewritten) expression a differentiable scalar?
    fn is_real(&self, e: &syn::Expr) -> bool {
        real_syn(self.r.typing(), e)
    }
}

fn is_arithmetic(op: &syn::BinOp) -> bool {
    matches!(
        op,
        syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_) | syn::BinOp::Div(_)
    )
}

/// A rewritten expression computed on plain `f64` values, for a condition, an index or a
/// cast: each differentiable leaf is read by its value (`x.val()`), each primitive is Rust's
/// method again.
pub fn plain(r: Typing, e: syn::Expr) -> syn::Expr {
    if !real_syn(r, &e) && !mentions_real(r, &e) {
        return e;
    }
    match e {
        syn::Expr::Path(ref p) if real_syn(r, &e) && is_scalar_param(r, p) => {
            // a differentiable scalar parameter is `&mut T` in the reversible program
            syn::parse_quote!(::nilang::Real::val(&*#e))
        }
        syn::Expr::Path(_) | syn::Expr::Index(_) if real_syn(r, &e) => {
            syn::parse_quote!(::nilang::Real::val(&#e))
        }
        syn::Expr::Paren(p) => {
            let inner = plain(r, *p.expr);
            syn::parse_quote!((#inner))
        }
        syn::Expr::Binary(mut b) => {
            *b.left = plain(r, *b.left);
            *b.right = plain(r, *b.right);
            syn::Expr::Binary(b)
        }
        syn::Expr::Unary(mut u) => {
            *u.expr = plain(r, *u.expr);
            syn::Expr::Unary(u)
        }
        syn::Expr::MethodCall(mut m) => {
            *m.receiver = plain(r, *m.receiver);
            m.args = m.args.into_iter().map(|a| plain(r, a)).collect();
            syn::Expr::MethodCall(m)
        }
        syn::Expr::Call(c) => {
            let func = match &*c.func {
                syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                _ => None,
            };
            let mut args: Vec<syn::Expr> = c.args.into_iter().map(|a| plain(r, a)).collect();
            match (func.as_deref(), args.len()) {
                (Some("identity"), 1) => args.remove(0),
                (Some("square"), 1) => {
                    // `x * x`, as the primitive computes it (a search on values must choose
                    // what the reversible program would)
                    let x = &args[0];
                    syn::parse_quote!((#x) * (#x))
                }
                (Some(f), _) if method_of_primitive(f).is_some() => {
                    let method =
                        syn::Ident::new(method_of_primitive(f).unwrap(), Span::call_site());
                    let x = args.remove(0);
                    syn::parse_quote!((#x).#method(#(#args),*))
                }
                _ => {
                    let func = &c.func;
                    syn::parse_quote!(#func(#(#args),*))
                }
            }
        }
        other => other,
    }
}

/// Is this variable a differentiable scalar parameter (`x: f64` or `x: &f64`)?
fn is_scalar_param(r: Typing, p: &syn::ExprPath) -> bool {
    p.path.get_ident().is_some_and(|ident| {
        r.binds
            .iter()
            .any(|b| b.name == *ident && matches!(b.origin, Origin::Param) && b.ty == Ty::Real)
    })
}

/// Does the expression read a differentiable scalar anywhere?
fn mentions_real(r: Typing, e: &syn::Expr) -> bool {
    struct Finder<'a>(Typing<'a>, bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder<'_> {
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            // a binding or an element of one: a constant of the real type (`consts::PI`) is
            // not differentiable
            let binding = match e {
                syn::Expr::Path(p) => p.path.get_ident().is_some(),
                syn::Expr::Index(_) => true,
                _ => false,
            };
            if binding && real_syn(self.0, e) {
                self.1 = true;
            } else {
                syn::visit::visit_expr(self, e);
            }
        }
    }
    let mut f = Finder(r, false);
    syn::visit::Visit::visit_expr(&mut f, e);
    f.1
}

fn respan(i: &syn::Ident, span: proc_macro2::Span) -> syn::Ident {
    syn::Ident::new(&i.to_string(), span)
}

fn is_int_literal(e: &syn::Expr, n: u64) -> bool {
    matches!(e, syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. })
        if i.base10_parse::<u64>().ok() == Some(n))
}

/// Are both operands the same place (`x` and `x`, `v[i]` and `v[i]`)?
fn same_place(a: &syn::Expr, b: &syn::Expr) -> bool {
    fn place(e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Path(_) => true,
            syn::Expr::Index(i) => place(&i.expr),
            syn::Expr::Paren(p) => place(&p.expr),
            _ => false,
        }
    }
    fn bare(e: &syn::Expr) -> &syn::Expr {
        match e {
            syn::Expr::Paren(p) => bare(&p.expr),
            other => other,
        }
    }
    place(a)
        && place(b)
        && bare(a).to_token_stream().to_string() == bare(b).to_token_stream().to_string()
}

/// Are both operands elements of one vector (`v[i]` and `v[j]`)?
fn same_root(a: &syn::Expr, b: &syn::Expr) -> bool {
    fn root(e: &syn::Expr) -> Option<String> {
        match e {
            syn::Expr::Index(i) => match &*i.expr {
                syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                _ => None,
            },
            syn::Expr::Paren(p) => root(&p.expr),
            _ => None,
        }
    }
    matches!((root(a), root(b)), (Some(x), Some(y)) if x == y)
}

/// Is a rewritten expression a differentiable scalar (of the function's real type)?
fn real_syn(r: Typing, e: &syn::Expr) -> bool {
    let bind_of = |ident: &syn::Ident| r.binds.iter().find(|b| b.name == *ident).map(|b| b.ty);
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(_),
            ..
        }) => r.sig.f64_mode,
        syn::Expr::Lit(_) => false,
        syn::Expr::Path(p) => match p.path.get_ident() {
            Some(i) => bind_of(i) == Some(Ty::Real),
            None => r.sig.is_real_constant(&p.path),
        },
        syn::Expr::Index(i) => match &*i.expr {
            syn::Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| bind_of(i) == Some(Ty::RealVec)),
            _ => false,
        },
        syn::Expr::Paren(p) => real_syn(r, &p.expr),
        syn::Expr::Binary(b) => match b.op {
            syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_) | syn::BinOp::Div(_) => {
                real_syn(r, &b.left) || real_syn(r, &b.right)
            }
            _ => false,
        },
        syn::Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && real_syn(r, &u.expr),
        // a float method of a real value, differentiable or constant (`0.5f64.sqrt()`)
        syn::Expr::MethodCall(m) => m.method != "len" && real_syn(r, &m.receiver),
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(p) => {
                is_constructor(r.sig, &p.path)
                    || (p.path.get_ident().is_some() && c.args.iter().any(|a| real_syn(r, a)))
            }
            _ => false,
        },
        _ => false,
    }
}

/// Is a resolved expression a differentiable scalar?
pub fn is_real(r: &Resolver, e: &syn::Expr, _reads: &BTreeSet<Id>) -> bool {
    real_syn(r.typing(), e)
}

/// What telling a differentiable scalar from a plain value needs: every binding (by its
/// unique spelling) and the signature (the real type's names and constants).
#[derive(Clone, Copy)]
pub struct Typing<'a> {
    /// The bindings of the function.
    pub binds: &'a [crate::nir::Bind],
    /// Its signature.
    pub sig: &'a Signature,
}

/// `T::zero()`, `T::from_f64(x)`, `f64::from(i)`: a value of the real type made from constants.
pub fn is_constructor(sig: &Signature, path: &syn::Path) -> bool {
    path.segments.len() >= 2 && sig.is_real_type_name(&path.segments[0].ident)
}

/// The length of `vec![zero; len]`, when the fill value is a zero of the real type.
pub fn zeros_len(e: &syn::Expr) -> Option<syn::Expr> {
    if let syn::Expr::Repeat(r) = e {
        // `[0.0; N]`: an array of zeros, a vector of length `N` in the reversible program
        return is_zero(&r.expr).then(|| (*r.len).clone());
    }
    let syn::Expr::Macro(m) = e else { return None };
    if !m.mac.path.is_ident("vec") {
        return None;
    }
    let (fill, len) = m
        .mac
        .parse_body_with(|input: syn::parse::ParseStream| {
            let fill: syn::Expr = input.parse()?;
            input.parse::<syn::Token![;]>()?;
            let len: syn::Expr = input.parse()?;
            Ok((fill, len))
        })
        .ok()?;
    is_zero(&fill).then_some(len)
}

/// Is this the literal `0.0`?
fn is_zero(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(f),
            ..
        }) => f.base10_parse::<f64>().ok() == Some(0.0),
        _ => false,
    }
}

/// `if c { a } else { b }` with one expression in each branch.
pub fn selection(e: &syn::Expr) -> Option<(&syn::Expr, &syn::Expr, &syn::Expr)> {
    let syn::Expr::If(i) = e else { return None };
    fn single(b: &syn::Block) -> Option<&syn::Expr> {
        match b.stmts.as_slice() {
            [syn::Stmt::Expr(e, None)] => Some(e),
            _ => None,
        }
    }
    let then = single(&i.then_branch)?;
    let (_, els) = i.else_branch.as_ref()?;
    let els = match &**els {
        syn::Expr::Block(b) => single(&b.block)?,
        other @ syn::Expr::If(_) => other,
        _ => return None,
    };
    Some((&i.cond, then, els))
}

/// Calls `found` with each variable that is an operand of arithmetic (`+ - * /`) whose other
/// operand reads a differentiable binding (`x[j] * ti` finds `ti`).
/// The variables that are bare operands of the arithmetic at the top of `e` (`w` in `w * w`,
/// `-(a + b)`), not those inside an index, a cast, a call or a method's arguments.
pub fn arithmetic_operands(e: &syn::Expr, found: &mut dyn FnMut(&syn::Ident)) {
    match e {
        syn::Expr::Binary(b) if is_arithmetic(&b.op) => {
            arithmetic_operands(&b.left, found);
            arithmetic_operands(&b.right, found);
        }
        syn::Expr::Paren(syn::ExprParen { expr, .. })
        | syn::Expr::Group(syn::ExprGroup { expr, .. })
        | syn::Expr::Unary(syn::ExprUnary { expr, .. }) => arithmetic_operands(expr, found),
        syn::Expr::Path(p) => {
            if let Some(ident) = p.path.get_ident() {
                found(ident);
            }
        }
        _ => {}
    }
}

pub fn operands_beside_reals(
    e: &syn::Expr,
    binds: &[crate::nir::Bind],
    found: &mut dyn FnMut(&syn::Ident),
) {
    struct RealReads<'a, 'b>(&'a [crate::nir::Bind], &'b mut bool);
    impl<'ast> syn::visit::Visit<'ast> for RealReads<'_, '_> {
        fn visit_ident(&mut self, i: &'ast syn::Ident) {
            if self.0.iter().any(|b| b.name == *i && b.ty != Ty::Plain) {
                *self.1 = true;
            }
        }
    }
    struct Walk<'a, 'b> {
        binds: &'a [crate::nir::Bind],
        found: &'b mut dyn FnMut(&syn::Ident),
    }
    impl<'ast> syn::visit::Visit<'ast> for Walk<'_, '_> {
        fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
            if is_arithmetic(&b.op) {
                for (side, other) in [(&*b.left, &*b.right), (&*b.right, &*b.left)] {
                    let mut side = side;
                    while let syn::Expr::Paren(p) = side {
                        side = &p.expr;
                    }
                    let mut real = false;
                    syn::visit::Visit::visit_expr(&mut RealReads(self.binds, &mut real), other);
                    if let (syn::Expr::Path(p), true) = (side, real) {
                        if let Some(ident) = p.path.get_ident() {
                            (self.found)(ident);
                        }
                    }
                }
            }
            syn::visit::visit_expr_binary(self, b);
        }
    }
    let mut w = Walk { binds, found };
    syn::visit::Visit::visit_expr(&mut w, e);
}
