//! The code of one statement: instructions and calls aside ([`super::instr`]), each kind of
//! statement with its runtime checks, and loops with hoisted bounds checks.

use super::{fields_code, unary_builtin_call, Gen};
use crate::tokens::{private, read_only};
use nilang_ir::ast::*;
use nilang_ir::print::range_tokens;
use nilang_ir::scope::VarKind;
use nilang_ir::text::{expr_text, tokens_text};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};

impl Gen {
    /// The code of one statement, its index expressions evaluated first.
    pub(crate) fn stmt(&mut self, s: &Stmt) -> TokenStream {
        self.with_bound_indices(s, |g| g.stmt_code(s))
    }

    /// The code of one statement: in an adjoint program, the shadow mode's own where it has
    /// one (`crate::adjoint`), else the plain program's.
    fn stmt_code(&mut self, s: &Stmt) -> TokenStream {
        let site = self.site(s);
        if self.shadow.is_some() {
            if let Some(ts) = self.adjoint_stmt(s, &site) {
                return ts;
            }
        }
        match &s.kind {
            StmtKind::Instr(instr) => self.instruction(instr, &site, s.span),
            StmtKind::XorExpr { target, expr } => self.xor_expr(target, expr, &site),
            StmtKind::Builtin { op, args, operand } => {
                self.builtin(*op, args, operand.as_ref(), &site)
            }
            StmtKind::Alloc(bindings) => self.alloc(bindings),
            StmtKind::Fields(f) => {
                self.scope.move_fields(f);
                fields_code(f, false)
            }
            StmtKind::Dealloc(bindings) => self.dealloc(bindings, &site),
            StmtKind::If {
                pre,
                post,
                then,
                els,
                ..
            } => self.if_stmt(pre, post, then, els, &site),
            StmtKind::While { pre, post, body } => self.while_stmt(pre, post, body, &site),
            StmtKind::For { range, .. } if range.parallel => self.par_for(s, &site),
            StmtKind::For { var, range, body } => self.for_loop(var, range, body, &site),
            StmtKind::Call { call, uncall } => self.call(call, *uncall, &site),
            StmtKind::Stack {
                stack,
                value,
                push,
                copy,
            } => self.stack(stack, value, *push, *copy, &site),
            StmtKind::Safe(tokens) => quote!({ let _ = { #tokens }; }),
            StmtKind::NoCheck(body) => {
                let was = std::mem::replace(&mut self.checked, false);
                let out = self.stmts(body);
                self.checked = was;
                out
            }
            StmtKind::Routine { .. } => self.stmts(std::slice::from_ref(s)),
        }
    }

    /// `target ^= expr`, with the runtime checks that `expr` reads no place it changes.
    fn xor_expr(&mut self, target: &Dataview, expr: &syn::Expr, site: &TokenStream) -> TokenStream {
        let p = private();
        let t = self.place(target);
        let checks: TokenStream = if self.checked {
            let reads = nilang_ir::check::xor_self_reads(target, expr).dynamic;
            reads
                .iter()
                .map(|r| {
                    let (pr, names) =
                        (self.place(r), format!("{} and {}", target.text(), r.text()));
                    quote!(#p::check_disjoint(&#t, &#pr, #site, #names);)
                })
                .collect()
        } else {
            TokenStream::new()
        };
        let expr = read_only(expr);
        quote!({ #checks let __v = #expr; #t ^= __v; })
    }

    /// A builtin: `swap`, the linear maps of two places (`hadamard`, `rot`, `irot`), and the
    /// one-place builtins.
    fn builtin(
        &mut self,
        op: BuiltinOp,
        args: &[Dataview],
        operand: Option<&Operand>,
        site: &TokenStream,
    ) -> TokenStream {
        let p = private();
        let views: Vec<&Dataview> = args.iter().collect();
        let checks = self.alias_checks(&views, &site);
        let places: Vec<_> = args.iter().map(|a| self.place(a)).collect();
        match op {
            BuiltinOp::Swap => {
                let (a, b) = (&places[0], &places[1]);
                quote!({ #checks let __a = #p::copy(&#a); let __b = #p::copy(&#b); #a = __b; #b = __a; })
            }
            // two places mixed by a linear map
            BuiltinOp::Hadamard | BuiltinOp::Rot | BuiltinOp::IRot => {
                let (a, b) = (&places[0], &places[1]);
                let (load, store, call) = match (op, operand) {
                    (BuiltinOp::Hadamard, _) => (
                        TokenStream::new(),
                        TokenStream::new(),
                        quote!(<_ as #p::Hadamard>::hadamard(&mut __a, &mut __b)),
                    ),
                    (_, Some(theta)) => {
                        let method = format_ident!("{}", op.name());
                        let (load, store) = self.load_store(theta, quote!(__a), quote!(__t));
                        let call = quote!(<_ as #p::Rotate>::#method(&mut __a, &mut __b, &mut __t));
                        (load, store, call)
                    }
                    (_, None) => unreachable!("rotations have an angle"),
                };
                quote!({
                    #checks
                    let mut __a = #p::copy(&#a);
                    let mut __b = #p::copy(&#b);
                    #load
                    #call;
                    #a = __a;
                    #b = __b;
                    #store
                })
            }
            // one place: neg, inc, dec, conj, flip, inv
            one_place => {
                let call = unary_builtin_call(one_place, &format_ident!("__a"));
                let a = &places[0];
                quote!({ let mut __a = #p::copy(&#a); #call; #a = __a; })
            }
        }
    }

    /// Ancillas allocated: `let mut a = value;`.
    fn alloc(&mut self, bindings: &[Binding]) -> TokenStream {
        let mut out = TokenStream::new();
        for b in bindings {
            out.extend(self.allocate(b));
        }
        for b in bindings {
            self.scope.declare(&b.name, VarKind::Ancilla);
        }
        out
    }

    /// Ancillas deallocated: checked to hold their value (and, in an adjoint program, a zero
    /// gradient).
    fn dealloc(&mut self, bindings: &[Binding], site: &TokenStream) -> TokenStream {
        let p = private();
        let mut out = TokenStream::new();
        for b in bindings {
            let (name, value) = (&b.name, read_only(&b.value));
            if self.checked {
                let var = name.to_string();
                let ty = b.ty.as_ref().map(|t| quote!(: &#t));
                out.extend(quote!({
                    let __expected #ty = &(#value);
                    #p::check_dealloc(&#name, __expected, #site, #var);
                }));
            }
            if self.shadow.is_some() {
                out.extend(self.dropped_gradient_check(b, &site));
            }
            self.scope.remove_ancilla(name);
        }
        out
    }

    /// `if (pre, post)`: the branch by `pre`, and `post` checked to agree after it.
    fn if_stmt(
        &mut self,
        pre: &syn::Expr,
        post: &syn::Expr,
        then: &[Stmt],
        els: &[Stmt],
        site: &TokenStream,
    ) -> TokenStream {
        let p = private();
        let then = self.block(then);
        let els = self.block(els);
        let check = self.checked.then(|| {
            let text = expr_text(post);
            let post = read_only(post);
            quote!(#p::check_if(__pre, #post, #site, #text);)
        });
        let pre = read_only(pre);
        quote!({
            let __pre: bool = #pre;
            if __pre { #then } else { #els }
            #check
        })
    }

    /// `while (pre, post)`: `post` false on entry and true after every iteration.
    fn while_stmt(
        &mut self,
        pre: &syn::Expr,
        post: &syn::Expr,
        body: &[Stmt],
        site: &TokenStream,
    ) -> TokenStream {
        let p = private();
        let body = self.block(body);
        let (text, pre, post) = (expr_text(post), read_only(pre), read_only(post));
        if self.checked {
            quote!({
                #p::check_while_entry(#post, #site, #text);
                while #pre {
                    #body
                    #p::check_while_iteration(#post, #site, #text);
                }
            })
        } else {
            quote!(while #pre { #body })
        }
    }

    /// A sequential `for` loop; checked, its range is checked unchanged after it.
    fn for_loop(
        &mut self,
        var: &syn::Ident,
        range: &RangeSpec,
        body: &[Stmt],
        site: &TokenStream,
    ) -> TokenStream {
        if let Some(bulk) = self.bulk_stack(var, range, body, site) {
            return bulk;
        }
        let p = private();
        let RangeSpec {
            start,
            inclusive,
            step,
            rev,
            ..
        } = range;
        let step = step.as_ref().map(read_only).unwrap_or_else(|| quote!(1));
        if !self.checked && range.step.is_none() {
            return self.unchecked_for(var, range, body, &site);
        }
        self.scope.push();
        self.scope.declare(var, VarKind::LoopVar);
        let body = self.block(body);
        self.scope.pop();
        let end = self.range_end(range, &site);
        let start = read_only(start);
        let check = self.checked.then(|| {
            let text = tokens_text(&range_tokens(range));
            quote!(#p::check_for_range((__start, __end, __step), (#start, #end, #step), #site, #text);)
        });
        quote!({
            let __start = #start;
            let __end = #end;
            let __step = #step;
            let __range = #p::RevRange::new(__start, __end, #inclusive, __step, #rev, #site);
            for #var in __range.iter() { #body }
            #check
        })
    }

    /// A stack operation: `push!`, `pop!`, `push_copy!`, `pop_copy!`.
    fn stack(
        &mut self,
        stack: &Dataview,
        value: &Dataview,
        push: bool,
        copy: bool,
        site: &TokenStream,
    ) -> TokenStream {
        let p = private();
        let (ps, pv) = (self.place(stack), self.place(value));
        let stack_text = stack.text();
        let var = value.text();
        match (push, copy) {
            (true, false) => quote!({
                let __v = #p::copy(&#pv);
                #p::stack_push(&mut #ps, __v);
                #pv = #p::zero_of(&#pv);
            }),
            (false, false) => {
                let check = self
                    .checked
                    .then(|| quote!(#p::check_pop_target(&#pv, #site, #var);));
                quote!({ #check #pv = #p::stack_pop(&mut #ps, #site, #stack_text); })
            }
            (true, true) => {
                quote!({ let __v = #p::copy(&#pv); #p::stack_push(&mut #ps, __v); })
            }
            // on values with gradients (`GVar`), the copy's gradient flows back
            (false, true) => {
                let check = self
                    .checked
                    .then(|| quote!(#p::check_pop_copy(&__v, &#pv, #site, #var);));
                let absorb = self
                    .writable(value)
                    .then(|| quote!(#p::absorb_copy(&mut #pv, &__v);));
                quote!({
                    let __v = #p::stack_pop(&mut #ps, #site, #stack_text);
                    #check
                    #absorb
                })
            }
        }
    }

    /// An unchecked `for` loop with unit step: a plain Rust range, and the bounds of the
    /// indices it may hoist (`nilang_ir::bounds`) checked once before it, so the body indexes
    /// without checks.
    pub(crate) fn unchecked_for(
        &mut self,
        var: &syn::Ident,
        range: &RangeSpec,
        body: &[Stmt],
        site: &TokenStream,
    ) -> TokenStream {
        let RangeSpec {
            start,
            inclusive,
            rev,
            ..
        } = range;
        let end = self.range_end(range, site);
        let start = read_only(start);
        let scope = self.scope.clone();
        let hoisting =
            nilang_ir::bounds::hoistable(var, range, body, &scope, &mut || self.fresh("hoisted"));
        let lets = hoisting
            .lets
            .iter()
            .map(|(name, part)| quote!(let #name = #part;));
        let checks: TokenStream = hoisting
            .hoisted
            .iter()
            .map(|h| self.hoisted_check(h, var, site))
            .collect();
        let uses = (!hoisting.hoisted.is_empty()).then(|| {
            let p = private();
            quote!(use #p::hoist::prelude::*;)
        });
        let (nonempty, last, iter) = if *inclusive {
            (
                quote!(__start <= __end),
                quote!(__end),
                quote!(__start..=__end),
            )
        } else {
            (
                quote!(__start < __end),
                quote!(__end - 1),
                quote!(__start..__end),
            )
        };
        let iter = if *rev { quote!((#iter).rev()) } else { iter };
        let depth = self.hoisted.len();
        self.hoisted.extend(hoisting.hoisted);
        self.scope.push();
        self.scope.declare(var, VarKind::LoopVar);
        let looped = self
            .loop_with_partials(var, &iter, body)
            .unwrap_or_else(|| {
                let body = self.block(body);
                quote!(for #var in #iter { #body })
            });
        self.scope.pop();
        self.hoisted.truncate(depth);
        // the invariant parts are evaluated only when the loop runs (as the loop would)
        quote!({
            let __start = #start;
            let __end = #end;
            if #nonempty {
                #uses
                #(#lets)*
                let (__first, __last) = (__start, #last);
                #checks
                #looped
            }
        })
    }

    /// The end of a loop's range, evaluated once before the loop; for a broadcast's loop
    /// ([`RangeSpec::broadcast`]) the common length of its slices, checked equal
    /// (`__private::broadcast_len`).
    pub(crate) fn range_end(&self, range: &RangeSpec, site: &TokenStream) -> TokenStream {
        let Some(b) = &range.broadcast else {
            return read_only(&range.end);
        };
        let p = private();
        let names = b.slices.iter().map(expr_text);
        let slices = &b.slices;
        quote!(#p::broadcast_len(#site, &[#((#names, #slices.len())),*]))
    }

    /// The check before a loop that an index it hoists is in range of its variable (and of
    /// the variable's gradient, in an adjoint program) at the first and the last iteration:
    /// the bounds of the very place the loop indexes (`__private::hoist`; a parallel chunk's
    /// window, `Window::bounds`).
    fn hoisted_check(
        &self,
        h: &nilang_ir::bounds::Hoisted,
        var: &syn::Ident,
        site: &TokenStream,
    ) -> TokenStream {
        let p = private();
        let view = Dataview {
            root: h.root.clone(),
            path: Vec::new(),
            span: h.root.span(),
        };
        let index = nilang_ir::bounds::checked_index(&h.unchecked, var);
        let bounds = |root: &syn::Ident| {
            let place = self.place_at(&view, root);
            if self.par.cells.contains(&root.to_string()) {
                quote!(::core::option::Option::Some(#place.bounds()))
            } else {
                quote!((&&#place.__nilang_place()).bounds())
            }
        };
        let value = bounds(&h.root);
        let grad = if self.has_shadow(&view) {
            let shadow = bounds(&nilang_ir::adjoint::shadow_name(&h.root));
            quote!(::core::option::Option::Some(#shadow))
        } else {
            quote!(::core::option::Option::None)
        };
        let text = format!("{}[{}]", h.root, tokens_text(&h.index.to_token_stream()));
        quote!({
            let __lo = { let #var = __first; #index };
            let __hi = { let #var = __last; #index };
            #p::check_hoisted_index(__lo, __hi, #value, #grad, #site, #text);
        })
    }
}
