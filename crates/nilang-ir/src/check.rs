//! Static checks of a reversible function. The rules enforced here:
//!
//! 1. **Writable targets.** An instruction, a builtin (`swap`, `rot`, …), a stack operation or
//!    a call argument passed `&mut` may only change a `&mut` parameter or a live ancilla; loop
//!    variables, by-value parameters and `&` parameters are read-only.
//! 2. **Target is not an operand.** `y += x * y` is rejected (its inverse cannot recover `y`).
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
//! Rules that need values (deallocation values, `if`/`while` conditions, `for` ranges, stack
//! zero-clearing, index aliasing) are checked at run time by the generated code.

use crate::ast::*;
use crate::parse::Errors;
use proc_macro2::Span;
use syn::Ident;

/// How a name may be used at a point of the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    /// A `&mut` parameter: writable, reached through a reference.
    MutRef,
    /// A `&` parameter: read-only, reached through a reference.
    SharedRef,
    /// A by-value parameter: read-only.
    Value,
    /// A `for` loop variable: read-only.
    LoopVar,
    /// A live ancilla: writable.
    Ancilla,
}

impl VarKind {
    /// Whether instructions may change a dataview rooted at this variable.
    pub fn writable(self) -> bool {
        matches!(self, VarKind::MutRef | VarKind::Ancilla)
    }

    /// Whether the name is bound to a reference (and must be dereferenced as a place).
    pub fn is_reference(self) -> bool {
        matches!(self, VarKind::MutRef | VarKind::SharedRef)
    }
}

/// Names in scope, innermost block last.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    frames: Vec<Vec<(String, VarKind, Span)>>,
}

impl Scope {
    /// The scope at the start of a function body.
    pub fn for_function(f: &Function) -> Scope {
        let params = f
            .params
            .iter()
            .map(|p| {
                let kind = match p.kind {
                    ParamKind::MutRef => VarKind::MutRef,
                    ParamKind::SharedRef => VarKind::SharedRef,
                    ParamKind::Value => VarKind::Value,
                };
                (p.name.to_string(), kind, p.name.span())
            })
            .collect();
        Scope {
            frames: vec![params],
        }
    }

    /// Opens a block.
    pub fn push(&mut self) {
        self.frames.push(Vec::new());
    }

    /// Closes a block, returning the names it still holds.
    pub fn pop(&mut self) -> Vec<(String, VarKind, Span)> {
        self.frames.pop().unwrap_or_default()
    }

    /// Declares a name in the innermost block.
    pub fn declare(&mut self, name: &Ident, kind: VarKind) {
        self.frames
            .last_mut()
            .expect("a frame")
            .push((name.to_string(), kind, name.span()));
    }

    /// Removes an ancilla from the innermost block; false when it is not there.
    pub fn remove_ancilla(&mut self, name: &Ident) -> bool {
        let frame = self.frames.last_mut().expect("a frame");
        let key = name.to_string();
        match frame
            .iter()
            .rposition(|(n, k, _)| *n == key && *k == VarKind::Ancilla)
        {
            Some(i) => {
                frame.remove(i);
                true
            }
            None => false,
        }
    }

    /// What a name is, innermost binding first; `None` for names from outside the function
    /// (constants, statics).
    pub fn lookup(&self, name: &Ident) -> Option<VarKind> {
        let key = name.to_string();
        self.frames
            .iter()
            .rev()
            .flat_map(|f| f.iter().rev())
            .find(|(n, _, _)| *n == key)
            .map(|(_, k, _)| *k)
    }
}

/// Runs every static check on a parsed function.
pub fn check_function(f: &Function) -> syn::Result<()> {
    let mut errors = Errors::default();
    let mut scope = Scope::for_function(f);
    let mut checker = Checker {
        errors: &mut errors,
        dead: Vec::new(),
        broadcast: None,
    };
    checker.block(&f.body, &mut scope);
    errors.finish(())
}

struct Checker<'a> {
    errors: &'a mut Errors,
    dead: Vec<String>,
    /// The index of the broadcast loop being checked (`crate::broadcast`): its element
    /// statements are reported with `[..]`, as the user wrote them.
    broadcast: Option<Ident>,
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
    /// A dataview as the user wrote it.
    fn shown(&self, v: &Dataview) -> String {
        match &self.broadcast {
            Some(var) => crate::broadcast::user_text(v, var),
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
                         `dealloc!({name} = <its final value>);`, or uncompute it with \
                         `routine! {{ … }}` and `uncompute!();`"
                    ),
                );
            }
        }
    }

    fn writable(&mut self, v: &Dataview, scope: &Scope, what: &str) {
        let kind = scope.lookup(&v.root);
        if kind.is_none() && self.dead.contains(&v.root.to_string()) {
            self.errors.push(
                v.span,
                format!("ancilla `{}` was deallocated before this {what}", v.root),
            );
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

    fn stmt(&mut self, s: &Stmt, scope: &mut Scope) {
        match &s.kind {
            StmtKind::Instr(i) => {
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
                    if scope.lookup(&v.root).is_none() && self.dead.contains(&v.root.to_string()) {
                        self.errors.push(
                            v.span,
                            format!(
                                "ancilla `{}` was deallocated before this instruction",
                                v.root
                            ),
                        );
                    }
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
            StmtKind::XorExpr { target, .. } => self.writable(target, scope, "this instruction"),
            StmtKind::Builtin { op, args, .. } => {
                for a in args {
                    self.writable(a, scope, &format!("`{}`", op.name()));
                }
            }
            StmtKind::Alloc(bindings) => {
                for b in bindings {
                    scope.declare(&b.name, VarKind::Ancilla);
                    self.dead.retain(|d| *d != b.name.to_string());
                }
            }
            StmtKind::Dealloc(bindings) => {
                for b in bindings {
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
                        self.dead.push(b.name.to_string());
                    }
                }
            }
            StmtKind::If { then, els, .. } => {
                self.block(then, scope);
                self.block(els, scope);
            }
            StmtKind::While { body, .. } => self.block(body, scope),
            StmtKind::For { var, body, range } => {
                if range.parallel {
                    if let Err(errors) = crate::parallel::plan(var, range, body, scope) {
                        for (span, message) in errors {
                            self.errors.push(span, message);
                        }
                    }
                }
                scope.push();
                scope.declare(var, VarKind::LoopVar);
                let outer = self.broadcast.clone();
                if let Some(index) = crate::broadcast::loop_index(s) {
                    self.broadcast = Some(index.clone());
                }
                self.block(body, scope);
                self.broadcast = outer;
                scope.pop();
            }
            StmtKind::Call { call, .. } => {
                // Views rooted at writable names are passed `&mut`; read-only ones by value.
                for a in &call.args {
                    if let CallArg::View(v) = a {
                        if scope.lookup(&v.root).is_none()
                            && self.dead.contains(&v.root.to_string())
                        {
                            self.errors.push(
                                v.span,
                                format!("ancilla `{}` was deallocated before this call", v.root),
                            );
                        }
                    }
                }
            }
            StmtKind::Stack { stack, value, .. } => {
                self.writable(stack, scope, "a stack operation");
                self.writable(value, scope, "a stack operation");
            }
            StmtKind::Safe(_) => {}
            StmtKind::NoCheck(body) => {
                // the block shares the enclosing scope: it only turns checks off.
                for s in body {
                    self.stmt(s, scope);
                }
            }
            // the parts of a routine share the enclosing scope too
            StmtKind::Routine { compute, body } => {
                for s in &routine_steps(compute, body) {
                    self.stmt(s, scope);
                }
            }
        }
    }
}
