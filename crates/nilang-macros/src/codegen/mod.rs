//! The translation stage: IR → Rust tokens, for the forward program and (after
//! [`nilang_ir::reverse`]) for the inverse program.
//!
//! Generated code calls only `::nilang::__private::*`. Every instruction loads its target and
//! operands into locals, runs the instruction trait method on them and stores them back, so
//! that `x[i] += x[j]` borrows nothing twice, constants of other types convert on load, and
//! gradients accumulated into operands are kept.

mod bulk;
mod instr;
mod items;
mod partials;
mod places;
mod stmt;

pub(crate) use instr::{
    fields_code, instruction_call, instruction_trait, operand_like, singular_call,
    unary_builtin_call,
};
pub use items::{companions, effects, no_cuda_view, stubs, trait_impl};

use crate::tokens::private;
use nilang_ir::ast::*;
use nilang_ir::effects::Only;
use nilang_ir::reverse::reverse_block;
use nilang_ir::scope::{Scope, VarKind};
use nilang_ir::Analyzed;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};

/// The forward and inverse functions of a reversible function.
pub fn generate(f: &Analyzed) -> TokenStream {
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
fn forward_body(f: &Analyzed) -> TokenStream {
    let mut g = Gen::new(f, &f.sig.ident.to_string()).running_as_written(f);
    let shape = nilang_ir::adjoint::routine_block(&f.body);
    let out = match (f.fused.as_ref().and_then(|s| s.plain()), shape) {
        (Some(split), Some(shape)) if !f.checked && !split.tail_has_safe() => {
            let mut rest = reverse_block(shape.compute);
            rest.extend_from_slice(&f.body[shape.allocs.len() + 1..]);
            g.scope.push();
            let mut out = g.stmts(&split.head);
            g.uncomputing += 1;
            out.extend(g.dead_uncomputation(&rest, &Only::Yes));
            g.uncomputing -= 1;
            g.scope.pop();
            out
        }
        _ => g.block(&f.body),
    };
    debug_assert!(g.written_plans.is_some_and(|p| p.is_empty()));
    out
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
        .all(|p| crate::generics::bounds_mention_real(f, p));
    (f.sig.receiver().is_none() && all_real).then_some(params)
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
    pub(crate) shadow: Option<crate::shadows::Shadows>,
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
    /// In a program that runs the body as written (the forward program,
    /// [`Gen::running_as_written`]): the checker's plans of the parallel loops not met yet
    /// (`nilang_ir::Analyzed::plans`, in source order), each taken by its loop; `None` in the
    /// other programs, which plan the loops of the body they run (reversed in the inverse and
    /// adjoint programs).
    pub(crate) written_plans: Option<std::collections::VecDeque<nilang_ir::parallel::Plan>>,
    /// How many uncomputations (`~P` of a routine) enclose the statements being generated:
    /// their loops are not the loops as written.
    pub(crate) uncomputing: usize,
    /// In an unchecked adjoint program, the ancillas whose values are dead in the
    /// uncomputation being generated (`nilang_ir::dead_values`): their `+=`/`-=` keep only
    /// gradients.
    pub(crate) dead_values: Vec<syn::Ident>,
    /// In an adjoint loop unrolled with partial accumulators (`partials`), the copy being
    /// generated: the loop-invariant operands whose gradients it adds to a partial instead.
    pub(crate) partials: Vec<(Dataview, syn::Ident)>,
    /// In an unchecked program, the vector ancillas the body reaches only by index
    /// (`Analyzed::local_vectors`): `&mut [T]`s into a `__private::LocalStore`.
    pub(crate) local_vecs: std::collections::BTreeSet<String>,
    /// The parameters that are reversible functions (`nilang_ir::fn_params`).
    pub(crate) functions: Vec<nilang_ir::fn_params::FunctionParam>,
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

impl Gen {
    pub(crate) fn new(f: &Analyzed, name: &str) -> Gen {
        Gen {
            function: name.to_string(),
            functions: nilang_ir::fn_params::function_params(&f.sig),
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
            written_plans: None,
            uncomputing: 0,
            dead_values: Vec::new(),
            partials: Vec::new(),
            local_vecs: f.inline_vectors(),
        }
    }

    /// The generator of a program that runs `f`'s body as written, from its start: its
    /// parallel loops take the checker's plans instead of planning again.
    pub(crate) fn running_as_written(mut self, f: &Analyzed) -> Gen {
        self.written_plans = Some(f.plans.iter().cloned().collect());
        self
    }

    /// The plan of the parallel loop being generated when it is a loop as written (see
    /// [`Gen::written_plans`]); `None` when the caller plans it.
    pub(crate) fn written_plan(&mut self) -> Option<nilang_ir::parallel::Plan> {
        if self.uncomputing > 0 {
            return None;
        }
        let plans = self.written_plans.as_mut()?;
        Some(
            plans
                .pop_front()
                .expect("a plan for each parallel loop as written"),
        )
    }

    /// `let mut a = value;` for each binding; a vector the body reaches only by index
    /// (`Gen::local_vecs`) is a `&mut [T]` into a `__private::LocalStore`, inline when short.
    pub(crate) fn allocate(&mut self, b: &Binding) -> TokenStream {
        let name = &b.name;
        let local = self.local_vecs.contains(&name.to_string());
        match nilang_ir::local_vectors::vec_repeat(&b.value) {
            Some((value, len)) if local => {
                let p = private();
                let store = self.fresh("store");
                let (value, len) = (
                    crate::tokens::read_only(&value),
                    crate::tokens::read_only(&len),
                );
                quote_spanned!(name.span()=>
                    let mut #store = #p::LocalStore::new();
                    #[allow(unused_mut)]
                    let mut #name = #store.filled(#value, #len);
                )
            }
            _ => {
                let value = crate::tokens::read_only(&b.value);
                let ty = b.ty.as_ref().map(|t| quote!(: #t));
                quote_spanned!(name.span()=> let mut #name #ty = #value;)
            }
        }
    }

    /// `let mut a_grad = …;`: the zero gradient of the ancilla `name`, allocated as
    /// [`Gen::allocate`] did, in storage of its own when the ancilla is a local vector;
    /// `zero` makes it otherwise.
    pub(crate) fn zero_shadow(&mut self, name: &syn::Ident, zero: TokenStream) -> TokenStream {
        let shadow = nilang_ir::adjoint::shadow_name(name);
        if !self.local_vecs.contains(&name.to_string()) {
            return quote!(let mut #shadow = #zero;);
        }
        let (p, lane, store) = (private(), self.lane(), self.fresh("store"));
        quote!(
            let mut #store = #p::LocalStore::new();
            #[allow(unused_mut)]
            let mut #shadow = #store.zero_grads::<_, #lane>(&*#name);
        )
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
                    let dead = if self.shadow.is_some() && !self.checked {
                        nilang_ir::dead_values::dead_in_uncomputation(stmts, i)
                    } else {
                        Vec::new()
                    };
                    let released = nilang_ir::adjoint::released_after_routine(stmts, i)
                        .filter(|(_, instr)| self.may_release(instr))
                        .map(|(one, _)| one);
                    self.routine(compute, body, &fresh, &dying, dead, released)
                }
                StmtKind::Instr(instr)
                    if self.may_release(instr)
                        && nilang_ir::adjoint::released_before_dealloc(stmts, i) =>
                {
                    self.released(s)
                }
                _ => self.stmt(s),
            });
        }
        out
    }

    /// Whether an adjoint program may take `f(x)` from the target of `t -= f(x)` when the
    /// IR releases `t` right after (`nilang_ir::adjoint::released_before_dealloc`): unchecked,
    /// on an active target.
    fn may_release(&self, instr: &Instr) -> bool {
        self.shadow.is_some() && !self.checked && !self.inactive(&instr.target)
    }

    /// `t -= f(x)` whose target held exactly `f(x)` ([`Self::may_release`]).
    fn released(&mut self, s: &Stmt) -> TokenStream {
        let StmtKind::Instr(instr) = &s.kind else {
            return self.stmt(s);
        };
        self.with_bound_indices(s, |g| g.adjoint_released(s, instr))
    }

    /// A routine `P X ~P`, its parts in the enclosing scope. In an adjoint program, `P` runs
    /// on values alone when it only writes fresh ancillas (`fresh`: those allocated right
    /// before it; its gradient updates would all add zero, see
    /// `nilang_ir::adjoint::computes_on_values`), except its allocations, which give `X` the
    /// ancillas' zero gradients. Unchecked and on values alone, `~P` is skipped where it only
    /// restores ancillas that die with the routine (`dying`: deallocated right after it; see
    /// `nilang_ir::adjoint::uncomputation_is_dead`). Where either depends on what callees
    /// write, both forms are generated under a constant condition on their effects. In an
    /// unchecked adjoint program, `~P` keeps only the gradients of the ancillas in `dead`
    /// (`nilang_ir::dead_values`). `released`: `X` is one instruction
    /// `t -= f(x)` whose target the enclosing block releases
    /// (`nilang_ir::adjoint::released_after_routine`).
    fn routine(
        &mut self,
        compute: &[Stmt],
        body: &[Stmt],
        fresh: &[String],
        dying: &[String],
        dead_values: Vec<syn::Ident>,
        released: Option<&Stmt>,
    ) -> TokenStream {
        let on_values = nilang_ir::adjoint::computes_on_values(compute, fresh, &self.own);
        let mut out = match (&on_values, self.shadow.is_some()) {
            (Only::Yes, true) => self.compute_on_values(compute),
            (Only::UnlessCalls(_), true) => {
                let cond = on_values
                    .callees_condition(&private())
                    .expect("a routine that depends on its callees has a condition");
                self.compute_unless_calls(compute, &cond)
            }
            _ => self.stmts(compute),
        };
        out.extend(match released {
            Some(s) => self.released(s),
            None => self.stmts(body),
        });
        let undo = reverse_block(compute);
        let dead = nilang_ir::adjoint::uncomputation_is_dead(compute, dying, &self.own);
        self.uncomputing += 1;
        let enclosing = self.dead_values.len();
        self.dead_values.extend(dead_values);
        match dead {
            Only::No => out.extend(self.stmts(&undo)),
            _ => out.extend(self.dead_uncomputation(&undo, &dead)),
        }
        self.dead_values.truncate(enclosing);
        self.uncomputing -= 1;
        out
    }

    /// A routine's computation on values alone where `cond` (a constant on the callees'
    /// effects) holds, on values and gradients otherwise, chosen statement by statement so
    /// that the ancillas it allocates stay in the enclosing scope: an allocation is the same
    /// in both forms (the ancilla and its zero gradient).
    fn compute_unless_calls(&mut self, compute: &[Stmt], cond: &TokenStream) -> TokenStream {
        compute
            .iter()
            .map(|s| match s.kind {
                StmtKind::Alloc(_) => self.stmt(s),
                _ => {
                    let mut scope = self.scope.clone();
                    let values = self.compute_on_values(std::slice::from_ref(s));
                    std::mem::swap(&mut self.scope, &mut scope);
                    let pairs = self.stmt(s);
                    quote!(if #cond { #values } else { #pairs })
                }
            })
            .collect()
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
}

/// Code for statements at the top level of a function body (no new block: the ancillas they
/// allocate stay in scope), with `ancillas` already live. Used by the fused gradient, for its
/// head `L P M`: the body as written from its start, whose parallel loops take the checker's
/// plans ([`Gen::running_as_written`]).
pub fn statements(
    f: &Analyzed,
    name: &str,
    stmts: &[Stmt],
    ancillas: &[syn::Ident],
) -> TokenStream {
    let mut g = Gen::new(f, name).running_as_written(f);
    for a in ancillas {
        g.scope.declare(a, VarKind::Ancilla);
    }
    g.stmts(stmts)
}
