//! The walk over a parallel loop's body: how each root declared outside the loop is used
//! (owned-slot writes and reads, reductions, reads through calls), and the broken rules.

use super::slots::*;
use super::*;

/// An inner loop variable and its range (start, end, inclusive, stepped).
pub(super) struct Inner {
    pub(super) name: Ident,
    pub(super) range: RangeSpec,
}

/// How one root declared outside the loop is used by the body.
#[derive(Default)]
pub(super) struct Use {
    /// Owned-slot writes: stride (text) and span.
    pub(super) slot_writes: Vec<(String, Span)>,
    /// Owned-slot reads: stride (text) and span.
    pub(super) slot_reads: Vec<(String, Span)>,
    /// The checks its owned slots need.
    pub(super) checks: Vec<SlotCheck>,
    /// Writes that are not owned slots (span, message).
    pub(super) bad_writes: Vec<(Span, String)>,
    /// Reduction writes.
    pub(super) reductions: Vec<Dataview>,
    /// Reads that are not owned slots.
    pub(super) other_reads: Vec<Dataview>,
    /// Every read view.
    pub(super) all_reads: Vec<Dataview>,
    /// Mentioned in an expression (span).
    pub(super) in_expr: Vec<Span>,
    /// Handed to calls that must not write it.
    pub(super) call_reads: Vec<CallRead>,
    /// The elements an iteration owns, from the first owned slot.
    pub(super) window: Option<SlotWindow>,
}

pub(super) struct Walker<'a> {
    pub(super) var: &'a Ident,
    pub(super) own: &'a Ident,
    pub(super) scope: &'a Scope,
    pub(super) locals: Vec<String>,
    pub(super) inner: Vec<Inner>,
    pub(super) roots: Vec<(Ident, Use)>,
    pub(super) errors: Vec<(Span, String)>,
    pub(super) checks: Vec<SlotCheck>,
    /// The roots the body may write (`crate::adjoint::written_roots`).
    pub(super) written: Vec<String>,
}

impl Walker<'_> {
    /// The rules on the loop's range: unit step, and a weight that reads only what the loop
    /// does not write.
    pub(super) fn range_rules(&mut self, range: &RangeSpec) {
        if let Some(s) = &range.step {
            self.errors.push((
                s.to_token_stream()
                    .into_iter()
                    .next()
                    .map_or(self.var.span(), |t| t.span()),
                "a parallel loop has unit step: drop `.step_by(…)` and index with a stride \
                 instead (`y[2*i]`)"
                    .to_string(),
            ));
        }
        if let Some(weight) = &range.weight {
            if !self.invariant(weight) {
                self.errors.push((
                    weight
                        .to_token_stream()
                        .into_iter()
                        .next()
                        .map_or(self.var.span(), |t| t.span()),
                    format!(
                        "the weight of a parallel loop is evaluated once, before the loop: it can \
                         read only names the loop does not write and not `{}` (`.weight(k * d)`)",
                        self.var
                    ),
                ));
            }
        }
    }

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

    pub(super) fn stmt(&mut self, s: &Stmt) {
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
            StmtKind::For { var, range, body } => self.inner_loop(s, var, range, body),
            StmtKind::Call { call, .. } => self.call(call),
            StmtKind::Stack { stack, value, .. } => self.stack(stack, value),
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

    /// A sequential loop inside the parallel one: its variable is an inner loop's (an offset
    /// over `0..s` is in range by construction).
    fn inner_loop(&mut self, s: &Stmt, var: &Ident, range: &RangeSpec, body: &[Stmt]) {
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

    /// A call: each argument is read, read through the callee (its published effects say it
    /// does not write it), or written.
    fn call(&mut self, call: &Call) {
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

    /// A stack operation: only on a stack of the iteration's own.
    fn stack(&mut self, stack: &Dataview, value: &Dataview) {
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

    fn block(&mut self, stmts: &[Stmt]) {
        let n = self.locals.len();
        for s in stmts {
            self.stmt(s);
        }
        self.locals.truncate(n);
    }
}
