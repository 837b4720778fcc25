//! Routines are IR nodes: `routine! { P } X uncompute!()` and `expand!`'s nested expressions
//! parse to `StmtKind::Routine`, reverse to `routine! { P } ~X uncompute!()`, print back to
//! the same program, and the structural rules that read them (the fused gradient's shape, the
//! computation on values alone in adjoint programs) find them at any depth.

use nilang_ir::adjoint::{allocated_just_before, computes_on_values, routine_block};
use nilang_ir::adjoint_view::adjoint_text;
use nilang_ir::ast::{Stmt, StmtKind};
use nilang_ir::effects::Only;
use nilang_ir::reverse::reverse_block;
mod common;
use common::{parse, text};

/// The compute and body of a routine statement.
fn parts(s: &Stmt) -> (&[Stmt], &[Stmt]) {
    match &s.kind {
        StmtKind::Routine { compute, body } => (compute, body),
        other => panic!("not a routine: {other:?}"),
    }
}

/// `out += exp(Σ sin x[i])`, the sum in a routine.
const EXP_SUM: &str = r#"
    #[i]
    fn exp_sum<T: Real>(out: &mut T, x: &mut [T]) {
        let s = T::zero();
        routine! {
            for k in 0..x.len() {
                s += sin(x[k]);
            }
        }
        out += exp(s);
        uncompute!();
        dealloc!(s = T::zero());
    }
"#;

#[test]
fn a_routine_is_one_node_with_its_computation_and_body() {
    let f = parse(EXP_SUM);
    assert_eq!(f.body.len(), 3, "{}", text(&f.body));
    let (compute, body) = parts(&f.body[1]);
    assert_eq!(compute.len(), 1);
    assert!(matches!(compute[0].kind, StmtKind::For { .. }));
    assert_eq!(text(body), "out += exp(s);");
    let shape = routine_block(&f.body).expect("L P X ~P D");
    assert_eq!(shape.allocs.len(), 1);
    assert_eq!(shape.compute.len(), 1);
    assert_eq!(shape.body.len(), 1);
}

#[test]
fn the_inverse_keeps_the_computation_and_reverses_the_body() {
    let f = parse(EXP_SUM);
    let inverse = reverse_block(&f.body);
    let (compute, body) = parts(&inverse[1]);
    assert_eq!(text(compute), text(parts(&f.body[1]).0));
    assert_eq!(text(body), "out -= exp(s);");
    assert_eq!(text(&reverse_block(&inverse)), text(&f.body));
}

#[test]
fn the_printed_routine_parses_back_to_the_same_program() {
    let f = parse(EXP_SUM);
    let printed = text(&f.body);
    assert!(printed.contains("routine !{"), "{printed}");
    assert!(printed.contains("uncompute !();"), "{printed}");
    let again = parse(&format!(
        "#[i] fn exp_sum<T: Real>(out: &mut T, x: &mut [T]) {{ {printed} }}"
    ));
    assert_eq!(text(&again.body), printed);
}

#[test]
fn nested_routines_nest_and_an_unfinished_one_runs_as_written() {
    let f = parse(
        r#"
        #[i]
        fn f<T: Real>(y: &mut T, x: &mut T) {
            let a = T::zero();
            let b = T::zero();
            routine! { a += sin(x); }
            routine! { b += cos(a); }
            y += a * b;
            uncompute!();
            uncompute!();
            routine! { y += exp(x); }
            dealloc!(a = T::zero(), b = T::zero());
        }
    "#,
    );
    assert_eq!(f.body.len(), 5, "{}", text(&f.body));
    let (outer_compute, outer_body) = parts(&f.body[2]);
    assert_eq!(text(outer_compute), "a += sin(x);");
    assert_eq!(outer_body.len(), 1);
    let (inner_compute, inner_body) = parts(&outer_body[0]);
    assert_eq!(text(inner_compute), "b += cos(a);");
    assert_eq!(text(inner_body), "y += a * b;");
    // the routine without `uncompute!()` is its computation, as written
    assert_eq!(text(&f.body[3..4]), "y += exp(x);");
}

#[test]
fn expand_makes_a_routine_of_a_nested_expression() {
    let f = parse(
        r#"
        #[i(expand)]
        fn f<T: Real>(y: &mut T, x: &mut T) {
            y += sin(x * 2.0);
        }
    "#,
    );
    assert_eq!(f.body.len(), 1);
    let (compute, body) = parts(&f.body[0]);
    assert!(matches!(compute[0].kind, StmtKind::Alloc(_)));
    assert!(text(body).starts_with("y += sin("), "{}", text(body));
}

#[test]
fn a_routine_that_writes_only_fresh_ancillas_computes_on_values() {
    let f = parse(EXP_SUM);
    let (compute, _) = parts(&f.body[1]);
    let own = &f.sig.ident;
    assert!(computes_on_values(compute, &allocated_just_before(&f.body, 1), own).always());
    // without `s` being fresh, the computation writes a live ancilla
    assert!(matches!(computes_on_values(compute, &[], own), Only::No));
    let g = parse(
        r#"
        #[i]
        fn g<T: Real>(y: &mut T, x: &mut T) {
            routine! { x += identity(y); }
            y += exp(x);
            uncompute!();
        }
    "#,
    );
    let (compute, _) = parts(&g.body[0]);
    let fresh = allocated_just_before(&g.body, 0);
    assert!(matches!(
        computes_on_values(compute, &fresh, &g.sig.ident),
        Only::No
    ));
}

#[test]
fn a_routine_inside_a_loop_computes_on_values_in_the_adjoint() {
    let f = parse(
        r#"
        #[i]
        fn f<T: Real>(y: &mut [T], x: &mut [T]) {
            for i in 0..x.len() {
                let t = T::zero();
                routine! { t += exp(x[i]); }
                y[i] += exp(t);
                uncompute!();
                dealloc!(t = T::zero());
            }
        }
    "#,
    );
    let adjoint = adjoint_text(&f);
    // `t += exp(x[i])` moves no gradient (t's is zero); only its uncomputation does
    assert_eq!(adjoint.matches("x_grad[i] +=").count(), 1, "{adjoint}");
    assert!(adjoint.contains("t += exp(x[i]);"), "{adjoint}");
}
