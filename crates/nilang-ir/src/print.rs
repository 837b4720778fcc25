//! The text form of the IR: the language's own syntax, as the papers' `macroexpand` shows it.
//!
//! [`stmt_tokens`] turns statements back into the surface syntax, [`header_text`] gives a
//! statement's one-line text; [`crate::reverse::function_text`] prints a function's forward
//! and inverse programs with them, formatted by `prettyplease`.

use crate::ast::*;
use crate::text::{expr_text, stmt_text, tokens_text};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};
use syn::{Expr, Ident};

/// One-line text of a statement (for compound statements, their header only).
pub fn header_text(kind: &StmtKind) -> String {
    let s = Stmt {
        kind: kind.clone(),
        span: proc_macro2::Span::call_site(),
        source: String::new(),
    };
    match kind {
        StmtKind::If { pre, post, .. } => {
            format!("if ({}, {}) {{ … }}", expr_text(pre), expr_text(post))
        }
        StmtKind::While { pre, post, .. } => {
            format!("while ({}, {}) {{ … }}", expr_text(pre), expr_text(post))
        }
        StmtKind::For { var, range, body } if range.broadcast.is_some() => {
            user_statement(var, body)
        }
        StmtKind::For { var, range, .. } => {
            format!("for {var} in {} {{ … }}", tokens_text(&range_tokens(range)))
        }
        StmtKind::NoCheck(_) => "nocheck! { … }".to_string(),
        StmtKind::Routine { .. } => "routine! { … }".to_string(),
        StmtKind::Fields(f) => crate::constructors::fields_text(f),
        _ => stmt_text(&stmt_tokens(&s)),
    }
}

/// A dataview as tokens of the surface syntax.
pub fn view_tokens(v: &Dataview) -> TokenStream {
    let root = &v.root;
    let mut ts = quote!(#root);
    for a in &v.path {
        ts = match a {
            Access::Field(m) => quote!(#ts.#m),
            Access::Index(i) => quote!(#ts[#i]),
        };
    }
    ts
}

fn operand_tokens(o: &Operand) -> TokenStream {
    match o {
        Operand::View(v) => view_tokens(v),
        Operand::Const(e) => match e {
            syn::Expr::Binary(_) | syn::Expr::Cast(_) | syn::Expr::Unary(_) => quote!((#e)),
            _ => e.to_token_stream(),
        },
    }
}

/// The `for` range in the surface syntax; a broadcast's loop ([`RangeSpec::broadcast`]) runs
/// over `broadcast!(y, x)`, its slices (a form only printed, never parsed).
pub fn range_tokens(r: &RangeSpec) -> TokenStream {
    let RangeSpec {
        start,
        end,
        inclusive,
        step,
        rev,
        parallel,
        weight,
        broadcast,
    } = r;
    let range = match broadcast {
        Some(b) => {
            let slices = &b.slices;
            quote!(broadcast!(#(#slices),*))
        }
        None if *inclusive => quote!(#start..=#end),
        None => quote!(#start..#end),
    };
    if step.is_none() && !rev && !parallel {
        return range;
    }
    let mut ts = if broadcast.is_some() {
        range
    } else {
        quote!((#range))
    };
    if let Some(s) = step {
        ts = quote!(#ts.step_by(#s));
    }
    if *rev {
        ts = quote!(#ts.rev());
    }
    if *parallel {
        ts = quote!(#ts.par());
    }
    if let Some(w) = weight {
        ts = quote!(#ts.weight(#w));
    }
    ts
}

fn bindings_tokens(b: &[Binding]) -> (TokenStream, TokenStream) {
    let names: Vec<_> = b
        .iter()
        .map(|b| match &b.ty {
            Some(t) => {
                let n = &b.name;
                quote!(#n: #t)
            }
            None => b.name.to_token_stream(),
        })
        .collect();
    let values: Vec<_> = b.iter().map(|b| &b.value).collect();
    if b.len() == 1 {
        (names[0].clone(), values[0].to_token_stream())
    } else {
        (quote!((#(#names),*)), quote!((#(#values),*)))
    }
}

/// A statement in the surface syntax of the language.
pub fn stmt_tokens(s: &Stmt) -> TokenStream {
    match &s.kind {
        StmtKind::Instr(i) => instr_tokens(i),
        StmtKind::XorExpr { target, expr } => {
            let target = view_tokens(target);
            quote!(#target ^= #expr;)
        }
        StmtKind::Builtin { op, args, operand } => {
            let name = format_ident!("{}", op.name());
            let mut all: Vec<_> = args.iter().map(view_tokens).collect();
            if let Some(o) = operand {
                all.push(operand_tokens(o));
            }
            quote!(#name(#(#all),*);)
        }
        StmtKind::Alloc(b) => {
            let (n, v) = bindings_tokens(b);
            quote!(let #n = #v;)
        }
        StmtKind::Dealloc(b) => {
            let parts: Vec<_> = b
                .iter()
                .map(|b| {
                    let n = &b.name;
                    let v = &b.value;
                    quote!(#n = #v)
                })
                .collect();
            quote!(dealloc!(#(#parts),*);)
        }
        StmtKind::If {
            pre,
            post,
            explicit_post,
            then,
            els,
        } => {
            let then = block_tokens(then);
            let cond = if_condition(pre, post, *explicit_post);
            if els.is_empty() {
                quote!(if #cond { #then })
            } else if els.len() == 1 && matches!(els[0].kind, StmtKind::If { .. }) {
                let e = stmt_tokens(&els[0]);
                quote!(if #cond { #then } else #e)
            } else {
                let els = block_tokens(els);
                quote!(if #cond { #then } else { #els })
            }
        }
        StmtKind::While { pre, post, body } => {
            let body = block_tokens(body);
            quote!(while (#pre, #post) { #body })
        }
        StmtKind::For { var, range, body } => {
            let body = block_tokens(body);
            let r = range_tokens(range);
            quote!(for #var in #r { #body })
        }
        StmtKind::Call { call, uncall } => call_tokens(call, *uncall),
        StmtKind::Stack {
            stack,
            value,
            push,
            copy,
        } => {
            let name = format_ident!("{}", stack_macro(*push, *copy));
            let (s, v) = (view_tokens(stack), view_tokens(value));
            quote!(#name!(#s, #v);)
        }
        StmtKind::Fields(f) => crate::constructors::fields_text_tokens(f),
        StmtKind::Safe(ts) => quote!(safe! { #ts }),
        StmtKind::NoCheck(body) => {
            let b = block_tokens(body);
            quote!(nocheck! { #b })
        }
        StmtKind::Routine { compute, body } => {
            let (p, x) = (block_tokens(compute), block_tokens(body));
            quote!(routine! { #p } #x uncompute!();)
        }
    }
}

/// An instruction in the surface syntax: `y += f(x)`, `y += a * b`.
fn instr_tokens(i: &Instr) -> TokenStream {
    let target = view_tokens(&i.target);
    let op: TokenStream = i.op.symbol().parse().unwrap();
    let args: Vec<_> = i.args.iter().map(operand_tokens).collect();
    match &i.prim {
        Prim::Builtin(info) if info.infix.is_some() => {
            let infix: TokenStream = info.infix.unwrap().parse().unwrap();
            let (a, b) = (&args[0], &args[1]);
            quote!(#target #op #a #infix #b;)
        }
        Prim::Builtin(info) => {
            let name = format_ident!("{}", info.name);
            quote!(#target #op #name(#(#args),*);)
        }
        Prim::User(p) => quote!(#target #op #p(#(#args),*);),
    }
}

/// A call (`g(x, &a, n)`, `r.m::<T>(x)`) or an uncall (`uncall!(g(x))`).
fn call_tokens(call: &Call, uncall: bool) -> TokenStream {
    let args: Vec<_> = call
        .args
        .iter()
        .map(|a| match a {
            CallArg::View(v) => view_tokens(v),
            CallArg::Shared(e) => quote!(&#e),
            CallArg::Value(e) => e.to_token_stream(),
        })
        .collect();
    let c = match &call.callee {
        Callee::Path(p) => quote!(#p(#(#args),*)),
        Callee::Param(f) => quote!(#f(#(#args),*)),
        Callee::Method {
            receiver,
            method,
            turbofish,
        } => {
            let tf = turbofish.as_ref().map(|t| quote!(::#t));
            quote!(#receiver.#method #tf(#(#args),*))
        }
    };
    if uncall {
        quote!(uncall!(#c);)
    } else {
        quote!(#c;)
    }
}

/// The macro of a stack statement: `push`, `pop`, `push_copy` or `pop_copy`.
pub fn stack_macro(push: bool, copy: bool) -> &'static str {
    match (push, copy) {
        (true, false) => "push",
        (false, false) => "pop",
        (true, true) => "push_copy",
        (false, true) => "pop_copy",
    }
}

/// The condition of an `if` as written: `(pre, post)`, or `pre` for the shorthand.
pub fn if_condition(pre: &syn::Expr, post: &syn::Expr, explicit_post: bool) -> TokenStream {
    if explicit_post {
        quote!((#pre, #post))
    } else {
        quote!(#pre)
    }
}

/// A block in the surface syntax.
pub fn block_tokens(stmts: &[Stmt]) -> TokenStream {
    stmts.iter().map(stmt_tokens).collect()
}

/// The element statements of a broadcast's loop as the user writes them: `[var]` shown as
/// `[..]` (`y[..] -= a * x[..];` for the inverse of `y[..] += a * x[..];`).
pub fn user_statement(var: &Ident, body: &[Stmt]) -> String {
    body.iter()
        .map(|s| stmt_text(&whole_slices(stmt_tokens(s), var)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The tokens with every `[var]` replaced by `[..]`.
fn whole_slices(ts: proc_macro2::TokenStream, var: &Ident) -> proc_macro2::TokenStream {
    use proc_macro2::{Delimiter, Group, TokenTree};
    ts.into_iter()
        .map(|t| match t {
            TokenTree::Group(g) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                let is_var = matches!(&inner[..], [TokenTree::Ident(i)] if i == var);
                let stream = if g.delimiter() == Delimiter::Bracket && is_var {
                    quote!(..)
                } else {
                    whole_slices(g.stream(), var)
                };
                let mut shown = Group::new(g.delimiter(), stream);
                shown.set_span(g.span());
                TokenTree::Group(shown)
            }
            other => other,
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
