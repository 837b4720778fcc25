//! The statement IR of a reversible function.
//!
//! Architecture Invariant: every statement kind has exactly one inverse, computed by
//! [`crate::reverse`]; the IR is symmetric, so reversing twice gives back the same program.
//! The IR knows nothing about scalar types or automatic differentiation: it only records
//! what the user wrote, with spans and source text for diagnostics.

use proc_macro2::{Span, TokenStream};
use syn::{Expr, Ident, Member};

/// A reversible function: its signature, its options and its body.
#[derive(Clone, Debug)]
pub struct Function {
    /// Attributes other than the `#[i]` attribute itself (docs, `#[inline]`, …).
    pub attrs: Vec<syn::Attribute>,
    /// Visibility of the generated functions.
    pub vis: syn::Visibility,
    /// The signature of the forward function as the user wrote it.
    pub sig: syn::Signature,
    /// Name of the generated inverse function.
    pub inverse_name: Ident,
    /// `false` when the function was marked `#[i(nocheck)]`.
    pub checked: bool,
    /// How each parameter may be used in the body.
    pub params: Vec<Param>,
    /// The statements of the body.
    pub body: Vec<Stmt>,
}

/// A parameter and how the body may use it.
#[derive(Clone, Debug)]
pub struct Param {
    /// The parameter's name (`self` for a receiver).
    pub name: Ident,
    /// Its kind, deduced from its type.
    pub kind: ParamKind,
}

/// What a parameter allows the body to do with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// `x: &mut T`: state the body may change.
    MutRef,
    /// `x: &T`: a control parameter read through a reference.
    SharedRef,
    /// `x: T`: a control parameter passed by value (read-only).
    Value,
}

/// One statement with the span and source text it came from.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// What the statement does.
    pub kind: StmtKind,
    /// Span of the user's tokens.
    pub span: Span,
    /// The user's source text of the statement (used in runtime error messages).
    pub source: String,
}

/// The statements of the language.
#[derive(Clone, Debug)]
pub enum StmtKind {
    /// `y += f(a, b)`, `y -= f(a)`, `y ^= f(a)`, `y *= f(a)`, `y /= f(a)`.
    Instr(Instr),
    /// `y ^= <boolean or integer expression>`: self-inverse, the expression is re-evaluated.
    XorExpr {
        /// The target dataview.
        target: Dataview,
        /// The right-hand side.
        expr: Expr,
    },
    /// `swap(a, b)`, `rot(a, b, θ)`, `neg(a)`, … (instructions that are not accumulations).
    Builtin {
        /// Which instruction.
        op: BuiltinOp,
        /// The dataviews it changes.
        args: Vec<Dataview>,
        /// The read-only operand (the angle of `rot`/`irot`).
        operand: Option<Operand>,
    },
    /// `let x = e;` (several in one statement with a tuple pattern).
    Alloc(Vec<Binding>),
    /// `dealloc!(x = e);`: checked deallocation.
    Dealloc(Vec<Binding>),
    /// `if (pre, post) { … } else { … }`.
    If {
        /// Condition evaluated before the branch.
        pre: Expr,
        /// Condition that must equal `pre` after the branch.
        post: Expr,
        /// Whether `post` was written (false for the `if c { … }` shorthand).
        explicit_post: bool,
        /// The branch taken when the condition holds.
        then: Vec<Stmt>,
        /// The other branch.
        els: Vec<Stmt>,
    },
    /// `while (pre, post) { … }`.
    While {
        /// Loop condition.
        pre: Expr,
        /// Condition false on entry and true after every iteration.
        post: Expr,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `for i in a..b { … }` with `..=`, `.rev()` and `.step_by(s)`; `for i in (a..b).par()
    /// { … }` is the parallel loop ([`RangeSpec::parallel`]).
    For {
        /// The loop variable (read-only in the body).
        var: Ident,
        /// The iteration space.
        range: RangeSpec,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `g(x, y)` or `uncall!(g(x, y))`, and method calls `s.step(x)`.
    Call {
        /// What is called.
        call: Call,
        /// `true` when the inverse is called.
        uncall: bool,
    },
    /// `push!(s, x)` / `pop!(s, x)` and their copy forms.
    Stack {
        /// The stack (a dataview holding e.g. a `Vec`).
        stack: Dataview,
        /// The variable moved or copied.
        value: Dataview,
        /// `true` for push, `false` for pop.
        push: bool,
        /// `true` for the copy forms (`push_copy!`, `pop_copy!`).
        copy: bool,
    },
    /// `let z = new!(S { re: a, im: b });` (a reversible constructor: builds the ancilla `z`
    /// from the ancillas `a`, `b`, which it consumes) or `let S { re: a, im: b } = fields!(z);`
    /// (the destructor: takes `z` apart into new ancillas, consuming `z`). Each is the other's
    /// inverse; see [`Fields`].
    Fields(Fields),
    /// `safe! { … }`: plain Rust run unchanged in both directions.
    Safe(TokenStream),
    /// `nocheck! { … }`: no runtime reversibility checks inside.
    NoCheck(Vec<Stmt>),
    /// Compute, use, uncompute: `routine! { P } X uncompute!();` runs `P`, then `X`, then the
    /// inverse of `P`. `expand!` makes one of every nested expression (`P` computes the
    /// ancillas, `X` is the instruction that reads them). The three parts share the enclosing
    /// block's scope, as if written one after another: the ancillas `P` allocates live through
    /// `X` and are deallocated by `~P`. Its inverse is `routine! { P } ~X uncompute!();`.
    Routine {
        /// The computation `P`.
        compute: Vec<Stmt>,
        /// The statements `X` between the routine and `uncompute!()`.
        body: Vec<Stmt>,
    },
}

impl Stmt {
    /// The blocks nested in this statement, in order: the branches of an `if`, the body of a
    /// loop or of `nocheck!`, the computation and the body of a routine. A routine's
    /// uncomputation is not listed: it is the inverse of its computation, so it touches the
    /// same places.
    pub fn blocks(&self) -> Vec<&[Stmt]> {
        match &self.kind {
            StmtKind::If { then, els, .. } => vec![then, els],
            StmtKind::While { body, .. } | StmtKind::For { body, .. } | StmtKind::NoCheck(body) => {
                vec![body]
            }
            StmtKind::Routine { compute, body } => vec![compute, body],
            StmtKind::Instr(_)
            | StmtKind::XorExpr { .. }
            | StmtKind::Builtin { .. }
            | StmtKind::Alloc(_)
            | StmtKind::Dealloc(_)
            | StmtKind::Call { .. }
            | StmtKind::Stack { .. }
            | StmtKind::Fields(_)
            | StmtKind::Safe(_) => Vec::new(),
        }
    }
}

impl Stmt {
    /// The dataviews this statement names itself, not those of its nested blocks: an
    /// instruction's target and operands, a builtin's places and angle, a stack and its value,
    /// the places handed to a call, the target of `^=`.
    pub fn views(&self) -> Vec<&Dataview> {
        fn operand(o: &Operand) -> Option<&Dataview> {
            match o {
                Operand::View(v) => Some(v),
                Operand::Const(_) => None,
            }
        }
        match &self.kind {
            StmtKind::Instr(i) => std::iter::once(&i.target)
                .chain(i.args.iter().filter_map(operand))
                .collect(),
            StmtKind::XorExpr { target, .. } => vec![target],
            StmtKind::Builtin {
                args, operand: o, ..
            } => args.iter().chain(o.iter().filter_map(operand)).collect(),
            StmtKind::Stack { stack, value, .. } => vec![stack, value],
            StmtKind::Call { call, .. } => call
                .args
                .iter()
                .filter_map(|a| match a {
                    CallArg::View(v) => Some(v),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}

impl Stmt {
    /// The blocks nested in this statement, mutably, in the order of [`Stmt::blocks`].
    pub fn blocks_mut(&mut self) -> Vec<&mut Vec<Stmt>> {
        match &mut self.kind {
            StmtKind::If { then, els, .. } => vec![then, els],
            StmtKind::While { body, .. } | StmtKind::For { body, .. } | StmtKind::NoCheck(body) => {
                vec![body]
            }
            StmtKind::Routine { compute, body } => vec![compute, body],
            _ => Vec::new(),
        }
    }
}

/// A reversible constructor or destructor (the papers' `x ← new(x, g)` and its inverse): a
/// value `whole` of a struct or tuple and the ancillas holding its fields. Nothing is copied
/// or computed, so both directions are exact and need no runtime check.
#[derive(Clone, Debug)]
pub struct Fields {
    /// The struct or tuple value.
    pub whole: Ident,
    /// Its type's shape: a struct with named fields, or a tuple.
    pub shape: Shape,
    /// Each field and the ancilla holding it, in the order written.
    pub parts: Vec<Part>,
    /// `true` for the constructor (`parts` are consumed, `whole` is created), `false` for the
    /// destructor (`whole` is consumed, `parts` are created).
    pub construct: bool,
}

impl Fields {
    /// The names this statement consumes.
    pub fn consumed(&self) -> Vec<&Ident> {
        if self.construct {
            self.parts.iter().map(|p| &p.var).collect()
        } else {
            vec![&self.whole]
        }
    }

    /// The names this statement creates.
    pub fn created(&self) -> Vec<&Ident> {
        if self.construct {
            vec![&self.whole]
        } else {
            self.parts.iter().map(|p| &p.var).collect()
        }
    }

    /// The same statement on other names (the shadows, in an adjoint program).
    pub fn renamed(&self, name: impl Fn(&Ident) -> Ident) -> Fields {
        Fields {
            whole: name(&self.whole),
            parts: self
                .parts
                .iter()
                .map(|p| Part {
                    member: p.member.clone(),
                    var: name(&p.var),
                })
                .collect(),
            ..self.clone()
        }
    }

    /// Every name the statement moves, the whole first.
    pub fn names(&self) -> Vec<&Ident> {
        std::iter::once(&self.whole)
            .chain(self.parts.iter().map(|p| &p.var))
            .collect()
    }
}

/// The shape of a value built by a reversible constructor.
#[derive(Clone, Debug)]
pub enum Shape {
    /// A struct with named fields, by its path (`Complex`, `Point`).
    Struct(syn::Path),
    /// A tuple: fields `.0`, `.1`, ….
    Tuple,
}

/// One field of a [`Fields`] statement and the ancilla holding it.
#[derive(Clone, Debug)]
pub struct Part {
    /// The field (`re`, or `0` for a tuple).
    pub member: Member,
    /// The ancilla.
    pub var: Ident,
}

/// A variable bound by an ancilla allocation or deallocation.
#[derive(Clone, Debug)]
pub struct Binding {
    /// The ancilla's name.
    pub name: Ident,
    /// Its type, when written (`let x: T = …`).
    pub ty: Option<syn::Type>,
    /// Its declared value.
    pub value: Expr,
}

/// The accumulation operator of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccOp {
    /// `+=`
    Add,
    /// `-=`
    Sub,
    /// `^=`
    Xor,
    /// `*=` (multiplicative number systems)
    Mul,
    /// `/=` (multiplicative number systems)
    Div,
}

impl AccOp {
    /// The operator that undoes this one.
    pub fn inverse(self) -> AccOp {
        match self {
            AccOp::Add => AccOp::Sub,
            AccOp::Sub => AccOp::Add,
            AccOp::Xor => AccOp::Xor,
            AccOp::Mul => AccOp::Div,
            AccOp::Div => AccOp::Mul,
        }
    }

    /// The Rust spelling of the operator.
    pub fn symbol(self) -> &'static str {
        match self {
            AccOp::Add => "+=",
            AccOp::Sub => "-=",
            AccOp::Xor => "^=",
            AccOp::Mul => "*=",
            AccOp::Div => "/=",
        }
    }
}

/// An accumulating instruction `target op prim(args)`.
#[derive(Clone, Debug)]
pub struct Instr {
    /// The dataview written.
    pub target: Dataview,
    /// The accumulation operator.
    pub op: AccOp,
    /// The primitive function.
    pub prim: Prim,
    /// Its operands, read but (in value) not changed.
    pub args: Vec<Operand>,
}

/// A primitive function of an instruction's right-hand side.
#[derive(Clone, Debug)]
pub enum Prim {
    /// One of the language's primitives.
    Builtin(&'static PrimInfo),
    /// A user primitive: a type implementing `nilang::Unary` or `nilang::Binary`.
    User(syn::Path),
}

impl Prim {
    /// How the primitive is spelled in the language.
    pub fn display(&self) -> String {
        match self {
            Prim::Builtin(info) => info.name.to_string(),
            Prim::User(p) => quote::quote!(#p).to_string().replace(' ', ""),
        }
    }
}

/// A built-in primitive.
#[derive(Debug, PartialEq, Eq)]
pub struct PrimInfo {
    /// Its name in the language (`sin`, `*`, `pow`, …).
    pub name: &'static str,
    /// The runtime type implementing it (`nilang::prims::Sin`, …).
    pub runtime: &'static str,
    /// Number of operands.
    pub arity: usize,
    /// Infix operator spelling, if any (`*`, `/`, `+`, `-`).
    pub infix: Option<&'static str>,
}

impl PrimInfo {
    /// Whether `r += f(z)` also takes a complex `z` into a real `r` (`abs`, `abs2`, `angle`:
    /// their complex instructions are `nilang::complex`'s): the operand keeps its own type
    /// instead of taking the target's, and a nested operand's ancilla takes the type of the
    /// expression's first place (`r += abs(a * b)` under `expand`).
    pub fn takes_operand_type(&self) -> bool {
        matches!(self.name, "abs" | "abs2" | "angle")
    }
}

/// A binary row's infix operator (`[*]`), or none (`[]`).
macro_rules! prim_infix {
    () => {
        None
    };
    ($op:tt) => {
        Some(stringify!($op))
    };
}

/// The list of the primitive table, `nilang_prims::primitives!` (each row's name, runtime type,
/// arity and infix spelling).
macro_rules! prim_infos {
    ([] unary { $(($ty:ident $name:ident $($unary:tt)*))* }
        binary { $(($bty:ident $bname:ident $doc:literal $a:ident $b:ident $value:block
            $partials:block [$($infix:tt)?] $($binary:tt)*))* }) => {
        &[
            $(PrimInfo { name: stringify!($name), runtime: stringify!($ty), arity: 1, infix: None },)*
            $(PrimInfo {
                name: stringify!($bname),
                runtime: stringify!($bty),
                arity: 2,
                infix: prim_infix!($($infix)?),
            },)*
        ]
    };
}

/// The language's primitive table (the papers' instruction table), from `nilang_prims`.
pub static PRIMITIVES: &[PrimInfo] = nilang_prims::primitives!(prim_infos);

/// Looks a primitive up by its name in the language.
pub fn primitive(name: &str) -> Option<&'static PrimInfo> {
    PRIMITIVES.iter().find(|p| p.name == name)
}

/// Looks a primitive up by its infix operator.
pub fn infix_primitive(op: &str) -> Option<&'static PrimInfo> {
    PRIMITIVES.iter().find(|p| p.infix == Some(op))
}

/// An operand of an instruction.
#[derive(Clone, Debug)]
pub enum Operand {
    /// A dataview: it receives gradients when it is differentiable state.
    View(Dataview),
    /// Any other expression (literal, constant, computed index…): a constant operand.
    Const(Expr),
}

/// Instructions that are not accumulations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltinOp {
    /// `swap(a, b)`
    Swap,
    /// `rot(a, b, θ)`
    Rot,
    /// `irot(a, b, θ)`
    IRot,
    /// `neg(a)`
    Neg,
    /// `inc(a)`
    Inc,
    /// `dec(a)`
    Dec,
    /// `conj(a)`
    Conj,
    /// `flip(b)`: b ← ¬b, on booleans
    Flip,
    /// `inv(a)`: a ← 1/a (multiplicative number systems: exact on `ULog`; floats round)
    Inv,
    /// `hadamard(a, b)`: (a, b) ← ((a + b)/√2, (a − b)/√2)
    Hadamard,
}

impl BuiltinOp {
    /// The instruction that undoes this one (used by `reverse.rs`).
    pub fn inverse(self) -> BuiltinOp {
        match self {
            BuiltinOp::Rot => BuiltinOp::IRot,
            BuiltinOp::IRot => BuiltinOp::Rot,
            BuiltinOp::Inc => BuiltinOp::Dec,
            BuiltinOp::Dec => BuiltinOp::Inc,
            // involutions: ¬¬b = b, 1/(1/a) = a, H² = I
            BuiltinOp::Swap
            | BuiltinOp::Neg
            | BuiltinOp::Conj
            | BuiltinOp::Flip
            | BuiltinOp::Inv
            | BuiltinOp::Hadamard => self,
        }
    }

    /// Its name in the language.
    pub fn name(self) -> &'static str {
        match self {
            BuiltinOp::Swap => "swap",
            BuiltinOp::Rot => "rot",
            BuiltinOp::IRot => "irot",
            BuiltinOp::Neg => "neg",
            BuiltinOp::Inc => "inc",
            BuiltinOp::Dec => "dec",
            BuiltinOp::Conj => "conj",
            BuiltinOp::Flip => "flip",
            BuiltinOp::Inv => "inv",
            BuiltinOp::Hadamard => "hadamard",
        }
    }

    /// Looks an instruction up by name: (instruction, number of dataviews, has an angle operand).
    pub fn lookup(name: &str) -> Option<(BuiltinOp, usize, bool)> {
        Some(match name {
            "swap" => (BuiltinOp::Swap, 2, false),
            "rot" => (BuiltinOp::Rot, 2, true),
            "irot" => (BuiltinOp::IRot, 2, true),
            "neg" => (BuiltinOp::Neg, 1, false),
            "inc" => (BuiltinOp::Inc, 1, false),
            "dec" => (BuiltinOp::Dec, 1, false),
            "conj" => (BuiltinOp::Conj, 1, false),
            "flip" => (BuiltinOp::Flip, 1, false),
            "inv" => (BuiltinOp::Inv, 1, false),
            "hadamard" => (BuiltinOp::Hadamard, 2, false),
            _ => return None,
        })
    }
}

/// A place an instruction may write to: a variable, a field, an element, or a chain of them.
#[derive(Clone, Debug)]
pub struct Dataview {
    /// The variable at the root (`self` for a receiver).
    pub root: Ident,
    /// Field and index accesses applied to the root, in order.
    pub path: Vec<Access>,
    /// Span of the whole dataview.
    pub span: Span,
}

impl Dataview {
    /// The whole variable `name`, with no field or index access.
    pub fn of(name: &Ident) -> Dataview {
        Dataview {
            root: name.clone(),
            path: Vec::new(),
            span: name.span(),
        }
    }

    /// True when the dataview contains an index access (whose value is only known at run time).
    pub fn has_index(&self) -> bool {
        self.path.iter().any(|a| matches!(a, Access::Index(_)))
    }

    /// The dataview as source text (`x[i].re`).
    pub fn text(&self) -> String {
        let mut s = self.root.to_string();
        for a in &self.path {
            match a {
                Access::Field(Member::Named(n)) => {
                    s.push('.');
                    s.push_str(&n.to_string());
                }
                Access::Field(Member::Unnamed(i)) => {
                    s.push('.');
                    s.push_str(&i.index.to_string());
                }
                Access::Index(e) => {
                    s.push('[');
                    s.push_str(&crate::text::expr_text(e));
                    s.push(']');
                }
            }
        }
        s
    }

    /// True when both dataviews are syntactically the same place.
    pub fn same_as(&self, other: &Dataview) -> bool {
        self.text() == other.text()
    }
}

/// One step of a dataview.
#[derive(Clone, Debug)]
pub enum Access {
    /// `.field` or `.0`
    Field(Member),
    /// `[index]`
    Index(Expr),
}

/// The iteration space of a `for` loop.
#[derive(Clone, Debug)]
pub struct RangeSpec {
    /// First value of the range expression.
    pub start: Expr,
    /// End of the range expression.
    pub end: Expr,
    /// `..=` instead of `..`.
    pub inclusive: bool,
    /// `.step_by(s)`.
    pub step: Option<Expr>,
    /// `.rev()`: iterate from the last element down.
    pub rev: bool,
    /// `.par()`: a parallel loop. Its iterations write disjoint places (or accumulate into
    /// reductions), checked by `crate::check`, and run on all cores in contiguous chunks;
    /// reversal keeps it parallel.
    pub parallel: bool,
    /// `.par().weight(w)`: the work of one iteration of a parallel loop, in units of about a
    /// nanosecond of one core (a short body of a few floating-point operations; `1` when not
    /// stated). The loop splits
    /// into chunks when its iterations times `w` reach `nilang::parallel::min_parallel_work`,
    /// so a few heavy iterations (blocks of points) run in parallel while many light ones of
    /// a short loop stay sequential. A `usize` expression of read-only names, evaluated
    /// before the loop.
    pub weight: Option<Expr>,
    /// `Some` for the loop of a broadcast statement (`y[..] += a * x[..]`, made by
    /// `crate::broadcast::lower`, never written by hand): the slices it runs over, whose
    /// lengths are checked to be equal before the loop. Reversal keeps it.
    pub broadcast: Option<Broadcast>,
}

/// The origin of a loop made from a broadcast statement (`crate::broadcast`): it runs from `0`
/// to the common length of its slices, and its body is the element statement.
#[derive(Clone, Debug)]
pub struct Broadcast {
    /// The whole slices the statement names (`y`, `x`, `m[k]`, `y[1..]`), each once, in the
    /// order the statement names them; the loop's `end` is the first one's `len()`, and
    /// every generator checks before the loop that all have that length.
    pub slices: Vec<Expr>,
}

/// A call of another reversible function or method.
#[derive(Clone, Debug)]
pub struct Call {
    /// What is called.
    pub callee: Callee,
    /// The arguments.
    pub args: Vec<CallArg>,
}

/// The called function.
#[derive(Clone, Debug)]
pub enum Callee {
    /// A path `g` or `module::g::<T>`.
    Path(syn::ExprPath),
    /// A parameter `f` that is a reversible function (`f: &F` with `F: Reversible<(…)>`,
    /// [`crate::fn_params`]).
    Param(Ident),
    /// A method `receiver.method::<T>(…)`.
    Method {
        /// The receiver expression (`self`, `model`, …).
        receiver: Box<Expr>,
        /// The method name.
        method: Ident,
        /// Turbofish, if any.
        turbofish: Option<syn::AngleBracketedGenericArguments>,
    },
}

/// An argument of a call.
#[derive(Clone, Debug)]
pub enum CallArg {
    /// A dataview passed as `&mut`.
    View(Dataview),
    /// `&expr`: passed by shared reference.
    Shared(Expr),
    /// Any other expression, or a read-only variable: passed by value.
    Value(Expr),
}
