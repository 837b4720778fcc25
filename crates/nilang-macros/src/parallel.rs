//! Code of the parallel loop `for i in (a..b).par() { … }` (forward, inverse and, in shadow
//! mode, the adjoint programs).
//!
//! The iterations run in contiguous chunks on rayon's current pool
//! (`__private::par::chunks`, `__private::par::run`); each chunk is one call of a closure:
//!
//! - places the iterations write at owned slots (`nilang_ir::parallel`) are rebound, values and
//!   shadows, to `__private::par::Cells` of the whole slice; each index of an owned slot
//!   reaches its element through the cells (SAFETY: the static check proved that no two
//!   iterations reach the same element, and the slot checks before the loop made the offsets
//!   lie in `0..stride`);
//! - every reduction target is replaced by the chunk's partial, zero at the chunk's start (in
//!   an adjoint program its shadow starts as the target's gradient, which the sum hands to
//!   every term); after the loop the partials are added to the target in chunk order (values
//!   only);
//! - writable places the loop only reads are read-only in the chunk, except those it hands to
//!   calls (`g(mu[c*d..(c+1)*d])`, which take them `&mut`): each chunk calls on its own copy of
//!   the value (`__private::par::own_copy`) — unless every access is an owned slot
//!   (`g(us[2*i..2*i + 2])`), which each iteration borrows through cells as a place it
//!   writes — and a constant item beside the function's effects
//!   (`call_read_assertions`) refuses to compile when the callee may write it; in an adjoint
//!   program the gradients the iterations add to them go to the chunk's own zeroed copy of
//!   their shadow, added to the real shadow in chunk order after the loop (element by element,
//!   the elements split across the threads: `__private::par::add_grads`), except for places
//!   read at owned slots only (`x[i]`): their shadow is cells, as an owned place's (each
//!   element's gradient comes from one iteration), so a chunk neither copies nor sums a whole
//!   shadow.
//!
//! So results do not depend on scheduling: bit for bit the same on every run with the same
//! thread count. Runs the sequential loop on a one-thread pool (so the program is then bit for
//! bit the one without `.par()`), and when `Gen::par_gate` is `None` or false at run time
//! (`GVar`, a tape type, a method, a scalar not bounded by `Real`), and, in adjoint
//! programs, when a place the loop reads and that has a gradient is read as anything but
//! `x[k]` or a whole `x` (fields, nested indices), or is handed whole to a call.

use crate::codegen::{Gen, ParState};
use crate::tokens::private;
use nilang_ir::adjoint::shadow_name;
use nilang_ir::ast::*;
use nilang_ir::parallel::SlotCheck;
use proc_macro2::TokenStream;
use quote::quote;

/// The code a parallel loop is built from, gathered place by place.
#[derive(Default)]
struct ChunkCode {
    /// Before the loop, once.
    pre: TokenStream,
    /// At the start of each chunk.
    enter: TokenStream,
    /// What each chunk returns (its partials and gradients) ...
    rets: Vec<TokenStream>,
    /// ... and the patterns that take them apart after the loop.
    pats: Vec<TokenStream>,
    /// For each chunk's results, in chunk order.
    post: TokenStream,
    /// After all chunks.
    after: TokenStream,
}

/// The whole place of a root (`x`).
fn whole(root: &syn::Ident) -> Dataview {
    Dataview {
        root: root.clone(),
        path: Vec::new(),
        span: root.span(),
    }
}

impl Gen {
    /// A parallel loop: the chunked parallel code when allowed, else the sequential loop.
    pub(crate) fn par_for(&mut self, s: &Stmt, site: &TokenStream) -> TokenStream {
        let StmtKind::For { var, range, body } = &s.kind else {
            unreachable!("a parallel loop is a `for`")
        };
        // taken first: every loop as written takes its plan, whether it runs in chunks or not
        let written = self.written_plan();
        let mut seq_range = range.clone();
        seq_range.parallel = false;
        seq_range.weight = None;
        let seq_stmt = Stmt {
            kind: StmtKind::For {
                var: var.clone(),
                range: seq_range,
                body: body.clone(),
            },
            ..s.clone()
        };
        let seq = self.stmt(&seq_stmt);
        let Some(gate) = self.par_gate.clone() else {
            return seq;
        };
        let plan = match written {
            Some(plan) => plan,
            None => match nilang_ir::parallel::plan(var, range, body, &self.scope, &self.own) {
                Ok(plan) => plan,
                Err(_) => return seq,
            },
        };
        let Some(par) = self.par_chunks(var, range, body, site, &plan) else {
            return seq;
        };
        let p = private();
        let (start, end, inclusive) = (&range.start, &range.end, range.inclusive);
        let weight = range.weight.clone().unwrap_or_else(|| syn::parse_quote!(1));
        let (start, end, weight) = (
            crate::tokens::read_only(start),
            crate::tokens::read_only(end),
            crate::tokens::read_only(&weight),
        );
        let split = quote!(#p::par::worth_splitting(#start, #end, #inclusive, #weight));
        quote!({ if #gate && #split { #par } else { #seq } })
    }

    /// The loop's iterations in chunks on rayon's pool, each chunk a closure (see the module
    /// doc); `None` when an adjoint program cannot keep a read place's gradients apart.
    fn par_chunks(
        &mut self,
        var: &syn::Ident,
        range: &RangeSpec,
        body: &[Stmt],
        site: &TokenStream,
        plan: &nilang_ir::parallel::Plan,
    ) -> Option<TokenStream> {
        let p = private();
        let (local, slot_shadows) = self.kept_gradients(plan)?;
        let mut code = ChunkCode::default();
        let mut state = ParState {
            readonly: plan
                .shared_reads
                .iter()
                .filter(|s| !s.through_calls)
                .map(|s| s.root.to_string())
                .collect(),
            ..ParState::default()
        };
        let value_slot_checks = self.read_through_calls(plan, &mut code, &mut state);
        let slot_checks = slot_shadows.iter().flat_map(|(_, checks)| checks.iter());
        for c in plan
            .slot_checks
            .iter()
            .chain(slot_checks)
            .chain(value_slot_checks)
        {
            let (lo, stride, text) = (&c.lo, &c.stride, &c.text);
            let hi = match &c.hi {
                Some(h) => quote!(::core::option::Option::Some(#h)),
                None => quote!(::core::option::Option::None),
            };
            code.pre
                .extend(quote!(#p::par::check_slot(#lo, #hi, #stride, #site, #text);));
        }
        self.owned_cells(plan, &slot_shadows, &mut code, &mut state);
        self.reduction_partials(plan, site, &mut code, &mut state);
        self.chunk_gradients(&local, &mut code, &mut state);
        let RangeSpec {
            start,
            inclusive,
            rev,
            ..
        } = range;
        let end = self.range_end(range, site);
        let saved = std::mem::replace(&mut self.par, state);
        let chunk = self.chunk_loop(var, range, body, site);
        self.par = saved;
        let parts = if *rev {
            quote!(__parts.into_iter().rev())
        } else {
            quote!(__parts.into_iter())
        };
        let check = self.checked.then(|| {
            let text = nilang_ir::text::tokens_text(&nilang_ir::print::range_tokens(range));
            quote!(#p::check_for_range((__start, __end, 1), (#start, #end, 1), #site, #text);)
        });
        let ChunkCode {
            pre,
            enter,
            rets,
            pats,
            post,
            after,
        } = code;
        Some(quote!({
            let __start = #start;
            let __end = #end;
            let __chunks = #p::par::chunks(__start, __end, #inclusive);
            #pre
            let __parts = #p::par::run(&__chunks, |__lo, __hi| {
                #enter
                #chunk
                (#(#rets,)*)
            });
            for (#(#pats,)*) in #parts {
                #post
            }
            #after
            #check
        }))
    }

    /// In an adjoint program, the places read by every iteration whose gradients the chunks
    /// keep apart (with whether they are indexed), and those read at owned slots only, whose
    /// gradients the chunks add at disjoint elements (with their slot checks); `None` when a
    /// place's gradient cannot be kept apart (a slice handed whole to a call).
    #[allow(clippy::type_complexity)]
    fn kept_gradients<'p>(
        &self,
        plan: &'p nilang_ir::parallel::Plan,
    ) -> Option<(
        Vec<(syn::Ident, bool)>,
        Vec<(syn::Ident, &'p Vec<SlotCheck>)>,
    )> {
        let (mut local, mut slot_shadows) = (Vec::new(), Vec::new());
        for sr in &plan.shared_reads {
            if self.shadow.is_some() && self.has_shadow(&whole(&sr.root)) {
                match (&sr.owned_slots, sr.indexed?) {
                    (Some(checks), _) => slot_shadows.push((sr.root.clone(), checks)),
                    // handed whole to a call: a slice's gradient has no zeroed copy here
                    (None, false) if sr.through_calls => return None,
                    (None, indexed) => local.push((sr.root.clone(), indexed)),
                }
            }
        }
        Some((local, slot_shadows))
    }

    /// The places the loop hands to calls that only read them: borrowed through cells at
    /// owned slots (whose slot checks it returns), else copied by each chunk.
    fn read_through_calls<'p>(
        &mut self,
        plan: &'p nilang_ir::parallel::Plan,
        code: &mut ChunkCode,
        state: &mut ParState,
    ) -> Vec<&'p SlotCheck> {
        let p = private();
        let mut value_slot_checks = Vec::new();
        for sr in plan.shared_reads.iter().filter(|s| s.through_calls) {
            let (root, place) = (&sr.root, self.place(&whole(&sr.root)));
            if let Some(checks) = &sr.owned_slots {
                // handed to calls at owned slots only (`g(us[2*i..2*i + 2])`): each iteration
                // borrows its own elements through cells, as for a place it writes, instead
                // of every chunk copying the whole place
                let window = self.window_of(plan, root, &mut code.pre);
                let cells = self.fresh("cells");
                code.pre
                    .extend(quote!(let #cells = #p::par::Cells::new(&mut #place[..]);));
                code.enter.extend(window_binding(root, &cells, &window));
                state.cells.push(root.to_string());
                value_slot_checks.extend(checks.iter());
                continue;
            }
            // a callee takes it `&mut` (and does not write it): each chunk runs on its own copy
            let own = self.fresh("values");
            code.enter.extend(quote!(
                let mut #own = #p::par::own_copy(&#place);
                let #root = #p::par::reborrow_like(&#place, &mut #own);
            ));
            if !self.kind(&whole(root)).is_some_and(|k| k.is_reference()) {
                state.deref.push(root.to_string());
            }
        }
        value_slot_checks
    }

    /// The places written at owned slots (values and shadows), and the shadows of places read
    /// at owned slots only: each chunk reaches its own elements through cells.
    fn owned_cells(
        &mut self,
        plan: &nilang_ir::parallel::Plan,
        slot_shadows: &[(syn::Ident, &Vec<SlotCheck>)],
        code: &mut ChunkCode,
        state: &mut ParState,
    ) {
        let p = private();
        for root in &plan.owned {
            let v = whole(root);
            let window = self.window_of(plan, root, &mut code.pre);
            let mut roots = vec![(root.clone(), self.place(&v))];
            if self.has_shadow(&v) {
                roots.push((shadow_name(root), self.shadow_place(&v)));
            }
            for (name, place) in roots {
                let cells = self.fresh("cells");
                code.pre
                    .extend(quote!(let #cells = #p::par::Cells::new(&mut #place[..]);));
                code.enter.extend(window_binding(&name, &cells, &window));
                state.cells.push(name.to_string());
            }
        }
        for (root, _) in slot_shadows {
            // the value stays read-only; the shadow is written at this iteration's slots only
            let window = self.window_of(plan, root, &mut code.pre);
            let (name, place) = (shadow_name(root), self.shadow_place(&whole(root)));
            let cells = self.fresh("cells");
            code.pre
                .extend(quote!(let #cells = #p::par::Cells::new(&mut #place[..]);));
            code.enter.extend(window_binding(&name, &cells, &window));
            state.cells.push(name.to_string());
            state.local_shadows.push(root.to_string());
        }
    }

    /// The reductions: each chunk accumulates into its own partial (and, in an adjoint
    /// program, hands the target's gradient to it); the partials are added to the target in
    /// chunk order after the loop.
    fn reduction_partials(
        &mut self,
        plan: &nilang_ir::parallel::Plan,
        site: &TokenStream,
        code: &mut ChunkCode,
        state: &mut ParState,
    ) {
        let p = private();
        for r in &plan.reductions {
            let (zero, part) = (self.fresh("zero"), self.fresh("part"));
            let place = self.place(r);
            code.pre.extend(quote!(let #zero = #p::zero_of(&#place);));
            code.enter.extend(quote!(let mut #part = #p::copy(&#zero);));
            code.rets.push(quote!(#part));
            code.pats.push(quote!(#part));
            let part_shadow = if self.has_shadow(r) {
                // the sum hands the target's gradient to every partial
                let (g, pg) = (self.fresh("zero"), shadow_name(&part));
                let sp = self.shadow_place(r);
                code.pre.extend(quote!(let #g = #p::copy(&#sp);));
                code.enter.extend(quote!(let mut #pg = #p::copy(&#g);));
                code.rets.push(quote!(#pg));
                code.pats.push(quote!(_));
                Some(pg)
            } else {
                None
            };
            state
                .reductions
                .push((r.clone(), part.clone(), part_shadow));
            // after the loop: `r += identity(part)` on values only
            let add = Instr {
                target: r.clone(),
                op: AccOp::Add,
                prim: Prim::Builtin(primitive("identity").expect("the identity primitive")),
                args: vec![Operand::View(whole(&part))],
            };
            let saved = self.shadow.take();
            code.post.extend(self.instruction(&add, site, r.span));
            self.shadow = saved;
        }
    }

    /// The gradients of places every iteration reads (`local`, from [`Gen::kept_gradients`]):
    /// each chunk adds into its own zeroed copy, summed into the shadow after the loop in
    /// chunk order.
    fn chunk_gradients(
        &mut self,
        local: &[(syn::Ident, bool)],
        code: &mut ChunkCode,
        state: &mut ParState,
    ) {
        let p = private();
        let lane = self
            .shadow
            .as_ref()
            .map_or_else(|| quote!(()), |s| s.lane());
        for (root, indexed) in local {
            let v = whole(root);
            let (zero, own) = (self.fresh("zero"), self.fresh("grads"));
            let (place, sp) = (self.place(&v), self.shadow_place(&v));
            let g = shadow_name(root);
            if *indexed {
                // the chunks' gradients are summed after the loop, element by element in chunk
                // order, split across the threads (`par::add_grads`)
                let all = self.fresh("all_grads");
                code.pre.extend(quote!(
                    let #zero = #p::par::zero_grads::<_, #lane>(&#place[..]);
                    let mut #all = ::std::vec::Vec::with_capacity(__chunks.len());
                ));
                code.enter
                    .extend(quote!(let mut #own = #p::copy(&#zero); let #g = &mut #own[..];));
                code.post.extend(quote!(#all.push(#own);));
                code.after
                    .extend(quote!(#p::par::add_grads(&mut #sp[..], &#all);));
            } else {
                code.pre
                    .extend(quote!(let #zero = #p::zero_grad::<_, #lane>(&#place);));
                code.enter
                    .extend(quote!(let mut #own = #p::copy(&#zero); let #g = &mut #own;));
                code.post.extend(quote!(#p::par::add_grad(&mut #sp, #own);));
                state.deref.push(g.to_string());
            }
            state.local_shadows.push(root.to_string());
            code.rets.push(quote!(#own));
            code.pats.push(quote!(#own));
        }
    }

    /// One chunk: a sequential loop over `__lo..__hi`; unchecked, its indices' bounds are
    /// checked once per chunk, as in any unchecked loop.
    fn chunk_loop(
        &mut self,
        var: &syn::Ident,
        range: &RangeSpec,
        body: &[Stmt],
        site: &TokenStream,
    ) -> TokenStream {
        if self.checked {
            self.scope.push();
            self.scope.declare(var, nilang_ir::scope::VarKind::LoopVar);
            let body = self.block(body);
            self.scope.pop();
            let iter = if range.rev {
                quote!((__lo..__hi).rev())
            } else {
                quote!(__lo..__hi)
            };
            quote!(for #var in #iter { #body })
        } else {
            let chunk_range = RangeSpec {
                start: syn::parse_quote!(__lo),
                end: syn::parse_quote!(__hi),
                inclusive: false,
                step: None,
                rev: range.rev,
                parallel: false,
                weight: None,
                broadcast: None,
            };
            self.unchecked_for(var, &chunk_range, body, site)
        }
    }
}

impl Gen {
    /// The elements a chunk `__lo..__hi` of the loop owns in `root` (`__private::par::slots`),
    /// from its stride and shift, which `pre` evaluates once, before the loop.
    fn window_of(
        &mut self,
        plan: &nilang_ir::parallel::Plan,
        root: &syn::Ident,
        pre: &mut TokenStream,
    ) -> TokenStream {
        let p = private();
        let (_, w) = plan
            .windows
            .iter()
            .find(|(r, _)| r == root)
            .expect("a place of owned slots has a window (nilang_ir::parallel::Plan::windows)");
        let (stride, shift) = (self.fresh("stride"), self.fresh("shift"));
        let (s, b) = (&w.stride, &w.shift);
        let (s, b) = (crate::tokens::read_only(s), crate::tokens::read_only(b));
        pre.extend(quote!(let #stride: usize = #s; let #shift: usize = #b;));
        quote!(#p::par::slots(__lo, __hi, #stride, #shift))
    }
}

/// Binds `name`, in a chunk, to its window of `cells`.
fn window_binding(name: &syn::Ident, cells: &syn::Ident, window: &TokenStream) -> TokenStream {
    // SAFETY (`Cells::window`): every chunk `__lo..__hi` gets the window `slots(__lo, __hi,
    // stride, shift)`, with one stride and shift for all chunks, evaluated before the loop;
    // the chunks (`par::chunks`) are disjoint, so the windows are.
    quote!(let #name = &unsafe { #cells.window(#window) };)
}

/// For every place a parallel loop of `f` hands to a call that must not write it
/// (`nilang_ir::parallel::CallRead`), a constant item that fails to compile, at the argument,
/// when the callee's published effects say it may write it. Emitted once per function, beside
/// its effects.
pub(crate) fn call_read_assertions(f: &nilang_ir::Analyzed) -> TokenStream {
    let p = private();
    f.call_reads
        .iter()
        .map(|c| {
            let (callee, k) = (&c.callee, c.arg);
            let name = callee
                .segments
                .last()
                .map_or(String::new(), |s| s.ident.to_string());
            let message = format!(
                "in `{}`: a parallel loop hands `{}` to `{name}` (argument {k}), which may write \
                 it, and every iteration would: hand `{name}` an owned slot of the loop variable \
                 (`x[s*i .. s*(i+1)]`), a copy allocated inside the loop, or use a sequential \
                 loop",
                f.sig.ident, c.text
            );
            quote::quote_spanned!(c.span=>
                const _: () = if #p::writes(#callee::WRITES, #k) { ::core::panic!(#message) };
            )
        })
        .collect()
}
