//! Static checks of a reversible function. The rules enforced here:
//!
//! 1. **Writable targets.** An instruction, a builtin (`swap`, `rot`, …), a stack operation or
//!    a call argument passed `&mut` may only change a `&mut` parameter or a live ancilla; loop
//!    variables, by-value parameters and `&` parameters are read-only.
//! 2. **Target is not an operand.** `y += x * y` is rejected (its inverse cannot recover `y`);
//!    so is `b[0] ^= b[0]` (the value an `^=` reads, [`xor_self_reads`]), and `b[i] ^= b[j]` is
//!    checked at run time.
//! 3. **No shared write.** The same dataview twice among the operands of one instruction
//!    (`y += x * x`) is rejected: its adjoint would write the gradient of `x` twice. Where the
//!    dataviews differ only by run-time indices (`y[i] += x[j] * x[k]`), the generated code
//!    checks at run time that they are different places.
//! 4. **Ancilla discipline.** Every `let` is matched by a `dealloc!` of the same name in the
//!    same block; `dealloc!` of a name that is not a live ancilla of that block is rejected; a
//!    deallocated ancilla cannot be used again.
//!
//! 5. **Parallel loops** (`for i in (a..b).par()`): every place declared outside the loop
//!    that the body writes is owned by one iteration or is a reduction; see
//!    [`crate::parallel`] for the rules.
//!
//! 6. **Constructors consume** (`let z = new!(…)`, `let … = fields!(z)`,
//!    [`crate::constructors`]): what they consume must be a live ancilla of the same block,
//!    named once; afterwards it is dead like a deallocated ancilla, and a use names the
//!    statement that consumed it and how to get it back.
//!
//! 7. **One binding per name** ([`crate::names`]): a `let`, a loop variable or a name a
//!    constructor or destructor creates may not shadow a name bound at that point (a
//!    parameter, a live ancilla, an enclosing loop's variable), so that every analysis that
//!    names a variable means one binding.
//!
//! Rules that need values (deallocation values, `if`/`while` conditions, `for` ranges, stack
//! zero-clearing, index aliasing) are checked at run time by the generated code.

use crate::ast::*;
use crate::diag::Errors;
use crate::reverse::routine_steps;
use crate::scope::{Scope, VarKind};
use proc_macro2::Span;
use syn::Ident;

/// What the value of `target ^= expr` reads of `target`'s variable.
pub struct XorSelfReads {
    /// Places the expression reads that are the target, contain it or lie in it: rejected.
    pub static_errors: Vec<Dataview>,
    /// Places of the same variable at other indices, which may be the target at run time
    /// (`b[i] ^= b[j]`): checked distinct by the generated code.
    pub dynamic: Vec<Dataview>,
}

/// The places of `target`'s variable that the expression of `target ^= expr` reads (a
/// variable's length, `b.len()`, is not a read of its elements).
pub fn xor_self_reads(target: &Dataview, expr: &syn::Expr) -> XorSelfReads {
    struct Reads<'a> {
        target: &'a Dataview,
        out: XorSelfReads,
    }
    impl<'ast> syn::visit::Visit<'ast> for Reads<'_> {
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            if let syn::Expr::MethodCall(m) = e {
                if m.method == "len" && m.args.is_empty() {
                    return;
                }
            }
            let Some(v) = crate::parse::dataview(e) else {
                return syn::visit::visit_expr(self, e);
            };
            for a in &v.path {
                if let Access::Index(ix) = a {
                    self.visit_expr(ix);
                }
            }
            if v.root != self.target.root {
                return;
            }
            let steps = |d: &Dataview| -> Vec<String> {
                d.path
                    .iter()
                    .map(|a| match a {
                        Access::Field(m) => crate::constructors::member_text(m),
                        Access::Index(ix) => format!("[{}]", crate::text::expr_text(ix)),
                    })
                    .collect()
            };
            let (a, b) = (steps(&v), steps(self.target));
            let shared = a.len().min(b.len());
            let nested = a[..shared] == b[..shared];
            if v.has_index() && self.target.has_index() && !nested {
                self.out.dynamic.push(v);
            } else {
                self.out.static_errors.push(v);
            }
        }
    }
    let mut r = Reads {
        target,
        out: XorSelfReads {
            static_errors: Vec::new(),
            dynamic: Vec::new(),
        },
    };
    syn::visit::Visit::visit_expr(&mut r, expr);
    r.out
}

/// Runs every static check on a parsed function.
pub fn check_function(f: &Function) -> syn::Result<()> {
    run_checks(f).0.finish(())
}

/// What the checker learns of a function's parallel loops ([`crate::Analyzed`]).
pub(crate) struct Planned {
    /// The plan of each parallel loop as written, in source order.
    pub(crate) plans: Vec<crate::parallel::Plan>,
    /// What the parallel loops (those of routines' uncomputations too) hand to calls that
    /// must not write it.
    pub(crate) call_reads: Vec<crate::parallel::CallRead>,
}

/// The static checks' errors, and the plans of the parallel loops that follow their rules.
pub(crate) fn run_checks(f: &Function) -> (Errors, Planned) {
    let mut errors = Errors::default();
    let mut scope = Scope::for_function(f);
    let mut checker = Checker {
        errors: &mut errors,
        dead: Vec::new(),
        broadcast: None,
        own: &f.sig.ident,
        call_reads: Vec::new(),
        plans: Vec::new(),
        uncomputing: 0,
    };
    checker.block(&f.body, &mut scope);
    let facts = Planned {
        plans: checker.plans,
        call_reads: checker.call_reads,
    };
    (errors, facts)
}

struct Checker<'a> {
    errors: &'a mut Errors,
    /// Ancillas no longer alive: deallocated, or consumed by a constructor or destructor.
    dead: Vec<Dead>,
    /// The index of the broadcast loop being checked (`crate::broadcast`): its element
    /// statements are reported with `[..]`, as the user wrote them.
    broadcast: Option<Ident>,
    /// The function being checked.
    own: &'a Ident,
    /// What its parallel loops (uncomputations' too) hand to calls that must not write it.
    call_reads: Vec<crate::parallel::CallRead>,
    /// The plans of its parallel loops as written, in source order.
    plans: Vec<crate::parallel::Plan>,
    /// How many routines' uncomputations enclose the statement being checked: their
    /// parallel loops are checked too, but are not loops as written (their plans are not
    /// kept).
    uncomputing: usize,
}

/// An ancilla that is no longer alive.
struct Dead {
    name: String,
    /// `None` when deallocated; the statement that consumed it otherwise.
    consumed_by: Option<Fields>,
}

impl Dead {
    /// Why a use of the ancilla at this point is an error (`what` is the use).
    fn message(&self, what: &str) -> String {
        let name = &self.name;
        let Some(f) = &self.consumed_by else {
            return format!("ancilla `{name}` was deallocated before {what}");
        };
        let by = crate::constructors::fields_text(f);
        let undo = crate::constructors::fields_text(&crate::reverse::reverse_fields(f));
        let whole = &f.whole;
        if f.construct {
            let member = f.parts.iter().find(|p| p.var == *name).map(|p| &p.member);
            let member = member
                .map(crate::constructors::member_text)
                .unwrap_or_default();
            format!(
                "`{name}` was moved into `{whole}` by `{by}` and cannot be used after it\n\
                 help: use the field `{whole}.{member}` instead, or take `{whole}` apart first: \
                 `{undo}`"
            )
        } else {
            format!(
                "`{name}` was taken apart by `{by}` and cannot be used after it\n\
                 help: use its fields' ancillas instead, or build it again first: `{undo}`"
            )
        }
    }
}

fn describe(kind: Option<VarKind>, name: &Ident) -> String {
    match kind {
        Some(VarKind::LoopVar) => format!("`{name}` is a loop variable, which is read-only"),
        Some(VarKind::Value) => format!(
            "`{name}` is a parameter passed by value, which is read-only; declare it \
             `{name}: &mut …` to change it"
        ),
        Some(VarKind::SharedRef) => format!(
            "`{name}` is a `&` parameter, which is read-only; declare it `{name}: &mut …` to \
             change it"
        ),
        None => format!(
            "`{name}` is not a parameter or a live ancilla of this function; allocate it with \
             `let {name} = …;` first"
        ),
        Some(_) => unreachable!(),
    }
}

impl Checker<'_> {
    /// A constructor consumes live ancillas of this block (each once) and creates `whole`; a
    /// destructor the other way round.
    fn fields(&mut self, f: &Fields, scope: &mut Scope) {
        let what = if f.construct { "`new!`" } else { "`fields!`" };
        let mut seen: Vec<&Ident> = Vec::new();
        let mut twice: Vec<&Ident> = Vec::new();
        for n in f.consumed() {
            if seen.contains(&n) {
                twice.push(n);
                self.errors.push(
                    n.span(),
                    format!(
                        "`{n}` is consumed twice by this {what}: each field needs its own ancilla"
                    ),
                );
            }
            seen.push(n);
            self.dead_use(n, n.span(), scope, &format!("this {what}"));
        }
        for n in f.created() {
            if !f.consumed().contains(&n) {
                self.new_binding(n, scope, "ancilla");
            }
        }
        for n in scope.move_fields(f) {
            let kind = scope.lookup(n);
            if twice.contains(&n)
                || kind.is_none() && self.dead.iter().any(|d| d.name == n.to_string())
            {
                continue; // reported above
            }
            let why = match kind {
                Some(VarKind::Ancilla) => format!("`{n}` is an ancilla of an enclosing block"),
                Some(VarKind::MutRef) => {
                    format!("`{n}` is a `&mut` parameter, owned by the caller")
                }
                other => describe(other, n),
            };
            self.errors.push(
                n.span(),
                format!(
                    "{what} consumes `{n}`, so it must be a live ancilla allocated in this block: \
                     {why}\nhelp: copy it into a new ancilla first (`let c = zero; c += \
                     identity({n});`) and consume that"
                ),
            );
        }
        for n in f.consumed() {
            self.bury(n, Some(f));
        }
        for n in f.created() {
            self.dead.retain(|d| d.name != n.to_string());
        }
    }

    /// Rule 7: a new binding (`what`: "ancilla", "loop variable") may not shadow a name bound
    /// at this point.
    fn new_binding(&mut self, name: &Ident, scope: &Scope, what: &str) {
        let Some(kind) = scope.lookup(name) else {
            return;
        };
        let bound = match kind {
            VarKind::MutRef | VarKind::SharedRef | VarKind::Value => "a parameter",
            VarKind::LoopVar => "the variable of an enclosing loop",
            VarKind::Ancilla => "a live ancilla",
        };
        self.errors.push(
            name.span(),
            format!(
                "this {what} shadows `{name}`, {bound}: a reversible function binds a name once \
                 at a time, so that its analyses (bounds checks, parallel loops, deallocation) \
                 and its generated code mean one variable by one name\n\
                 help: give this {what} a name of its own"
            ),
        );
    }

    /// A dataview as the user wrote it.
    fn shown(&self, v: &Dataview) -> String {
        match &self.broadcast {
            Some(var) => crate::print::user_text(v, var),
            None => v.text(),
        }
    }

    fn block(&mut self, stmts: &[Stmt], scope: &mut Scope) {
        scope.push();
        for s in stmts {
            self.stmt(s, scope);
        }
        for (name, kind, span) in scope.pop() {
            if kind == VarKind::Ancilla {
                self.errors.push(
                    span,
                    format!(
                        "ancilla `{name}` is allocated but never deallocated in this block: add \
                         `dealloc!({name} = <its final value>);` (for a value the block never \
                         changes, such as a size `let n = x.len();`, the final value is the \
                         initial one: `dealloc!(n = x.len());`), or uncompute it with \
                         `routine! {{ … }}` and `uncompute!();`"
                    ),
                );
            }
        }
    }

    /// Reports a use of a dead ancilla (`what`: "this instruction"); true when it was dead.
    fn dead_use(&mut self, name: &Ident, span: Span, scope: &Scope, what: &str) -> bool {
        if scope.lookup(name).is_some() {
            return false;
        }
        let key = name.to_string();
        let Some(dead) = self.dead.iter().rev().find(|d| d.name == key) else {
            return false;
        };
        self.errors.push(span, dead.message(what));
        true
    }

    fn bury(&mut self, name: &Ident, consumed_by: Option<&Fields>) {
        self.dead.push(Dead {
            name: name.to_string(),
            consumed_by: consumed_by.cloned(),
        });
    }

    fn writable(&mut self, v: &Dataview, scope: &Scope, what: &str) {
        let kind = scope.lookup(&v.root);
        if self.dead_use(&v.root, v.span, scope, what) {
            return;
        }
        if !kind.map(VarKind::writable).unwrap_or(false) {
            self.errors.push(
                v.span,
                format!(
                    "{what} cannot change `{}`: {}",
                    v.text(),
                    describe(kind, &v.root)
                ),
            );
        }
    }

    /// An instruction: a writable target that is none of its operands, and no operand twice
    /// (rules 1, 2 and 3).
    fn instruction(&mut self, i: &Instr, scope: &mut Scope) {
        self.writable(&i.target, scope, "this instruction");
        let views: Vec<&Dataview> = i
            .args
            .iter()
            .filter_map(|a| match a {
                Operand::View(v) => Some(v),
                Operand::Const(_) => None,
            })
            .collect();
        for v in &views {
            if v.same_as(&i.target) {
                self.errors.push(
                    v.span,
                    format!(
                        "`{}` is both the target and an operand of this instruction, \
                         which would not be reversible\n\
                         help: copy it into an ancilla first",
                        self.shown(v)
                    ),
                );
            }
            self.dead_use(&v.root, v.span, scope, "this instruction");
        }
        for (a, va) in views.iter().enumerate() {
            for vb in &views[a + 1..] {
                if va.same_as(vb) {
                    self.errors.push(
                        vb.span,
                        format!(
                            "`{}` is used twice in one instruction: its gradient would be \
                             written twice (shared write)\n\
                             help: use `pow({0}, 2)` for a square, or copy it into an \
                             ancilla",
                            self.shown(vb)
                        ),
                    );
                }
            }
        }
    }

    /// A deallocation: of a live ancilla of this block (rule 4).
    fn dealloc(&mut self, bindings: &[Binding], scope: &mut Scope) {
        for b in bindings {
            if self.dead_use(&b.name, b.name.span(), scope, "this deallocation") {
                continue;
            }
            if !scope.remove_ancilla(&b.name) {
                self.errors.push(
                    b.name.span(),
                    format!(
                        "`{}` is not an ancilla allocated in this block, so it cannot be \
                         deallocated here; allocate it with `let {0} = …;` in the same block",
                        b.name
                    ),
                );
            } else {
                self.bury(&b.name, None);
            }
        }
    }

    /// A `for` loop: its variable is a new read-only binding; a parallel loop's rules (rule 5).
    fn for_loop(&mut self, var: &Ident, range: &RangeSpec, body: &[Stmt], scope: &mut Scope) {
        if range.parallel {
            match crate::parallel::plan(var, range, body, scope, self.own) {
                Ok(plan) => {
                    self.call_reads.extend(plan.call_reads.iter().cloned());
                    if self.uncomputing == 0 {
                        self.plans.push(plan);
                    }
                }
                Err(errors) => {
                    for (span, message) in errors {
                        self.errors.push(span, message);
                    }
                }
            }
        }
        self.new_binding(var, scope, "loop variable");
        scope.push();
        scope.declare(var, VarKind::LoopVar);
        let outer = self.broadcast.clone();
        if range.broadcast.is_some() {
            self.broadcast = Some(var.clone());
        }
        self.block(body, scope);
        self.broadcast = outer;
        scope.pop();
    }

    fn stmt(&mut self, s: &Stmt, scope: &mut Scope) {
        match &s.kind {
            StmtKind::Instr(i) => self.instruction(i, scope),
            StmtKind::XorExpr { target, expr } => {
                self.writable(target, scope, "this instruction");
                for v in xor_self_reads(target, expr).static_errors {
                    self.errors.push(
                        v.span,
                        format!(
                            "`{}` is read by the value `{}` is xor-ed with, so the instruction \
                             would not be reversible (`b ^= b` clears `b`)\n\
                             help: xor it with a copy kept in an ancilla, or with other places",
                            self.shown(&v),
                            self.shown(target)
                        ),
                    );
                }
            }
            StmtKind::Builtin { op, args, .. } => {
                for a in args {
                    self.writable(a, scope, &format!("`{}`", op.name()));
                }
            }
            StmtKind::Alloc(bindings) => {
                for b in bindings {
                    self.new_binding(&b.name, scope, "ancilla");
                    scope.declare(&b.name, VarKind::Ancilla);
                    self.dead.retain(|d| d.name != b.name.to_string());
                }
            }
            StmtKind::Dealloc(bindings) => self.dealloc(bindings, scope),
            StmtKind::If { then, els, .. } => {
                self.block(then, scope);
                self.block(els, scope);
            }
            StmtKind::While { body, .. } => self.block(body, scope),
            StmtKind::For { var, body, range } => self.for_loop(var, range, body, scope),
            StmtKind::Call { call, .. } => {
                // Views rooted at writable names are passed `&mut`; read-only ones by value.
                for a in &call.args {
                    if let CallArg::View(v) = a {
                        self.dead_use(&v.root, v.span, scope, "this call");
                    }
                }
            }
            StmtKind::Stack { stack, value, .. } => {
                self.writable(stack, scope, "a stack operation");
                self.writable(value, scope, "a stack operation");
            }
            StmtKind::Fields(f) => self.fields(f, scope),
            StmtKind::Safe(_) => {}
            StmtKind::NoCheck(body) => {
                // the block shares the enclosing scope: it only turns checks off.
                for s in body {
                    self.stmt(s, scope);
                }
            }
            // the parts of a routine share the enclosing scope too
            StmtKind::Routine { compute, body } => {
                let steps = routine_steps(compute, body);
                let (written, undo) = steps.split_at(compute.len() + body.len());
                for s in written {
                    self.stmt(s, scope);
                }
                self.uncomputing += 1;
                for s in undo {
                    self.stmt(s, scope);
                }
                self.uncomputing -= 1;
            }
        }
    }
}
