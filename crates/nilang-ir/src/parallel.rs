//! The parallel loop `for i in (a..b).par() { … }`: which places its iterations may write,
//! and what the code generator needs to run them on several threads at once.
//!
//! The rules (each broken rule is one compile error, reported by [`crate::check`]):
//!
//! 1. **Owned places.** A place declared outside the loop that the body writes (an
//!    instruction's target, a builtin's argument, a view passed `&mut` to a call) is indexed,
//!    at its first step, by an *owned slot* of the loop variable `i`: `y[i]`, `y[s*i + o]`, or
//!    a sub-slice `y[s*i + o1 .. s*i + o2]` / `y[s*i .. s*(i+1)]`. Every access to that place in
//!    the body, read or write, uses the same stride `s` (an integer literal or an expression of
//!    read-only names), so iteration `i` only touches `y[s*i .. s*(i+1)]`, which no other
//!    iteration touches. The offsets must lie in `0..s`: an offset that is an inner loop's
//!    variable over `0..s` (`y[d*i + j]` under `for j in 0..d`) is in range by construction;
//!    other offsets (and `s ≥ 1` for a bare `y[s*i]`) are checked before the loop, in checked
//!    and unchecked programs alike (one comparison each).
//! 2. **Reductions.** `out += …` / `out -= …` into a place declared outside the loop whose
//!    indices (if any) do not depend on the iteration (`out`, `acc[0]`, `s.total`) is a
//!    reduction: each chunk of iterations accumulates into its own zero, and the partials are
//!    added to `out` in chunk order after the loop. A reduction place is written only by
//!    `+=`/`-=` and not read in the body.
//! 3. **Ancillas** allocated inside the body are per iteration and unrestricted.
//! 4. Places the body only reads are unrestricted (they are shared by all iterations). A
//!    place handed to a call (`g(mu[c*d..(c+1)*d])`) at other than an owned slot is read
//!    through the call: the callee must not write that parameter, which its published effects
//!    (`g::WRITES`, [`crate::effects`]) decide at compile time ([`Plan::call_reads`]); a callee
//!    whose effects are unknown (a method, a path through a type) counts as writing it.
//! 5. Expressions (conditions, indices, ancilla values, arguments by value) may read a written
//!    place only at this iteration's owned slots (`if y[i] > 0.0`) or its length (`y.len()`);
//!    a reduction target not at all.
//! 6. Not allowed in a parallel body: `safe!` blocks, nested parallel loops, stacks declared
//!    outside the loop, `.step_by`.
//! 7. A weight (`(a..b).par().weight(w)`, the work of one iteration) reads only names the
//!    loop does not write, and not the loop variable: it is evaluated once, before the loop.
//!
//! General index expressions (`y[perm[i]]`) cannot be proven disjoint and are rejected.

use crate::ast::*;
use crate::reverse::routine_steps;
use crate::scope::{Scope, VarKind};
use crate::text::expr_text;
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::{Expr, Ident};

/// What the code generator needs to run a parallel loop's iterations in chunks.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Places declared outside the loop that iterations write at owned slots: shared by all
    /// chunks through cells, each element touched by one iteration only.
    pub owned: Vec<Ident>,
    /// Reduction targets (one per distinct place).
    pub reductions: Vec<Dataview>,
    /// Writable places declared outside the loop that the body only reads.
    pub shared_reads: Vec<SharedRead>,
    /// Conditions checked before the loop that make the owned slots disjoint.
    pub slot_checks: Vec<SlotCheck>,
    /// Places handed to calls that must not write them (shared reads through calls): each is
    /// a compile-time condition on the callee's published effects.
    pub call_reads: Vec<CallRead>,
    /// For each place indexed at owned slots only (those in `owned`, and shared reads whose
    /// `owned_slots` is `Some`): the elements an iteration owns, from which each chunk of
    /// iterations gets its window of the place (`nilang::__private::par::Window`).
    pub windows: Vec<(Ident, SlotWindow)>,
}

/// The elements `stride*i + shift + [0, stride)` that iteration `i` owns in a place. Both are
/// evaluated once before the loop; every chunk `[lo, hi)` of iterations then reaches only
/// `[stride*lo + shift, stride*hi + shift)` of the place, so that chunks never share an
/// element, even if an index expression computed something else than the check saw.
#[derive(Clone, Debug)]
pub struct SlotWindow {
    /// The stride (`1` for `y[i]`).
    pub stride: Expr,
    /// The shift (`o` for `y[i + o]`, else `0`).
    pub shift: Expr,
}

/// A place declared outside a parallel loop, handed to a call by every iteration, which the
/// callee must not write (a compile-time condition on `callee::WRITES`).
#[derive(Clone, Debug)]
pub struct CallRead {
    /// The path under which the callee publishes its effects.
    pub callee: syn::Path,
    /// The argument's position.
    pub arg: usize,
    /// The argument as written.
    pub text: String,
    /// Where it is written.
    pub span: Span,
}

/// A writable place declared outside the loop that every iteration may read.
#[derive(Clone, Debug)]
pub struct SharedRead {
    /// Its root.
    pub root: Ident,
    /// How the body reads it: `Some(true)` as `x[k]` only (one index, nothing after),
    /// `Some(false)` as `x` whole only, `None` otherwise (fields, nested indices, mixed).
    pub indexed: Option<bool>,
    /// `Some(checks)` when every read is an owned slot of one stride (`x[i]`, `x[d*i + j]`),
    /// as if the body wrote it: then the gradients an adjoint adds to its shadow are disjoint
    /// too, and the shadow can be shared by all chunks (cells) after `checks` (its slots' offset
    /// checks), instead of a zeroed copy per chunk.
    pub owned_slots: Option<Vec<SlotCheck>>,
    /// Whether the body hands it to a call (which takes it `&mut` but does not write it): then
    /// each chunk runs on its own copy of the value, since `&mut` borrows cannot be shared
    /// between threads — unless every read is an owned slot (`owned_slots`), whose elements
    /// each iteration borrows alone.
    pub through_calls: bool,
}

/// `0 <= lo <= hi <= stride` (with `lo < hi` for an element: `hi` is `None`), checked before
/// the loop.
#[derive(Clone, Debug)]
pub struct SlotCheck {
    /// The first offset.
    pub lo: Expr,
    /// The end offset of a sub-slice.
    pub hi: Option<Expr>,
    /// The stride.
    pub stride: Expr,
    /// The access as written, for the message.
    pub text: String,
}

/// An index that is an owned slot: `stride * i + offset`.
struct Slot {
    stride: Option<Expr>,
    offset: Option<Expr>,
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

fn is_var(e: &Expr, var: &Ident) -> bool {
    matches!(strip(e), Expr::Path(p) if p.path.is_ident(var))
}

/// The identifiers of a token stream, at any depth.
fn idents(ts: TokenStream, out: &mut Vec<Ident>) {
    for t in ts {
        match t {
            proc_macro2::TokenTree::Ident(i) => out.push(i),
            proc_macro2::TokenTree::Group(g) => idents(g.stream(), out),
            _ => {}
        }
    }
}

fn mentions(e: &Expr, name: &Ident) -> bool {
    let mut ids = Vec::new();
    idents(e.to_token_stream(), &mut ids);
    ids.iter().any(|i| i == name)
}

/// `s*i + o`, `i*s + o`, `o + s*i`, `i + o`, `i`; `s` and `o` do not mention `i`.
fn slot(e: &Expr, var: &Ident) -> Option<Slot> {
    let e = strip(e);
    if is_var(e, var) {
        return Some(Slot {
            stride: None,
            offset: None,
        });
    }
    let Expr::Binary(b) = e else { return None };
    match b.op {
        syn::BinOp::Mul(_) => {
            let (l, r) = (&*b.left, &*b.right);
            let stride = if is_var(l, var) && !mentions(r, var) {
                r
            } else if is_var(r, var) && !mentions(l, var) {
                l
            } else {
                return None;
            };
            Some(Slot {
                stride: Some(stride.clone()),
                offset: None,
            })
        }
        syn::BinOp::Add(_) => {
            let (with, offset) = if mentions(&b.left, var) && !mentions(&b.right, var) {
                (&*b.left, &*b.right)
            } else if mentions(&b.right, var) && !mentions(&b.left, var) {
                (&*b.right, &*b.left)
            } else {
                return None;
            };
            let inner = slot(with, var)?;
            if inner.offset.is_some() {
                return None;
            }
            Some(Slot {
                stride: inner.stride,
                offset: Some(offset.clone()),
            })
        }
        _ => None,
    }
}

/// `s*(i+1)` or `(i+1)*s`: the end of the slot `s*i`.
fn slot_end(e: &Expr, var: &Ident) -> Option<Expr> {
    let Expr::Binary(b) = strip(e) else {
        return None;
    };
    if !matches!(b.op, syn::BinOp::Mul(_)) {
        return None;
    }
    let next = |x: &Expr| match strip(x) {
        Expr::Binary(p) if matches!(p.op, syn::BinOp::Add(_)) => {
            is_var(&p.left, var) && expr_text(&p.right) == "1"
        }
        _ => false,
    };
    if next(&b.left) && !mentions(&b.right, var) {
        Some((*b.right).clone())
    } else if next(&b.right) && !mentions(&b.left, var) {
        Some((*b.left).clone())
    } else {
        None
    }
}

fn one() -> Expr {
    syn::parse_quote!(1)
}

fn zero() -> Expr {
    syn::parse_quote!(0)
}

/// An inner loop variable and its range (start, end, inclusive, stepped).
struct Inner {
    name: Ident,
    range: RangeSpec,
}

/// How one root declared outside the loop is used by the body.
#[derive(Default)]
struct Use {
    /// Owned-slot writes: stride (text) and span.
    slot_writes: Vec<(String, Span)>,
    /// Owned-slot reads: stride (text) and span.
    slot_reads: Vec<(String, Span)>,
    /// The checks its owned slots need.
    checks: Vec<SlotCheck>,
    /// Writes that are not owned slots (span, message).
    bad_writes: Vec<(Span, String)>,
    /// Reduction writes.
    reductions: Vec<Dataview>,
    /// Reads that are not owned slots.
    other_reads: Vec<Dataview>,
    /// Every read view.
    all_reads: Vec<Dataview>,
    /// Mentioned in an expression (span).
    in_expr: Vec<Span>,
    /// Handed to calls that must not write it.
    call_reads: Vec<CallRead>,
    /// The elements an iteration owns, from the first owned slot.
    window: Option<SlotWindow>,
}

struct Walker<'a> {
    var: &'a Ident,
    own: &'a Ident,
    scope: &'a Scope,
    locals: Vec<String>,
    inner: Vec<Inner>,
    roots: Vec<(Ident, Use)>,
    errors: Vec<(Span, String)>,
    checks: Vec<SlotCheck>,
    /// The roots the body may write (`crate::adjoint::written_roots`).
    written: Vec<String>,
}

/// The plan of a parallel loop over `var` with `body`, in `scope` (the names at the loop) of
/// the function `own`; `Err` with every broken rule (span, message).
pub fn plan(
    var: &Ident,
    range: &RangeSpec,
    body: &[Stmt],
    scope: &Scope,
    own: &Ident,
) -> Result<Plan, Vec<(Span, String)>> {
    let mut written = Vec::new();
    for s in body {
        crate::adjoint::written_roots(s, &mut written);
    }
    let mut w = Walker {
        var,
        own,
        scope,
        written,
        locals: Vec::new(),
        inner: Vec::new(),
        roots: Vec::new(),
        errors: Vec::new(),
        checks: Vec::new(),
    };
    if let Some(s) = &range.step {
        w.errors.push((
            s.to_token_stream()
                .into_iter()
                .next()
                .map_or(var.span(), |t| t.span()),
            "a parallel loop has unit step: drop `.step_by(…)` and index with a stride \
             instead (`y[2*i]`)"
                .to_string(),
        ));
    }
    if let Some(weight) = &range.weight {
        if !w.invariant(weight) {
            w.errors.push((
                weight
                    .to_token_stream()
                    .into_iter()
                    .next()
                    .map_or(var.span(), |t| t.span()),
                format!(
                    "the weight of a parallel loop is evaluated once, before the loop: it can \
                     read only names the loop does not write and not `{var}` (`.weight(k * d)`)"
                ),
            ));
        }
    }
    for s in body {
        w.stmt(s);
    }
    let mut plan = Plan::default();
    let roots = std::mem::take(&mut w.roots);
    for (root, u) in roots {
        let written =
            !u.slot_writes.is_empty() || !u.reductions.is_empty() || !u.bad_writes.is_empty();
        if !written {
            if !u.all_reads.is_empty() && w.scope.lookup(&root).is_some_and(VarKind::writable) {
                let indexed = if u
                    .all_reads
                    .iter()
                    .all(|v| v.path.len() == 1 && matches!(v.path[0], Access::Index(_)))
                {
                    Some(true)
                } else if u.all_reads.iter().all(|v| v.path.is_empty()) {
                    Some(false)
                } else {
                    None
                };
                let one_stride = u.slot_reads.iter().all(|(s, _)| *s == u.slot_reads[0].0);
                let owned_slots = (indexed == Some(true) && u.other_reads.is_empty() && one_stride)
                    .then_some(u.checks);
                if let (Some(_), Some(window)) = (&owned_slots, u.window) {
                    plan.windows.push((root.clone(), window));
                }
                plan.shared_reads.push(SharedRead {
                    root,
                    indexed,
                    owned_slots,
                    through_calls: !u.call_reads.is_empty(),
                });
                plan.call_reads.extend(u.call_reads);
            }
            continue;
        }
        if !u.bad_writes.is_empty() {
            w.errors.extend(u.bad_writes.iter().cloned());
            continue;
        }
        for span in &u.in_expr {
            let message = if u.reductions.is_empty() {
                format!(
                    "`{root}` is written by this parallel loop, so an expression in it (a \
                     condition, an index, a value passed to a call, an ancilla's initial value) \
                     can only read the places of `{root}` this iteration owns (`{root}[i]`, \
                     indexed like its writes) and `{root}.len()`"
                )
            } else {
                format!(
                    "`{root}` accumulates a reduction of this parallel loop, so an expression \
                     in it cannot read it (each chunk of iterations sees only its own partial \
                     sum): read it after the loop"
                )
            };
            w.errors.push((*span, message));
        }
        if !u.reductions.is_empty() {
            if let Some((_, span)) = u.slot_writes.first() {
                w.errors.push((
                    *span,
                    format!(
                        "`{root}` is a reduction of this parallel loop (`{}`), so it cannot also \
                         be written per iteration: use two variables",
                        u.reductions[0].text()
                    ),
                ));
                continue;
            }
            for r in &u.all_reads {
                w.errors.push((
                    r.span,
                    format!(
                        "`{}` accumulates a reduction of this parallel loop, so the body cannot \
                         read it (each chunk of iterations sees only its own partial sum): read \
                         it after the loop",
                        r.text()
                    ),
                ));
            }
            let mut mine: Vec<&Dataview> = Vec::new();
            for r in &u.reductions {
                if !mine.iter().any(|p| p.same_as(r)) {
                    mine.push(r);
                }
            }
            if mine.len() > 1 {
                w.errors.push((
                    mine[1].span,
                    format!(
                        "this parallel loop accumulates into `{}` and `{}`: a reduction is one \
                         place (`{root}` or one fixed element of it); use one variable per \
                         reduction",
                        mine[0].text(),
                        mine[1].text()
                    ),
                ));
            }
            plan.reductions.extend(mine.into_iter().cloned());
            continue;
        }
        for r in &u.other_reads {
            w.errors.push((
                r.span,
                format!(
                    "`{}` is read here, but `{root}` is written by other iterations of this \
                     parallel loop: read only the places this iteration owns (indexed like \
                     its writes, by the loop variable)",
                    r.text()
                ),
            ));
        }
        let first = u.slot_writes[0].0.clone();
        for (s, span) in u.slot_writes.iter().chain(&u.slot_reads) {
            if *s != first {
                w.errors.push((
                    *span,
                    format!(
                        "`{root}` is indexed in two incompatible ways in this parallel loop \
                         (stride `{first}` and `{s}`): give every access one stride `s` and \
                         offsets in `0..s`, so that each iteration owns `{root}[s*i .. s*(i+1)]`"
                    ),
                ));
            }
        }
        plan.slot_checks.extend(u.checks);
        if let Some(window) = u.window {
            plan.windows.push((root.clone(), window));
        }
        plan.owned.push(root);
    }
    if w.errors.is_empty() {
        Ok(plan)
    } else {
        Err(w.errors)
    }
}

impl Walker<'_> {
    fn is_local(&self, name: &Ident) -> bool {
        let n = name.to_string();
        self.locals.contains(&n) || self.inner.iter().any(|i| i.name == *name) || name == self.var
    }

    /// Is `name` a variable declared outside the loop (a parameter or an outer ancilla)?
    fn outer(&self, name: &Ident) -> bool {
        !self.is_local(name) && self.scope.lookup(name).is_some()
    }

    fn root_use(&mut self, root: &Ident) -> &mut Use {
        let i = match self.roots.iter().position(|(r, _)| r == root) {
            Some(i) => i,
            None => {
                self.roots.push((root.clone(), Use::default()));
                self.roots.len() - 1
            }
        };
        &mut self.roots[i].1
    }

    /// The places declared outside the loop that an expression reads: an element or
    /// sub-slice at an owned slot (`y[i]`, `y[d*i + j].re`) and a length (`y.len()`) are fine
    /// for any place; any other mention of a place the loop writes is an error.
    fn expr(&mut self, e: &Expr) {
        match strip(e) {
            Expr::Index(_) | Expr::Field(_) => match crate::parse::dataview(e) {
                Some(v) if self.outer(&v.root) && !v.path.is_empty() => self.expr_read(&v),
                _ => self.tokens(e.to_token_stream()),
            },
            Expr::MethodCall(m)
                if m.method == "len"
                    && m.args.is_empty()
                    && matches!(strip(&m.receiver), Expr::Path(p) if p.path.get_ident().is_some()) =>
                {}
            Expr::Binary(b) => {
                self.expr(&b.left);
                self.expr(&b.right);
            }
            Expr::Unary(u) => self.expr(&u.expr),
            Expr::Reference(r) => self.expr(&r.expr),
            Expr::Cast(c) => self.expr(&c.expr),
            Expr::Call(c) => {
                self.tokens(c.func.to_token_stream());
                c.args.iter().for_each(|a| self.expr(a));
            }
            Expr::MethodCall(m) => {
                self.expr(&m.receiver);
                m.args.iter().for_each(|a| self.expr(a));
            }
            Expr::Range(r) => {
                r.start.iter().for_each(|a| self.expr(a));
                r.end.iter().for_each(|a| self.expr(a));
            }
            Expr::Tuple(t) => t.elems.iter().for_each(|a| self.expr(a)),
            Expr::Array(a) => a.elems.iter().for_each(|a| self.expr(a)),
            Expr::Lit(_) => {}
            other => self.tokens(other.to_token_stream()),
        }
    }

    /// A place declared outside the loop read inside an expression.
    fn expr_read(&mut self, v: &Dataview) {
        let slot = match v.path.first() {
            Some(Access::Index(e)) => self.owned_slot(e, &v.text()),
            _ => None,
        };
        let checks = std::mem::take(&mut self.checks);
        self.indices(v, true);
        self.first_index_expr(v, slot.is_some());
        let u = self.root_use(&v.root);
        match slot {
            Some((s, window)) => {
                u.slot_reads.push((s, v.span));
                u.window.get_or_insert(window);
                u.checks.extend(checks);
            }
            None => u.in_expr.push(v.span),
        }
    }

    fn tokens(&mut self, ts: TokenStream) {
        let mut ids = Vec::new();
        idents(ts, &mut ids);
        for i in ids {
            if self.outer(&i) {
                self.root_use(&i).in_expr.push(i.span());
            }
        }
    }

    /// The index expressions of a dataview (after its first step when `skip_first`).
    fn indices(&mut self, v: &Dataview, skip_first: bool) {
        for (k, a) in v.path.iter().enumerate() {
            if let Access::Index(e) = a {
                if !(skip_first && k == 0) {
                    self.expr(e);
                }
            }
        }
    }

    /// A first index that is not an owned slot is an ordinary expression.
    fn first_index_expr(&mut self, v: &Dataview, slot: bool) {
        if let (false, Some(Access::Index(e))) = (slot, v.path.first()) {
            self.expr(e);
        }
    }

    /// Whether `e` has one value in every iteration: it reads no name of the loop's own and no
    /// writable name that the body may write (a weight reads `c.len()` of a slice the loop
    /// only reads; a stride may be an ancilla set before the loop).
    fn invariant(&self, e: &Expr) -> bool {
        let mut ids = Vec::new();
        idents(e.to_token_stream(), &mut ids);
        ids.iter().all(|i| {
            let writable = self.scope.lookup(i).is_some_and(VarKind::writable);
            !self.is_local(i) && !(writable && self.written.contains(&i.to_string()))
        })
    }

    /// An offset in `0..stride`: an inner loop variable over `0..stride`, or an invariant
    /// expression checked before the loop. `None` when it is neither.
    fn offset_ok(&mut self, offset: Option<&Expr>, stride: &Expr, text: &str) -> bool {
        let Some(o) = offset else {
            if !self.invariant(stride) {
                return false;
            }
            // `y[s*i]`: s ≥ 1
            self.checks.push(SlotCheck {
                lo: zero(),
                hi: None,
                stride: stride.clone(),
                text: text.to_string(),
            });
            return true;
        };
        if let Expr::Path(p) = strip(o) {
            if let Some(inner) = self.inner.iter().find(|i| p.path.is_ident(&i.name)) {
                let r = &inner.range;
                return expr_text(&r.start) == "0"
                    && expr_text(&r.end) == expr_text(stride)
                    && !r.inclusive
                    && r.step.is_none()
                    && self.invariant(stride);
            }
        }
        if !self.invariant(o) || !self.invariant(stride) {
            return false;
        }
        self.checks.push(SlotCheck {
            lo: o.clone(),
            hi: None,
            stride: stride.clone(),
            text: text.to_string(),
        });
        true
    }

    /// The stride (as text: accesses of one place must agree on it) and the window of an
    /// owned-slot first index (element or sub-slice), or `None`.
    fn owned_slot(&mut self, index: &Expr, text: &str) -> Option<(String, SlotWindow)> {
        let window = |stride: Expr, shift: Expr| SlotWindow { stride, shift };
        if let Expr::Range(r) = strip(index) {
            let (Some(a), Some(b)) = (&r.start, &r.end) else {
                return None;
            };
            if matches!(r.limits, syn::RangeLimits::Closed(_)) {
                return None;
            }
            let start = slot(a, self.var)?;
            let stride = start.stride.clone().unwrap_or_else(one);
            let lo = start.offset.clone().unwrap_or_else(zero);
            let hi = match slot_end(b, self.var) {
                Some(s) if expr_text(&s) == expr_text(&stride) => stride.clone(),
                Some(_) => return None,
                None => {
                    let end = slot(b, self.var)?;
                    let s = end.stride.clone().unwrap_or_else(one);
                    if expr_text(&s) != expr_text(&stride) {
                        return None;
                    }
                    end.offset.clone().unwrap_or_else(zero)
                }
            };
            if !self.invariant(&lo) || !self.invariant(&hi) || !self.invariant(&stride) {
                return None;
            }
            self.checks.push(SlotCheck {
                lo,
                hi: Some(hi),
                stride: stride.clone(),
                text: text.to_string(),
            });
            return Some((expr_text(&stride), window(stride, zero())));
        }
        let s = slot(index, self.var)?;
        let stride = s.stride.clone().unwrap_or_else(one);
        match (&s.stride, &s.offset) {
            // `y[i]`
            (None, None) => Some(("1".to_string(), window(one(), zero()))),
            // `y[i + o]`: a shift is injective, as long as every access has the same shift
            (None, Some(o)) if self.invariant(o) => Some((
                format!("{} + {}", self.var, expr_text(o)),
                window(one(), o.clone()),
            )),
            _ => self
                .offset_ok(s.offset.as_ref(), &stride, text)
                .then(|| (expr_text(&stride), window(stride.clone(), zero()))),
        }
    }

    /// A write of `v` (what: how it is written, for messages; `acc`: an `+=`/`-=` instruction).
    fn write(&mut self, v: &Dataview, what: &str, acc: bool) {
        if !self.outer(&v.root) {
            self.indices(v, false);
            return;
        }
        if !self.scope.lookup(&v.root).is_some_and(VarKind::writable) {
            return; // rule 1 of `check` reports it
        }
        let fixed = v.path.iter().all(|a| match a {
            Access::Index(e) => self.invariant(e),
            Access::Field(_) => true,
        });
        if acc && fixed {
            self.root_use(&v.root).reductions.push(v.clone());
            return;
        }
        let first = match v.path.first() {
            Some(Access::Index(e)) => self.owned_slot(e, &v.text()),
            _ => None,
        };
        let checks = std::mem::take(&mut self.checks);
        self.indices(v, true);
        self.first_index_expr(v, first.is_some());
        let root = v.root.clone();
        match first {
            Some((stride, window)) => {
                let u = self.root_use(&root);
                u.slot_writes.push((stride, v.span));
                u.window.get_or_insert(window);
                u.checks.extend(checks);
            }
            None => {
                let msg = if fixed {
                    format!(
                        "{what} writes `{}`, which every iteration of this parallel loop would \
                         write: index it by the loop variable (`{root}[{var}]`, \
                         `{root}[k*{var} .. k*({var}+1)]`), allocate it inside the loop, or \
                         accumulate into it with `+=`/`-=` (a reduction)",
                        v.text(),
                        var = self.var
                    )
                } else {
                    format!(
                        "{what} writes `{}`, which this parallel loop cannot prove is written by \
                         one iteration only: index `{root}` by an owned slot of the loop \
                         variable at its first index (`{root}[{var}]`, `{root}[s*{var} + o]` \
                         with `o` in `0..s`, `{root}[s*{var} .. s*({var}+1)]`), or use a \
                         sequential loop",
                        v.text(),
                        var = self.var
                    )
                };
                self.root_use(&root).bad_writes.push((v.span, msg));
            }
        }
    }

    /// Is the first index of `v` an owned slot (then a call writes it there)?
    fn owned_slot_arg(&mut self, v: &Dataview) -> bool {
        let slot = match v.path.first() {
            Some(Access::Index(e)) => self.owned_slot(e, &v.text()).is_some(),
            _ => false,
        };
        self.checks.clear();
        slot
    }

    /// `v` handed to `callee` as argument `k`, which must not write it: a shared read.
    fn call_read(&mut self, v: &Dataview, callee: &syn::Path, k: usize) {
        self.read(v);
        self.root_use(&v.root).call_reads.push(CallRead {
            callee: callee.clone(),
            arg: k,
            text: v.text(),
            span: v.span,
        });
    }

    fn read(&mut self, v: &Dataview) {
        if !self.outer(&v.root) {
            self.indices(v, false);
            return;
        }
        let stride = match v.path.first() {
            Some(Access::Index(e)) => self.owned_slot(e, &v.text()),
            _ => None,
        };
        let checks = std::mem::take(&mut self.checks);
        self.indices(v, true);
        self.first_index_expr(v, stride.is_some());
        let u = self.root_use(&v.root);
        u.all_reads.push(v.clone());
        match stride {
            Some((s, window)) => {
                u.slot_reads.push((s, v.span));
                u.window.get_or_insert(window);
                u.checks.extend(checks);
            }
            None => u.other_reads.push(v.clone()),
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Instr(i) => {
                let acc = matches!(i.op, AccOp::Add | AccOp::Sub);
                self.write(&i.target, "this instruction", acc);
                for a in &i.args {
                    match a {
                        Operand::View(v) => self.read(v),
                        Operand::Const(e) => self.expr(e),
                    }
                }
            }
            StmtKind::XorExpr { target, expr } => {
                self.write(target, "this instruction", false);
                self.expr(expr);
            }
            StmtKind::Builtin { op, args, operand } => {
                for a in args {
                    self.write(a, &format!("`{}`", op.name()), false);
                }
                match operand {
                    Some(Operand::View(v)) => self.read(v),
                    Some(Operand::Const(e)) => self.expr(e),
                    None => {}
                }
            }
            StmtKind::Alloc(bindings) | StmtKind::Dealloc(bindings) => {
                for b in bindings {
                    // `expand!`'s ancillas start as a zero of their target's type: that reads
                    // the target's type, not a value another iteration writes
                    if !crate::zeros::is_zero_like_expr(&b.value) {
                        self.expr(&b.value);
                    }
                    if matches!(s.kind, StmtKind::Alloc(_)) {
                        self.locals.push(b.name.to_string());
                    }
                }
            }
            // only the iteration's own ancillas can be consumed: the names stay local
            StmtKind::Fields(f) => self
                .locals
                .extend(f.created().into_iter().map(Ident::to_string)),
            StmtKind::If {
                pre,
                post,
                then,
                els,
                ..
            } => {
                self.expr(pre);
                self.expr(post);
                self.block(then);
                self.block(els);
            }
            StmtKind::While { pre, post, body } => {
                self.expr(pre);
                self.expr(post);
                self.block(body);
            }
            StmtKind::For { var, range, body } => {
                if range.parallel {
                    self.errors.push((
                        s.span,
                        "a parallel loop inside a parallel loop: make only the outer loop \
                         parallel (`for j in a..b` here)"
                            .to_string(),
                    ));
                }
                self.expr(&range.start);
                self.expr(&range.end);
                if let Some(st) = &range.step {
                    self.expr(st);
                }
                self.inner.push(Inner {
                    name: var.clone(),
                    range: range.clone(),
                });
                self.block(body);
                self.inner.pop();
            }
            StmtKind::Call { call, .. } => {
                if let Callee::Method { receiver, .. } = &call.callee {
                    self.expr(receiver);
                }
                let effects = crate::effects::effects_path(&call.callee, self.own);
                for (k, a) in call.args.iter().enumerate() {
                    match a {
                        CallArg::View(v) => {
                            if !self.scope.lookup(&v.root).is_some_and(VarKind::writable)
                                && !self.is_local(&v.root)
                            {
                                self.read(v)
                            } else if let Some(callee) = effects
                                .as_ref()
                                .filter(|_| self.outer(&v.root) && !self.owned_slot_arg(v))
                            {
                                self.call_read(v, callee, k)
                            } else {
                                self.write(v, "this call", false)
                            }
                        }
                        // a `&` argument carries no gradient (its shadow is `()`): a value read
                        CallArg::Shared(e) => self.expr(e),
                        CallArg::Value(e) => self.expr(e),
                    }
                }
            }
            StmtKind::Stack { stack, value, .. } => {
                if self.outer(&stack.root) {
                    self.errors.push((
                        stack.span,
                        format!(
                            "a stack operation on `{}`, declared outside this parallel loop: the \
                             iterations would push and pop in an unknown order; allocate the \
                             stack inside the loop or use a sequential loop",
                            stack.text()
                        ),
                    ));
                } else {
                    self.indices(stack, false);
                }
                self.write(value, "a stack operation", false);
            }
            StmtKind::Safe(_) => self.errors.push((
                s.span,
                "`safe!` inside a parallel loop would run on several threads at once: move it \
                 out of the loop or use a sequential loop"
                    .to_string(),
            )),
            StmtKind::NoCheck(body) => {
                for s in body {
                    self.stmt(s);
                }
            }
            StmtKind::Routine { compute, body } => {
                for s in &routine_steps(compute, body) {
                    self.stmt(s);
                }
            }
        }
    }

    fn block(&mut self, stmts: &[Stmt]) {
        let n = self.locals.len();
        for s in stmts {
            self.stmt(s);
        }
        self.locals.truncate(n);
    }
}
