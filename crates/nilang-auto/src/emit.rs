//! From the natural IR to the reversible program (the `#[i]` language, expanded).
//!
//! Each block is written in one of two forms, chosen by dependency analysis:
//!
//! - **in place**: when every `let` of the block can be uncomputed at its end (nothing it was
//!   computed from, and not the variable itself, is written after it), the statements run in
//!   order and the temporaries are uncomputed in reverse (`t -= e`), so nothing is stored;
//! - **compute, copy, uncompute**: otherwise the block is `routine! { P } X uncompute!()`: `P`
//!   computes on *shadows* of the outer variables it writes, `X` copies their new values out
//!   (and performs the block's final writes to outer variables), and `~P` uncomputes every
//!   temporary. Only then is the old value of each overwritten outer variable saved on the
//!   tape (`push!`) and replaced by the new one (`swap`): per iteration of a loop, one number
//!   per variable the loop carries.
//!
//! An assignment that cannot be undone in place (`x = e`, or `x += e` where `e` reads `x`)
//! saves the old value on the tape; a branch whose condition its branches change records the
//! decision; a `while` loop records its trip count. Every push is undone by the uncomputation of
//! the enclosing routine, in reverse order, so the three tapes are empty when the function
//! returns.

mod checkpoint;
mod programs;
mod reduction_loop;
mod shadows;

pub use programs::CallerTapes;
use programs::Tapes;

use crate::nir::{self, Expr, Function, Id, Init, Op, Place, Stmt, StmtKind, Ty};
use crate::reduction::Reduction;
use crate::signature::Signature;
use crate::Names;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use std::collections::{BTreeSet, HashMap};
use syn::visit_mut::VisitMut;
use syn::Ident;

type Result<T> = syn::Result<T>;

/// Writes the reversible program of one function.
pub struct Emitter<'f> {
    f: &'f Function,
    sig: &'f Signature,
    names: &'f mut Names,
    /// Shadows: the ancilla standing for an outer binding inside the block being written.
    subst: HashMap<Id, Ident>,
    tapes: Tapes,
    /// How a block that cannot uncompute its temporaries in place frees them.
    temporaries: Temporaries,
    /// The numbers a test of the function reads ([`nir::tested`]): they are changed so that
    /// running backwards restores them bit for bit (no accumulation in place).
    tested: BTreeSet<Id>,
    /// The bindings calls write as outputs: a test that reads one keeps its decision (the
    /// callee may accumulate into them).
    call_outputs: BTreeSet<Id>,
}

/// How a block frees the temporaries it cannot uncompute in place (at its end, from values
/// that still hold).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Temporaries {
    /// Compute, copy, uncompute: the block runs twice forward and its computation once more
    /// in the gradient, and only the variables it carries are saved (one number each per
    /// iteration): the least memory.
    Uncompute,
    /// Saved on the tape at the block's end (one number per temporary and iteration): each
    /// block runs once forward, the fastest gradient.
    #[default]
    Store,
}

impl<'f> Emitter<'f> {
    /// An emitter for `f`.
    pub fn new(
        f: &'f Function,
        sig: &'f Signature,
        names: &'f mut Names,
        temporaries: Temporaries,
    ) -> Self {
        Emitter {
            temporaries,
            tested: nir::tested(&f.body),
            call_outputs: nir::call_outputs(&f.body),
            f,
            sig,
            names,
            subst: HashMap::new(),
            tapes: Tapes::default(),
        }
    }

    /// The current spelling of a binding (its shadow inside a block that shadows it).
    fn name(&self, id: Id) -> Ident {
        self.subst
            .get(&id)
            .cloned()
            .unwrap_or_else(|| self.f.binds[id].name.clone())
    }

    /// An expression with the current shadows substituted, as the right-hand side of an
    /// accumulation (see [`crate::expr::accumulated`]).
    fn rhs(&self, e: &Expr) -> syn::Expr {
        crate::expr::accumulated(self.render(e))
    }

    /// An expression with the current shadows substituted.
    fn render(&self, e: &Expr) -> syn::Expr {
        let mut syn = e.syn.clone();
        self.substitute_shadows(&mut syn, |id| e.reads.contains(&id));
        syn
    }

    /// Spells the bindings `which` selects by their current shadows in `syn`.
    fn substitute_shadows(&self, syn: &mut syn::Expr, which: impl Fn(Id) -> bool) {
        let map: HashMap<String, Ident> = self
            .subst
            .iter()
            .filter(|(id, _)| which(**id))
            .map(|(id, shadow)| (self.f.binds[*id].name.to_string(), shadow.clone()))
            .collect();
        if !map.is_empty() {
            Substitute(&map).visit_expr_mut(syn);
        }
    }

    fn place(&self, p: &Place) -> TokenStream {
        let root = self.name(p.root);
        match &p.index {
            None => quote!(#root),
            Some(i) => {
                let i = self.render(i);
                quote!(#root[#i])
            }
        }
    }

    /// A nested block (a loop body, a branch), in the form its dependencies allow.
    fn block(&mut self, stmts: &[Stmt]) -> Result<Vec<TokenStream>> {
        let lets: Vec<(Id, &Init)> = stmts
            .iter()
            .filter_map(|s| match &s.kind {
                StmtKind::Let { id, init } => Some((*id, init)),
                _ => None,
            })
            .collect();
        if lets.is_empty() {
            return self.stmts(stmts);
        }
        if self.temporaries == Temporaries::Store {
            return self.store_block(stmts);
        }
        if (0..stmts.len()).all(|k| uncomputable(stmts, k)) {
            let mut out = self.stmts(stmts)?;
            for (id, init) in lets.into_iter().rev() {
                out.extend(self.uncompute_let(id, init));
            }
            return Ok(out);
        }
        let locals: BTreeSet<Id> = lets.iter().map(|(id, _)| *id).collect();
        let split = tail_start(stmts, &locals);
        // the outer bindings the block writes (not its own, at any depth)
        let carried = &nir::written(&stmts[..split]) - &nir::declared(stmts);
        if self.temporaries == Temporaries::Uncompute
            && carried.iter().all(|o| self.f.binds[*o].ty == Ty::Real)
        {
            return self.routine_block(stmts, split, &carried);
        }
        self.store_block(stmts)
    }

    /// A block that runs in place and frees its temporaries at its end: uncomputed where that
    /// costs no more than saving them (or where it must, under `uncompute`), saved on the
    /// tape otherwise.
    fn store_block(&mut self, stmts: &[Stmt]) -> Result<Vec<TokenStream>> {
        let mut out = self.stmts(stmts)?;
        out.extend(self.free_temporaries(stmts)?);
        Ok(out)
    }

    /// Frees the temporaries of a block that has run, last first: uncomputed where that costs
    /// no more than saving them (or where it must, under `uncompute`), saved on the tape
    /// otherwise.
    fn free_temporaries(&mut self, stmts: &[Stmt]) -> Result<Vec<TokenStream>> {
        let mut out = Vec::new();
        for k in (0..stmts.len()).rev() {
            let StmtKind::Let { id, init } = &stmts[k].kind else {
                continue;
            };
            if uncomputable(stmts, k)
                && (self.temporaries == Temporaries::Uncompute || self.cheap(init))
            {
                out.extend(self.uncompute_let(*id, init));
            } else {
                out.extend(self.save_let(*id, init, stmts[k].span)?);
            }
        }
        Ok(out)
    }

    /// Saves a temporary on the tape, leaving it zero, and deallocates it.
    fn save_let(&mut self, id: Id, init: &Init, span: Span) -> Result<Vec<TokenStream>> {
        let name = self.f.binds[id].name.clone();
        let zero = self.negative_zero();
        let tape = self.value_tape();
        match (self.f.binds[id].ty, init) {
            (Ty::Real, _) => Ok(vec![quote_spanned!(span=>
                push!(#tape, #name);
                dealloc!(#name = #zero);
            )]),
            (Ty::RealVec, Init::Zeros { len }) => {
                let len = self.render(len);
                let (j, zero) = (self.names.fresh("j", span), self.zero());
                Ok(vec![quote_spanned!(span=>
                    for #j in 0..#len { push!(#tape, #name[#j]); }
                    dealloc!(#name = ::std::vec![#zero; #len]);
                )])
            }
            (Ty::Plain, _) => {
                // an integer changed after its `let` (a counter): saved with the decisions
                let tape = self.decisions_tape();
                Ok(vec![quote_spanned!(span=>
                    push!(#tape, #name);
                    dealloc!(#name = 0);
                )])
            }
            _ => Err(syn::Error::new(
                span,
                "this vector is computed from variables the block changes afterwards, and the \
                 block cannot be undone without it: start it from zeros (`vec![0.0; n]`) with \
                 a length that stays fixed",
            )),
        }
    }

    /// Statements in order, their temporaries left allocated.
    fn stmts(&mut self, stmts: &[Stmt]) -> Result<Vec<TokenStream>> {
        let mut out = Vec::new();
        for s in stmts {
            out.extend(self.stmt(s)?);
        }
        Ok(out)
    }

    fn stmt(&mut self, s: &Stmt) -> Result<Vec<TokenStream>> {
        let span = s.span;
        Ok(match &s.kind {
            StmtKind::Let { id, init } => self.compute_let(*id, init, span),
            StmtKind::Assign { place, op, value } => self.assign(place, *op, value, span)?,
            StmtKind::For {
                var,
                range,
                body,
                checkpoint: Some(checkpoint),
            } => self.checkpointed_loop(*var, range, body, *checkpoint, span)?,
            StmtKind::For {
                var, range, body, ..
            } if Reduction::of(self.f, self.sig, body).is_some() => {
                self.reduction_loop(*var, range, body, span)?
            }
            StmtKind::For {
                var, range, body, ..
            } => {
                let var = self.name(*var);
                let range = self.render(&Expr {
                    syn: range.syn.clone(),
                    reads: range.reads.clone(),
                    real: false,
                });
                let saves = self.refill_saves(&var, &range, body, span);
                let body = self.block(body)?;
                vec![quote_spanned!(span=> #saves for #var in #range { #(#body)* })]
            }
            StmtKind::While { cond, body } => self.while_loop(cond, body, span)?,
            StmtKind::If { cond, then, els } => self.branch(cond, then, els, span)?,
            StmtKind::CallInto { func, args, .. } => self.call_into(func, args, span),
        })
    }

    fn while_loop(&mut self, cond: &Expr, body: &[Stmt], span: Span) -> Result<Vec<TokenStream>> {
        let count = self.names.fresh("trips", span);
        let tape = self.decisions_tape();
        let cond = self.render(cond);
        let body = self.block(body)?;
        Ok(vec![quote_spanned! {span=>
            let #count = 0usize;
            while (#cond, #count > 0) {
                #count += 1;
                #(#body)*
            }
            push!(#tape, #count);
            dealloc!(#count = 0usize);
        }])
    }

    fn branch(
        &mut self,
        cond: &Expr,
        then: &[Stmt],
        els: &[Stmt],
        span: Span,
    ) -> Result<Vec<TokenStream>> {
        let mut changed = nir::written(then);
        changed.extend(nir::written(els));
        let then = self.block(then)?;
        let els = self.block(els)?;
        let rendered = self.render(cond);
        if cond.reads.is_disjoint(&changed) && cond.reads.is_disjoint(&self.call_outputs) {
            // the condition is recomputed after the branch (and checked to agree): it reads
            // nothing the branch writes, and what it reads is restored bit for bit
            return Ok(vec![
                quote_spanned!(span=> if #rendered { #(#then)* } else { #(#els)* }),
            ]);
        }
        Ok(vec![self.decided(
            rendered,
            quote!(#(#then)*),
            quote!(#(#els)*),
            span,
        )])
    }

    /// `if cond { then } else { els }` with the decision kept on the decisions tape (popped
    /// when the program runs backwards), for a condition that cannot be computed again there.
    fn decided(
        &mut self,
        cond: syn::Expr,
        then: TokenStream,
        els: TokenStream,
        span: Span,
    ) -> TokenStream {
        let flag = self.names.fresh("taken", span);
        let tape = self.decisions_tape();
        quote_spanned! {span=>
            let #flag = false;
            #flag ^= #cond;
            if #flag { #then } else { #els }
            push!(#tape, #flag);
            dealloc!(#flag = false);
        }
    }

    /// `let`: the temporary is allocated and computed.
    fn compute_let(&mut self, id: Id, init: &Init, span: Span) -> Vec<TokenStream> {
        let name = self.f.binds[id].name.clone();
        let (zero, start) = (self.zero(), self.negative_zero());
        match init {
            Init::Expr(e) if self.f.binds[id].ty == Ty::Plain => {
                let e = self.render(e);
                vec![quote_spanned!(span=> let #name = #e;)]
            }
            Init::Expr(e) if !self.reads_real(e) => {
                let c = self.constant(e);
                vec![quote_spanned!(span=> let #name = #c;)]
            }
            Init::Expr(e) => {
                let e = self.rhs(e);
                vec![quote_spanned!(span=> let #name = #start; #name += #e;)]
            }
            Init::Select { cond, then, els } => {
                let (c, a, b) = (self.render(cond), self.rhs(then), self.rhs(els));
                vec![quote_spanned!(span=>
                    let #name = #start;
                    if #c { #name += #a; } else { #name += #b; }
                )]
            }
            Init::Zeros { len } => {
                let len = self.render(len);
                vec![quote_spanned!(span=> let #name = ::std::vec![#zero; #len];)]
            }
            Init::Call { func, args } => {
                let mut out = vec![quote_spanned!(span=> let #name = #start;)];
                out.extend(self.call(&name, func, args, false, span));
                out
            }
        }
    }

    /// The inverse of [`Self::compute_let`], for a temporary whose inputs still hold.
    fn uncompute_let(&mut self, id: Id, init: &Init) -> Vec<TokenStream> {
        let name = self.f.binds[id].name.clone();
        let zero = self.negative_zero();
        let span = name.span();
        match init {
            Init::Expr(e) if self.f.binds[id].ty == Ty::Plain => {
                let e = self.render(e);
                vec![quote_spanned!(span=> dealloc!(#name = #e);)]
            }
            Init::Expr(e) if !self.reads_real(e) => {
                let c = self.constant(e);
                vec![quote_spanned!(span=> dealloc!(#name = #c);)]
            }
            Init::Expr(e) => {
                let e = self.rhs(e);
                vec![quote_spanned!(span=> #name -= #e; dealloc!(#name = #zero);)]
            }
            Init::Select { cond, then, els } => {
                let (c, a, b) = (self.render(cond), self.rhs(then), self.rhs(els));
                vec![quote_spanned!(span=>
                    if #c { #name -= #a; } else { #name -= #b; }
                    dealloc!(#name = #zero);
                )]
            }
            Init::Zeros { len } => {
                let len = self.render(len);
                let zero = self.zero();
                vec![quote_spanned!(span=> dealloc!(#name = ::std::vec![#zero; #len]);)]
            }
            Init::Call { func, args } => {
                let mut out = self.call(&name, func, args, true, span);
                out.push(quote_spanned!(span=> dealloc!(#name = #zero);));
                out
            }
        }
    }

    /// Is a temporary as cheap to uncompute as to save: a copy of a place, a value read from
    /// no differentiable binding (an index, a constant such as a grid point `tᵢ`), or a short
    /// chain of arithmetic on places (`x[i] - mu[j]`: a few operations on values in registers
    /// or cache, where saving costs a store, a load and the tape's memory traffic)?
    fn cheap(&self, init: &Init) -> bool {
        match init {
            Init::Expr(e) => {
                !e.real || !self.reads_real(e) || crate::cost::short_arithmetic(&e.syn)
            }
            Init::Zeros { .. } => true,
            Init::Select { .. } | Init::Call { .. } => false,
        }
    }

    /// Does the expression read a differentiable binding (else it is a constant)?
    fn reads_real(&self, e: &Expr) -> bool {
        e.reads.iter().any(|id| self.f.binds[*id].ty != Ty::Plain)
    }

    /// A constant of the real type.
    fn constant(&self, e: &Expr) -> TokenStream {
        let e = self.render(e);
        let t = &self.sig.rev_real;
        if self.sig.f64_mode {
            quote!(#t::lit(#e))
        } else {
            quote!(#e)
        }
    }

    /// `g_rev(out, args…)` (or its `uncall!`); an argument that is a computed number goes
    /// through a temporary computed before and uncomputed after.
    fn call(
        &mut self,
        out: &Ident,
        func: &syn::Path,
        args: &[Expr],
        uncall: bool,
        span: Span,
    ) -> Vec<TokenStream> {
        let (func, tapes) = self.callee(func);
        self.call_with(func, quote!(#out, #(#tapes,)*), args, uncall, span)
    }

    /// `g_rev_taped(tape, decisions, args…)`: a call that writes outputs, on this program's
    /// tapes (it leaves there what its outputs held before and what it saved).
    fn call_into(&mut self, func: &syn::Path, args: &[Expr], span: Span) -> Vec<TokenStream> {
        let (tape, decisions) = (self.value_tape(), self.decisions_tape());
        self.call_with(func.clone(), quote!(#tape, #decisions,), args, false, span)
    }

    /// `func(first args…)` (or its `uncall!`), each computed number among `args` through a
    /// temporary computed before and uncomputed after.
    fn call_with(
        &mut self,
        func: syn::Path,
        first: TokenStream,
        args: &[Expr],
        uncall: bool,
        span: Span,
    ) -> Vec<TokenStream> {
        let zero = self.negative_zero();
        let (mut before, mut after, mut passed) = (Vec::new(), Vec::new(), Vec::new());
        let all: Vec<syn::Expr> = args
            .iter()
            .map(|a| strip_reference(self.render(a)))
            .collect();
        for (k, (a, rendered)) in args.iter().zip(&all).enumerate() {
            // an argument beside another of its variable (`g(x, x[0])`, `g(&v, &v[1..3])`) is
            // copied, so that each argument is borrowed alone
            let root = place_root(rendered);
            // another argument (before this one, with `before_only`) of the same variable
            let shares = |before_only: bool| {
                root.is_some()
                    && all
                        .iter()
                        .enumerate()
                        .any(|(j, o)| j != k && (!before_only || j < k) && place_root(o) == root)
            };
            // a number's place: an element, or a scalar variable (`g(t, t)`)
            let element = is_place(rendered)
                && (vector_part(rendered).is_none() || !self.is_real_vector(a, rendered));
            if a.real && (!is_place(rendered) || element && shares(false)) {
                let tmp = self.names.fresh("arg", span);
                before.push(quote_spanned!(span=> let #tmp = #zero; #tmp += #rendered;));
                after.insert(
                    0,
                    quote_spanned!(span=> #tmp -= #rendered; dealloc!(#tmp = #zero);),
                );
                passed.push(quote!(#tmp));
            } else if self.is_data_slice(a, rendered) {
                let at = syn::spanned::Spanned::span(rendered);
                passed.push(quote_spanned!(at=> ::nilang::__private::data(&#rendered)));
            } else if let Some((whole, start, len)) = vector_part(rendered)
                .filter(|_| self.is_real_vector(a, rendered))
                .filter(|_| shares(true))
            {
                let (tmp, j) = (self.names.fresh("arg", span), self.names.fresh("j", span));
                let zero = self.zero();
                before.push(quote_spanned!(span=>
                    let #tmp = ::std::vec![#zero; #len];
                    for #j in 0..#len { #tmp[#j] += #whole[#start + #j]; }
                ));
                after.insert(
                    0,
                    quote_spanned!(span=>
                        for #j in 0..#len { #tmp[#j] -= #whole[#start + #j]; }
                        dealloc!(#tmp = ::std::vec![#zero; #len]);
                    ),
                );
                passed.push(quote!(#tmp));
            } else {
                passed.push(quote!(#rendered));
            }
        }
        let call = if uncall {
            quote_spanned!(span=> uncall!(#func(#first #(#passed),*));)
        } else {
            quote_spanned!(span=> #func(#first #(#passed),*);)
        };
        before.push(call);
        before.extend(after);
        before
    }

    /// Is this argument (a vector or a part of one) of differentiable numbers?
    fn is_real_vector(&self, a: &Expr, rendered: &syn::Expr) -> bool {
        let Some(root) = place_root(rendered) else {
            return false;
        };
        a.reads.iter().any(|id| {
            let b = &self.f.binds[*id];
            b.ty == Ty::RealVec && (b.name == *root || self.subst.get(id) == Some(root))
        })
    }

    /// Is this argument a slice of data: a plain slice parameter, or a sub-slice of one
    /// (handed on through `nilang::__private::data`, whose error names the fix where the callee
    /// differentiates the parameter)?
    fn is_data_slice(&self, a: &Expr, rendered: &syn::Expr) -> bool {
        let root = match rendered {
            syn::Expr::Index(i) if matches!(&*i.index, syn::Expr::Range(_)) => &*i.expr,
            other => other,
        };
        let syn::Expr::Path(p) = root else {
            return false;
        };
        a.reads
            .iter()
            .any(|id| self.sig.is_slice(*id) && p.path.is_ident(&self.f.binds[*id].name))
    }

    /// The program a call runs and the tapes passed to it: under `store`, `g_rev_taped` on
    /// this program's tapes (the callee's saved values are left there, so it runs once);
    /// under `uncompute`, `g_rev`, which cleans up after itself (the least memory).
    fn callee(&mut self, func: &syn::Path) -> (syn::Path, Vec<Ident>) {
        if self.temporaries == Temporaries::Uncompute {
            return (func.clone(), Vec::new());
        }
        let mut taped = func.clone();
        let last = taped.segments.last_mut().expect("a path has a segment");
        last.ident = taped_name(&last.ident);
        (taped, vec![self.value_tape(), self.decisions_tape()])
    }

    fn assign(
        &mut self,
        place: &Place,
        op: Op,
        value: &Expr,
        span: Span,
    ) -> Result<Vec<TokenStream>> {
        let target = self.place(place);
        let reads_target = value.reads.contains(&place.root);
        let rendered = self.rhs(value);
        if self.f.binds[place.root].ty == Ty::Plain {
            if reads_target {
                return Err(syn::Error::new(
                    span,
                    "an index or count changed by an expression that reads it cannot be \
                     undone: compute the new value with `let`",
                ));
            }
            let op = if op == Op::Add {
                quote!(+=)
            } else {
                quote!(-=)
            };
            return Ok(vec![quote_spanned!(span=> #target #op #rendered;)]);
        }
        if in_place(place, op, value, &self.tested) {
            let op = if op == Op::Add {
                quote!(+=)
            } else {
                quote!(-=)
            };
            return Ok(vec![quote_spanned!(span=> #target #op #rendered;)]);
        }
        let new = new_value(&target, op, &rendered);
        let tmp = self.names.fresh("new", span);
        let tape = self.value_tape();
        let zero = self.negative_zero();
        // the old value is saved, and the swap leaves `tmp` zero — except for a first write
        // (`fill`), which finds the zero its vector was allocated with and saves nothing, and
        // a refill, whose loop saved the old values before it ran (`refill_saves`)
        let (save, freed) = if matches!(op, Op::Fill | Op::Refill) {
            (TokenStream::new(), self.zero())
        } else {
            (quote_spanned!(span=> push!(#tape, #target);), zero.clone())
        };
        Ok(vec![quote_spanned! {span=>
            let #tmp = #zero;
            #tmp += #new;
            #save
            swap(#target, #tmp);
            dealloc!(#tmp = #freed);
        }])
    }

    /// For a loop whose body refills a vector (`v[j] = e` marked [`Op::Refill`] by `fill`):
    /// the loop that saves the elements it will overwrite, `for j in range { push!(tape,
    /// v[j]); }`, which leaves them zero. Nothing for any other loop.
    fn refill_saves(
        &mut self,
        var: &Ident,
        range: &syn::Expr,
        body: &[Stmt],
        span: Span,
    ) -> TokenStream {
        let Some(place) = body.iter().find_map(|s| match &s.kind {
            StmtKind::Assign {
                place,
                op: Op::Refill,
                ..
            } => Some(place),
            _ => None,
        }) else {
            return TokenStream::new();
        };
        let (target, tape) = (self.place(place), self.value_tape());
        quote_spanned!(span=> for #var in #range { push!(#tape, #target); })
    }

    /// `routine! { P } X uncompute!()` for a block whose temporaries cannot be uncomputed in
    /// place (see the module documentation).
    fn routine_block(
        &mut self,
        stmts: &[Stmt],
        split: usize,
        written: &BTreeSet<Id>,
    ) -> Result<Vec<TokenStream>> {
        let (prefix, tail) = stmts.split_at(split);
        let span = stmts.first().map_or_else(Span::call_site, |s| s.span);
        let saved_subst = self.subst.clone();
        let mut parts = self.shadow_outer(
            written,
            &nir::read(prefix),
            &overwritten(prefix, &self.tested),
            span,
        );
        parts.compute.extend(self.stmts(prefix)?);
        for s in tail {
            let StmtKind::Assign { place, op, value } = &s.kind else {
                unreachable!("the tail holds assignments only")
            };
            if in_place(place, *op, value, &self.tested) {
                parts.copy.extend(self.assign(place, *op, value, s.span)?);
                continue;
            }
            let zero = self.negative_zero();
            let new = self.names.fresh("new", s.span);
            let target = self.place(place);
            let value = new_value(&target, *op, &self.rhs(value));
            let tape = self.value_tape();
            parts.pre.push(quote_spanned!(span=> let #new = #zero;));
            parts.copy.push(quote_spanned!(span=> #new += #value;));
            parts.post.push(quote_spanned!(span=>
                push!(#tape, #target);
                swap(#target, #new);
                dealloc!(#new = #zero);
            ));
        }
        self.subst = saved_subst;
        Ok(parts.assemble(span))
    }
}

/// The taped program of the function whose reversible program is `rev` (`f_rev`): `f_rev_taped`.
pub fn taped_name(rev: &Ident) -> Ident {
    quote::format_ident!("{}_taped", rev, span = rev.span())
}

/// Can the `let` at `k` (any other statement trivially) be uncomputed at the block's end:
/// neither the variable nor anything its value was computed from is written after it?
fn uncomputable(stmts: &[Stmt], k: usize) -> bool {
    match &stmts[k].kind {
        StmtKind::Let { id, init } => {
            let later = nir::written(&stmts[k + 1..]);
            !later.contains(id) && init.reads().is_disjoint(&later)
        }
        _ => true,
    }
}

/// Where the block's final writes to outer variables start: the longest run of assignments at
/// its end to outer variables that the rest of the block neither reads nor writes, whose values
/// read none of them, and whose indices read neither the block's temporaries nor anything the
/// rest writes (the write of a saved value happens after the uncomputation).
fn tail_start(stmts: &[Stmt], locals: &BTreeSet<Id>) -> usize {
    let mut start = stmts.len();
    let mut roots = BTreeSet::new();
    let mut value_reads = BTreeSet::new();
    while start > 0 {
        let StmtKind::Assign { place, value, .. } = &stmts[start - 1].kind else {
            break;
        };
        let prefix = &stmts[..start - 1];
        let (written, read) = (nir::written(prefix), nir::read(prefix));
        let index_reads = place
            .index
            .as_ref()
            .map(|i| i.reads.clone())
            .unwrap_or_default();
        let mut new_roots = roots.clone();
        new_roots.insert(place.root);
        let mut new_value_reads = value_reads.clone();
        new_value_reads.extend(value.reads.iter().filter(|r| **r != place.root));
        let ok = !locals.contains(&place.root)
            && !written.contains(&place.root)
            && !read.contains(&place.root)
            && index_reads.is_disjoint(locals)
            && index_reads.is_disjoint(&written)
            && new_value_reads.is_disjoint(&new_roots);
        if !ok {
            break;
        }
        roots = new_roots;
        value_reads = new_value_reads;
        start -= 1;
    }
    start
}

/// Whether `place op= value` is undone in place (`x -= e` after `x += e`): an accumulation
/// that does not read its target, into a number no test reads ([`nir::tested`]); anything
/// else saves the old value and swaps the new one in.
fn in_place(place: &Place, op: Op, value: &Expr, tested: &BTreeSet<Id>) -> bool {
    matches!(op, Op::Add | Op::Sub)
        && !value.reads.contains(&place.root)
        && !tested.contains(&place.root)
}

/// The bindings a block assigns in a way that cannot be undone in place (see
/// [`in_place`]), calls' outputs included.
fn overwritten(stmts: &[Stmt], tested: &BTreeSet<Id>) -> BTreeSet<Id> {
    fn walk(stmts: &[Stmt], tested: &BTreeSet<Id>, out: &mut BTreeSet<Id>) {
        for s in stmts {
            match &s.kind {
                StmtKind::Assign { place, op, value } => {
                    if !in_place(place, *op, value, tested) {
                        out.insert(place.root);
                    }
                }
                StmtKind::CallInto { outputs, .. } => out.extend(outputs),
                StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                    walk(body, tested, out)
                }
                StmtKind::If { then, els, .. } => {
                    walk(then, tested, out);
                    walk(els, tested, out);
                }
                StmtKind::Let { .. } => {}
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(stmts, tested, &mut out);
    out
}

/// The new value of `target op= value`.
fn new_value(target: &TokenStream, op: Op, value: &syn::Expr) -> TokenStream {
    match op {
        Op::Set | Op::Fill | Op::Refill => quote!(#value),
        Op::Add => quote!(#target + (#value)),
        Op::Sub => quote!(#target - (#value)),
        Op::Mul => quote!(#target * (#value)),
        Op::Div => quote!(#target / (#value)),
    }
}

fn strip_reference(e: syn::Expr) -> syn::Expr {
    match e {
        syn::Expr::Reference(r) => *r.expr,
        other => other,
    }
}

/// A vector or a part of one as an argument (`v`, `v[a..b]`): the vector, where the part
/// starts and its length.
fn vector_part(e: &syn::Expr) -> Option<(syn::Expr, TokenStream, TokenStream)> {
    match e {
        syn::Expr::Path(p) if p.path.get_ident().is_some() => {
            Some((e.clone(), quote!(0usize), quote!((#e).len())))
        }
        syn::Expr::Index(i) => match &*i.index {
            syn::Expr::Range(syn::ExprRange {
                start: Some(a),
                end: Some(b),
                limits: syn::RangeLimits::HalfOpen(_),
                ..
            }) => Some(((*i.expr).clone(), quote!((#a)), quote!(((#b) - (#a))))),
            _ => None,
        },
        syn::Expr::Paren(p) => vector_part(&p.expr),
        _ => None,
    }
}

/// The variable a place (`v`, `v[i]`, `v[a..b]`) is part of.
fn place_root(e: &syn::Expr) -> Option<&syn::Ident> {
    match e {
        syn::Expr::Path(p) => p.path.get_ident(),
        syn::Expr::Index(i) => place_root(&i.expr),
        syn::Expr::Paren(p) => place_root(&p.expr),
        _ => None,
    }
}

fn is_place(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Path(_) => true,
        syn::Expr::Index(i) => is_place(&i.expr),
        syn::Expr::Paren(p) => is_place(&p.expr),
        _ => false,
    }
}

/// Replaces variables (single-identifier paths) by their shadows. Every binding has its own
/// spelling in the program, so a spelling names exactly one binding.
struct Substitute<'m>(&'m HashMap<String, Ident>);

impl VisitMut for Substitute<'_> {
    fn visit_expr_path_mut(&mut self, p: &mut syn::ExprPath) {
        if let Some(ident) = p.path.get_ident() {
            if let Some(shadow) = self.0.get(&ident.to_string()) {
                let shadow = Ident::new(&shadow.to_string(), ident.span());
                p.path = shadow.into();
            }
        }
    }
}
