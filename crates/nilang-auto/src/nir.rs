//! The natural IR: an ordinary function's body after name resolution, with every variable
//! reference resolved to its binding (scopes and shadowing applied) and every binding typed.
//!
//! Architecture Invariant: analyses read [`Id`]s, never identifiers. Each binding has its own
//! spelling in the reversible program ([`Bind::name`], unique in the function), so rendering an
//! expression needs no renaming except the substitutions of the emitter (shadows), which
//! are keyed by [`Id`] too.

use proc_macro2::Span;
use std::collections::BTreeSet;

/// A binding's index in [`Function::binds`].
pub type Id = usize;

/// What a binding holds, as far as differentiation is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A differentiable scalar (`T`, or `f64` in an `f64` function).
    Real,
    /// A vector or slice of differentiable scalars.
    RealVec,
    /// Anything else (an index, a count, a flag, a constant `f64` of a generic function): not
    /// differentiated, and never overwritten.
    Plain,
}

/// Where a binding comes from.
#[derive(Clone, Debug)]
pub enum Origin {
    /// A parameter of the function.
    Param,
    /// An output parameter (`out: &mut [f64]`): written by element, started from zeros in the
    /// reversible program.
    Output,
    /// A `let` of the body (or a temporary the front end introduced for a call).
    Local,
    /// The variable of a `for` loop over a range.
    LoopVar,
    /// The element variable of a loop over a slice: a name for the place `vec[index]`.
    Element {
        /// The slice iterated over.
        vec: Id,
        /// The hidden index variable.
        index: Id,
    },
}

/// A binding.
#[derive(Clone, Debug)]
pub struct Bind {
    /// Its spelling in the reversible program, unique in the function.
    pub name: syn::Ident,
    /// What it holds.
    pub ty: Ty,
    /// Where it comes from.
    pub origin: Origin,
}

/// An expression, already spelled as the reversible language reads it (bindings by their
/// [`Bind::name`], Rust's float methods as the language's primitives), with the bindings it
/// reads.
#[derive(Clone, Debug)]
pub struct Expr {
    /// The expression in the reversible language.
    pub syn: syn::Expr,
    /// The bindings it reads (an element variable counts as its slice and its index).
    pub reads: BTreeSet<Id>,
    /// Whether its value is a differentiable scalar.
    pub real: bool,
}

/// A place a statement writes: a variable or an element of a vector.
#[derive(Clone, Debug)]
pub struct Place {
    /// The binding written.
    pub root: Id,
    /// The index, for an element.
    pub index: Option<Expr>,
}

/// How an assignment combines the old value with the new one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `=`
    Set,
    /// `=` into an element that still holds the zero its vector was allocated with (see
    /// `fill`): nothing to save.
    Fill,
    /// `=` into an element whose old value the enclosing loop saved before it began (see
    /// `fill`): nothing to save here.
    Refill,
    /// `+=`
    Add,
    /// `-=`
    Sub,
    /// `*=`
    Mul,
    /// `/=`
    Div,
}

/// How a `let` computes its value.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // a few per function; boxing would only add noise
pub enum Init {
    /// `let x = e;`
    Expr(Expr),
    /// `let x = if c { a } else { b };` (also what `a.max(b)` and `a.min(b)` become).
    Select {
        /// The condition.
        cond: Expr,
        /// The value when it holds.
        then: Expr,
        /// The value otherwise.
        els: Expr,
    },
    /// `let v = vec![zero; len];`: a zero vector.
    Zeros {
        /// Its length.
        len: Expr,
    },
    /// `let t = g(args);` for another function under the front end (`g_rev` in the
    /// reversible program).
    Call {
        /// The reversible program called.
        func: syn::Path,
        /// The arguments after the output.
        args: Vec<Expr>,
    },
}

impl Init {
    /// The bindings the value is computed from.
    pub fn reads(&self) -> BTreeSet<Id> {
        match self {
            Init::Expr(e) | Init::Zeros { len: e } => e.reads.clone(),
            Init::Select { cond, then, els } => {
                let mut r = cond.reads.clone();
                r.extend(&then.reads);
                r.extend(&els.reads);
                r
            }
            Init::Call { args, .. } => args.iter().flat_map(|a| a.reads.clone()).collect(),
        }
    }
}

/// The iteration space of a `for` loop.
#[derive(Clone, Debug)]
pub struct Range {
    /// The range expression in the reversible language (`a..b`, `(a..b).rev()`, …).
    pub syn: syn::Expr,
    /// The bindings its bounds read.
    pub reads: BTreeSet<Id>,
}

/// The memory budget of a loop marked `#[checkpoint]` or `#[checkpoint(levels = L)]`: its
/// `n` iterations run in `L` levels of chunks of `c^l` iterations (`c = ⌈n^{1/(L+1)}⌉`), each
/// chunk computed, its carried variables copied out and the chunk uncomputed, so that only
/// the carried state at each chunk's start is kept: `O(L·c)` states instead of `n`, for about
/// `2^L` times the forward work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    /// The levels of chunks (1 for `#[checkpoint]`).
    pub levels: usize,
}

/// A statement.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// What it does.
    pub kind: StmtKind,
    /// The user's tokens it came from.
    pub span: Span,
}

/// The statements of the natural IR.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // a few per function; boxing would only add noise
pub enum StmtKind {
    /// `let x = …;`
    Let {
        /// The binding introduced.
        id: Id,
        /// Its value.
        init: Init,
    },
    /// `place op= value;`
    Assign {
        /// What is written.
        place: Place,
        /// How.
        op: Op,
        /// The right-hand side.
        value: Expr,
    },
    /// `for var in range { body }`
    For {
        /// The loop variable (for a loop over a slice, the hidden index).
        var: Id,
        /// The iteration space.
        range: Range,
        /// The body.
        body: Vec<Stmt>,
        /// `#[checkpoint]`: the loop's memory budget (how many levels of checkpoints).
        checkpoint: Option<Checkpoint>,
    },
    /// `while cond { body }`
    While {
        /// The condition.
        cond: Expr,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `g(args…)` with outputs: a call to another function under the front end that writes
    /// output parameters (`&mut v`, `&mut v[a..b]`, or an output of this function passed on).
    /// The outputs change as the plain call changes them; `g_rev_taped` leaves the values it
    /// overwrote on this program's tapes.
    CallInto {
        /// The taped program called (`g_rev_taped`).
        func: syn::Path,
        /// The arguments in order, outputs as the places they write (`v`, `v[a..b]`).
        args: Vec<Expr>,
        /// The bindings the outputs are parts of.
        outputs: Vec<Id>,
    },
    /// `if cond { then } else { els }`
    If {
        /// The condition.
        cond: Expr,
        /// The branch taken when it holds.
        then: Vec<Stmt>,
        /// The other branch.
        els: Vec<Stmt>,
    },
}

/// A resolved function.
#[derive(Clone, Debug)]
pub struct Function {
    /// Every binding, indexed by [`Id`].
    pub binds: Vec<Bind>,
    /// The body's statements.
    pub body: Vec<Stmt>,
    /// The returned value (`None` for a function that writes output parameters instead).
    pub ret: Option<Expr>,
}

impl Stmt {
    /// The bindings this statement (or any statement nested in it) writes.
    pub fn writes(&self, out: &mut BTreeSet<Id>) {
        match &self.kind {
            StmtKind::Let { .. } => {}
            StmtKind::Assign { place, .. } => {
                out.insert(place.root);
            }
            StmtKind::CallInto { outputs, .. } => out.extend(outputs),
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => writes_of(body, out),
            StmtKind::If { then, els, .. } => {
                writes_of(then, out);
                writes_of(els, out);
            }
        }
    }

    /// The bindings this statement (or any statement nested in it) reads.
    pub fn reads(&self, out: &mut BTreeSet<Id>) {
        match &self.kind {
            StmtKind::Let { init, .. } => out.extend(init.reads()),
            StmtKind::Assign { place, value, .. } => {
                out.extend(&value.reads);
                if let Some(i) = &place.index {
                    out.extend(&i.reads);
                }
            }
            StmtKind::CallInto { args, .. } => out.extend(args.iter().flat_map(|a| &a.reads)),
            StmtKind::For { range, body, .. } => {
                out.extend(&range.reads);
                reads_of(body, out);
            }
            StmtKind::While { cond, body } => {
                out.extend(&cond.reads);
                reads_of(body, out);
            }
            StmtKind::If { cond, then, els } => {
                out.extend(&cond.reads);
                reads_of(then, out);
                reads_of(els, out);
            }
        }
    }
}

/// The bindings a block writes.
pub fn writes_of(stmts: &[Stmt], out: &mut BTreeSet<Id>) {
    for s in stmts {
        s.writes(out);
    }
}

/// The bindings a block reads.
pub fn reads_of(stmts: &[Stmt], out: &mut BTreeSet<Id>) {
    for s in stmts {
        s.reads(out);
    }
}

/// The bindings a block writes, as a set.
pub fn written(stmts: &[Stmt]) -> BTreeSet<Id> {
    let mut out = BTreeSet::new();
    writes_of(stmts, &mut out);
    out
}

/// The bindings a block reads, as a set.
pub fn read(stmts: &[Stmt]) -> BTreeSet<Id> {
    let mut out = BTreeSet::new();
    reads_of(stmts, &mut out);
    out
}

/// The bindings the tests of a block read (of `if`s, `while`s and `if` values), at any depth.
/// Running an accumulation backwards (`x -= e` after `x += e`) gives the old value back only
/// to within rounding, and a test computed again from such a value may come out the other
/// way at a tie (`0.0 > 0.0`, then `1e-17 > 0.0`): these bindings are changed by saving and
/// swapping instead, which running backwards undoes bit for bit.
pub fn tested(stmts: &[Stmt]) -> BTreeSet<Id> {
    let mut out = BTreeSet::new();
    for s in stmts {
        match &s.kind {
            StmtKind::Let {
                init: Init::Select { cond, .. },
                ..
            } => out.extend(&cond.reads),
            StmtKind::Let { .. } | StmtKind::Assign { .. } | StmtKind::CallInto { .. } => {}
            StmtKind::For { body, .. } => out.extend(tested(body)),
            StmtKind::While { cond, body } => {
                out.extend(&cond.reads);
                out.extend(tested(body));
            }
            StmtKind::If { cond, then, els } => {
                out.extend(&cond.reads);
                out.extend(tested(then));
                out.extend(tested(els));
            }
        }
    }
    out
}

/// The bindings calls in a block write as outputs, at any depth.
pub fn call_outputs(stmts: &[Stmt]) -> BTreeSet<Id> {
    let mut out = BTreeSet::new();
    for s in stmts {
        match &s.kind {
            StmtKind::CallInto { outputs, .. } => out.extend(outputs),
            StmtKind::Let { .. } | StmtKind::Assign { .. } => {}
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                out.extend(call_outputs(body))
            }
            StmtKind::If { then, els, .. } => {
                out.extend(call_outputs(then));
                out.extend(call_outputs(els));
            }
        }
    }
    out
}

/// Whether the `for` loop whose variable is `var` runs inside another loop (`for` or `while`)
/// of `stmts`.
pub fn in_loop(stmts: &[Stmt], var: Id) -> bool {
    fn find(stmts: &[Stmt], var: Id, depth: usize) -> Option<usize> {
        stmts.iter().find_map(|s| match &s.kind {
            StmtKind::For { var: v, .. } if *v == var => Some(depth),
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => find(body, var, depth + 1),
            StmtKind::If { then, els, .. } => {
                find(then, var, depth).or_else(|| find(els, var, depth))
            }
            StmtKind::Let { .. } | StmtKind::Assign { .. } | StmtKind::CallInto { .. } => None,
        })
    }
    find(stmts, var, 0).is_some_and(|depth| depth > 0)
}

/// The bindings a block declares (its `let`s and loop variables, at any depth).
pub fn declared(stmts: &[Stmt]) -> BTreeSet<Id> {
    let mut out = BTreeSet::new();
    for s in stmts {
        match &s.kind {
            StmtKind::Let { id, .. } => {
                out.insert(*id);
            }
            StmtKind::Assign { .. } | StmtKind::CallInto { .. } => {}
            StmtKind::For { var, body, .. } => {
                out.insert(*var);
                out.extend(declared(body));
            }
            StmtKind::While { body, .. } => out.extend(declared(body)),
            StmtKind::If { then, els, .. } => {
                out.extend(declared(then));
                out.extend(declared(els));
            }
        }
    }
    out
}
