//! The released form (`nilang_ir::adjoint::released_before_dealloc`,
//! `released_after_routine`): `t -= f(x)` on an ancilla deallocated as zero right after, so an
//! unchecked adjoint may take `f(x)` from `t`; and the dead-value analysis, which must count
//! that form as a read of `t`.

mod common;

use common::parse;
use nilang_ir::adjoint::{released_after_routine, released_before_dealloc};
use nilang_ir::ast::StmtKind;
use nilang_ir::dead_values::dead_in_uncomputation;
use nilang_ir::reverse::reverse_block;

/// The body of the inverse of the one function in `src` (the order an adjoint program runs).
fn inverse_body(src: &str) -> Vec<nilang_ir::ast::Stmt> {
    reverse_block(&parse(src).body.clone())
}

#[test]
fn every_zero_the_front_end_writes_releases() {
    for zero in ["T::zero()", "0.0", "-0.0", "T::lit(-0.0)", "T1::lit(0.0)"] {
        let src = format!(
            "#[i] fn f<T: Real>(y: &mut T, x: &T) {{ let t = {zero}; t += exp(x); y += identity(t); \
             t -= exp(x); dealloc!(t = {zero}); }}"
        );
        let body = parse(&src).body.clone();
        let k = body.len() - 2;
        assert!(released_before_dealloc(&body, k), "{zero}");
    }
    let src =
        "#[i] fn f<T: Real>(y: &mut T, x: &T) { let t = T::zero(); t += exp(x); y += identity(t); \
               t -= exp(x); dealloc!(t = T::lit(1.0)); }";
    let body = parse(src).body.clone();
    assert!(!released_before_dealloc(&body, body.len() - 2));
}

#[test]
fn a_nested_operand_releases_through_its_routine() {
    // `expand!` lowers `t += exp(x - a)` to a routine computing `x - a` into an ancilla; in
    // the inverse the routine's body is `t -= exp(…)`, and `t` is deallocated right after
    let src = "#[i] fn f<T: Real>(y: &mut T, x: &mut T, a: &mut T, s: &mut Vec<T>) { let t = T::lit(-0.0); \
               expand! { t += exp(x - a); } y += identity(t); push!(s, t); \
               dealloc!(t = T::lit(-0.0)); }";
    let inv = inverse_body(src);
    let routine = inv
        .iter()
        .position(|s| matches!(s.kind, StmtKind::Routine { .. }))
        .expect("the nested operand's routine");
    let (_, instr) = released_after_routine(&inv, routine).expect("released");
    assert_eq!(instr.target.root.to_string(), "t");
    // something that reads `t` between the routine and the deallocation: not released
    let src = src.replace(
        "T::lit(-0.0); expand!",
        "T::lit(-0.0); y += identity(t); expand!",
    );
    let inv = inverse_body(&src);
    let routine = inv
        .iter()
        .position(|s| matches!(s.kind, StmtKind::Routine { .. }))
        .unwrap();
    assert!(released_after_routine(&inv, routine).is_none());
}

#[test]
fn a_released_ancilla_is_not_a_dead_value() {
    // `t` holds `exp(x − a) + x·a` inside the routine; its uncomputation takes `x·a` back out,
    // and the released `t -= exp(x − a)` after it reads `t`: the routine may not drop `t`'s
    // values
    let src = "#[i] fn f<T: Real>(y: &mut T, x: &mut T, a: &mut T) { let t = T::lit(-0.0); \
               expand! { t += exp(x - a); } routine! { t += x * a; } y += identity(t); \
               uncompute!(); expand! { t -= exp(x - a); } dealloc!(t = T::lit(-0.0)); }";
    let body = parse(src).body.clone();
    let outer = body
        .iter()
        .position(|s| matches!(s.kind, StmtKind::Routine { ref compute, .. } if compute.len() == 1 && matches!(compute[0].kind, StmtKind::Instr(_))))
        .expect("the routine of `t += x * a`");
    assert!(dead_in_uncomputation(&body, outer).is_empty());
    // without the release (the deallocation is of another value), nothing reads `t` after
    // the routine: its values are dead there
    let unreleased = src.replace(
        "dealloc!(t = T::lit(-0.0)); }",
        "dealloc!(t = T::lit(1.0)); }",
    );
    let body = parse(&unreleased).body.clone();
    assert_eq!(dead_in_uncomputation(&body, outer).len(), 1);
}
