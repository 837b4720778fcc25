//! Random ordinary-Rust programs for `#[differentiable]` (issue 28): plain functions over `f64`
//! with overwrites, branches on data (some giving a scalar declared `0.0` its first value),
//! loops that carry state, `while` loops (some whose test calls a function of the state the
//! body changes), local vectors (some filled by a loop, `v[j] = e`: first writes into a fresh
//! vector, refills of one written before; some copied from a part of `x` or from another,
//! `to_vec`, and later overwritten by `copy_from_slice`; sums of their elements,
//! `v.iter().sum()`; loops over one beside `x`, `zip`), ways out (`break`, `continue` and
//! `return` in loops on a test of data, an early `return` as a guard does), local matrices
//! (`[[0.0; 3]; 2]`, `vec![vec![0.0; 3]; n]`, filled by rows and columns, read by element, by
//! row and by `len()`, written by element, walked by `for row in m.iter_mut()` and
//! `m.iter().enumerate()`), named parts of `x` (`let p = &x[1..];`, read by element, by
//! `len()`, by a part of the part and passed on), local closures (`let c = |p: f64| …;`, one
//! expression or statements, reading the immutable names around them, some whose parameter
//! hides `t`; called inside expressions, or as a `let`'s whole value), `match` on a count,
//! sums of mapped iterators
//! (`x.iter().map(|v| …).sum()`, a dot product by `zip`), `max`/`min` and calls, among them
//! calls that write a local vector (`lib_turn`, which overwrites two elements and accumulates
//! into the third) — what the front end must turn into a reversible program.
//!
//! Every program is `fn f(x: &[f64], t: f64, n: usize) -> f64` with `x.len() == ORDINARY_NX`
//! and `n` in `1..=3`. Values stay bounded by construction (products of bounded factors,
//! `tanh` around what could grow), so that central differences are meaningful.

use crate::generator::Rng;
use std::fmt::Write;

/// The length of `x` in every ordinary program.
pub const ORDINARY_NX: usize = 4;

/// The functions every program may call, themselves under `#[differentiable]`.
pub const ORDINARY_LIBRARY: &str = "
#[nilang::differentiable]
fn lib_norm(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for e in v.iter() {
        s += e * e;
    }
    (1.0 + s).sqrt()
}

#[nilang::differentiable]
fn lib_mix(a: f64, b: f64) -> f64 {
    let m = a.max(b);
    m * 0.5 + (a - b).tanh()
}

#[nilang::differentiable]
fn lib_turn(v: &[f64], a: f64, out: &mut [f64]) {
    let (c, s) = (a.cos(), a.sin());
    out[0] = c * v[0] - s * v[1];
    out[1] = s * v[0] + c * v[1];
    out[2] += 0.5 * v[2].tanh();
}
";

/// A program's variables in scope, and how deep the generator is.
struct Scope {
    /// Real scalars: name and whether it may be assigned.
    reals: Vec<(String, bool)>,
    /// Local vectors of length 3.
    vecs: Vec<String>,
    /// Local matrices of 3 columns and at least one row (`m.len()` rows).
    mats: Vec<String>,
    /// Named parts of `x` of length 3 (`let p = &x[1..];`).
    parts: Vec<String>,
    /// Index expressions valid here (loop variables).
    indices: Vec<String>,
    /// Local closures of one number: name, and whether the body has statements (then it is
    /// called only as a `let`'s whole value).
    closures: Vec<(String, bool)>,
    depth: usize,
    next: usize,
}

impl Scope {
    fn fresh(&mut self, base: &str) -> String {
        self.next += 1;
        format!("{base}{}", self.next)
    }
}

/// The ordinary program of `seed`, as source text (the function `f`, not marked: the caller
/// adds the attribute).
pub fn ordinary_function(seed: u64) -> String {
    let mut rng = Rng(seed | 1);
    let mut scope = Scope {
        reals: vec![("t".into(), false)],
        vecs: Vec::new(),
        mats: Vec::new(),
        parts: Vec::new(),
        indices: Vec::new(),
        closures: Vec::new(),
        depth: 0,
        next: 0,
    };
    let mut body = String::new();
    // two accumulators the result reads, so that the program always has state to carry
    for name in ["acc", "state"] {
        let e = expr(&mut rng, &scope, 2);
        writeln!(body, "    let mut {name} = {e};").unwrap();
        scope.reals.push((name.into(), true));
    }
    let count = 3 + rng.below(4);
    for k in 0..count {
        body.push_str(&stmt(&mut rng, &mut scope, "    "));
        if k + 1 < count && rng.below(8) == 0 {
            // an early return, as a guard does
            let (a, b) = (expr(&mut rng, &scope, 1), expr(&mut rng, &scope, 1));
            let e = expr(&mut rng, &scope, 2);
            writeln!(
                body,
                "    if {a} > {b} {{\n        return state * ({e}).tanh();\n    }}"
            )
            .unwrap();
        }
    }
    let mut result = String::from("acc + state");
    for (name, _) in scope.reals.iter().skip(3) {
        if rng.below(3) == 0 {
            write!(result, " + {name}").unwrap();
        }
    }
    format!("fn f(x: &[f64], t: f64, n: usize) -> f64 {{\n{body}    {result}\n}}\n")
}

/// A bounded real expression of depth at most `depth`.
fn expr(rng: &mut Rng, scope: &Scope, depth: usize) -> String {
    if depth == 0 || rng.below(3) == 0 {
        return leaf(rng, scope);
    }
    let a = expr(rng, scope, depth - 1);
    let b = expr(rng, scope, depth - 1);
    match rng.below(11) {
        0 => format!("{a} + {b}"),
        1 => format!("({a} - {b})"),
        2 => format!("({a}) * ({b})"),
        3 => format!("({a}).sin()"),
        4 => format!("({a}).tanh()"),
        5 => format!("({a}).cos() * {b}"),
        6 => format!("({a}).max({b})"),
        7 => format!("({a}).min({b})"),
        8 => format!("({a}) / (1.0 + ({b}) * ({b}))"),
        9 => format!("(1.0 + ({a}) * ({a})).sqrt()"),
        _ => format!("({a}).tanh().exp()"),
    }
}

fn leaf(rng: &mut Rng, scope: &Scope) -> String {
    match rng.below(9) {
        0 => format!("{:.2}_f64", rng.unit()),
        1 if !scope.indices.is_empty() => {
            let i = rng.pick(&scope.indices).clone();
            format!("x[{i}]")
        }
        2 if !scope.vecs.is_empty() => {
            let v = rng.pick(&scope.vecs).clone();
            format!("{v}[{}]", index(rng, scope))
        }
        3 => format!("x[{}]", rng.below(ORDINARY_NX)),
        4 if !scope.vecs.is_empty() && rng.below(3) == 0 => {
            let v = rng.pick(&scope.vecs).clone();
            format!("0.3 * {v}.iter().sum::<f64>()")
        }
        4 if rng.below(2) == 0 => {
            // a sum of a mapped iterator: a dot product with `x`, the closure reading a scalar
            let a = rng.pick(&scope.reals).0.clone();
            match scope.vecs.first() {
                Some(v) if rng.below(2) == 0 => {
                    format!("0.3 * x.iter().zip({v}.iter()).map(|(p, q)| p * q).sum::<f64>()")
                }
                _ => format!("0.25 * x.iter().map(|v| (v * {a}).sin()).sum::<f64>()"),
            }
        }
        5 if !scope.mats.is_empty() => {
            let m = rng.pick(&scope.mats).clone();
            let row = match scope.indices.last() {
                Some(i) => format!("{i} % {m}.len()"),
                None => format!("{m}.len() - 1"),
            };
            match rng.below(3) {
                0 => format!("0.2 * lib_norm(&{m}[{row}])"),
                1 => format!("0.3 * {m}[{row}].iter().sum::<f64>()"),
                _ => format!("{m}[{row}][{}]", index(rng, scope)),
            }
        }
        6 if !scope.parts.is_empty() => {
            let p = rng.pick(&scope.parts).clone();
            match rng.below(3) {
                0 => format!("0.2 * lib_norm({p})"),
                1 => format!("{p}[{}] * {p}.len() as f64", index(rng, scope)),
                _ => format!("{p}[1..].iter().sum::<f64>()"),
            }
        }
        7 if scope.closures.iter().any(|(_, stmts)| !stmts) => {
            let calls: Vec<_> = scope.closures.iter().filter(|(_, s)| !s).collect();
            let c = rng.pick(&calls).0.clone();
            format!("{c}({})", expr(rng, scope, 1))
        }
        _ => rng.pick(&scope.reals).0.clone(),
    }
}

/// A local closure of one number, or a call of one as a `let`'s whole value. Its body reads
/// only names nothing assigns while it lives (`x`, `t`, parts of `x`, names never assigned,
/// other closures), as Rust's borrow rules ask.
fn closure(rng: &mut Rng, scope: &mut Scope, pad: &str) -> String {
    if !scope.closures.is_empty() && rng.below(2) == 0 {
        let c = rng.pick(&scope.closures).0.clone();
        let (e, name) = (expr(rng, scope, 1), scope.fresh("a"));
        scope.reals.push((name.clone(), true));
        return format!(
            "{pad}let mut {name} = {c}({e});
"
        );
    }
    let param = if rng.below(3) == 0 { "t" } else { "p" };
    let mut reals = vec![(param.to_string(), false)];
    reals.extend(
        scope
            .reals
            .iter()
            .filter(|(n, assigned)| !assigned && n != param)
            .cloned(),
    );
    let mut inner = Scope {
        reals,
        vecs: Vec::new(),
        mats: Vec::new(),
        parts: scope.parts.clone(),
        indices: Vec::new(),
        closures: scope.closures.clone(),
        depth: scope.depth,
        next: scope.next,
    };
    let name = inner.fresh("c");
    let statements = rng.below(3) == 0;
    let body = if statements {
        let q = inner.fresh("q");
        let a = expr(rng, &inner, 2);
        inner.reals.push((q.clone(), false));
        let b = expr(rng, &inner, 1);
        format!(
            "{{
{pad}    let {q} = {a};
{pad}    {q} * ({b}).tanh()
{pad}}}"
        )
    } else {
        expr(rng, &inner, 2)
    };
    scope.next = inner.next;
    scope.closures.push((name.clone(), statements));
    format!(
        "{pad}let {name} = |{param}: f64| {body};
"
    )
}

/// A local matrix of 3 columns (two rows, or `n`), filled by rows and columns from the
/// scope; its first row's elements become targets of later writes.
fn matrix(rng: &mut Rng, scope: &mut Scope, pad: &str) -> String {
    let (m, r, c) = (scope.fresh("m"), scope.fresh("r"), scope.fresh("k"));
    let rows = if rng.below(2) == 0 {
        "[[0.0_f64; 3]; 2]"
    } else {
        "vec![vec![0.0_f64; 3]; n]"
    };
    scope.indices.push(c.clone());
    let e = expr(rng, scope, 2);
    scope.indices.pop();
    // then, now and then, a loop over its rows: scaling them, or read into `acc`
    let rows_loop = match rng.below(4) {
        0 => {
            let e = expr(rng, scope, 1);
            format!(
                "{pad}for row in {m}.iter_mut() {{\n\
                 {pad}    row[1] *= 0.5 + 0.25 * ({e}).tanh();\n{pad}}}\n"
            )
        }
        1 => format!(
            "{pad}for (i, row) in {m}.iter().enumerate() {{\n\
             {pad}    acc += 0.1 * (row[i % 3] * row.len() as f64).tanh();\n{pad}}}\n"
        ),
        _ => String::new(),
    };
    scope.mats.push(m.clone());
    format!(
        "{pad}let mut {m} = {rows};\n{pad}for {r} in 0..{m}.len() {{\n\
         {pad}    for {c} in 0..{m}[{r}].len() {{\n\
         {pad}        {m}[{r}][{c}] = 0.5 * ({e}).tanh() + x[{c}] * ({r} as f64 + 1.0);\n\
         {pad}    }}\n{pad}}}\n{rows_loop}"
    )
}

/// Three values to copy a vector from: a part of `x` or another local vector (not `except`).
fn vector_source(rng: &mut Rng, scope: &Scope, except: Option<&str>) -> String {
    let others: Vec<&String> = scope
        .vecs
        .iter()
        .filter(|v| Some(v.as_str()) != except)
        .collect();
    match rng.below(3) {
        0 if !others.is_empty() => rng.pick(&others).to_string(),
        1 => "x[1..]".to_string(),
        _ => "x[..3]".to_string(),
    }
}

/// An index into a local vector (of length 3).
fn index(rng: &mut Rng, scope: &Scope) -> String {
    match scope.indices.last() {
        Some(i) if rng.below(2) == 0 => format!("{i} % 3"),
        _ => format!("{}", rng.below(3)),
    }
}

/// A real scalar that may be assigned, if any.
fn target(rng: &mut Rng, scope: &Scope) -> Option<String> {
    let mut writable: Vec<String> = scope
        .reals
        .iter()
        .filter(|(_, w)| *w)
        .map(|(n, _)| n.clone())
        .collect();
    writable.extend(scope.mats.iter().map(|m| format!("{m}[0][1]")));
    (!writable.is_empty()).then(|| rng.pick(&writable).clone())
}

fn stmt(rng: &mut Rng, scope: &mut Scope, pad: &str) -> String {
    let nested = scope.depth < 2;
    match rng.below(if nested { 12 } else { 7 }) {
        0 | 1 if rng.below(4) == 0 => closure(rng, scope, pad),
        0 | 1 if rng.below(3) == 0 => zero_then_branch(rng, scope, pad),
        0 | 1 => {
            let e = expr(rng, scope, 2);
            let name = scope.fresh("a");
            let out = format!("{pad}let mut {name} = {e};\n");
            scope.reals.push((name, true));
            out
        }
        2 => {
            let Some(v) = target(rng, scope) else {
                return String::new();
            };
            let e = expr(rng, scope, 2);
            format!("{pad}{v} = ({e}).tanh();\n")
        }
        3 => {
            let Some(v) = target(rng, scope) else {
                return String::new();
            };
            let e = expr(rng, scope, 2);
            let op = if rng.below(2) == 0 { "+=" } else { "-=" };
            format!("{pad}{v} {op} 0.5 * ({e}).tanh();\n")
        }
        4 => {
            let Some(v) = target(rng, scope) else {
                return String::new();
            };
            let e = expr(rng, scope, 1);
            format!("{pad}{v} *= 0.5 + 0.25 * ({e}).tanh();\n")
        }
        5 if !scope.vecs.is_empty() && rng.below(3) == 0 => turn_call(rng, scope, pad),
        5 if !scope.vecs.is_empty() && rng.below(2) == 0 => {
            let v = rng.pick(&scope.vecs).clone();
            fill_loop(rng, scope, &v, pad)
        }
        5 if !scope.vecs.is_empty() && rng.below(3) == 0 => {
            let v = rng.pick(&scope.vecs).clone();
            let src = vector_source(rng, scope, Some(&v));
            format!("{pad}{v}.copy_from_slice(&{src});\n")
        }
        5 if !scope.vecs.is_empty() => {
            let v = rng.pick(&scope.vecs).clone();
            let i = index(rng, scope);
            let e = expr(rng, scope, 2);
            let op = *rng.pick(&["=", "+="]);
            format!("{pad}{v}[{i}] {op} 0.5 * ({e}).tanh();\n")
        }
        5 | 6 if rng.below(4) == 0 => matrix(rng, scope, pad),
        5 | 6 if rng.below(5) == 0 => {
            let name = scope.fresh("p");
            let range = *rng.pick(&["1..", "..3", "1..=3", "..=2"]);
            scope.parts.push(name.clone());
            format!("{pad}let {name} = &x[{range}];\n")
        }
        5 | 6 => {
            let name = scope.fresh("v");
            if rng.below(3) == 0 {
                let src = vector_source(rng, scope, None);
                let copy = format!("{pad}let mut {name} = {src}.to_vec();\n");
                scope.vecs.push(name);
                return copy;
            }
            let mut out = format!("{pad}let mut {name} = vec![0.0_f64; 3];\n");
            if rng.below(2) == 0 {
                out.push_str(&fill_loop(rng, scope, &name, pad));
            }
            scope.vecs.push(name);
            out
        }
        7 | 8 if rng.below(4) == 0 => {
            // `match` on the plain `n`: the `if` chain it means
            let (first, second) = (block(rng, scope, pad), block(rng, scope, pad));
            format!(
                "{pad}match n {{\n{pad}    1 => {{\n{first}{pad}    }}\n\
                 {pad}    2..=3 => {{\n{second}{pad}    }}\n{pad}    _ => {{}}\n{pad}}}\n"
            )
        }
        7 | 8 => loop_stmt(rng, scope, pad),
        9 => {
            let a = expr(rng, scope, 1);
            let b = expr(rng, scope, 1);
            let then = block(rng, scope, pad);
            let els = block(rng, scope, pad);
            format!("{pad}if {a} > {b} {{\n{then}{pad}}} else {{\n{els}{pad}}}\n")
        }
        10 => {
            let Some(v) = target(rng, scope) else {
                return String::new();
            };
            let c = scope.fresh("trips");
            // the test may call a function of the state the body changes: evaluated again
            // before every iteration
            let test = if rng.below(2) == 0 {
                format!("{v}.abs()")
            } else {
                format!("lib_mix({v}, t).abs()")
            };
            let brk = if rng.below(3) == 0 {
                format!("{pad}    if {v} < t {{\n{pad}        break;\n{pad}    }}\n")
            } else {
                String::new()
            };
            format!(
                "{pad}let mut {c} = 0;\n{pad}while {test} > 0.3 && {c} < 3 {{\n\
                 {pad}    {v} *= 0.5;\n{brk}{pad}    {c} += 1;\n{pad}}}\n"
            )
        }
        _ if !scope.vecs.is_empty() && rng.below(3) == 0 => turn_call(rng, scope, pad),
        _ => {
            let name = scope.fresh("c");
            let call = if rng.below(2) == 0 {
                "lib_norm(x)".to_string()
            } else {
                let (a, b) = (expr(rng, scope, 1), expr(rng, scope, 1));
                format!("lib_mix({a}, {b})")
            };
            let out = format!("{pad}let {name} = {call};\n");
            scope.reals.push((name, false));
            out
        }
    }
}

/// A scalar declared zero whose first write is in the branches of an `if` on data (in one
/// branch, or in both): a first write, which saves nothing.
fn zero_then_branch(rng: &mut Rng, scope: &mut Scope, pad: &str) -> String {
    let name = scope.fresh("z");
    let (a, b) = (expr(rng, scope, 1), expr(rng, scope, 1));
    let then = expr(rng, scope, 2);
    let els = if rng.below(2) == 0 {
        let e = expr(rng, scope, 2);
        format!(" else {{\n{pad}    {name} = ({e}).tanh();\n{pad}}}")
    } else {
        String::new()
    };
    scope.reals.push((name.clone(), true));
    format!(
        "{pad}let mut {name} = 0.0;\n{pad}if {a} > {b} {{\n{pad}    {name} = 0.5 * ({then}).tanh();\n{pad}}}{els}\n"
    )
}

/// A call that writes a local vector (`lib_turn`), from `x` or another local vector; its
/// angle may read the vector written.
fn turn_call(rng: &mut Rng, scope: &Scope, pad: &str) -> String {
    let dst = rng.pick(&scope.vecs).clone();
    let others: Vec<&String> = scope.vecs.iter().filter(|v| **v != dst).collect();
    let src = if others.is_empty() || rng.below(2) == 0 {
        "x".to_string()
    } else {
        format!("&{}", rng.pick(&others))
    };
    let a = expr(rng, scope, 1);
    format!("{pad}lib_turn({src}, {a}, &mut {dst});\n")
}

/// A loop that fills the vector `v` (`v[j] = e` for each `j`: into a fresh vector the front
/// end's first writes, which save nothing; into one written before a refill, whose old values
/// are saved before the loop unless `e` reads `v`), or now and then one that is neither (an
/// index other than `j`, or a second write of `v` in the loop).
fn fill_loop(rng: &mut Rng, scope: &mut Scope, v: &str, pad: &str) -> String {
    let j = scope.fresh("j");
    let header = match rng.below(3) {
        0 => format!("for {j} in 0..3"),
        1 => format!("for {j} in (0..3).rev()"),
        _ => format!("for {j} in 0..=2"),
    };
    let e = expr(rng, scope, 2);
    let index = if rng.below(4) == 0 {
        format!("2 - {j}")
    } else {
        j.clone()
    };
    let mut body = format!("{pad}    {v}[{index}] = 0.5 * ({e}).tanh() + x[{j}];\n");
    if rng.below(4) == 0 {
        writeln!(body, "{pad}    {v}[{j}] *= 0.5;").unwrap();
    }
    format!("{pad}{header} {{\n{body}{pad}}}\n")
}

/// A nested block: its own bindings go out of scope at its end.
fn block(rng: &mut Rng, scope: &mut Scope, pad: &str) -> String {
    let (reals, vecs) = (scope.reals.len(), scope.vecs.len());
    let (mats, parts, closures) = (scope.mats.len(), scope.parts.len(), scope.closures.len());
    scope.depth += 1;
    let inner = format!("{pad}    ");
    let mut out = String::new();
    for _ in 0..1 + rng.below(3) {
        out.push_str(&stmt(rng, scope, &inner));
    }
    scope.depth -= 1;
    scope.reals.truncate(reals);
    scope.vecs.truncate(vecs);
    scope.mats.truncate(mats);
    scope.parts.truncate(parts);
    scope.closures.truncate(closures);
    out
}

fn loop_stmt(rng: &mut Rng, scope: &mut Scope, pad: &str) -> String {
    let i = scope.fresh("i");
    let reals = scope.reals.len();
    // the vector a `zip` walks, borrowed by the loop: the body does not write it
    let mut walked = None;
    let header = match rng.below(4) {
        0 => format!("for {i} in 0..x.len()"),
        1 => format!("for {i} in 0..n"),
        // beside a local vector (three elements: the loop stops there, as `zip` does), its
        // elements read in the body
        2 if !scope.vecs.is_empty() => {
            let at = rng.below(scope.vecs.len());
            let v = scope.vecs.remove(at);
            walked = Some((at, v.clone()));
            scope.reals.push((format!("e{i}"), false));
            scope.reals.push((format!("f{i}"), false));
            format!("for ({i}, (&e{i}, &f{i})) in x.iter().zip({v}.iter()).enumerate()")
        }
        _ => format!("for ({i}, e{i}) in x.iter().enumerate()"),
    };
    let over_x = !header.contains("0..n");
    if over_x {
        scope.indices.push(i.clone());
    }
    let mut body = block(rng, scope, pad);
    if let Some(exit) = exit(rng, scope, pad) {
        // a way out between two parts of the body: what follows it runs only when not taken
        body.push_str(&exit);
        body.push_str(&block(rng, scope, pad));
    }
    if over_x {
        scope.indices.pop();
    }
    scope.reals.truncate(reals);
    if let Some((at, v)) = walked {
        scope.vecs.insert(at, v);
    }
    format!("{pad}{header} {{\n{body}{pad}}}\n")
}

/// Now and then a way out of the loop being written, on a test of data: `break`, `continue`
/// or `return` of a value.
fn exit(rng: &mut Rng, scope: &Scope, pad: &str) -> Option<String> {
    let way = match rng.below(6) {
        0 => "break".to_string(),
        1 => "continue".to_string(),
        2 => format!("return acc + 0.5 * ({}).tanh()", expr(rng, scope, 1)),
        _ => return None,
    };
    let (a, b) = (expr(rng, scope, 1), expr(rng, scope, 1));
    Some(format!(
        "{pad}    if {a} > {b} {{\n{pad}        {way};\n{pad}    }}\n"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_parse_as_rust_and_differ_by_seed() {
        let a = ordinary_function(1);
        let b = ordinary_function(2);
        assert_ne!(a, b);
        for seed in 1..200 {
            let f = ordinary_function(seed);
            syn::parse_str::<syn::ItemFn>(&f).unwrap_or_else(|e| panic!("{e}\n{f}"));
        }
    }
}
