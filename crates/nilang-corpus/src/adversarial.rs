//! Programs of the binding shapes an adversarial review of the unchecked and parallel paths
//! probed (issue 25): a binding (a `let`, an ancilla of a routine, an inner `for`, a tuple
//! made by `new!` or unpacked by `fields!`) that shadows a name bound where it stands (a
//! parameter, the variable of an enclosing loop, a live ancilla), in sequential, parallel and
//! nested loops, under `nocheck!` and not; and a broadcast inside a parallel loop. Analyses
//! that identified variables by name once took such a binding for the variable it shadows and
//! wrote out of bounds without a check, or raced. Each program comes with twins that must be
//! accepted: the binding named afresh (the broadcast's loop made sequential), and, where the
//! program has a sibling loop that ended before, the binding named as that loop's variable (a
//! name free again). The IR-level test (`nilang/tests/random_programs.rs`, `adversarial_programs_*`) asserts that
//! `nilang_ir::lower` rejects each program with the rule's message and that
//! the twins parse and run on the interpreter like every generated program.
//!
//! ```
//! use nilang_corpus::adversarial::{adversarial, Shape};
//!
//! let a = adversarial(7);
//! assert_ne!(a.rejected, a.renamed);
//! assert!(a.rejected.contains("fn f<T: Real>("));
//! match a.shape {
//!     Shape::Shadow { name, .. } => assert!(a.message.contains(&format!("shadows `{name}`"))),
//!     Shape::BroadcastInParallelLoop => assert!(a.rejected.contains(".par()")),
//! }
//! ```

use crate::generator::{Free, Gen, BINARY, UNARY};
use crate::{Features, Rng, NX};

/// Where the binding stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Context {
    /// In the function's body, in no loop.
    Body,
    /// In a sequential loop over `x` (`0..x.len()`, its reverse, or `0..2`).
    Sequential,
    /// In a parallel loop over pairs of `x` (`for k in (0..x.len() / 2).par()`, owned slots
    /// `x[2 * k]` and `x[2 * k + 1]`).
    ParallelX,
    /// In a parallel loop over `n` (`for k in (0..n.len()).par()`, owned slot `n[k]`).
    ParallelN,
    /// In a sequential loop inside a sequential loop.
    NestedSequential,
    /// In a sequential loop inside a parallel loop over pairs of `x`
    /// (`x[2 * k + j]` under `for j in 0..2`).
    NestedParallel,
}

/// Every context.
pub const CONTEXTS: [Context; 6] = [
    Context::Body,
    Context::Sequential,
    Context::ParallelX,
    Context::ParallelN,
    Context::NestedSequential,
    Context::NestedParallel,
];

/// The binding that shadows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Binding {
    /// `let b = T::zero(); b += f(r); w += g(b); b -= f(r); dealloc!(b = T::zero());`
    FloatLet,
    /// `routine! { let b = T::zero(); b += f(r); } w += g(b); uncompute!();`
    FloatRoutine,
    /// `let b = 2i64; n[..] += b; dealloc!(b = 2i64);`
    IntegerLet,
    /// An index ancilla: `let b = 2usize; x[k] += f(x[(k + b) % x.len()]); dealloc!(…);`
    IndexLet,
    /// An inner loop: `for b in 0..2 { … }`.
    InnerLoop,
    /// The tuple of a constructor: `let b = new!((t1, t2)); let (u1, u2) = fields!(b);`.
    Constructor,
    /// A field of a destructor: `let (b, u) = fields!(p);`.
    Destructor,
}

/// What the binding shadows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shadowed {
    /// A parameter (`x`, `n`, `st`).
    Parameter,
    /// The variable of an enclosing loop.
    LoopVariable,
    /// A live ancilla (allocated around the loop, a `while` loop's counter, or an ancilla of
    /// the loop's body).
    Ancilla,
}

impl Shadowed {
    /// How the checker's message names it.
    pub fn described(self) -> &'static str {
        match self {
            Shadowed::Parameter => "a parameter",
            Shadowed::LoopVariable => "the variable of an enclosing loop",
            Shadowed::Ancilla => "a live ancilla",
        }
    }
}

/// The adversarial shape of a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A binding that shadows `name`.
    Shadow {
        /// The binding.
        binding: Binding,
        /// What it shadows.
        shadowed: Shadowed,
        /// The name it shadows.
        name: String,
    },
    /// A broadcast (`neg(x[..])`, `n[..] += 2`) in the body of a parallel loop: every
    /// iteration would write the whole slice.
    BroadcastInParallelLoop,
}

/// One adversarial program (the function `f`; it calls the functions of
/// [`crate::LIBRARY`]) and its twins.
#[derive(Clone, Debug)]
pub struct Adversarial {
    /// Where the binding (or the broadcast) stands.
    pub context: Context,
    /// Whether the loops (or the binding, in the body) are in a `nocheck!` block.
    pub nocheck: bool,
    /// The shape.
    pub shape: Shape,
    /// The program, which `nilang_ir::lower` must reject.
    pub rejected: String,
    /// What the rejection must say: `shadows `k`, the variable of an enclosing loop`, or
    /// `cannot prove is written by one iteration only`.
    pub message: String,
    /// The same program with the binding named afresh, or (a broadcast) the parallel loop
    /// made sequential: a correct program.
    pub renamed: String,
    /// Where the program has a loop that ended before the context: the binding named as that
    /// loop's variable, which is free again (a correct program).
    pub reused: Option<String>,
}

/// The places a binding may use in its context.
struct Places {
    /// A float place the context may write (`x[k]`, `x[2 * k]`), none in a loop over `n`.
    write: Option<String>,
    /// A float place distinct from `write` that the binding reads.
    read: String,
    /// Another one (`read` again in a loop over pairs).
    read2: String,
    /// An integer place the context may write.
    int: Option<String>,
    /// The read of an index ancilla `@B@` (distinct from `write` at every iteration), with
    /// the value the ancilla takes; none where an ancilla index cannot be shown disjoint (a
    /// parallel loop).
    index: Option<(String, usize)>,
    /// The inner loop over `@B@`.
    inner_loop: Vec<String>,
}

/// The placeholder of the binding's name, and of the parallel loop's `.par()`.
const B: &str = "@B@";
const P: &str = "@P@";

/// The adversarial program of a seed, with its twins.
pub fn adversarial(seed: u64) -> Adversarial {
    let mut g = Gen {
        rng: Rng(seed | 1),
        counter: 0,
        // no fixed point: the signature is the compiled corpus's
        features: Features::COMPILED_BROADCASTS,
    };
    let free = Free {
        x: (0..NX).collect(),
        n: (0..crate::NN).collect(),
        depth: 0,
        zeroed: Vec::new(),
    };
    let op = *g.rng.pick(&["+=", "-="]);
    let mut lines = g.block(&free, 0, 3);
    // a loop that ends before the context: its name is free again after it
    let sibling = (g.rng.below(2) == 0).then(|| g.fresh("s"));
    if let Some(s) = &sibling {
        let f = g.rng.pick(UNARY);
        lines.extend([
            format!("for {s} in 0..x.len() {{"),
            format!("x[({s} + 1) % x.len()] {op} {f}(x[{s}]);"),
            "}".into(),
        ]);
    }
    let context = *g.rng.pick(&CONTEXTS);
    let nocheck = g.rng.below(2) == 0;
    // the names bound where the binding stands
    let mut bound: Vec<(String, Shadowed)> = ["x", "n", "st"]
        .iter()
        .map(|p| (p.to_string(), Shadowed::Parameter))
        .collect();
    // ancillas live around the context: a plain one, a `while` loop's counter
    let (open, close) = around_context(&mut g, &mut bound);
    let broadcast = matches!(
        context,
        Context::ParallelX | Context::ParallelN | Context::NestedParallel
    ) && g.rng.below(4) == 0;
    let (k, k2) = (g.fresh("k"), g.fresh("k"));
    let (f1, f2) = (*g.rng.pick(UNARY), *g.rng.pick(UNARY));
    let c = *g.rng.pick(&["0.25", "0.5", "1.5"]);
    // the loops' headers and the statements before the binding, each loop's own; the places
    let parts = LoopParts {
        k: &k,
        k2: &k2,
        op,
        f1,
        f2,
        c,
    };
    let (headers, pre, places) = context_loops(&mut g, context, &mut bound, &parts);
    // an ancilla of the innermost loop's body, live at the binding
    let local = (!headers.is_empty() && g.rng.below(3) == 0).then(|| {
        let (c, v) = (g.fresh("c"), 1 + g.rng.below(3));
        bound.push((c.clone(), Shadowed::Ancilla));
        (
            format!("let {c} = {v}i64;"),
            format!("dealloc!({c} = {v}i64);"),
        )
    });
    let (shape, statement) = if broadcast {
        let statement = broadcast_statement(&mut g, &places, op, c);
        (Shape::BroadcastInParallelLoop, vec![statement])
    } else {
        binding(&mut g, &places, &bound, op)
    };
    // the innermost body: its statements, the local ancilla around the binding
    let mut body: Vec<String> = pre.last().cloned().unwrap_or_default();
    body.extend(local.iter().map(|l| l.0.clone()));
    body.extend(statement);
    body.extend(local.iter().map(|l| l.1.clone()));
    // the loops, from the innermost out; `nocheck!` around the outermost loop (or, nested,
    // the inner one), or around the binding in the body
    let inner_nocheck = nocheck && headers.len() == 2 && g.rng.below(2) == 0;
    let context_lines = wrapped(body, &headers, &pre, nocheck, inner_nocheck);
    lines.extend(open);
    lines.extend(context_lines);
    lines.extend(close);
    lines.extend(g.block(&free, 0, 2));
    let template = lines.join("\n        ");
    let function = |name: &str, par: &str| {
        format!(
            "    #[i]\n    fn f<T: Real>(x: &mut [T], n: &mut [i64], st: &mut Vec<T>) {{\n        {}\n    }}\n",
            template.replace(B, name).replace(P, par)
        )
    };
    match shape {
        Shape::BroadcastInParallelLoop => Adversarial {
            context,
            nocheck,
            shape,
            rejected: function("", ".par()"),
            message: "cannot prove is written by one iteration only".into(),
            renamed: function("", ""),
            reused: None,
        },
        Shape::Shadow {
            shadowed, ref name, ..
        } => {
            let fresh = g.fresh("b");
            Adversarial {
                context,
                nocheck,
                message: format!("shadows `{name}`, {}", shadowed.described()),
                rejected: function(name, ".par()"),
                renamed: function(&fresh, ".par()"),
                reused: sibling.map(|s| function(&s, ".par()")),
                shape,
            }
        }
    }
}

/// The ancillas live around the context (a plain one, a `while` loop's counter), each maybe:
/// the lines that open and close them; they join `bound`.
fn around_context(g: &mut Gen, bound: &mut Vec<(String, Shadowed)>) -> (Vec<String>, Vec<String>) {
    let (mut open, mut close) = (Vec::new(), Vec::new());
    if g.rng.below(2) == 0 {
        let (c, v) = (g.fresh("c"), 1 + g.rng.below(3));
        open.push(format!("let {c} = {v}i64;"));
        close.push(format!("dealloc!({c} = {v}i64);"));
        bound.push((c, Shadowed::Ancilla));
    }
    if g.rng.below(3) == 0 {
        let (c, m) = (g.fresh("c"), 1 + g.rng.below(2));
        open.extend([
            format!("let {c} = 0i64;"),
            format!("while ({c} < {m}, {c} > 0) {{"),
            format!("inc({c});"),
        ]);
        close.splice(0..0, ["}".to_string(), format!("dealloc!({c} = {m});")]);
        bound.push((c, Shadowed::Ancilla));
    }
    (open, close)
}

/// A broadcast statement in a parallel loop's body (which the checks reject there).
fn broadcast_statement(g: &mut Gen, places: &Places, op: &str, c: &str) -> String {
    match (places.write.is_some(), g.rng.below(4)) {
        (true, 0) => "neg(x[..]);".to_string(),
        (true, 1) => format!("x[..] {op} {c};"),
        (_, 2) => format!("{}(n[..]);", g.rng.pick(&["inc", "dec"])),
        _ => format!("n[..] {op} {};", 1 + g.rng.below(3)),
    }
}

/// What the loops' statements are made of: the loop variables, the instruction's operator,
/// two unary primitives and a constant.
#[derive(Clone, Copy)]
struct LoopParts<'a> {
    k: &'a str,
    k2: &'a str,
    op: &'a str,
    f1: &'a str,
    f2: &'a str,
    c: &'a str,
}

/// The loops' headers, each loop's statements before the binding, and the places the binding
/// may name.
type Loops = (Vec<String>, Vec<Vec<String>>, Places);

/// The loops around the binding in `context`; the loop variables join `bound`.
fn context_loops(
    g: &mut Gen,
    context: Context,
    bound: &mut Vec<(String, Shadowed)>,
    p: &LoopParts,
) -> Loops {
    match context {
        Context::Body => body_loops(g, p),
        Context::Sequential => sequential_loops(g, bound, p),
        Context::ParallelX | Context::NestedParallel => parallel_x_loops(g, context, bound, p),
        Context::ParallelN => parallel_n_loops(g, bound, p),
        Context::NestedSequential => nested_sequential_loops(g, bound, p),
    }
}

/// No loop: the binding in the function body, among places of fixed indices.
fn body_loops(g: &mut Gen, p: &LoopParts) -> Loops {
    let LoopParts { op, f1, .. } = *p;
    let a = g.rng.below(NX);
    let b = (a + 1 + g.rng.below(NX - 1)) % NX;
    let c2 = (0..NX).find(|&i| i != a && i != b).expect("NX >= 3");
    let j = g.rng.below(crate::NN);
    let places = Places {
        write: Some(format!("x[{a}]")),
        read: format!("x[{b}]"),
        read2: format!("x[{c2}]"),
        int: Some(format!("n[{j}]")),
        index: Some((format!("x[{B}]"), b)),
        inner_loop: vec![
            format!("for {B} in 0..x.len() {{"),
            format!("x[({B} + 1) % x.len()] {op} {f1}(x[{B}]);"),
            "}".into(),
        ],
    };
    (vec![], vec![], places)
}

/// One sequential loop over `x` (or two iterations).
fn sequential_loops(g: &mut Gen, bound: &mut Vec<(String, Shadowed)>, p: &LoopParts) -> Loops {
    let LoopParts { k, op, f2, .. } = *p;
    let range = match g.rng.below(3) {
        0 => "0..x.len()",
        1 => "(0..x.len()).rev()",
        _ => "0..2",
    };
    bound.push((k.to_string(), Shadowed::LoopVariable));
    let places = Places {
        write: Some(format!("x[{k}]")),
        read: format!("x[({k} + 1) % x.len()]"),
        read2: format!("x[({k} + 2) % x.len()]"),
        int: Some(format!("n[{k} % n.len()]")),
        index: Some((format!("x[({k} + {B}) % x.len()]"), 1 + g.rng.below(NX - 1))),
        inner_loop: vec![
            format!("for {B} in 0..2 {{"),
            format!("x[{k}] {op} {f2}(x[({k} + {B} + 1) % x.len()]);"),
            "}".into(),
        ],
    };
    let pre = vec![format!("x[({k} + 3) % x.len()] {op} {f2}(x[{k}]);")];
    (vec![format!("for {k} in {range} {{")], vec![pre], places)
}

/// A parallel loop over pairs of `x` (and, nested, a sequential loop inside it).
fn parallel_x_loops(
    g: &mut Gen,
    context: Context,
    bound: &mut Vec<(String, Shadowed)>,
    p: &LoopParts,
) -> Loops {
    let LoopParts {
        k, k2, op, f1, c, ..
    } = *p;
    bound.push((k.to_string(), Shadowed::LoopVariable));
    let inner_loop = match g.rng.below(2) {
        0 => vec![
            format!("for {B} in 0..2 {{"),
            format!("neg(x[2 * {k} + {B}]);"),
            "}".into(),
        ],
        _ => vec![
            format!("for {B} in 0..2 {{"),
            format!("x[2 * {k} + {B}] {op} {c};"),
            "}".into(),
        ],
    };
    let places = Places {
        write: Some(format!("x[2 * {k}]")),
        read: format!("x[2 * {k} + 1]"),
        read2: format!("x[2 * {k} + 1]"),
        int: None,
        index: None,
        inner_loop,
    };
    let outer = format!("for {k} in (0..x.len() / 2){P} {{");
    let outer_pre = vec![format!("x[2 * {k} + 1] {op} {f1}(x[2 * {k}]);")];
    if context == Context::ParallelX {
        (vec![outer], vec![outer_pre], places)
    } else {
        bound.push((k2.to_string(), Shadowed::LoopVariable));
        let inner_pre = vec![match g.rng.below(2) {
            0 => format!("neg(x[2 * {k} + {k2}]);"),
            _ => format!("x[2 * {k} + {k2}] {op} {c};"),
        }];
        (
            vec![outer, format!("for {k2} in 0..2 {{")],
            vec![outer_pre, inner_pre],
            places,
        )
    }
}

/// A parallel loop over `n`.
fn parallel_n_loops(g: &mut Gen, bound: &mut Vec<(String, Shadowed)>, p: &LoopParts) -> Loops {
    let LoopParts { k, op, .. } = *p;
    bound.push((k.to_string(), Shadowed::LoopVariable));
    let places = Places {
        write: None,
        read: String::new(),
        read2: String::new(),
        int: Some(format!("n[{k}]")),
        index: None,
        inner_loop: vec![
            format!("for {B} in 0..2 {{"),
            format!("inc(n[{k}]);"),
            "}".into(),
        ],
    };
    let pre = vec![match g.rng.below(2) {
        0 => format!("{}(n[{k}]);", g.rng.pick(&["inc", "dec"])),
        _ => format!("n[{k}] {op} {};", 1 + g.rng.below(3)),
    }];
    (
        vec![format!("for {k} in (0..n.len()){P} {{")],
        vec![pre],
        places,
    )
}

/// Two nested sequential loops.
fn nested_sequential_loops(
    g: &mut Gen,
    bound: &mut Vec<(String, Shadowed)>,
    p: &LoopParts,
) -> Loops {
    let LoopParts {
        k, k2, op, f1, f2, ..
    } = *p;
    bound.push((k.to_string(), Shadowed::LoopVariable));
    bound.push((k2.to_string(), Shadowed::LoopVariable));
    let places = Places {
        write: Some(format!("x[{k}]")),
        read: format!("x[({k} + {k2} + 1) % x.len()]"),
        read2: format!("x[({k} + 3) % x.len()]"),
        int: Some(format!("n[{k2}]")),
        index: Some((format!("x[({k} + {B}) % x.len()]"), 1 + g.rng.below(NX - 1))),
        inner_loop: vec![
            format!("for {B} in 0..2 {{"),
            format!("x[{k}] {op} {f2}(x[({k} + {k2} + {B} + 1) % x.len()]);"),
            "}".into(),
        ],
    };
    let outer_pre = vec![format!("x[({k} + 1) % x.len()] {op} {f1}(x[{k}]);")];
    let inner_pre = vec![format!("x[{k}] {op} {f2}(x[({k} + {k2} + 1) % x.len()]);")];
    (
        vec![
            format!("for {k} in 0..x.len() {{"),
            format!("for {k2} in 0..2 {{"),
        ],
        vec![outer_pre, inner_pre],
        places,
    )
}

/// The innermost body wrapped in the loops (from the innermost out, each after its own
/// statements), with `nocheck!` around the outermost loop or, nested, the inner one
/// (`inner_nocheck`), or around the body when there is no loop.
fn wrapped(
    body: Vec<String>,
    headers: &[String],
    pre: &[Vec<String>],
    nocheck: bool,
    inner_nocheck: bool,
) -> Vec<String> {
    let mut context_lines = body;
    for (depth, header) in headers.iter().enumerate().rev() {
        let mut wrapped = vec![header.clone()];
        if depth + 1 < headers.len() {
            wrapped.extend(pre[depth].iter().cloned());
        }
        wrapped.extend(context_lines);
        wrapped.push("}".into());
        if nocheck && depth == 1 && inner_nocheck {
            wrapped = nocheck_block(wrapped);
        }
        context_lines = wrapped;
    }
    if nocheck && !inner_nocheck {
        context_lines = nocheck_block(context_lines);
    }
    context_lines
}

fn nocheck_block(lines: Vec<String>) -> Vec<String> {
    let mut out = vec!["nocheck! {".to_string()];
    out.extend(lines);
    out.push("}".into());
    out
}

/// A binding that the places of its context allow, named `@B@`, shadowing one of `bound`.
fn binding(
    g: &mut Gen,
    places: &Places,
    bound: &[(String, Shadowed)],
    op: &str,
) -> (Shape, Vec<String>) {
    let (f1, f2) = (*g.rng.pick(UNARY), *g.rng.pick(UNARY));
    let mut kinds = vec![Binding::InnerLoop];
    if places.write.is_some() {
        kinds.extend([
            Binding::FloatLet,
            Binding::FloatRoutine,
            Binding::Constructor,
            Binding::Destructor,
        ]);
    }
    if places.int.is_some() {
        kinds.push(Binding::IntegerLet);
    }
    if places.index.is_some() {
        kinds.push(Binding::IndexLet);
    }
    let binding = *g.rng.pick(&kinds);
    let (w, r, r2) = (
        places.write.clone().unwrap_or_default(),
        &places.read,
        &places.read2,
    );
    let lines = match binding {
        Binding::FloatLet => vec![
            format!("let {B} = T::zero();"),
            format!("{B} += {f1}({r});"),
            format!("{w} {op} {f2}({B});"),
            format!("{B} -= {f1}({r});"),
            format!("dealloc!({B} = T::zero());"),
        ],
        Binding::FloatRoutine => vec![
            "routine! {".into(),
            format!("let {B} = T::zero();"),
            format!("{B} += {f1}({r});"),
            "}".into(),
            format!("{w} {op} {f2}({B});"),
            "uncompute!();".into(),
        ],
        Binding::IntegerLet => {
            let v = 1 + g.rng.below(3);
            let nt = places.int.as_ref().expect("an integer place");
            vec![
                format!("let {B} = {v}i64;"),
                format!("{nt} {op} {B};"),
                format!("dealloc!({B} = {v}i64);"),
            ]
        }
        Binding::IndexLet => {
            let (read, v) = places.index.as_ref().expect("an index read");
            vec![
                format!("let {B} = {v}usize;"),
                format!("{w} {op} {f1}({read});"),
                format!("dealloc!({B} = {v}usize);"),
            ]
        }
        Binding::InnerLoop => places.inner_loop.clone(),
        Binding::Constructor | Binding::Destructor => {
            let (t1, t2, p, u1, u2) = (
                g.fresh("t"),
                g.fresh("t"),
                g.fresh("p"),
                g.fresh("u"),
                g.fresh("u"),
            );
            let (p, u1) = match binding {
                Binding::Constructor => (B.to_string(), u1),
                _ => (p, B.to_string()),
            };
            let h = g.rng.pick(BINARY);
            vec![
                "routine! {".into(),
                format!("let {t1} = T::zero();"),
                format!("{t1} += {f1}({r});"),
                format!("let {t2} = T::zero();"),
                format!("{t2} += {f2}({r2});"),
                format!("let {p} = new!(({t1}, {t2}));"),
                format!("let ({u1}, {u2}) = fields!({p});"),
                "}".into(),
                format!("{w} {op} {u1} {h} {u2};"),
                "uncompute!();".into(),
            ]
        }
    };
    // what it shadows: a kind of name bound here, then one name of that kind
    let mut kinds: Vec<Shadowed> = bound.iter().map(|b| b.1).collect();
    kinds.dedup();
    kinds.sort();
    kinds.dedup();
    let shadowed = *g.rng.pick(&kinds);
    let names: Vec<&String> = bound
        .iter()
        .filter(|b| b.1 == shadowed)
        .map(|b| &b.0)
        .collect();
    let name = g.rng.pick(&names).to_string();
    (
        Shape::Shadow {
            binding,
            shadowed,
            name,
        },
        lines,
    )
}
