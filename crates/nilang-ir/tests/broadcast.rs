//! Broadcast statements (`y[..] += a * x[..]`) are lowered by the parser to a `for` loop of
//! the element statement, so that every view — reversal, the printed program, bounds
//! hoisting, the static checks — reads an ordinary loop; the loop carries its origin, the
//! slices, in `RangeSpec::broadcast`.

use nilang_ir::adjoint_view::adjoint_text;
use nilang_ir::ast::{Stmt, StmtKind};
use nilang_ir::bounds::{hoistable, numbered_locals};
use nilang_ir::print::block_tokens;
use nilang_ir::reverse::function_text;
use nilang_ir::reverse::reverse_block;
use nilang_ir::scope::Scope;
use nilang_ir::text::{expr_text, tokens_text};
use nilang_ir::Analyzed;

fn parse(src: &str) -> Analyzed {
    let mut functions = nilang_ir::parse_file(src).unwrap();
    assert_eq!(functions.len(), 1);
    functions.pop().unwrap()
}

fn errors(src: &str) -> String {
    let e = nilang_ir::parse_file(src).unwrap_err();
    e.into_iter().map(|e| e.to_string() + "\n").collect()
}

fn text(stmts: &[Stmt]) -> String {
    tokens_text(&block_tokens(stmts))
}

/// The loop variable, the slices (`y, x`) and the body of a broadcast loop.
fn lowered(s: &Stmt) -> (String, String, String) {
    let StmtKind::For { var, range, body } = &s.kind else {
        panic!("not a loop: {:?}", s.kind)
    };
    let Some(b) = &range.broadcast else {
        panic!("not a broadcast: {}", s.source)
    };
    assert!(range.step.is_none() && !range.inclusive && !range.parallel);
    assert_eq!(expr_text(&range.start), "0");
    // the loop runs to the first slice's length
    assert_eq!(
        expr_text(&range.end),
        format!("{}.len()", expr_text(&b.slices[0]))
    );
    let slices: Vec<String> = b.slices.iter().map(expr_text).collect();
    (var.to_string(), slices.join(", "), text(body))
}

const AXPY: &str = r#"
    #[i(nocheck)]
    fn axpy<T: Real>(y: &mut [T], a: &T, x: &[T], z: &mut [T], i: usize) {
        y[..] += a * x[..];
        swap(y[..], z[..]);
        rot(y[..], z[..], x[i]);
        g(y[..]);
    }
"#;

#[test]
fn a_broadcast_is_a_loop_of_its_element_statement() {
    let f = parse(AXPY);
    let (var, slices, body) = lowered(&f.body[0]);
    // the function reads `i` (a parameter): the loop takes a name it does not use
    assert_eq!(var, "j");
    assert_eq!(body, "y[j] += a * x[j];");
    assert_eq!(slices, "y, x");
    // the loop keeps the user's statement as its source (runtime errors name it)
    assert_eq!(f.body[0].source, "y[..] += a * x[..];");
    let (_, _, body) = lowered(&f.body[1]);
    assert_eq!(body, "swap(y[j], z[j]);");
    // the same name in every broadcast of the function
    let (var, _, body) = lowered(&f.body[2]);
    assert_eq!(
        (var.as_str(), body.as_str()),
        ("j", "rot(y[j], z[j], x[i]);")
    );
    // a call's `x[..]` is the whole slice, as in Rust
    assert!(matches!(f.body[3].kind, StmtKind::Call { .. }));
}

#[test]
fn the_inverse_runs_the_inverse_element_statement_backwards() {
    let f = parse(AXPY);
    let inv = reverse_block(&f.body[..3]);
    let bodies: Vec<String> = inv.iter().map(|s| lowered(s).2).collect();
    assert_eq!(
        bodies,
        [
            "irot(y[j], z[j], x[i]);",
            "swap(y[j], z[j]);",
            "y[j] -= a * x[j];"
        ]
    );
    assert!(inv
        .iter()
        .all(|s| matches!(&s.kind, StmtKind::For { range, .. } if range.rev)));
    assert_eq!(text(&reverse_block(&inv)), text(&f.body[..3]));
    // the inverse loops are broadcasts over the same slices, named by their inverse statement
    let slices: Vec<String> = inv.iter().map(|s| lowered(s).1).collect();
    assert_eq!(slices, ["y, z", "y, z", "y, x"]);
    let sources: Vec<&str> = inv.iter().map(|s| s.source.as_str()).collect();
    assert_eq!(
        sources,
        [
            "irot(y[..], z[..], x[i]);",
            "swap(y[..], z[..]);",
            "y[..] -= a * x[..];"
        ]
    );
}

/// A loop is a broadcast by its origin only: a hand-written loop whose end is a call of
/// `broadcast_len` (as the lowering once wrote it) is an ordinary loop.
#[test]
fn a_loop_ending_in_broadcast_len_is_not_a_broadcast() {
    let f = parse(
        r#"
        #[i]
        fn f(y: &mut [f64], x: &mut [f64]) {
            for i in 0..::nilang::__private::broadcast_len("f", "y[..] += x[..];", &[("y", y.len()), ("x", x.len())]) {
                y[i] += identity(x[i]);
            }
        }
    "#,
    );
    let StmtKind::For { range, .. } = &f.body[0].kind else {
        panic!()
    };
    assert!(range.broadcast.is_none());
    assert!(function_text(&f).contains("for i in 0..::nilang::__private::broadcast_len("));
    // the checker reports its places as written (`x[i]`), not as a broadcast's (`x[..]`)
    let e = errors(
        r#"
        #[i]
        fn f(y: &mut [f64]) {
            for i in 0..::nilang::__private::broadcast_len("f", "", &[("y", y.len())]) {
                y[i] += identity(y[i]);
            }
        }
    "#,
    );
    assert!(
        e.starts_with("`y[i]` is both the target and an operand"),
        "{e}"
    );
}

#[test]
fn the_printed_program_and_adjoint_show_the_loop() {
    let f = parse(AXPY);
    let program = function_text(&f);
    for line in [
        "    for j in broadcast!(y, x) {",
        "    for j in broadcast!(y, z).rev() {",
        "        y[j] += a * x[j];",
        "        swap(y[j], z[j]);",
        "        irot(y[j], z[j], x[i]);",
        "        y[j] -= a * x[j];",
    ] {
        assert!(program.contains(line), "{line}\n{program}");
    }
    // the adjoint names the element instruction's rule
    let f = parse(
        "#[i] fn mul<T: Real>(y: &mut [T], x: &mut [T], w: &mut [T]) { y[..] += x[..] * w[..]; }",
    );
    let adjoint = adjoint_text(&f);
    for line in [
        "        y[i] -= x[i] * w[i];",
        "        x_grad[i] += y_grad[i] * d0_mul(x[i], w[i]);",
        "        w_grad[i] += y_grad[i] * d1_mul(x[i], w[i]);",
    ] {
        assert!(adjoint.contains(line), "{line}\n{adjoint}");
    }
}

#[test]
fn bounds_checks_of_the_element_statement_are_hoisted() {
    let f = parse(AXPY);
    let StmtKind::For { var, range, body } = &f.body[0].kind else {
        unreachable!()
    };
    let scope = Scope::for_function(&f);
    let hoisted: Vec<String> = hoistable(var, range, body, &scope, &mut numbered_locals())
        .hoisted
        .iter()
        .map(|h| format!("{}[{}]", h.root, expr_text(&h.index)))
        .collect();
    assert_eq!(hoisted, ["y[j]", "x[j]"]);
}

#[test]
fn fields_rows_constants_and_expand() {
    let f = parse(
        r#"
        #[i]
        fn f<T: Real>(z: &mut [Complex<T>], m: &mut [Vec<T>], x: &[T], k: usize) {
            z[..].re += square(x[..]);
            m[k][..] -= identity(x[..] * 2.0);
            expand! { m[0][..] += sin(z[..].im) * x[..]; }
        }
    "#,
    );
    let (_, slices, body) = lowered(&f.body[0]);
    assert_eq!(body, "z[i].re += square(x[i]);");
    assert_eq!(slices, "z, x");
    let (_, slices, body) = lowered(&f.body[1]);
    assert_eq!(body, "m[k][i] -= identity((x[i] * 2.0));");
    assert_eq!(slices, "m[k], x");
    // a constant operand reading a slice is an expression of the index too
    // expand!: the routine computing the product's ancilla is the loop's body
    let StmtKind::For { body, .. } = &f.body[2].kind else {
        panic!()
    };
    assert!(matches!(body[0].kind, StmtKind::Routine { .. }));
    assert!(!text(body).contains(".."), "{}", text(body));
}

#[test]
fn malformed_broadcasts_are_rejected_with_help() {
    let e = errors(
        r#"
        #[i]
        fn f(s: &mut f64, a: &mut [f64], b: &mut f64, m: &mut [Vec<f64>], y: &mut [f64]) {
            s += sin(a[..]);
            swap(a[..], b);
            m[..][..] += identity(a[..]);
            y[..] += a[..] * y[..];
            y[..] += a[..] * a[..];
        }
    "#,
    );
    let lines: Vec<&str> = e.lines().collect();
    assert_eq!(lines.len(), 10, "{e}");
    assert!(lines[0]
        .starts_with("`s` is not a whole slice, but this statement names whole slices (`a[..]`)"));
    assert!(lines[1].starts_with("help: write `s[..]`"));
    assert!(
        lines[1].contains("`for i in 0..a.len() { s += … a[i] …; }`"),
        "{}",
        lines[1]
    );
    assert!(lines[3].starts_with("help: write `b[..]`: a broadcast `swap` changes each element"));
    assert!(lines[4].starts_with("`m[..][..]` takes whole slices twice"));
    assert_eq!(lines[6], "`y[..]` is both the target and an operand of this instruction, which would not be reversible");
    assert_eq!(lines[7], "help: copy it into an ancilla first");
    assert_eq!(lines[8], "`a[..]` is used twice in one instruction: its gradient would be written twice (shared write)");
}

/// `par! { … }`: each broadcast's loop is parallel (parsing succeeded, so the checker proved
/// its iterations disjoint), keeps its origin, and its inverse is parallel too.
#[test]
fn par_makes_the_loops_of_broadcasts_parallel() {
    let f = parse(
        r#"
        #[i]
        fn f<T: Real>(y: &mut [T], a: &mut T, x: &mut [T], z: &mut [Complex<T>]) {
            par! {
                y[..] += a * x[..];
                z[..].re += square(x[..]);
                expand! { y[..] += sin(x[..]) * a; }
            }
            x[..] += identity(a);
        }
    "#,
    );
    let parallel = |s: &Stmt| matches!(&s.kind, StmtKind::For { range, .. } if range.parallel);
    assert!(f.body[..3].iter().all(parallel));
    assert!(!parallel(&f.body[3]));
    assert_eq!(lowered_par(&f.body[1]), "z, x");
    let inv = reverse_block(&f.body);
    assert!(inv[1..].iter().all(parallel));
    assert_eq!(lowered_par(&inv[3]), "y, x");
    let program = function_text(&f);
    for line in [
        "    for i in broadcast!(y, x).par() {",
        "    for i in broadcast!(y, x).rev().par() {",
    ] {
        assert!(program.contains(line), "{line}\n{program}");
    }
}

/// The slices of a parallel broadcast's loop.
fn lowered_par(s: &Stmt) -> String {
    let StmtKind::For { range, .. } = &s.kind else {
        panic!()
    };
    assert!(range.parallel);
    let mut plain = s.clone();
    if let StmtKind::For { range, .. } = &mut plain.kind {
        range.parallel = false;
    }
    lowered(&plain).1
}

#[test]
fn malformed_par_broadcasts_are_rejected_with_help() {
    let e = errors(
        r#"
        #[i]
        fn f(s: &mut f64, a: &mut [f64], m: &mut [Vec<f64>], y: &mut [f64]) {
            par! {
                s += identity(a[0]);
                m[0][..] += identity(a[..]);
                par! { y[..] += identity(a[..]); }
            }
        }
    "#,
    );
    let lines: Vec<&str> = e.lines().collect();
    assert_eq!(lines.len(), 6, "{e}");
    assert!(lines[0].starts_with(
        "`par!` runs broadcast statements in parallel, and `s += identity(a[0]);` is not one"
    ));
    assert!(
        lines[1].contains("`for i in (0..n).par() { … }`"),
        "{}",
        lines[1]
    );
    assert!(lines[2].starts_with("`m[0][..]` is not a variable's elements"));
    assert_eq!(lines[4], "this broadcast is in `par!` twice");
}
