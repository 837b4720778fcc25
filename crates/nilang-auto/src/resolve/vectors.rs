//! Whole vectors of differentiable numbers, as plain Rust handles them, written element by
//! element:
//!
//! - another name for one (`let u = x;`, `let u = &v;`): the name resolves to the binding it
//!   names (no new binding: the reversible program reads and writes the vector itself);
//! - a copy (`let u = x.to_vec();`, `x[a..b].to_vec()`, `.clone()`, `.to_owned()`): a local
//!   vector of zeros of the source's length, filled in a loop (the fill saves nothing);
//! - a sum or product (`x.iter().sum::<f64>()`, `.product()`, anywhere in an expression; of
//!   data left out of `wrt` too): a local accumulator, `+=` (`*=`) each element in a loop;
//!   of a mapped iterator (`x.iter().zip(&y).map(|(a, b)| a * b).sum::<f64>()`), the `for`
//!   over that iterator with the closure's parameter as its pattern, adding the closure's value;
//! - `dst.copy_from_slice(src)` (either a sub-slice): a loop assigning each element, after a
//!   check that the lengths agree, as Rust's own panics when they differ.
//!
//! Each becomes the statements a user would write by hand, in the user's syntax with fresh
//! names ([`crate::Names::user_fresh`]), resolved as the user's own: the rest of the front end
//! reverses and differentiates them as it does any loop. The source is read through a fresh
//! name bound to its binding before anything else is declared, so a copy that shadows its
//! source (`let x = x.to_vec();`) still reads the old binding.

use super::{err, Resolver, Result};
use crate::nir::{Id, Stmt, Ty};
use proc_macro2::Span;
use syn::parse_quote_spanned;

/// A vector of differentiable numbers as an expression names it: a binding, or a sub-slice of
/// one (`x[a..b]`, `x[a..]`, `x[..b]`, `x[a..=b]`).
struct Slice<'e> {
    /// The binding.
    id: Id,
    /// The range, for a sub-slice.
    range: Option<&'e syn::ExprRange>,
}

/// `e` without references and parentheses.
fn stripped(mut e: &syn::Expr) -> &syn::Expr {
    loop {
        match e {
            syn::Expr::Reference(r) => e = &r.expr,
            syn::Expr::Paren(p) => e = &p.expr,
            syn::Expr::Group(g) => e = &g.expr,
            _ => return e,
        }
    }
}

/// A method call `receiver.name()` without arguments: its receiver.
fn no_arg_call<'e>(e: &'e syn::Expr, names: &[&str]) -> Option<(&'e syn::Expr, String)> {
    let syn::Expr::MethodCall(m) = stripped(e) else {
        return None;
    };
    let name = m.method.to_string();
    (m.args.is_empty() && names.contains(&name.as_str())).then_some((&*m.receiver, name))
}

/// `iter.map(|pattern| body)` with a closure of one parameter: `iter` and the closure.
fn mapped(e: &syn::Expr) -> Option<(&syn::Expr, &syn::ExprClosure)> {
    let syn::Expr::MethodCall(m) = stripped(e) else {
        return None;
    };
    match (m.method == "map", m.args.first()) {
        (true, Some(syn::Expr::Closure(c))) if m.args.len() == 1 && c.inputs.len() == 1 => {
            Some((&m.receiver, c))
        }
        _ => None,
    }
}

/// A slice read through fresh names: `src[start + k]` for `k` in `0..len`.
struct Reader {
    src: syn::Ident,
    start: Option<syn::Ident>,
    len: syn::Ident,
}

impl Reader {
    fn element(&self, k: &syn::Ident, span: Span) -> syn::Expr {
        let src = &self.src;
        match &self.start {
            Some(start) => parse_quote_spanned!(span=> #src[#start + #k]),
            None => parse_quote_spanned!(span=> #src[#k]),
        }
    }
}

impl Resolver<'_> {
    /// The binding a path names, when it is a vector of differentiable numbers (or, with
    /// `data`, also a slice of numbers left out of `wrt`).
    fn real_vec_named(&self, e: &syn::Expr, data: bool) -> Option<Id> {
        let syn::Expr::Path(p) = stripped(e) else {
            return None;
        };
        let id = self.lookup(p.path.get_ident()?)?;
        let real = self.binds[id].ty == Ty::RealVec || data && self.sig.is_real_data(id);
        real.then_some(id)
    }

    /// `e` as a vector of differentiable numbers (with `data`, also of numbers left out of
    /// `wrt`): a binding or a sub-slice of one.
    fn slice_of<'e>(&self, e: &'e syn::Expr, data: bool) -> Option<Slice<'e>> {
        match stripped(e) {
            syn::Expr::Index(i) => match &*i.index {
                syn::Expr::Range(range) => Some(Slice {
                    id: self.real_vec_named(&i.expr, data)?,
                    range: Some(range),
                }),
                _ => None,
            },
            other => Some(Slice {
                id: self.real_vec_named(other, data)?,
                range: None,
            }),
        }
    }

    /// Plain `let`s of a fresh start and length for `slice`, read before anything else is
    /// declared, and a fresh name for its binding.
    fn reader(&mut self, slice: &Slice, span: Span, out: &mut Vec<Stmt>) -> Result<Reader> {
        let src = self.names.user_fresh("source", span);
        self.scope.push((src.to_string(), slice.id));
        let (start, len): (Option<syn::Expr>, syn::Expr) = match slice.range {
            None => (None, parse_quote_spanned!(span=> #src.len())),
            Some(r) => {
                let start: syn::Expr = match &r.start {
                    Some(s) => parse_quote_spanned!(span=> (#s)),
                    None => parse_quote_spanned!(span=> 0usize),
                };
                let len = match (&r.end, &r.limits) {
                    (Some(e), syn::RangeLimits::HalfOpen(_)) => {
                        parse_quote_spanned!(span=> (#e) - #start)
                    }
                    (Some(e), syn::RangeLimits::Closed(_)) => {
                        parse_quote_spanned!(span=> (#e) + 1 - #start)
                    }
                    (None, _) => parse_quote_spanned!(span=> #src.len() - #start),
                };
                (Some(start), len)
            }
        };
        let start = match start {
            Some(value) => {
                let name = self.names.user_fresh("start", span);
                self.stmt(&parse_quote_spanned!(span=> let #name = #value;), out)?;
                Some(name)
            }
            None => None,
        };
        let name = self.names.user_fresh("len", span);
        self.stmt(&parse_quote_spanned!(span=> let #name = #len;), out)?;
        Ok(Reader {
            src,
            start,
            len: name,
        })
    }

    /// `let ident = value;` when `value` is a whole vector of differentiable numbers, named
    /// or copied (see the module documentation); `Ok(false)` when it is not one.
    pub(super) fn let_vector(
        &mut self,
        ident: &syn::Ident,
        value: &syn::Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> Result<bool> {
        if let Some(slice) = self.slice_of(value, false) {
            if slice.range.is_some() {
                return err(
                    value,
                    "a part of a vector of differentiable numbers cannot be given a name here: \
                     copy it (`let w = v[a..b].to_vec();`) or index the vector itself",
                );
            }
            self.scope.push((ident.to_string(), slice.id));
            return Ok(true);
        }
        let Some((source, _)) = no_arg_call(value, &["to_vec", "clone", "to_owned"]) else {
            return Ok(false);
        };
        let Some(slice) = self.slice_of(source, false) else {
            return Ok(false);
        };
        let reader = self.reader(&slice, span, out)?;
        let len = &reader.len;
        let zeros: syn::Expr = parse_quote_spanned!(span=> vec![0.0; #len]);
        self.let_one(ident, None, &zeros, span, out)?;
        let k = self.names.user_fresh("k", span);
        let element = reader.element(&k, span);
        let fill: syn::Expr = parse_quote_spanned!(span=>
            for #k in 0..#len {
                #ident[#k] = #element;
            }
        );
        self.expr_stmt(&fill, out)?;
        Ok(true)
    }

    /// `x.iter().sum::<f64>()` or `.product()` of a vector of differentiable numbers: the
    /// statements that accumulate it into a fresh local (to `out`) and that local's name.
    pub(crate) fn vector_fold(
        &mut self,
        e: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Result<Option<syn::Ident>> {
        let Some((iter, fold)) = no_arg_call(e, &["sum", "product"]) else {
            return Ok(None);
        };
        if let Some((inner, closure)) = mapped(iter) {
            return self.mapped_fold(inner, closure, &fold, e, out).map(Some);
        }
        let Some((source, _)) = no_arg_call(iter, &["iter", "into_iter"]) else {
            return Ok(None);
        };
        // a sum of data is summed the same way (as an expression it would not compile in the
        // generic program)
        let Some(slice) = self.slice_of(source, true) else {
            return Ok(None);
        };
        let span = syn::spanned::Spanned::span(e);
        let reader = self.reader(&slice, span, out)?;
        let acc = self.names.user_fresh(&fold, span);
        let k = self.names.user_fresh("k", span);
        let (len, element) = (&reader.len, reader.element(&k, span));
        let (start, step): (syn::Stmt, syn::Expr) = if fold == "sum" {
            (
                // Rust's `Sum` for floats starts from −0 (an empty sum, or one of −0s, is −0)
                parse_quote_spanned!(span=> let mut #acc = -0.0;),
                parse_quote_spanned!(span=> #acc += #element),
            )
        } else {
            (
                parse_quote_spanned!(span=> let mut #acc = 1.0;),
                parse_quote_spanned!(span=> #acc *= #element),
            )
        };
        self.stmt(&start, out)?;
        let fold_loop: syn::Expr = parse_quote_spanned!(span=> for #k in 0..#len { #step; });
        self.expr_stmt(&fold_loop, out)?;
        Ok(Some(acc))
    }

    /// `iter.map(|pattern| body).sum::<f64>()` (or `.product()`): an accumulator and the loop
    /// `for pattern in iter { acc += body; }`, resolved as a `for` over `iter` (a vector, a
    /// part of one, `zip`, `enumerate`: what a `for` accepts), the closure's statements
    /// first when its body is a block.
    fn mapped_fold(
        &mut self,
        iter: &syn::Expr,
        closure: &syn::ExprClosure,
        fold: &str,
        e: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Result<syn::Ident> {
        let span = syn::spanned::Spanned::span(e);
        let acc = self.names.user_fresh(fold, span);
        let mut pattern = &closure.inputs[0];
        if let syn::Pat::Type(t) = pattern {
            pattern = &t.pat;
        }
        let (stmts, value) = match &*closure.body {
            syn::Expr::Block(b) => match b.block.stmts.split_last() {
                Some((syn::Stmt::Expr(value, None), stmts)) => (stmts.to_vec(), value.clone()),
                _ => return err(&closure.body, "the closure's body must end with its value"),
            },
            value => (Vec::new(), value.clone()),
        };
        let (start, step): (syn::Stmt, syn::Stmt) = if fold == "sum" {
            (
                parse_quote_spanned!(span=> let mut #acc = -0.0;),
                parse_quote_spanned!(span=> #acc += #value;),
            )
        } else {
            (
                parse_quote_spanned!(span=> let mut #acc = 1.0;),
                parse_quote_spanned!(span=> #acc *= #value;),
            )
        };
        self.stmt(&start, out)?;
        let fold_loop: syn::Expr =
            parse_quote_spanned!(span=> for #pattern in #iter { #(#stmts)* #step });
        self.expr_stmt(&fold_loop, out)?;
        Ok(acc)
    }

    /// A method called on a whole vector of differentiable numbers (`receiver`, as rewritten,
    /// reading `reads`): `len` and `is_empty` are plain; any other is an error that lists
    /// what is supported (sums and copies are recognised before this).
    pub(crate) fn vector_method(
        &self,
        method: &syn::Ident,
        receiver: &syn::Expr,
        reads: &std::collections::BTreeSet<Id>,
    ) -> Result<()> {
        let whole = crate::nir::Expr {
            syn: receiver.clone(),
            reads: reads.clone(),
            real: false,
        };
        if !self.is_real_vec(&whole) || method == "len" || method == "is_empty" {
            return Ok(());
        }
        if method == "iter" {
            return err(
                method,
                "this iterator chain over a vector of differentiable numbers is not supported: \
                 write the loop (`for v in x.iter() { s += v * v; }`); supported are \
                 `x.iter().sum::<f64>()`, `.product()`, a sum or product of `.map(|v| …)` \
                 over them, and `for` over `x.iter()`, `.enumerate()` and `.zip(…)`",
            );
        }
        err(
            method,
            format!(
                "`.{method}()` of a vector of differentiable numbers is not supported here: \
                 read its elements by index (`x[i]`) in a loop; also supported are `x.len()`, \
                 `x.iter().sum::<f64>()` (and `.product()`), `let v = x.to_vec();` and \
                 `v.copy_from_slice(&x)`"
            ),
        )
    }

    /// `dst.copy_from_slice(src)` with both vectors of differentiable numbers (or sub-slices
    /// of them): a check that the lengths agree, then `dst[k] = src[k]` in a loop. `Ok(false)`
    /// when the statement is not one.
    pub(super) fn copy_from_slice(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Result<bool> {
        if m.method != "copy_from_slice" || m.args.len() != 1 {
            return Ok(false);
        }
        let span = syn::spanned::Spanned::span(m);
        let Some(dst) = self.slice_of(&m.receiver, false) else {
            return err(
                &m.receiver,
                "`copy_from_slice` here copies into a local vector of differentiable numbers \
                 (or a sub-slice of one, `v[a..b]`)",
            );
        };
        let Some(src) = self.slice_of(&m.args[0], false) else {
            return err(
                &m.args[0],
                "`copy_from_slice` here copies from a vector of differentiable numbers (or a \
                 sub-slice of one, `&x[a..b]`)",
            );
        };
        let from = self.reader(&src, span, out)?;
        let to = self.reader(&dst, span, out)?;
        let (from_len, to_len) = (&from.len, &to.len);
        let checked = self.names.user_fresh("len", span);
        self.stmt(
            &parse_quote_spanned!(span=>
                let #checked = ::nilang::__private::entry::copy_length(#to_len, #from_len);
            ),
            out,
        )?;
        let k = self.names.user_fresh("k", span);
        let (target, element) = (to.element(&k, span), from.element(&k, span));
        let copy: syn::Expr = parse_quote_spanned!(span=>
            for #k in 0..#checked {
                #target = #element;
            }
        );
        self.expr_stmt(&copy, out)?;
        Ok(true)
    }
}
