//! The text form of the IR: the language's own syntax, as the papers' `macroexpand` shows it.
//!
//! [`stmt_tokens`] turns statements back into the surface syntax; [`function_text`]
//! prints a function's forward and inverse programs, formatted by `prettyplease`.

use crate::ast::*;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};

/// Source text of a token stream with Rust-like spacing (`x[i].re += sin(y)`).
pub fn tokens_text(ts: &TokenStream) -> String {
    let mut out = String::new();
    write_tokens(ts.clone(), &mut out);
    out.trim().to_string()
}

fn write_tokens(ts: TokenStream, out: &mut String) {
    let mut prev_joint = false;
    let mut prev: Option<String> = None;
    for tt in ts {
        let text = match &tt {
            TokenTree::Group(_) => String::new(),
            other => other.to_string(),
        };
        let tight_before = matches!(
            &tt,
            TokenTree::Punct(p) if matches!(p.as_char(), '.' | ',' | ';' | ':' | '?')
        ) || matches!(&tt, TokenTree::Group(g) if matches!(g.delimiter(), Delimiter::Parenthesis | Delimiter::Bracket)
                && prev.as_deref().map(|p| p.chars().last().map(|c| c.is_alphanumeric() || c == '_' || c == ')' || c == ']' || c == '>' || c == '!').unwrap_or(false)).unwrap_or(false));
        let after_tight = matches!(
            prev.as_deref(),
            Some(".") | Some("&") | Some("!") | Some("::")
        ) || prev_joint
            || matches!(prev.as_deref(), Some("-") if out.ends_with("(-") || out.ends_with(", -") || out.ends_with("= -"));
        let is_colon_colon = matches!(&tt, TokenTree::Punct(p) if p.as_char() == ':' )
            && prev.as_deref() == Some(":");
        if !out.is_empty()
            && !tight_before
            && !after_tight
            && !is_colon_colon
            && !out.ends_with(['(', '[', ' '])
        {
            out.push(' ');
        }
        if is_colon_colon && out.ends_with(' ') {
            out.pop();
        }
        match &tt {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{ ", " }"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                write_tokens(g.stream(), out);
                if out.ends_with(' ') && close.starts_with(' ') {
                    out.pop();
                }
                out.push_str(close);
                prev = Some(close.trim().to_string());
                prev_joint = false;
            }
            TokenTree::Punct(p) => {
                out.push(p.as_char());
                prev_joint = p.spacing() == proc_macro2::Spacing::Joint;
                let mut s = p.as_char().to_string();
                if s == ":" && out.ends_with("::") {
                    s = "::".into();
                }
                prev = Some(s);
            }
            _ => {
                out.push_str(&text);
                prev = Some(text);
                prev_joint = false;
            }
        }
    }
}

/// Source text of an expression.
pub fn expr_text(e: &syn::Expr) -> String {
    pretty_stmt_text(&quote!(#e;))
        .map(|t| t.trim_end_matches(';').to_string())
        .unwrap_or_else(|| tokens_text(&e.to_token_stream()))
}

/// One statement's tokens formatted by `prettyplease`, on one line; `None` if they do not parse.
pub fn pretty_stmt_text(ts: &TokenStream) -> Option<String> {
    let file: syn::File = syn::parse2(quote!(fn __f() { #ts })).ok()?;
    let text = prettyplease::unparse(&file);
    let body: Vec<&str> = text.lines().collect();
    // drop `fn __f() {` and the closing `}`
    let inner = &body[1..body.len().saturating_sub(1)];
    Some(inner.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" "))
}

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
            crate::broadcast::user_statement(var, body)
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

/// One-line text of a statement's tokens, formatted by `prettyplease` where they parse.
pub fn stmt_text(ts: &TokenStream) -> String {
    pretty_stmt_text(ts).unwrap_or_else(|| tokens_text(ts))
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
        StmtKind::Instr(i) => {
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
        StmtKind::Call { call, uncall } => {
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
                Callee::Method {
                    receiver,
                    method,
                    turbofish,
                } => {
                    let tf = turbofish.as_ref().map(|t| quote!(::#t));
                    quote!(#receiver.#method #tf(#(#args),*))
                }
            };
            if *uncall {
                quote!(uncall!(#c);)
            } else {
                quote!(#c;)
            }
        }
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

/// The forward and inverse programs of a function, as formatted text in the language's syntax,
/// with routines expanded into their three parts (what runs).
pub fn function_text(f: &Function) -> String {
    use crate::ast::expand_routines;
    let attrs = if f.checked {
        quote!(#[i])
    } else {
        quote!(#[i(nocheck)])
    };
    let vis = &f.vis;
    let sig = &f.sig;
    let mut inv_sig = f.sig.clone();
    inv_sig.ident = f.inverse_name.clone();
    let fwd = block_tokens(&expand_routines(&f.body));
    let inv = block_tokens(&expand_routines(&crate::reverse::reverse_block(&f.body)));
    let file = quote! {
        #attrs
        #vis #sig { #fwd }
        #attrs
        #vis #inv_sig { #inv }
    };
    match syn::parse2::<syn::File>(file.clone()) {
        Ok(parsed) => prettyplease::unparse(&parsed),
        Err(_) => tokens_text(&file),
    }
}
