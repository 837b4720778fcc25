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

mod slots;
mod walker;

use crate::ast::*;
use crate::reverse::routine_steps;
use crate::scope::{Scope, VarKind};
use crate::text::expr_text;
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::{Expr, Ident};
use walker::{Use, Walker};

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
    w.range_rules(range);
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
                plan.shared_read(root, u);
            }
            continue;
        }
        if !u.bad_writes.is_empty() {
            w.errors.extend(u.bad_writes.iter().cloned());
            continue;
        }
        expression_reads(&root, &u, &mut w.errors);
        if !u.reductions.is_empty() {
            plan.reduction(&root, &u, &mut w.errors);
            continue;
        }
        plan.owned_root(root, u, &mut w.errors);
    }
    if w.errors.is_empty() {
        Ok(plan)
    } else {
        Err(w.errors)
    }
}

impl Plan {
    /// A writable root the loop only reads: shared by the iterations, read at owned slots
    /// or through calls.
    fn shared_read(&mut self, root: Ident, u: Use) {
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
        let owned_slots =
            (indexed == Some(true) && u.other_reads.is_empty() && one_stride).then_some(u.checks);
        if let (Some(_), Some(window)) = (&owned_slots, u.window) {
            self.windows.push((root.clone(), window));
        }
        self.shared_reads.push(SharedRead {
            root,
            indexed,
            owned_slots,
            through_calls: !u.call_reads.is_empty(),
        });
        self.call_reads.extend(u.call_reads);
    }

    /// A root the loop accumulates into: one reduction place, neither read nor written
    /// otherwise.
    fn reduction(&mut self, root: &Ident, u: &Use, errors: &mut Vec<(Span, String)>) {
        if let Some((_, span)) = u.slot_writes.first() {
            errors.push((
                *span,
                format!(
                    "`{root}` is a reduction of this parallel loop (`{}`), so it cannot also \
                 be written per iteration: use two variables",
                    u.reductions[0].text()
                ),
            ));
            return;
        }
        for r in &u.all_reads {
            errors.push((
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
            errors.push((
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
        self.reductions.extend(mine.into_iter().cloned());
    }

    /// A root the loop writes at owned slots: every access has one stride and reads only
    /// what the iteration owns.
    fn owned_root(&mut self, root: Ident, u: Use, errors: &mut Vec<(Span, String)>) {
        for r in &u.other_reads {
            errors.push((
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
                errors.push((
                    *span,
                    format!(
                        "`{root}` is indexed in two incompatible ways in this parallel loop \
                     (stride `{first}` and `{s}`): give every access one stride `s` and \
                     offsets in `0..s`, so that each iteration owns `{root}[s*i .. s*(i+1)]`"
                    ),
                ));
            }
        }
        self.slot_checks.extend(u.checks);
        if let Some(window) = u.window {
            self.windows.push((root.clone(), window));
        }
        self.owned.push(root);
    }
}

/// The expressions that mention a root the loop writes: they may read only its owned slots
/// and its length, and nothing of a reduction.
fn expression_reads(root: &Ident, u: &Use, errors: &mut Vec<(Span, String)>) {
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
        errors.push((*span, message));
    }
}
