//! The statement macros: `routine!` / `uncompute!`, `reverse!`, `expand!`, `nocheck!`,
//! `safe!`, `par!`, the stack macros, `mapfoldl!` and `dealloc!`.

use super::*;

impl Parser<'_> {
    pub(super) fn macro_stmt(&mut self, mac: &syn::Macro, whole: &dyn ToTokens, out: &mut Sink) {
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
            "uncall" => self.uncall(mac, whole, out),
            "dealloc" => self.dealloc(mac, whole, out),
            "push" | "pop" | "push_copy" | "pop_copy" => self.stack(&name, mac, whole, out),
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

    /// `uncall!(g(x, y))`: the call run backwards.
    fn uncall(&mut self, mac: &syn::Macro, whole: &dyn ToTokens, out: &mut Sink) {
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

    /// `push!(stack, x)`, `pop!(stack, x)` and their copying forms.
    fn stack(&mut self, name: &str, mac: &syn::Macro, whole: &dyn ToTokens, out: &mut Sink) {
        let args = match mac
            .parse_body_with(syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated)
        {
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

    pub(super) fn macro_block(&mut self, mac: &syn::Macro) -> Option<Vec<syn::Stmt>> {
        match mac.parse_body_with(syn::Block::parse_within) {
            Ok(s) => Some(s),
            Err(e) => {
                self.errors.add(e);
                None
            }
        }
    }

    pub(super) fn dealloc(&mut self, mac: &syn::Macro, whole: &dyn ToTokens, out: &mut Vec<Stmt>) {
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
