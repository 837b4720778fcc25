//! The adjoint view of a reversible function: its program run on value–gradient pairs, with
//! every gradient kept in a *shadow* place of the same shape as its value.
//!
//! `f_adjoint` is the inverse program of `f` (from [`nilang_ir::reverse`]) generated in shadow
//! mode; `f_adjoint_inv`, its inverse, is `f`'s own program in shadow mode. In shadow mode:
//!
//! - every `&mut` parameter `x` is followed by a parameter `x_grad` of the same type (for a
//!   slice, a slice of the same length), every read-only parameter by a `()` (no gradient is
//!   kept for it), and every ancilla `a` by a local `a_grad`, zero when allocated;
//! - an instruction loads its target and operands as pairs (`__private::join`: a real number and
//!   its gradient become a `GVar` in registers), runs the instruction trait on the pairs — the
//!   adjoint rules of `nilang::gvar`, the one table of them — and stores values and gradients
//!   back to their own places (`__private::split_into`);
//! - read-only operands are constants: their gradients are not kept;
//! - a call of `g` calls `g_adjoint_inv`, an uncall calls `g_adjoint` (through `g`'s name:
//!   `g::adjoint_inv`, `g::adjoint`, see `nilang_ir::companions`), with each argument
//!   followed by its shadow;
//! - stacks push and pop values and gradients on a stack and its shadow stack; the shadow
//!   stack holds the gradients of the top values only (`__private::stack_pop_shadow`), so
//!   values pushed by the plain forward program pop with zero gradients.
//!
//! Control flow (`if`, `while`, `for`, `safe!`, `^=`) reads values only and is generated as in
//! the plain program.

use crate::codegen::Gen;
use crate::shadows::{lane_param, Shadows};
use crate::tokens::private;
use nilang_ir::adjoint::shadow_name;
use nilang_ir::ast::*;
use nilang_ir::scope::VarKind;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};

impl Gen {
    /// The shadow-mode code of the statements whose code differs from the plain program;
    /// `None` for the others.
    pub(crate) fn adjoint_stmt(&mut self, s: &Stmt, site: &TokenStream) -> Option<TokenStream> {
        Some(match &s.kind {
            // an inactive target (`nilang_ir::activity`): its operands are inactive too, and
            // the instruction runs on values as in the plain program
            StmtKind::Instr(instr) if self.inactive(&instr.target) => return None,
            StmtKind::Instr(instr) => self.adjoint_instruction(instr, site, s.span, false),
            StmtKind::Builtin { args, .. } if args.iter().all(|v| self.inactive(v)) => return None,
            StmtKind::Builtin { op, args, operand } => {
                self.adjoint_builtin(*op, args, operand.as_ref(), site)
            }
            StmtKind::Alloc(bindings) => self.adjoint_alloc(bindings),
            // values and gradients are built and taken apart side by side
            StmtKind::Fields(f) => {
                self.scope.move_fields(f);
                let values = crate::codegen::fields_code(f, false);
                let grads = crate::codegen::fields_code(&f.renamed(shadow_name), true);
                quote!(#values #grads)
            }
            // an inactive value moves alone, as in the plain program; its stack's shadow is
            // not touched (the inverse's pop mirrors this push, so the slot holds an inactive
            // value both ways: `nilang_ir::activity`)
            StmtKind::Stack { value, .. } if self.inactive(value) => return None,
            StmtKind::Stack {
                stack,
                value,
                push,
                copy,
            } => self.adjoint_stack(stack, value, *push, *copy, site),
            _ => return None,
        })
    }

    /// The gradient type of one scalar (see [`Shadows::lane`]).
    pub(crate) fn lane(&self) -> TokenStream {
        self.shadow
            .as_ref()
            .map_or_else(|| quote!(()), Shadows::lane)
    }

    /// Does a dataview's root have a gradient here (a `&mut` parameter, or an ancilla with
    /// one, in an adjoint program)?
    pub(crate) fn has_shadow(&self, v: &Dataview) -> bool {
        match self.kind(v) {
            Some(VarKind::MutRef) => self.shadow.is_some(),
            Some(VarKind::Ancilla) => self.has_gradient(&v.root),
            _ => false,
        }
    }

    /// Is a dataview an ancilla without a gradient in an adjoint program: inactive
    /// (`nilang_ir::activity`), its values computed from constants and read-only data alone?
    pub(crate) fn inactive(&self, v: &Dataview) -> bool {
        self.shadow.is_some()
            && self.kind(v) == Some(VarKind::Ancilla)
            && !self.has_gradient(&v.root)
    }

    /// Does an ancilla get a shadow?
    fn has_gradient(&self, name: &syn::Ident) -> bool {
        self.shadow
            .as_ref()
            .is_some_and(|s| s.with_gradients.contains(&name.to_string()))
    }

    /// The place holding the gradient of a writable dataview (`x_grad[i].re` for `x[i].re`).
    pub(crate) fn shadow_place(&self, v: &Dataview) -> TokenStream {
        self.place_at(v, &shadow_name(&v.root))
    }

    /// Loads a writable dataview and its gradient as one pair into `local`.
    fn load_pair(&self, v: &Dataview, local: &syn::Ident) -> TokenStream {
        let p = private();
        let (place, shadow) = (self.place(v), self.shadow_place(v));
        let lane = self.lane();
        quote!(let mut #local = #p::join::<_, #lane>(#p::copy(&#place), #p::copy(&#shadow));)
    }

    /// Stores a pair back into a writable dataview and its gradient.
    fn store_pair(&self, v: &Dataview, local: &syn::Ident) -> TokenStream {
        let p = private();
        let (place, shadow) = (self.place(v), self.shadow_place(v));
        let lane = self.lane();
        quote!(#p::split_into::<_, #lane>(&mut #place, &mut #shadow, #local);)
    }

    /// Stores only the gradient of an operand's pair: the instruction read its value and left
    /// it as it was.
    fn store_gradient(&self, v: &Dataview, local: &syn::Ident) -> TokenStream {
        let p = private();
        let (place, shadow) = (self.place(v), self.shadow_place(v));
        let lane = self.lane();
        quote!(#p::split_gradient_into::<_, #lane>(&mut #place, &mut #shadow, #local);)
    }

    /// Stores the target's pair back after the instruction ran backwards. `y ± f(x)` leaves
    /// `ȳ` unchanged (`__private::split_value_into`), so a `+=`/`-=` stores only the value, and
    /// nothing where the value is dead; `*=`/`/=` store both.
    fn store_target(&self, instr: &Instr, y: &syn::Ident, released: bool) -> TokenStream {
        if !matches!(instr.op, AccOp::Add | AccOp::Sub) {
            return self.store_pair(&instr.target, y);
        }
        if !released && self.value_is_dead(instr) {
            return TokenStream::new();
        }
        let p = private();
        let (place, shadow) = (self.place(&instr.target), self.shadow_place(&instr.target));
        let lane = self.lane();
        quote!(#p::split_value_into::<_, #lane>(&mut #place, &mut #shadow, #y);)
    }

    /// Is the instruction a `+=`/`-=` on an ancilla, or an element of one, whose value is dead
    /// here?
    fn value_is_dead(&self, instr: &Instr) -> bool {
        matches!(instr.op, AccOp::Add | AccOp::Sub) && self.dead_values.contains(&instr.target.root)
    }

    /// Loads an operand into `local`, of the type of the pair `like`; returns the load and the
    /// store-back (empty for constants and read-only views).
    fn adjoint_operand(
        &self,
        o: &Operand,
        like: &TokenStream,
        local: &syn::Ident,
    ) -> (TokenStream, TokenStream) {
        let p = private();
        let span = match o {
            Operand::View(v) => v.span,
            Operand::Const(e) => syn::spanned::Spanned::span(e),
        };
        let load = |value: TokenStream| crate::tokens::load_call(span, like, &value);
        match o {
            // read by every iteration of a parallel loop: the value is read-only, the gradient
            // goes to the chunk's own shadow (`crate::parallel`)
            Operand::View(v) if self.par.local_shadows.contains(&v.root.to_string()) => {
                let pair = format_ident!("{}_pair", local);
                let (place, shadow) = (self.place(v), self.shadow_place(v));
                let lane = self.lane();
                let load = load(pair.to_token_stream());
                (
                    quote!(
                        let mut #pair = #p::join::<_, #lane>(#p::copy(&#place), #p::copy(&#shadow));
                        let mut #local = #load;
                    ),
                    quote!(
                        #p::store(&mut #pair, #local);
                        #p::split_gradient_into::<_, #lane>(&mut #p::copy(&#place), &mut #shadow, #pair);
                    ),
                )
            }
            // an instruction reads its operands' values and only adds to their gradients: the
            // value goes back unchanged, so only the gradient is stored
            Operand::View(v) if self.writable(v) && !self.inactive(v) => {
                let pair = format_ident!("{}_pair", local);
                let load_pair = self.load_pair(v, &pair);
                let store = self.store_gradient(v, &pair);
                let load = load(pair.to_token_stream());
                (quote!(#load_pair let mut #local = #load;), {
                    let store_local = crate::tokens::store_call(
                        span,
                        &pair.to_token_stream(),
                        &local.to_token_stream(),
                    );
                    quote!(#store_local #store)
                })
            }
            Operand::View(v) => {
                let place = self.place(v);
                let scalar = self.inactive(v)
                    || self
                        .shadow
                        .as_ref()
                        .is_some_and(|s| s.scalar_readonly.contains(&v.root.to_string()));
                let lane = self.lane();
                let value = if scalar {
                    quote!(#p::join_constant::<_, #lane>(#p::copy(&#place)))
                } else {
                    quote!(#p::copy(&#place))
                };
                let load = load(value);
                (quote!(let mut #local = #load;), TokenStream::new())
            }
            // a constant of the scalar type (`T::lit(c)`) pairs with a zero gradient; other
            // constants (`2.0`, integers) convert on load as in the plain program
            Operand::Const(e) if self.shadow.as_ref().is_some_and(|s| s.names_scalar(e)) => {
                let lane = self.lane();
                let e = crate::tokens::read_only(e);
                let load = load(quote!(#p::join_constant::<_, #lane>(#e)));
                (quote!(let mut #local = #load;), TokenStream::new())
            }
            Operand::Const(e) => (
                {
                    let load = load(crate::tokens::read_only(e));
                    quote!(let mut #local = #load;)
                },
                TokenStream::new(),
            ),
        }
    }

    /// `t -= f(x)` where `t` held exactly `f(x)` (`nilang_ir::adjoint::released_before_dealloc`):
    /// the pair rule may read `f(x)` from `t` (`Acc1::sub1_released`).
    pub(crate) fn adjoint_released(&mut self, s: &Stmt, instr: &Instr) -> TokenStream {
        let site = self.site(s);
        self.adjoint_instruction(instr, &site, s.span, true)
    }

    fn adjoint_instruction(
        &mut self,
        instr: &Instr,
        site: &TokenStream,
        span: Span,
        released: bool,
    ) -> TokenStream {
        let p = private();
        let mut views = vec![&instr.target];
        views.extend(instr.args.iter().filter_map(|a| match a {
            Operand::View(v) if self.writable(v) => Some(v),
            _ => None,
        }));
        let checks = self.alias_checks(&views, site);
        let y = format_ident!("__y");
        let (mut loads, mut stores, mut locals) = (TokenStream::new(), TokenStream::new(), vec![]);
        for (k, arg) in instr.args.iter().enumerate() {
            let local = format_ident!("__a{}", k);
            let like = crate::codegen::operand_like(instr, k, &y.to_token_stream());
            let (l, s) = self.adjoint_operand(arg, &like, &local);
            loads.extend(l);
            stores.extend(s);
            locals.push(local);
        }
        let Some((_, mut method, _)) = crate::codegen::instruction_trait(instr) else {
            return quote_spanned!(span=> ::core::compile_error!("a primitive takes one or two operands"););
        };
        if released {
            method = quote!(sub1_released);
        }
        let call = crate::codegen::instruction_call(instr, &method, &y, &locals, span);
        let load_target = self.load_pair(&instr.target, &y);
        let store_target = self.store_target(instr, &y, released);
        let (mut before, after) = self.finite_checks(instr, &y, &locals, site);
        if self.checked && matches!(instr.op, AccOp::Add | AccOp::Sub) {
            let texts: Vec<String> = instr.args.iter().map(operand_text).collect();
            let variables = texts.join(", ");
            let singular = crate::codegen::singular_call(instr, &y, &locals);
            before.extend(quote!(
                #p::check_singular_value(
                    #singular,
                    &[#(&#locals),*], #site, #variables,
                );
            ));
        }
        quote!({
            #checks
            #load_target
            #loads
            #before
            #call;
            #after
            #store_target
            #stores
        })
    }

    /// In checked programs, whether the instruction's pairs (target, then the operands whose
    /// gradients it keeps) are finite before it, and the checks that they still are after it
    /// (`__private::check_finite`: a primitive at a singular point is a named error).
    fn finite_checks(
        &self,
        instr: &Instr,
        y: &syn::Ident,
        locals: &[syn::Ident],
        site: &TokenStream,
    ) -> (TokenStream, TokenStream) {
        if !self.checked {
            return (TokenStream::new(), TokenStream::new());
        }
        let p = private();
        let mut pairs = vec![(y.clone(), instr.target.text())];
        for (arg, local) in instr.args.iter().zip(locals) {
            if let Operand::View(v) = arg {
                if self.writable(v) {
                    pairs.push((local.clone(), v.text()));
                }
            }
        }
        let flags: Vec<syn::Ident> = (0..pairs.len())
            .map(|k| format_ident!("__finite{}", k))
            .collect();
        let (locals, texts): (Vec<_>, Vec<_>) = pairs.into_iter().unzip();
        (
            quote!(#(let #flags = #p::is_finite_pair(&#locals);)*),
            quote!(#(#p::check_finite(#flags, &#locals, #site, #texts);)*),
        )
    }

    /// In a checked adjoint program, the deallocation of an ancilla (its allocation, run
    /// backwards) whose declared value reads a variable with a gradient: the gradient left in
    /// it must be zero, or it would be dropped (`nilang_ir::dropped`; the static rule there
    /// rejects what it can see).
    pub(crate) fn dropped_gradient_check(&self, b: &Binding, site: &TokenStream) -> TokenStream {
        let reads_gradient = nilang_ir::dropped::all_reads(&b.value)
            .iter()
            .any(|r| self.name_has_shadow(r));
        if !(self.checked && self.has_gradient(&b.name) && reads_gradient) {
            return TokenStream::new();
        }
        let p = private();
        let (name, shadow) = (&b.name, shadow_name(&b.name));
        let (var, lane) = (name.to_string(), self.lane());
        quote!(#p::check_dropped_gradient::<_, #lane>(&#name, &#shadow, #site, #var);)
    }

    /// Does the variable named `name` have a gradient here?
    fn name_has_shadow(&self, name: &str) -> bool {
        syn::parse_str::<syn::Ident>(name).is_ok_and(|root| {
            self.has_shadow(&Dataview {
                root,
                path: vec![],
                span: Span::call_site(),
            })
        })
    }

    fn adjoint_builtin(
        &mut self,
        op: BuiltinOp,
        args: &[Dataview],
        operand: Option<&Operand>,
        site: &TokenStream,
    ) -> TokenStream {
        let p = private();
        let views: Vec<&Dataview> = args.iter().collect();
        let checks = self.alias_checks(&views, site);
        let (a, b) = (format_ident!("__a"), format_ident!("__b"));
        let load_a = self.load_pair(&args[0], &a);
        match op {
            BuiltinOp::Swap => {
                let load_b = self.load_pair(&args[1], &b);
                let store_a = self.store_pair(&args[0], &b);
                let store_b = self.store_pair(&args[1], &a);
                quote!({ #checks #load_a #load_b #store_a #store_b })
            }
            // two places mixed by a linear map: values and gradients transform together
            BuiltinOp::Hadamard | BuiltinOp::Rot | BuiltinOp::IRot => {
                let t = format_ident!("__t");
                let (load_t, store_t, call) = match (op, operand) {
                    (BuiltinOp::Hadamard, _) => (
                        TokenStream::new(),
                        TokenStream::new(),
                        quote!(<_ as #p::Hadamard>::hadamard(&mut #a, &mut #b)),
                    ),
                    (_, Some(theta)) => {
                        let method = format_ident!("{}", op.name());
                        let (load_t, store_t) =
                            self.adjoint_operand(theta, &a.to_token_stream(), &t);
                        let call = quote!(<_ as #p::Rotate>::#method(&mut #a, &mut #b, &mut #t));
                        (load_t, store_t, call)
                    }
                    (_, None) => unreachable!("rotations have an angle"),
                };
                let load_b = self.load_pair(&args[1], &b);
                let (store_a, store_b) =
                    (self.store_pair(&args[0], &a), self.store_pair(&args[1], &b));
                quote!({
                    #checks
                    #load_a
                    #load_b
                    #load_t
                    #call;
                    #store_a
                    #store_b
                    #store_t
                })
            }
            // one place: neg, inc, dec, conj, flip, inv
            one_place => {
                let call = crate::codegen::unary_builtin_call(one_place, &a);
                let store_a = self.store_pair(&args[0], &a);
                quote!({ #load_a #call; #store_a })
            }
        }
    }

    /// `let x = e;` also allocates `x_grad`, a zero of the same shape.
    fn adjoint_alloc(&mut self, bindings: &[Binding]) -> TokenStream {
        let p = private();
        let mut out = TokenStream::new();
        for b in bindings {
            out.extend(self.allocate(b));
            if self.has_gradient(&b.name) {
                let (name, lane) = (&b.name, self.lane());
                let zero = quote!(#p::zero_grad::<_, #lane>(&#name));
                out.extend(self.zero_shadow(name, zero));
            }
        }
        for b in bindings {
            self.scope.declare(&b.name, VarKind::Ancilla);
        }
        out
    }

    fn adjoint_stack(
        &mut self,
        stack: &Dataview,
        value: &Dataview,
        push: bool,
        copy: bool,
        site: &TokenStream,
    ) -> TokenStream {
        let p = private();
        let (ps, pv) = (self.place(stack), self.place(value));
        let ss = self.shadow_place(stack);
        // a value pushed by copy may be read-only: its gradient is then zero
        let lane = self.lane();
        let sv = if self.writable(value) {
            self.shadow_place(value)
        } else {
            quote!(#p::zero_grad::<_, #lane>(&#pv))
        };
        let stack_text = stack.text();
        let var = value.text();
        match (push, copy) {
            (true, false) => quote!({
                let __v = #p::copy(&#pv);
                let __g = #p::copy(&#sv);
                #p::stack_push(&mut #ps, __v);
                #p::stack_push(&mut #ss, __g);
                #pv = #p::zero_of(&#pv);
                #sv = #p::zero_grad::<_, #lane>(&#pv);
            }),
            (false, false) => {
                let check = self
                    .checked
                    .then(|| quote!(#p::check_pop_target(&#pv, #site, #var);));
                quote!({
                    #check
                    #pv = #p::stack_pop(&mut #ps, #site, #stack_text);
                    #sv = #p::stack_pop_shadow(&mut #ss, #p::zero_grad::<_, #lane>(&#pv));
                })
            }
            (true, true) => quote!({
                let __v = #p::copy(&#pv);
                let __g = #p::copy(&#sv);
                #p::stack_push(&mut #ps, __v);
                #p::stack_push(&mut #ss, __g);
            }),
            // the adjoint of a copy: the copy's gradient flows back into the value
            (false, true) => {
                let check = self
                    .checked
                    .then(|| quote!(#p::check_pop_copy(&__v, &#pv, #site, #var);));
                let absorb = self
                    .writable(value)
                    .then(|| quote!(#p::add_grad_into::<_, #lane>(&#pv, &mut #sv, __g);));
                quote!({
                    let __v = #p::stack_pop(&mut #ps, #site, #stack_text);
                    let __g = #p::stack_pop_shadow(&mut #ss, #p::zero_grad::<_, #lane>(&__v));
                    #check
                    #absorb
                })
            }
        }
    }
}

/// An operand as source text.
fn operand_text(o: &Operand) -> String {
    match o {
        Operand::View(v) => v.text(),
        Operand::Const(e) => nilang_ir::text::expr_text(e),
    }
}

/// Code of statements in shadow mode at the top level of a function body, with `ancillas`
/// already live (their shadows are allocated here, zero). Used by the fused gradient.
pub fn statements(
    f: &nilang_ir::Analyzed,
    name: &str,
    shadows: &Shadows,
    stmts: &[Stmt],
    ancillas: &[nilang_ir::split::Live],
) -> TokenStream {
    let mut g = Gen::new(f, name);
    g.shadow = Some(shadows.clone());
    let mut out = TokenStream::new();
    for a in ancillas {
        g.scope.declare(&a.name, VarKind::Ancilla);
        if g.has_gradient(&a.name) {
            let zero = crate::split::zero_gradient(a, &shadows.lane());
            out.extend(g.zero_shadow(&a.name, zero));
        }
    }
    out.extend(g.stmts(stmts));
    out
}

/// `f_adjoint` (the inverse program in shadow mode) and `f_adjoint_inv` (the forward program
/// in shadow mode): every `&mut` parameter is followed by its gradient.
pub fn generate(f: &nilang_ir::Analyzed, shadows: &Shadows) -> TokenStream {
    // the scalar type parameter is bounded by `nilang::Base` (a differentiable `Float`)
    let adjoint = nilang_ir::adjoint::adjoint_name(&f.sig.ident);
    let adjoint_inv = format_ident!("{}_inv", adjoint);
    let shadows = &Shadows {
        with_gradients: f.with_gradients.clone(),
        lane: shadows
            .scalar
            .as_ref()
            .map(|_| lane_param().to_token_stream()),
        ..shadows.clone()
    };
    let body = |name: &syn::Ident, stmts: &[Stmt]| {
        let mut g = Gen::new(f, &name.to_string());
        g.shadow = Some(shadows.clone());
        g.block(stmts)
    };
    let adj_body = body(&adjoint, &nilang_ir::reverse::reverse_block(&f.body));
    let inv_body = body(&adjoint_inv, &f.body);
    // the caller's gradient buffers, as long as their values
    let (adj_checks, inv_checks) = (
        crate::buffers::length_checks(f, &adjoint),
        crate::buffers::length_checks(f, &adjoint_inv),
    );
    let fwd = &f.sig.ident;
    let vis = &f.vis;
    let mut generics = crate::generics::with_base_bound(f);
    let lane = shadows.scalar.as_ref().map(|scalar| (scalar, lane_param()));
    if let Some((scalar, lane)) = &lane {
        crate::generics::push_lane_param(&mut generics, f, scalar, lane);
    }
    let inputs = nilang_ir::adjoint::shadowed_inputs(f, lane.as_ref().map(|(s, l)| (*s, l)));
    let generics = &generics;
    let where_clause = &generics.where_clause;
    let adj_doc = format!(
        "The adjoint program of [`{fwd}`]: called with its arguments holding `{fwd}`'s outputs \
         and each `*_grad` holding the gradient of a loss with respect to them, it restores the \
         inputs and leaves each `*_grad` holding the gradient with respect to the inputs. \
         Values and gradients stay in separate places; nothing is allocated for slices. See \
         `nilang::ad`."
    );
    let inv_doc =
        format!("The inverse of [`{adjoint}`]: `{fwd}`'s program run on values and gradients.");
    let allow = quote!(#[allow(unused_mut, unused_variables, unused_assignments, unused_braces, unused_parens, unused_imports, non_snake_case, clippy::all)]);
    let adj_sig: syn::Signature =
        syn::parse_quote!(fn #adjoint #generics (#(#inputs),*) #where_clause);
    let mut inv_sig = adj_sig.clone();
    inv_sig.ident = adjoint_inv;
    let companions = crate::codegen::companions(
        fwd,
        vis,
        &[
            (nilang_ir::companions::ADJOINT, &adj_sig),
            (nilang_ir::companions::ADJOINT_INV, &inv_sig),
        ],
    );
    let as_value = crate::codegen::trait_impl(
        fwd,
        quote!(::nilang::Adjoint),
        &adj_sig,
        &[("adjoint", &adj_sig.ident), ("adjoint_inv", &inv_sig.ident)],
    );
    quote! {
        #as_value
        #[doc = #adj_doc]
        #allow
        #vis #adj_sig {
            #adj_checks
            #adj_body
        }
        #[doc = #inv_doc]
        #allow
        #vis #inv_sig {
            #inv_checks
            #inv_body
        }
        #companions
    }
}

#[cfg(test)]
mod tests {
    /// The code `#[i(attr)]` generates for `src`, without spaces.
    fn generated(attr: &str, src: &str) -> String {
        let out = crate::attribute(attr.parse().unwrap(), src.parse().unwrap()).to_string();
        out.split_whitespace().collect()
    }

    const SQNORM: &str = "fn f<T: Real>(y: &mut T, x: &mut [T], l: &mut [T]) {
        let d = x.len();
        let xc = vec![T::zero(); d];
        let lx = vec![T::zero(); d];
        routine! {
            for j in 0..d { xc[j] += identity(x[j]); lx[j] += identity(xc[j]); }
            for b in 1..d { lx[b] += l[b - 1] * xc[0]; }
        }
        for j in 0..d { y -= square(lx[j]); }
        uncompute!();
        dealloc!(xc = vec![T::zero(); d], lx = vec![T::zero(); d]);
        dealloc!(d = x.len());
    }";

    #[test]
    fn an_unchecked_uncomputation_drops_only_dead_values() {
        let all = generated("nocheck", SQNORM);
        let start = all.find("fnf_adjoint<").expect("an adjoint program");
        let end = all.find("fnf_adjoint_inv<").expect("its inverse");
        let adjoint = &all[start..end];
        // `lx[b] -= l[b - 1] * xc[0]` and `lx[j] -= identity(xc[j])` store nothing back (their
        // targets' gradients are unchanged, their values dead); `xc`, which they read, is
        // restored as before
        let stored: Vec<&str> = adjoint
            .split("split_value_into")
            .skip(1)
            .filter_map(|rest| rest.split_once("(&mut"))
            .map(|(_, place)| place.split(",&mut").next().unwrap_or(place))
            .collect();
        assert!(stored.iter().any(|t| t.contains("xc")), "{stored:?}");
        assert!(stored.iter().all(|t| !t.contains("lx")), "{stored:?}");
    }
}
