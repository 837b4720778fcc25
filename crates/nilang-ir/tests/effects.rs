//! Call effects: which places statements may write, a call's arguments counting only when the
//! callee's published effects (`g::WRITES`) say it writes them; and the routine rules that
//! read them (`computes_on_values`, `uncomputation_is_dead`).

use nilang_ir::adjoint::uncomputation_is_dead;
use nilang_ir::adjoint::{allocated_just_before, computes_on_values, deallocated_just_after};
use nilang_ir::ast::{Stmt, StmtKind};
use nilang_ir::effects::{effects_path, writes, Only};
use nilang_ir::{Analyzed, Function};
use quote::ToTokens;

fn parse(src: &str) -> Analyzed {
    let mut functions = nilang_ir::parse_file(src).unwrap();
    assert_eq!(functions.len(), 1);
    functions.pop().unwrap()
}

/// `(root, callee, argument)` of every write; `"-"` for a direct write.
fn summary(stmts: &[Stmt], f: &Function) -> Vec<(String, String, usize)> {
    writes(stmts, &f.sig.ident)
        .into_iter()
        .map(|w| match w.through {
            None => (w.root, "-".into(), 0),
            Some((g, k)) => (w.root, g.to_token_stream().to_string().replace(' ', ""), k),
        })
        .collect()
}

fn routine(s: &Stmt) -> &[Stmt] {
    match &s.kind {
        StmtKind::Routine { compute, .. } => compute,
        other => panic!("not a routine: {other:?}"),
    }
}

const THROUGH_A_CALL: &str = r#"
    #[i]
    fn f<T: Real>(out: &mut T, x: &mut [T], s: &mut T) {
        let t = vec![T::zero(); x.len()];
        routine! {
            m::scaled::<T>(t, x, s);
        }
        for j in 0..x.len() {
            out += exp(t[j]);
        }
        uncompute!();
        dealloc!(t = vec![T::zero(); x.len()]);
    }
"#;

#[test]
fn a_call_writes_its_arguments_through_the_callee() {
    let f = parse(THROUGH_A_CALL);
    let compute = routine(&f.body[1]);
    let w = summary(compute, &f);
    // the turbofish is not part of the effects' path
    let through = |r: &str, k| (r.to_string(), "m::scaled".to_string(), k);
    assert_eq!(w, vec![through("t", 0), through("x", 1), through("s", 2)]);
    // the whole body: `out` directly, the rest through the call (in P and in ~P alike)
    let all = summary(&f.body, &f);
    assert!(all.contains(&("out".into(), "-".into(), 0)), "{all:?}");
}

#[test]
fn a_routine_through_a_call_depends_on_the_callee() {
    let f = parse(THROUGH_A_CALL);
    let compute = routine(&f.body[1]);
    let fresh = allocated_just_before(&f.body, 1);
    let dying = deallocated_just_after(&f.body, 1);
    assert_eq!(
        (fresh.as_slice(), dying.as_slice()),
        (&["t".to_string()][..], &["t".to_string()][..])
    );
    for only in [
        computes_on_values(compute, &fresh, &f.sig.ident),
        uncomputation_is_dead(compute, &dying, &f.sig.ident),
    ] {
        // `t` is allowed; `x` and `s` only if `scaled` does not write its arguments 1 and 2
        let Only::UnlessCalls(calls) = &only else {
            panic!("{only:?}")
        };
        let args: Vec<usize> = calls.iter().map(|(_, k)| *k).collect();
        assert_eq!(args, vec![1, 2]);
        let cond = only
            .callees_condition(&quote::quote!(p))
            .unwrap()
            .to_string();
        assert!(
            cond.contains("p :: writes (m :: scaled :: WRITES , 1usize)"),
            "{cond}"
        );
    }
    // without `t` dying right after, the uncomputation would restore a live ancilla: dead
    // only if `scaled` wrote none of its arguments
    let Only::UnlessCalls(calls) = uncomputation_is_dead(compute, &[], &f.sig.ident) else {
        panic!("conditional on the callee")
    };
    assert_eq!(
        calls.iter().map(|(_, k)| *k).collect::<Vec<_>>(),
        vec![0, 1, 2]
    );
}

#[test]
fn direct_writes_decide_without_the_callees() {
    let f = parse(
        r#"
        #[i]
        fn f<T: Real>(out: &mut T, x: &mut [T]) {
            let t = T::zero();
            routine! {
                t += exp(x[0]);
                x[1] += identity(t);
            }
            out += identity(t);
            uncompute!();
            dealloc!(t = T::zero());
        }
    "#,
    );
    let compute = routine(&f.body[1]);
    let fresh = allocated_just_before(&f.body, 1);
    assert!(matches!(
        computes_on_values(compute, &fresh, &f.sig.ident),
        Only::No
    ));
    let g = parse(
        r#"
        #[i]
        fn g<T: Real>(out: &mut T, x: &mut [T]) {
            let t = T::zero();
            routine! { t += exp(x[0]); }
            out += identity(t);
            uncompute!();
            dealloc!(t = T::zero());
        }
    "#,
    );
    let compute = routine(&g.body[1]);
    let fresh = allocated_just_before(&g.body, 1);
    assert!(computes_on_values(compute, &fresh, &g.sig.ident).always());
    assert!(uncomputation_is_dead(compute, &fresh, &g.sig.ident).always());
}

#[test]
fn unknown_callees_write_every_argument() {
    let f = parse(
        r#"
        #[i]
        fn f<T: Real>(a: &mut T, b: &mut T, c: &mut T, d: &mut T, e: &mut T) {
            f(a, b, c, d, e);
            Self::g(a);
            Model::h(b);
            model.m(c);
            <T as Trait>::k(d);
            self::ok::<T>(e);
        }
    "#,
    );
    let own = &f.sig.ident;
    let callee = |i: usize| match &f.body[i].kind {
        StmtKind::Call { call, .. } => effects_path(&call.callee, own),
        other => panic!("not a call: {other:?}"),
    };
    for i in 0..5 {
        assert!(callee(i).is_none(), "statement {i}");
    }
    let ok = callee(5).expect("a path to a function");
    assert_eq!(ok.to_token_stream().to_string(), "self :: ok");
    let all = summary(&f.body, &f);
    let direct = all.iter().filter(|(_, g, _)| g == "-").count();
    assert_eq!(direct, 5 + 1 + 1 + 1 + 1, "{all:?}");
}
