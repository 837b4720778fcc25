//! The translation stage: IR → Rust tokens, for the forward program and (after
//! [`nilang_ir::reverse`]) for the inverse program.
//!
//! Generated code calls only `::nilang::__private::*`. Every instruction loads its target and
//! operands into locals, runs the instruction trait method on them and stores them back, so
//! that `x[i] += x[j]` borrows nothing twice, constants of other types convert on load, and
//! gradients accumulated into operands are kept.

use nilang_ir::ast::*;
use nilang_ir::effects::Only;
use nilang_ir::print::range_tokens;
use nilang_ir::reverse::reverse_block;
use nilang_ir::scope::{Scope, VarKind};
use nilang_ir::text::{expr_text, tokens_text};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};

/// The forward and inverse functions of a reversible function.
pub fn generate(f: &Function) -> TokenStream {
    let fwd_body = forward_body(f);
    let inverse = reverse_block(&f.body);
    let inv_body = Gen::new(f, &f.inverse_name.to_string()).block(&inverse);
    let attrs = &f.attrs;
    let vis = &f.vis;
    let sig = &f.sig;
    let mut inv_sig = f.sig.clone();
    inv_sig.ident = f.inverse_name.clone();
    let doc = format!(
        "The inverse of [`{}`](#): runs its program backwards, undoing every change it made.",
        f.sig.ident
    );
    let allow = quote!(#[allow(unused_mut, unused_variables, unused_assignments, unused_braces, unused_parens, unused_imports, clippy::all)]);
    quote! {
        #(#attrs)*
        #allow
        #vis #sig {
            #fwd_body
        }
        #[doc = #doc]
        #allow
        #vis #inv_sig {
            #inv_body
        }
    }
}

/// The body of the forward function. Unchecked, a body of the compute–copy–uncompute shape
/// `L P M ~P D` stops after `L P M` on plain values: `P` wrote only ancillas, which `~P` would
/// restore and `D` drop unchecked, so nothing observable changes (unless `~P` holds a `safe!`
/// block, whose side effects must run). On values that carry gradients `~P D` still runs
/// ([`DeadUncompute`]). The inverse runs every statement.
fn forward_body(f: &Function) -> TokenStream {
    let mut g = Gen::new(f, &f.sig.ident.to_string());
    let shape = nilang_ir::adjoint::routine_block(&f.body);
    match (crate::grad::split(f), shape) {
        (Some(split), Some(shape)) if !f.checked && !split.tail_has_safe() => {
            let mut rest = reverse_block(shape.compute);
            rest.extend_from_slice(&f.body[shape.allocs.len() + 1..]);
            g.scope.push();
            let mut out = g.stmts(&split.head);
            out.extend(g.dead_uncomputation(&rest, &Only::Yes));
            g.scope.pop();
            out
        }
        _ => g.block(&f.body),
    }
}

/// When code run on values may skip an uncomputation that only restores ancillas nobody
/// reads again: on plain values, not on values that carry gradients (a `GVar` program run
/// forward moves gradients in its uncomputations too).
#[derive(Clone)]
pub(crate) enum DeadUncompute {
    /// The values are plain (a function with no type parameter): skip.
    Skip,
    /// Skip unless this constant (`<T as Real>::CARRIES_GRADIENT` for the scalar types) holds.
    UnlessGradient(TokenStream),
    /// The values may be of any type (a method, a type parameter that is not `Real`): run it.
    Keep,
}

impl DeadUncompute {
    fn of(f: &Function) -> DeadUncompute {
        let mentions_gvar = f
            .sig
            .inputs
            .iter()
            .any(|i| i.to_token_stream().to_string().contains("GVar"));
        match real_type_params(f) {
            _ if mentions_gvar => DeadUncompute::Keep,
            None => DeadUncompute::Keep,
            Some(params) if params.is_empty() => DeadUncompute::Skip,
            Some(params) => DeadUncompute::UnlessGradient(
                quote!(false #(|| <#params as ::nilang::Real>::CARRIES_GRADIENT)*),
            ),
        }
    }
}

/// The type parameters of a function when every one is bounded by `Real` (none for a
/// function on concrete types); `None` for a method (its values' types come from the `impl`)
/// or a type parameter that is not bounded by `Real`. What the generated code may assume of
/// the values it runs on: see [`DeadUncompute`] and [`Gen::par_gate`].
fn real_type_params(f: &Function) -> Option<Vec<syn::Ident>> {
    let params: Vec<syn::Ident> = f
        .sig
        .generics
        .type_params()
        .map(|p| p.ident.clone())
        .collect();
    let all_real = params
        .iter()
        .all(|p| crate::grad::bounds_mention_real(f, p));
    (f.sig.receiver().is_none() && all_real).then_some(params)
}

/// The effects of a free function, published for its callers (`nilang_ir::effects`): a
/// hidden braced struct named as the function (it lives in the type namespace, so a `use` of
/// the function brings it along) with the associated constant `WRITES`. `None` as the mask
/// (a function that did not compile) publishes "writes every parameter".
pub fn effects(vis: &syn::Visibility, name: &syn::Ident, mask: Option<TokenStream>) -> TokenStream {
    let mask = mask.unwrap_or_else(|| quote!(u128::MAX));
    let doc =
        format!("The effects of the reversible function [`{name}`](fn@{name}) on its parameters.");
    quote! {
        #[doc = #doc]
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}
        #[allow(clippy::all)]
        impl #name {
            /// Bit `k` set: the function may write its parameter `k`.
            pub const WRITES: u128 = #mask;
        }
    }
}

/// `impl g { fn inv(…) { g_inv(…) } … }`: the companions of the reversible free function
/// `owner` as associated functions of its struct (`nilang_ir::companions`), each forwarding
/// to the generated function whose signature it is given, so that a caller that imports `g`
/// by name reaches them.
pub fn companions(
    owner: &syn::Ident,
    vis: &syn::Visibility,
    items: &[(&str, &syn::Signature)],
) -> TokenStream {
    let forwarders = items
        .iter()
        .map(|(name, target)| forwarder(vis, name, target));
    quote! {
        #[allow(clippy::all)]
        impl #owner {
            #(#forwarders)*
        }
    }
}

/// Does a token stream hold the identifier (or keyword) `name`, at any depth?
pub(crate) fn mentions_ident(ts: TokenStream, name: &str) -> bool {
    ts.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == name,
        proc_macro2::TokenTree::Group(g) => mentions_ident(g.stream(), name),
        _ => false,
    })
}

/// An associated function `name` with `target`'s signature that calls `target`.
fn forwarder(vis: &syn::Visibility, name: &str, target: &syn::Signature) -> TokenStream {
    let mut sig = target.clone();
    sig.ident = syn::Ident::new(name, target.ident.span());
    let mut args = Vec::new();
    for (k, input) in sig.inputs.iter_mut().enumerate() {
        if let syn::FnArg::Typed(pt) = input {
            let arg = format_ident!("__arg{}", k);
            pt.attrs.clear();
            pt.pat = Box::new(syn::parse_quote!(#arg));
            args.push(arg);
        }
    }
    let generic_args: Vec<TokenStream> = target
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(t.ident.to_token_stream()),
            syn::GenericParam::Const(c) => Some(c.ident.to_token_stream()),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    // `impl Trait` parameters forbid explicit generic arguments; then inference alone
    let impl_trait = mentions_ident(sig.inputs.to_token_stream(), "impl");
    let turbofish =
        (!generic_args.is_empty() && !impl_trait).then(|| quote!(::<#(#generic_args),*>));
    let callee = &target.ident;
    let doc = format!("`{callee}`, reached through the function's own name.");
    quote! {
        #[doc = #doc]
        #[inline(always)]
        #[allow(non_snake_case, clippy::all)]
        #vis #sig { #callee #turbofish (#(#args),*) }
    }
}

/// Stubs emitted when a function has errors, so that its callers do not get cascades.
pub fn stubs(
    attrs: &[syn::Attribute],
    vis: &syn::Visibility,
    sig: &syn::Signature,
    inverse: &syn::Ident,
) -> TokenStream {
    let mut inv_sig = sig.clone();
    inv_sig.ident = inverse.clone();
    quote! {
        #(#attrs)*
        #[allow(unused_variables)]
        #vis #sig { ::core::unimplemented!("this reversible function did not compile") }
        #[allow(unused_variables)]
        #vis #inv_sig { ::core::unimplemented!("this reversible function did not compile") }
    }
}

pub(crate) struct Gen {
    pub(crate) function: String,
    /// The reversible function whose program this is (its calls of itself have unknown
    /// effects, `nilang_ir::effects`).
    pub(crate) own: syn::Ident,
    pub(crate) scope: Scope,
    pub(crate) checked: bool,
    counter: usize,
    /// `Some` when generating an adjoint program: every writable place has a shadow (its
    /// gradient) and instructions run on value–gradient pairs (see `crate::adjoint`).
    pub(crate) shadow: Option<crate::adjoint::Shadows>,
    /// Index accesses of the enclosing unchecked loops whose bounds were checked before the
    /// loop (`nilang_ir::bounds`): generated without a bounds check.
    pub(crate) hoisted: Vec<nilang_ir::bounds::Hoisted>,
    /// Whether an unchecked run on values may skip a dead uncomputation.
    dead_uncompute: DeadUncompute,
    /// Whether parallel loops run on several threads: `Some(condition)` (a constant: `true`
    /// without type parameters, `<T as Real>::PARALLEL_LOOPS` for a `Real` scalar), `None`
    /// when they always run sequentially (methods, scalars not bounded by `Real`).
    pub(crate) par_gate: Option<TokenStream>,
    /// Inside a parallel loop's chunk: state that the chunk's code sees differently.
    pub(crate) par: ParState,
    /// The index expressions of the statement being generated that were evaluated into
    /// locals before it borrows anything ([`Gen::with_bound_indices`]).
    indices: Vec<(syn::Expr, syn::Ident)>,
}

/// How places are reached inside the chunk closure of a parallel loop.
#[derive(Clone, Default)]
pub(crate) struct ParState {
    /// Roots (values and shadows) written at owned slots: bound to `__private::par::Cells`.
    pub(crate) cells: Vec<String>,
    /// Reduction targets and the chunk's partial (and its shadow).
    pub(crate) reductions: Vec<(Dataview, syn::Ident, Option<syn::Ident>)>,
    /// Writable roots the loop only reads: read-only inside the chunk.
    pub(crate) readonly: Vec<String>,
    /// Read-only roots whose shadow is the chunk's own (adjoint programs).
    pub(crate) local_shadows: Vec<String>,
    /// Names bound to a `&mut` inside the chunk that are not references outside it.
    pub(crate) deref: Vec<String>,
}

/// The condition under which a function's parallel loops run on several threads (see
/// [`Gen::par_gate`]).
fn par_gate(f: &Function) -> Option<TokenStream> {
    real_type_params(f)
        .map(|params| quote!(true #(&& <#params as ::nilang::__private::Real>::PARALLEL_LOOPS)*))
}

pub(crate) fn private() -> TokenStream {
    quote!(::nilang::__private)
}

impl Gen {
    pub(crate) fn new(f: &Function, name: &str) -> Gen {
        Gen {
            function: name.to_string(),
            own: f.sig.ident.clone(),
            scope: Scope::for_function(f),
            checked: f.checked,
            counter: 0,
            shadow: None,
            hoisted: Vec::new(),
            dead_uncompute: DeadUncompute::of(f),
            par_gate: par_gate(f),
            par: ParState::default(),
            indices: Vec::new(),
        }
    }

    pub(crate) fn fresh(&mut self, prefix: &str) -> syn::Ident {
        self.counter += 1;
        format_ident!("__{}{}", prefix, self.counter, span = Span::mixed_site())
    }

    pub(crate) fn site(&self, s: &Stmt) -> TokenStream {
        let p = private();
        let function = &self.function;
        let statement = &s.source;
        quote!(&#p::Site { function: #function, statement: #statement })
    }

    pub(crate) fn block(&mut self, stmts: &[Stmt]) -> TokenStream {
        self.scope.push();
        let out = self.stmts(stmts);
        self.scope.pop();
        out
    }

    /// Statements in the current scope.
    pub(crate) fn stmts(&mut self, stmts: &[Stmt]) -> TokenStream {
        let mut out = TokenStream::new();
        for (i, s) in stmts.iter().enumerate() {
            out.extend(match &s.kind {
                StmtKind::Routine { compute, body } => {
                    let fresh = nilang_ir::adjoint::allocated_just_before(stmts, i);
                    let dying = nilang_ir::adjoint::deallocated_just_after(stmts, i);
                    self.routine(compute, body, &fresh, &dying)
                }
                StmtKind::Instr(instr)
                    if self.shadow.is_some()
                        && !self.checked
                        && nilang_ir::adjoint::released_before_dealloc(stmts, i) =>
                {
                    self.with_bound_indices(s, |g| g.adjoint_released(s, instr))
                }
                _ => self.stmt(s),
            });
        }
        out
    }

    /// A routine `P X ~P`, its parts in the enclosing scope. In an adjoint program, `P` runs
    /// on values alone when it only writes fresh ancillas (`fresh`: those allocated right
    /// before it; its gradient updates would all add zero, see
    /// `nilang_ir::adjoint::computes_on_values`), except its allocations, which give `X` the
    /// ancillas' zero gradients. Unchecked and on values alone, `~P` is skipped where it only
    /// restores ancillas that die with the routine (`dying`: deallocated right after it; see
    /// `nilang_ir::adjoint::uncomputation_is_dead`). Where either depends on what callees
    /// write, both forms are generated under a constant condition on their effects.
    fn routine(
        &mut self,
        compute: &[Stmt],
        body: &[Stmt],
        fresh: &[String],
        dying: &[String],
    ) -> TokenStream {
        let on_values = nilang_ir::adjoint::computes_on_values(compute, fresh, &self.own);
        let mut out = match (&on_values, self.shadow.is_some()) {
            (Only::Yes, true) => self.compute_on_values(compute),
            (Only::UnlessCalls(_), true) => {
                let cond = on_values.callees_condition(&private());
                let mut scope = self.scope.clone();
                let values = self.compute_on_values(compute);
                std::mem::swap(&mut self.scope, &mut scope);
                let pairs = self.stmts(compute);
                quote!(if #cond { #values } else { #pairs })
            }
            _ => self.stmts(compute),
        };
        out.extend(self.stmts(body));
        let undo = reverse_block(compute);
        let dead = nilang_ir::adjoint::uncomputation_is_dead(compute, dying, &self.own);
        match dead {
            Only::No => out.extend(self.stmts(&undo)),
            _ => out.extend(self.dead_uncomputation(&undo, &dead)),
        }
        out
    }

    /// A routine's computation on values alone (its allocations still give the ancillas
    /// zero gradients).
    fn compute_on_values(&mut self, compute: &[Stmt]) -> TokenStream {
        compute
            .iter()
            .map(|s| match s.kind {
                StmtKind::Alloc(_) => self.stmt(s),
                _ => {
                    let shadow = self.shadow.take();
                    let values = self.stmt(s);
                    self.shadow = shadow;
                    values
                }
            })
            .collect()
    }

    /// Statements that only restore ancillas nobody reads again, then drop them: skipped
    /// when unchecked on plain values ([`DeadUncompute`]) and `dead` holds (always, or unless
    /// callees write what it names), run otherwise.
    fn dead_uncomputation(&mut self, undo: &[Stmt], dead: &Only) -> TokenStream {
        if self.shadow.is_some() || self.checked {
            return self.stmts(undo);
        }
        let callees = dead.callees_condition(&private());
        match (self.dead_uncompute.clone(), callees) {
            (DeadUncompute::Skip, None) => {
                for s in undo {
                    match &s.kind {
                        StmtKind::Dealloc(bindings) => bindings.iter().for_each(|b| {
                            self.scope.remove_ancilla(&b.name);
                        }),
                        StmtKind::Fields(f) => {
                            self.scope.move_fields(f);
                        }
                        _ => {}
                    }
                }
                TokenStream::new()
            }
            (DeadUncompute::Skip, Some(dead)) => {
                let undo = self.stmts(undo);
                quote!(if !(#dead) { #undo })
            }
            (DeadUncompute::UnlessGradient(carries), dead) => {
                let dead = dead.unwrap_or_else(|| quote!(true));
                let undo = self.stmts(undo);
                quote!(if #carries || !(#dead) { #undo })
            }
            (DeadUncompute::Keep, _) => self.stmts(undo),
        }
    }

    pub(crate) fn kind(&self, v: &Dataview) -> Option<VarKind> {
        self.scope.lookup(&v.root)
    }

    pub(crate) fn writable(&self, v: &Dataview) -> bool {
        !self.par.readonly.contains(&v.root.to_string())
            && self.kind(v).map(VarKind::writable).unwrap_or(false)
    }

    /// A dataview as a Rust place expression.
    pub(crate) fn place(&self, v: &Dataview) -> TokenStream {
        self.place_at(v, &v.root)
    }

    /// The place of dataview `v` with its root replaced by `root` (a shadow's name); its
    /// first index is unchecked when an enclosing loop checked it (`self.hoisted`).
    pub(crate) fn place_at(&self, v: &Dataview, root: &syn::Ident) -> TokenStream {
        if let Some((_, value, shadow)) = self.par.reductions.iter().find(|(r, ..)| r.same_as(v)) {
            match shadow {
                Some(shadow) if *root != v.root => return quote!(#shadow),
                _ => return quote!(#value),
            }
        }
        let name = root.to_string();
        let cell = self.par.cells.contains(&name);
        let mut ts = match self.kind(v) {
            _ if cell => quote_spanned!(v.span=> #root),
            _ if self.par.deref.contains(&name) => quote_spanned!(v.span=> (*#root)),
            Some(k) if k.is_reference() => quote_spanned!(v.span=> (*#root)),
            _ => quote_spanned!(v.span=> #root),
        };
        let hoisted = self.hoisted.iter().find(|h| h.matches(v));
        for (k, a) in v.path.iter().enumerate() {
            let i = match a {
                Access::Index(e) => self.index_tokens(e),
                Access::Field(_) => TokenStream::new(),
            };
            ts = match (a, hoisted) {
                // SAFETY (`Window::at`, `Window::range`): a place's code uses the reference
                // within its statement, and places of one root handed to one call go through
                // temporaries (`Gen::call`): no other reference to the element is alive. The
                // window itself keeps the chunk to its own elements.
                (Access::Index(e), _) if k == 0 && cell => match (e, hoisted) {
                    (syn::Expr::Range(_), _) => quote!((*unsafe { #ts.range(#i) })),
                    // SAFETY (also, `Window::at_unchecked`): the enclosing unchecked loop checked
                    // this index against the window's bounds before it started
                    // (`Gen::hoisted_check`).
                    (_, Some(h)) => {
                        let u = &h.unchecked;
                        quote!((*unsafe { #ts.at_unchecked(#u) }))
                    }
                    // SAFETY (`Window::at`): as above; the window checks the index
                    _ => quote!((*unsafe { #ts.at(#i) })),
                },
                (Access::Field(m), _) => quote!(#ts.#m),
                (Access::Index(_), Some(h)) if k == 0 => {
                    // a chunk's own shadow of a place a parallel loop only reads is writable
                    let own_shadow =
                        *root != v.root && self.par.local_shadows.contains(&v.root.to_string());
                    let u = &h.unchecked;
                    let get = if self.writable(v) || own_shadow {
                        quote!((&&#ts.__nilang_place_mut()).get(#u))
                    } else {
                        quote!((&&#ts.__nilang_place()).get(#u))
                    };
                    // SAFETY (`hoist::Trusted::get`): the enclosing loop checked this index,
                    // computed over locals bound before it, against the bounds of the same
                    // place at its first and last iteration (`Gen::hoisted_check`); the index
                    // is non-decreasing in the loop variable and the loop does not resize the
                    // place (nilang_ir::bounds).
                    quote!((*unsafe { #get }))
                }
                (Access::Index(_), _) => quote!(#ts[#i]),
            };
        }
        ts
    }

    /// Runtime checks that dataviews sharing a root with dynamic indices are different places.
    pub(crate) fn alias_checks(&self, views: &[&Dataview], site: &TokenStream) -> TokenStream {
        if !self.checked {
            return TokenStream::new();
        }
        let p = private();
        let mut out = TokenStream::new();
        for (i, a) in views.iter().enumerate() {
            for b in &views[i + 1..] {
                if a.root == b.root && (a.has_index() || b.has_index()) {
                    let (pa, pb) = (self.place(a), self.place(b));
                    let names = format!("{} and {}", a.text(), b.text());
                    out.extend(quote!(#p::check_disjoint(&#pa, &#pb, #site, #names);));
                }
            }
        }
        out
    }

    /// The code of one statement, its index expressions evaluated first.
    pub(crate) fn stmt(&mut self, s: &Stmt) -> TokenStream {
        self.with_bound_indices(s, |g| g.stmt_code(s))
    }

    /// The code `generate` gives for statement `s`, preceded by the evaluation of each of its
    /// index expressions that reads more than a variable (`x[(k + 1) % x.len()]`) into a local,
    /// which its places then use. Generated statements take `&mut` borrows of their places
    /// (`split_into(&mut x[i], &mut x_grad[i], ..)`, a call's `pass(&mut x[i])`): an index
    /// that reads a variable borrowed by an earlier argument would not compile, and each index
    /// is now evaluated once.
    fn with_bound_indices(
        &mut self,
        s: &Stmt,
        generate: impl FnOnce(&mut Gen) -> TokenStream,
    ) -> TokenStream {
        let outer = self.indices.len();
        let mut lets = TokenStream::new();
        for v in s.views() {
            // a hoisted first index is computed over locals bound before the loop
            let hoisted = self.hoisted.iter().any(|h| h.matches(v));
            for (k, a) in v.path.iter().enumerate() {
                match a {
                    Access::Index(e)
                        if needs_binding(e)
                            && self.bound_index(e).is_none()
                            && !(k == 0 && hoisted) =>
                    {
                        let local = self.fresh("index");
                        let value = read_only(e);
                        lets.extend(quote!(let #local = #value;));
                        self.indices.push((e.clone(), local));
                    }
                    _ => {}
                }
            }
        }
        let code = generate(self);
        self.indices.truncate(outer);
        if lets.is_empty() {
            code
        } else {
            quote!({ #lets #code })
        }
    }

    /// The local holding an index expression of the current statement, if it was bound.
    fn bound_index(&self, e: &syn::Expr) -> Option<&syn::Ident> {
        self.indices.iter().find(|(b, _)| b == e).map(|(_, l)| l)
    }

    /// An index expression as the code of a place reads it: its local if it was bound (a
    /// range's local is cloned: `Range` is not `Copy`), else the expression.
    fn index_tokens(&self, e: &syn::Expr) -> TokenStream {
        match (self.bound_index(e), e) {
            (Some(local), syn::Expr::Range(_)) => quote!(::core::clone::Clone::clone(&#local)),
            (Some(local), _) => local.to_token_stream(),
            (None, _) => e.to_token_stream(),
        }
    }

    fn stmt_code(&mut self, s: &Stmt) -> TokenStream {
        let p = private();
        let site = self.site(s);
        if self.shadow.is_some() {
            if let Some(ts) = self.adjoint_stmt(s, &site) {
                return ts;
            }
        }
        match &s.kind {
            StmtKind::Instr(instr) => self.instruction(instr, &site, s.span),
            StmtKind::XorExpr { target, expr } => {
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
            StmtKind::Builtin { op, args, operand } => {
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
                                let (load, store) =
                                    self.load_store(theta, quote!(__a), quote!(__t));
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
                        let call = unary_builtin_call(*one_place, &format_ident!("__a"));
                        let a = &places[0];
                        quote!({ let mut __a = #p::copy(&#a); #call; #a = __a; })
                    }
                }
            }
            StmtKind::Alloc(bindings) => {
                let mut out = TokenStream::new();
                for b in bindings {
                    let (name, value) = (&b.name, read_only(&b.value));
                    let ty = b.ty.as_ref().map(|t| quote!(: #t));
                    out.extend(quote_spanned!(name.span()=> let mut #name #ty = #value;));
                }
                for b in bindings {
                    self.scope.declare(&b.name, VarKind::Ancilla);
                }
                out
            }
            StmtKind::Fields(f) => {
                self.scope.move_fields(f);
                fields_code(f, false)
            }
            StmtKind::Dealloc(bindings) => {
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
            StmtKind::If {
                pre,
                post,
                then,
                els,
                ..
            } => {
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
            StmtKind::While { pre, post, body } => {
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
            StmtKind::For { range, .. } if range.parallel => self.par_for(s, &site),
            StmtKind::For { var, range, body } => {
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
            StmtKind::Call { call, uncall } => self.call(call, *uncall, &site),
            StmtKind::Stack {
                stack,
                value,
                push,
                copy,
            } => {
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
        let body = self.block(body);
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
                for #var in #iter { #body }
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

    /// Loads an operand into a local named `local` of the type of `like`; returns the load and
    /// the store-back (empty for read-only operands and constants).
    pub(crate) fn load_store(
        &self,
        o: &Operand,
        like: TokenStream,
        local: TokenStream,
    ) -> (TokenStream, TokenStream) {
        match o {
            Operand::View(v) => {
                let place = self.place(v);
                let load = load_call(v.span, &like, &place);
                let load = quote!(let mut #local = #load;);
                let store = if self.writable(v) {
                    store_call(v.span, &place, &local)
                } else {
                    TokenStream::new()
                };
                (load, store)
            }
            Operand::Const(e) => {
                let load = load_call(syn::spanned::Spanned::span(e), &like, &read_only(e));
                (quote!(let mut #local = #load;), TokenStream::new())
            }
        }
    }

    pub(crate) fn instruction(
        &mut self,
        instr: &Instr,
        site: &TokenStream,
        span: Span,
    ) -> TokenStream {
        let p = private();
        let target = self.place(&instr.target);
        let mut views = vec![&instr.target];
        views.extend(instr.args.iter().filter_map(|a| match a {
            Operand::View(v) if self.writable(v) => Some(v),
            _ => None,
        }));
        let checks = self.alias_checks(&views, site);
        let mut loads = TokenStream::new();
        let mut stores = TokenStream::new();
        let mut locals = Vec::new();
        for (k, arg) in instr.args.iter().enumerate() {
            let local = format_ident!("__a{}", k);
            let like = operand_like(instr, k, &quote!(__y));
            let (l, s) = self.load_store(arg, like, local.to_token_stream());
            loads.extend(l);
            stores.extend(s);
            locals.push(local);
        }
        let Some((tr, method, prim)) = instruction_trait(instr) else {
            return quote_spanned!(span=> ::core::compile_error!("a primitive takes one or two operands"););
        };
        // `__y` is interpolated, not written inside `quote_spanned!`: with the statement's span it
        // would take the hygiene of the user's tokens and miss the `let mut __y` below when the
        // statement comes from a `macro_rules!` expansion.
        let y = format_ident!("__y");
        let call =
            quote_spanned!(span=> <_ as #p::#tr<#prim>>::#method(&mut #y, #(&mut #locals),*));
        quote!({
            #checks
            let mut __y = #p::copy(&#target);
            #loads
            #call;
            #target = __y;
            #stores
        })
    }

    /// A call or uncall. In an adjoint program (`self.shadow`) it calls the callee's adjoint
    /// program of the same direction (`g_adjoint_inv` for a call, `g_adjoint` for an uncall)
    /// with each argument followed by its gradient: a writable argument's shadow (the
    /// callee's parameter decides between `&mut` and `()`, see `__private::PassShadow`), `()`
    /// for a read-only one.
    fn call(&mut self, call: &Call, uncall: bool, site: &TokenStream) -> TokenStream {
        let p = private();
        let shadow = self.shadow.is_some();
        // Writable views that share a root with another argument and carry an index go through
        // temporaries, so that `g(x[i], x[j])` borrows `x` once at a time.
        let writable_views: Vec<&Dataview> = call
            .args
            .iter()
            .filter_map(|a| match a {
                CallArg::View(v) if self.writable(v) => Some(v),
                _ => None,
            })
            .collect();
        let conflicting = |v: &Dataview| {
            writable_views.iter().filter(|w| w.root == v.root).count() > 1
                && writable_views
                    .iter()
                    .any(|w| w.root == v.root && w.has_index())
        };
        let checks = self.alias_checks(&writable_views, site);
        let (mut pre, mut post, mut args) = (TokenStream::new(), TokenStream::new(), Vec::new());
        for a in &call.args {
            match a {
                CallArg::View(v) if self.writable(v) => {
                    let mut places = vec![(self.place(v), quote!(pass))];
                    if shadow {
                        places.push((self.shadow_place(v), quote!(pass_shadow)));
                    }
                    let sub_slice =
                        matches!(v.path.last(), Some(Access::Index(syn::Expr::Range(_))));
                    for (place, pass) in places {
                        if conflicting(v) && sub_slice {
                            // `g(p[0], p[1..3])`: the sub-slice goes through a vector
                            let t = self.fresh("arg");
                            pre.extend(quote!(let mut #t = #p::copy_slice(&#place);));
                            post.extend(quote!(#p::store_slice(&mut #place, &#t);));
                            args.push(quote!(#p::#pass(&mut #t)));
                        } else if conflicting(v) {
                            let t = self.fresh("arg");
                            pre.extend(quote!(let mut #t = #p::copy(&#place);));
                            post.extend(quote!(#place = #t;));
                            args.push(quote!(#p::#pass(&mut #t)));
                        } else {
                            args.push(quote!(#p::#pass(&mut #place)));
                        }
                    }
                }
                other => {
                    args.push(self.readonly_call_arg(other));
                    if shadow {
                        args.push(quote!(()));
                    }
                }
            }
        }
        let invocation = match &call.callee {
            Callee::Path(path) => {
                let mut path = path.clone();
                let companion = nilang_ir::companions::callee_companion(shadow, uncall);
                match companion.filter(|_| nilang_ir::companions::names_free_function(&path)) {
                    Some(c) => path.path = nilang_ir::companions::companion_path(&path.path, c),
                    None => {
                        let last = path.path.segments.last_mut().expect("a path has a segment");
                        last.ident = self.callee_name(&last.ident, uncall);
                    }
                }
                let last = path.path.segments.last_mut().expect("a path has a segment");
                if let syn::PathArguments::AngleBracketed(a) = &mut last.arguments {
                    self.extend_generic_args(a);
                }
                quote!(#path(#(#args),*))
            }
            Callee::Method {
                receiver,
                method,
                turbofish,
            } => {
                let method = self.callee_name(method, uncall);
                let tf = turbofish.as_ref().map(|t| {
                    let mut t = t.clone();
                    self.extend_generic_args(&mut t);
                    quote!(::#t)
                });
                quote!(#receiver.#method #tf(#(#args),*))
            }
        };
        quote!({ #checks #pre #invocation; #post })
    }

    /// What a call of a method or an associated function `g` calls: `g` or `g_inv` (an
    /// uncall); in an adjoint program `g_adjoint_inv` or `g_adjoint`. (A free function's
    /// companions are called through its struct instead: `g::inv`, `nilang_ir::companions`.)
    fn callee_name(&self, g: &syn::Ident, uncall: bool) -> syn::Ident {
        match (self.shadow.is_some(), uncall) {
            (true, _) => nilang_ir::adjoint::callee_adjoint_name(g, uncall),
            (false, true) => format_ident!("{}_inv", g, span = g.span()),
            (false, false) => g.clone(),
        }
    }

    /// Explicit generic arguments of a callee gain, in an adjoint program, the gradient type:
    /// the adjoint programs' last type parameter.
    fn extend_generic_args(&self, a: &mut syn::AngleBracketedGenericArguments) {
        if let Some(shadows) = &self.shadow {
            let lane = shadows.lane();
            a.args.push(syn::parse_quote!(#lane));
        }
    }

    /// A read-only call argument: a variable, a copy of an element, a reference or a value.
    fn readonly_call_arg(&self, a: &CallArg) -> TokenStream {
        let p = private();
        match a {
            CallArg::View(v) => match self.kind(v) {
                Some(_) if v.path.is_empty() => v.root.to_token_stream(),
                // a sub-slice of a read-only place (`x[i*d..(i+1)*d]`) is lent as a slice,
                // as `&x[…]` would be: a slice cannot be copied
                Some(_) if matches!(v.path.last(), Some(Access::Index(syn::Expr::Range(_)))) => {
                    let place = self.place(v);
                    quote!(&#place)
                }
                Some(_) => {
                    let place = self.place(v);
                    quote!(#p::copy(&#place))
                }
                None => nilang_ir::print::view_tokens(v),
            },
            CallArg::Shared(e) => match nilang_ir::parse::dataview(e) {
                Some(v) if self.kind(&v).is_some() => {
                    let place = self.place(&v);
                    quote!(&#place)
                }
                // arguments a call takes run as in Rust, even when they change something
                // (a cache's `rows.at(i)`); unchecked loops keep the checks of what they name
                // (`nilang_ir::bounds`)
                _ => quote!(&(#e)),
            },
            CallArg::Value(e) => e.to_token_stream(),
        }
    }
}

/// An expression of the user's (an index, a condition, a range bound, an ancilla's value; not
/// an argument of a call) as code that can only read: `__private::read(|| e)` takes a closure that must be `Fn`, so an expression that
/// changes or moves a variable (`v.clear()`, `k = 2`) does not compile, with rustc's message
/// at the change. Expressions that cannot change anything (`nilang_ir::names::may_change`)
/// are left as they are. What unchecked loops rely on: no
/// expression resizes a place whose bounds they checked before the loop
/// (`nilang_ir::bounds`).
pub(crate) fn read_only(e: &syn::Expr) -> TokenStream {
    if !nilang_ir::names::may_change(e) {
        // arithmetic, indexing, fields, casts, calls of functions: nothing to guard (and no
        // closure in the way of the optimiser)
        return e.to_token_stream();
    }
    let span = syn::spanned::Spanned::span(e);
    quote_spanned!(span=> ::nilang::__private::read(|| #e))
}

/// `Accepts::load_like(&like, &value)`, spanned at an operand: an operand whose type the
/// target (`like`) does not accept is an error at the operand, naming the two types and the
/// trait (not a helper of `__private`).
pub(crate) fn load_call(operand: Span, like: &TokenStream, value: &TokenStream) -> TokenStream {
    quote_spanned!(operand=> ::nilang::__private::Accepts::load_like(&(#like), &(#value)))
}

/// `Accepts::store(&mut place, local)`, spanned at the operand (see [`load_call`]).
pub(crate) fn store_call(operand: Span, place: &TokenStream, local: &TokenStream) -> TokenStream {
    quote_spanned!(operand=> ::nilang::__private::Accepts::store(&mut #place, ::core::convert::identity(#local));)
}

/// Does an index expression read more than a literal or one variable (so that evaluating it
/// while its statement holds borrows could conflict with them)?
fn needs_binding(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(_) => false,
        syn::Expr::Path(p) => p.path.get_ident().is_none(),
        syn::Expr::Paren(p) => needs_binding(&p.expr),
        syn::Expr::Range(r) => [&r.start, &r.end]
            .into_iter()
            .flatten()
            .any(|e| needs_binding(e)),
        _ => true,
    }
}

/// What operand `k` of an instruction is loaded like ([`load_call`]): the target `y`, except
/// the second operand of `y *= f(a, b)` / `y /= f(a, b)`, loaded as the instruction's
/// `Scale2::Second` (the real exponent of `pow` on `ULog`).
pub(crate) fn operand_like(instr: &Instr, k: usize, y: &TokenStream) -> TokenStream {
    match (instr.op, k, instruction_trait(instr)) {
        (AccOp::Mul | AccOp::Div, 1, Some((tr, _, prim))) => {
            let p = private();
            quote!(<_ as #p::#tr<#prim>>::second_like(&#y))
        }
        _ => y.clone(),
    }
}

/// The instruction trait, its method and the primitive's type for an instruction
/// (`Acc1`, `sub1`, `prims::Sin` for `y -= sin(x)`); `None` for a wrong number of operands.
pub(crate) fn instruction_trait(instr: &Instr) -> Option<(TokenStream, TokenStream, TokenStream)> {
    let p = private();
    let prim = match &instr.prim {
        Prim::Builtin(info) => {
            let ty = format_ident!("{}", info.runtime);
            quote!(#p::prims::#ty)
        }
        Prim::User(path) => path.to_token_stream(),
    };
    let n = instr.args.len();
    if n == 0 || n > 2 {
        return None;
    }
    let (tr, method) = match (instr.op, n) {
        (AccOp::Add, 1) => (quote!(Acc1), quote!(add1)),
        (AccOp::Sub, 1) => (quote!(Acc1), quote!(sub1)),
        (AccOp::Add, _) => (quote!(Acc2), quote!(add2)),
        (AccOp::Sub, _) => (quote!(Acc2), quote!(sub2)),
        (AccOp::Mul, 1) => (quote!(Scale1), quote!(mul1)),
        (AccOp::Div, 1) => (quote!(Scale1), quote!(div1)),
        (AccOp::Mul, _) => (quote!(Scale2), quote!(mul2)),
        (AccOp::Div, _) => (quote!(Scale2), quote!(div2)),
        (AccOp::Xor, _) => unreachable!("xor instructions are parsed as expressions"),
    };
    Some((tr, method, prim))
}

/// The call of a one-place builtin (`neg`, `inc`, `dec`, `conj`, `flip`, `inv`) on the local `a`.
pub(crate) fn unary_builtin_call(op: BuiltinOp, a: &syn::Ident) -> TokenStream {
    let p = private();
    match op {
        BuiltinOp::Neg => quote!(#p::Negate::negate(&mut #a)),
        BuiltinOp::Inc => quote!(#p::Step::inc(&mut #a)),
        BuiltinOp::Dec => quote!(#p::Step::dec(&mut #a)),
        BuiltinOp::Conj => quote!(#p::Conjugate::conjugate(&mut #a)),
        BuiltinOp::Flip => quote!(#p::Flip::flip(&mut #a)),
        BuiltinOp::Inv => quote!(#p::Invert::invert(&mut #a)),
        _ => unreachable!("not a one-place builtin"),
    }
}

/// Code for statements at the top level of a function body (no new block: the ancillas they
/// allocate stay in scope), with `ancillas` already live. Used by the fused gradient.
pub fn statements(
    f: &Function,
    name: &str,
    stmts: &[Stmt],
    ancillas: &[syn::Ident],
) -> TokenStream {
    let mut g = Gen::new(f, name);
    for a in ancillas {
        g.scope.declare(a, VarKind::Ancilla);
    }
    g.stmts(stmts)
}

/// A reversible constructor (`let mut z = Complex { re: a, im: b };`) or destructor
/// (`let Complex { re: mut a, im: mut b } = z;`): Rust moves the values. For the shadows of an
/// adjoint program (`gradients`), the struct's path loses its generic arguments.
pub(crate) fn fields_code(f: &Fields, gradients: bool) -> TokenStream {
    let whole = &f.whole;
    let var = |v: &syn::Ident| quote!(mut #v);
    let value = nilang_ir::constructors::build_tokens(f, &var, gradients);
    if f.construct {
        let plain = nilang_ir::constructors::build_tokens(f, &|v| v.to_token_stream(), gradients);
        quote!(let mut #whole = #plain;)
    } else {
        quote!(let #value = #whole;)
    }
}
