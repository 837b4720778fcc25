//! The adjoint program as text (the papers' `macroexpand` of a gradient, `nilang expand`): the
//! inverse program with the gradient update of every statement written after it, over the
//! analysed function ([`Analyzed`]: which ancillas carry gradients).

use crate::adjoint::{
    adjoint_name, allocated_just_before, callee_adjoint_name, computes_on_values, shadow_name,
    shadowed_inputs,
};
use crate::analyzed::Analyzed;
use crate::ast::*;
use crate::print::{stack_macro, stmt_tokens, view_tokens};
use crate::reverse::reverse_block;
use crate::scope::{Scope, VarKind};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};
use syn::Ident;

/// The adjoint program of a function as text: its signature with a `_grad` parameter after
/// each `&mut` parameter (and `()` after a read-only one), and its inverse program with the
/// gradient update of every statement written after it.
pub fn adjoint_text(a: &Analyzed) -> String {
    let f = &a.function;
    let mut printer = Printer {
        own: f.sig.ident.clone(),
        scope: Scope::for_function(f),
        with_gradients: &a.with_gradients,
    };
    let body = printer.block(&reverse_block(&f.body));
    let name = adjoint_name(&f.sig.ident);
    let generics = &f.sig.generics;
    let where_clause = &generics.where_clause;
    let inputs = shadowed_inputs(f, None);
    let vis = &f.vis;
    let file = quote!(#vis fn #name #generics (#(#inputs),*) #where_clause { #body });
    match syn::parse2::<syn::File>(file.clone()) {
        Ok(parsed) => prettyplease::unparse(&parsed),
        Err(_) => crate::text::tokens_text(&file),
    }
}

struct Printer<'a> {
    /// The function printed (its calls of itself have unknown effects).
    own: Ident,
    scope: Scope,
    with_gradients: &'a std::collections::BTreeSet<String>,
}

impl Printer<'_> {
    fn block(&mut self, stmts: &[Stmt]) -> TokenStream {
        self.scope.push();
        let out = self.stmts(stmts);
        self.scope.pop();
        out
    }

    /// Statements in the current scope; a routine is printed as its three parts, its
    /// computation on values alone where [`computes_on_values`] holds whatever the callees
    /// do (as generated; where it depends on callees' effects, the generated code chooses at
    /// compile time and this prints the general form, on values and gradients).
    fn stmts(&mut self, stmts: &[Stmt]) -> TokenStream {
        let mut out = TokenStream::new();
        for (i, s) in stmts.iter().enumerate() {
            match &s.kind {
                StmtKind::Routine { compute, body } => {
                    let fresh = allocated_just_before(stmts, i);
                    if computes_on_values(compute, &fresh, &self.own).always() {
                        // its allocations still give the ancillas zero gradients
                        out.extend(compute.iter().map(|s| match s.kind {
                            StmtKind::Alloc(_) => self.stmt(s),
                            _ => self.values_only(s),
                        }));
                    } else {
                        out.extend(self.stmts(compute));
                    }
                    out.extend(self.stmts(body));
                    out.extend(self.stmts(&reverse_block(compute)));
                }
                _ => out.extend(self.stmt(s)),
            }
        }
        out
    }

    /// A statement run on values alone: as written, with its scope effects.
    fn values_only(&mut self, s: &Stmt) -> TokenStream {
        match &s.kind {
            StmtKind::Alloc(b) => b
                .iter()
                .for_each(|b| self.scope.declare(&b.name, VarKind::Ancilla)),
            StmtKind::Dealloc(b) => b.iter().for_each(|b| {
                self.scope.remove_ancilla(&b.name);
            }),
            StmtKind::Fields(f) => {
                self.scope.move_fields(f);
            }
            _ => {}
        }
        stmt_tokens(s)
    }

    /// A `&mut` parameter, or an active ancilla ([`crate::activity`]).
    fn has_shadow(&self, v: &Dataview) -> bool {
        match self.scope.lookup(&v.root) {
            Some(VarKind::Ancilla) => self.with_gradients.contains(&v.root.to_string()),
            Some(k) => k.writable(),
            None => false,
        }
    }

    fn stmt(&mut self, s: &Stmt) -> TokenStream {
        match &s.kind {
            // an inactive target runs on values: its operands are inactive too
            StmtKind::Instr(i) if !self.has_shadow(&i.target) => stmt_tokens(s),
            StmtKind::Builtin { args, .. } if !args.iter().any(|v| self.has_shadow(v)) => {
                stmt_tokens(s)
            }
            StmtKind::Stack { value, .. }
                if self.scope.lookup(&value.root) == Some(VarKind::Ancilla)
                    && !self.has_shadow(value) =>
            {
                stmt_tokens(s)
            }
            StmtKind::Instr(i) => {
                let updates = self.instr_updates(i);
                let own = stmt_tokens(s);
                quote!(#own #updates)
            }
            StmtKind::Builtin { op, args, operand } => {
                let own = stmt_tokens(s);
                let grads: Vec<_> = args.iter().map(shadow_view).collect();
                let name = format_ident!("{}", op.name());
                match op {
                    BuiltinOp::Rot | BuiltinOp::IRot => {
                        let angle = operand.as_ref().map(|o| self.angle_update(o, args, *op));
                        let theta = operand.as_ref().map(operand_tokens);
                        let rotate = quote!(#name(#(#grads),*, #theta););
                        if *op == BuiltinOp::IRot {
                            quote!(#angle #own #rotate)
                        } else {
                            quote!(#own #rotate #angle)
                        }
                    }
                    BuiltinOp::Inc | BuiltinOp::Dec | BuiltinOp::Flip => own,
                    // the rule reads the value before it is inverted: x̄ ← −x̄ x²
                    BuiltinOp::Inv => {
                        let (x, g) = (view_tokens(&args[0]), &grads[0]);
                        quote!(#g *= -square(#x); #own)
                    }
                    _ => quote!(#own #name(#(#grads),*);),
                }
            }
            StmtKind::Alloc(bindings) => {
                let own = stmt_tokens(s);
                let zeros: TokenStream = bindings
                    .iter()
                    .filter(|b| self.with_gradients.contains(&b.name.to_string()))
                    .map(|b| {
                        let (n, g) = (&b.name, shadow_name(&b.name));
                        quote!(let #g = zero_like(#n);)
                    })
                    .collect();
                for b in bindings {
                    self.scope.declare(&b.name, VarKind::Ancilla);
                }
                quote!(#own #zeros)
            }
            StmtKind::Dealloc(bindings) => {
                for b in bindings {
                    self.scope.remove_ancilla(&b.name);
                }
                stmt_tokens(s)
            }
            // the gradients are built and taken apart beside the values
            StmtKind::Fields(f) => {
                self.scope.move_fields(f);
                let own = stmt_tokens(s);
                let grads = crate::constructors::fields_text_tokens(&f.renamed(shadow_name));
                quote!(#own #grads)
            }
            StmtKind::Stack {
                stack,
                value,
                push,
                copy,
            } => {
                let own = stmt_tokens(s);
                let name = format_ident!("{}", stack_macro(*push, *copy));
                let (gs, gv) = (shadow_view(stack), shadow_view(value));
                quote!(#own #name!(#gs, #gv);)
            }
            StmtKind::Call { call, uncall } => self.call(call, *uncall),
            StmtKind::If {
                pre,
                post,
                explicit_post,
                then,
                els,
            } => {
                let (then, els) = (self.block(then), self.block(els));
                let cond = crate::print::if_condition(pre, post, *explicit_post);
                quote!(if #cond { #then } else { #els })
            }
            StmtKind::While { pre, post, body } => {
                let body = self.block(body);
                quote!(while (#pre, #post) { #body })
            }
            StmtKind::For { var, range, body } => {
                self.scope.push();
                self.scope.declare(var, VarKind::LoopVar);
                let body = self.block(body);
                self.scope.pop();
                let r = crate::print::range_tokens(range);
                quote!(for #var in #r { #body })
            }
            StmtKind::NoCheck(body) => {
                let b = self.stmts(body);
                quote!(nocheck! { #b })
            }
            StmtKind::Routine { .. } => self.stmts(std::slice::from_ref(s)),
            StmtKind::XorExpr { .. } | StmtKind::Safe(_) => stmt_tokens(s),
        }
    }

    /// `x_grad += y_grad * ∂f(x)` for every operand with a gradient (the adjoint rule of
    /// `y -= f(x)`; the opposite sign for `y += f(x)`, the inverse of that rule).
    fn instr_updates(&self, i: &Instr) -> TokenStream {
        let name = i.prim.display();
        let args: Vec<_> = i.args.iter().map(operand_tokens).collect();
        let target_grad = shadow_view(&i.target);
        let op: TokenStream = match i.op {
            AccOp::Sub => quote!(+=),
            AccOp::Add => quote!(-=),
            AccOp::Mul | AccOp::Div | AccOp::Xor => {
                // multiplicative number systems: the gradient rule acts on the logarithm
                let own = i.op.symbol();
                let note = format!("gradients of `{own}`: the rule of the number system");
                return quote!(gradient!(#note););
            }
        };
        let arity = i.args.len();
        i.args
            .iter()
            .enumerate()
            .filter_map(|(k, a)| match a {
                Operand::View(v) if self.has_shadow(v) => {
                    let g = shadow_view(v);
                    let partial = if arity == 1 {
                        format_ident!("d_{}", sanitize(&name))
                    } else {
                        format_ident!("d{}_{}", k, sanitize(&name))
                    };
                    Some(quote!(#g #op #target_grad * #partial(#(#args),*);))
                }
                _ => None,
            })
            .collect()
    }

    /// The angle's gradient of a rotation: `θ_grad += a b_grad − b a_grad` (before `irot`,
    /// undone after `rot`).
    fn angle_update(&self, theta: &Operand, args: &[Dataview], op: BuiltinOp) -> TokenStream {
        let Operand::View(v) = theta else {
            return TokenStream::new();
        };
        if !self.has_shadow(v) {
            return TokenStream::new();
        }
        let g = shadow_view(v);
        let (a, b) = (view_tokens(&args[0]), view_tokens(&args[1]));
        let (ga, gb) = (shadow_view(&args[0]), shadow_view(&args[1]));
        let sign = if op == BuiltinOp::IRot {
            quote!(+=)
        } else {
            quote!(-=)
        };
        quote!(#g #sign #a * #gb - #b * #ga;)
    }

    fn call(&self, call: &Call, uncall: bool) -> TokenStream {
        let args = call.args.iter().flat_map(|a| match a {
            CallArg::View(v) if self.has_shadow(v) => vec![view_tokens(v), shadow_view(v)],
            CallArg::View(v) => vec![view_tokens(v), quote!(())],
            CallArg::Shared(e) => vec![quote!(&#e), quote!(())],
            CallArg::Value(e) => vec![e.to_token_stream(), quote!(())],
        });
        match &call.callee {
            Callee::Path(p) => {
                let mut p = p.clone();
                let last = p.path.segments.last_mut().expect("a path has a segment");
                last.ident = callee_adjoint_name(&last.ident, uncall);
                quote!(#p(#(#args),*);)
            }
            Callee::Method {
                receiver, method, ..
            } => {
                let m = callee_adjoint_name(method, uncall);
                quote!(#receiver.#m(#(#args),*);)
            }
            // through `nilang::Adjoint`, the trait of a function passed as a value
            Callee::Param(f) => {
                let m = if uncall {
                    quote!(adjoint)
                } else {
                    quote!(adjoint_inv)
                };
                quote!(#f.#m(#(#args),*);)
            }
        }
    }
}

fn sanitize(name: &str) -> String {
    match name {
        "*" => "mul".into(),
        "/" => "div".into(),
        "+" => "add".into(),
        "-" => "sub".into(),
        other => other.replace("::", "_"),
    }
}

fn shadow_view(v: &Dataview) -> TokenStream {
    view_tokens(&Dataview {
        root: shadow_name(&v.root),
        ..v.clone()
    })
}

fn operand_tokens(o: &Operand) -> TokenStream {
    match o {
        Operand::View(v) => view_tokens(v),
        Operand::Const(e) => quote!((#e)),
    }
}
