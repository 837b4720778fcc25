//! Reversible constructors and destructors: `let z = new!(…)` and `let … = fields!(z)` parse
//! to one `StmtKind::Fields` node, reverse to each other (reversal stays an involution),
//! print back as written, give every name they move a shadow in the adjoint view (built and
//! taken apart beside the values), write every name they move, and the checker rejects a
//! consumed name used afterwards.

use nilang_ir::adjoint::ancillas_with_gradients;
use nilang_ir::adjoint_view::adjoint_text;
use nilang_ir::ast::StmtKind;
use nilang_ir::reverse::reverse_block;
mod common;
use common::{parse, text};

const BUILD: &str = r#"
    #[i]
    fn build<T: Real>(out: &mut T, x: &T) {
        let a = T::zero();
        let b = T::zero();
        a += identity(x);
        let z = new!(Complex { re: a, im: b });
        let t = new!((z,));
        out += sin(t.0.re);
        let (z,) = fields!(t);
        let Complex { re: a, im: b } = fields!(z);
        a -= identity(x);
        dealloc!(a = T::zero(), b = T::zero());
    }
"#;

#[test]
fn constructor_and_destructor_are_each_others_inverse() {
    let f = parse(BUILD);
    let fields: Vec<_> = f
        .body
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Fields(fl) => Some(fl),
            _ => None,
        })
        .collect();
    assert_eq!(fields.len(), 4);
    assert!(fields[0].construct && fields[1].construct);
    assert!(!fields[2].construct && !fields[3].construct);
    let inverse = reverse_block(&f.body);
    // the inverse's 4th statement from the end undoes the constructor of `z`
    let z = inverse.iter().find_map(|s| match &s.kind {
        StmtKind::Fields(fl) if fl.whole == "z" && !fl.construct => Some(s),
        _ => None,
    });
    assert_eq!(
        z.map(|s| s.source.as_str()),
        Some("let Complex { re: a, im: b } = fields!(z);")
    );
    assert_eq!(text(&reverse_block(&inverse)), text(&f.body));
    assert_eq!(
        nilang_ir::constructors::fields_text(fields[1]),
        "let t = new!((z,));"
    );
    nilang_ir::check::check_function(&f).unwrap();
}

#[test]
fn every_moved_name_has_a_shadow_built_beside_it() {
    let f = parse(BUILD);
    let with = ancillas_with_gradients(&f);
    for n in ["a", "b", "z", "t"] {
        assert!(with.contains(n), "{n}: {with:?}");
    }
    let adjoint: String = adjoint_text(&f).split_whitespace().collect();
    assert!(
        adjoint.contains("letz_grad=new!(Complex{re:a_grad,im:b_grad});"),
        "{adjoint}"
    );
    assert!(
        adjoint.contains("let(z_grad,)=fields!(t_grad);"),
        "{adjoint}"
    );
}

#[test]
fn moved_names_are_written() {
    let f = parse(BUILD);
    let mut written = Vec::new();
    for s in &f.body {
        nilang_ir::adjoint::written_roots(s, &mut written);
    }
    for n in ["a", "b", "z", "t"] {
        assert!(written.iter().any(|w| w == n), "{n}: {written:?}");
    }
}

/// The errors of a program the checker rejects (`parse_file` runs it).
fn check_error(src: &str) -> String {
    let e = nilang_ir::parse_file(src).unwrap_err();
    e.into_iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_consumed_ancilla_cannot_be_used_again() {
    let e = check_error(
        r#"
        #[i]
        fn f<T: Real>(y: &mut T) {
            let a = T::zero();
            let b = T::zero();
            let z = new!(Complex { re: a, im: b });
            y += identity(b);
            let Complex { re: a, im: b } = fields!(z);
            dealloc!(a = T::zero(), b = T::zero());
        }
    "#,
    );
    assert!(e.contains("`b` was moved into `z`"), "{e}");
    assert!(e.contains("help: use the field `z.im`"), "{e}");
    let e = check_error(
        r#"
        #[i]
        fn f<T: Real>(y: &mut T) {
            let a = T::zero();
            let t = new!((a,));
            let (a,) = fields!(t);
            g(t);
            dealloc!(a = T::zero());
        }
    "#,
    );
    assert!(
        e.contains("`t` was taken apart by `let (a,) = fields!(t);`"),
        "{e}"
    );
    assert!(
        e.contains("build it again first: `let t = new!((a,));`"),
        "{e}"
    );
}

#[test]
fn only_ancillas_of_the_block_are_consumed() {
    let e = check_error(
        r#"
        #[i]
        fn f<T: Real>(y: &mut T) {
            let a = T::zero();
            if true {
                let t = new!((a,));
                let (a,) = fields!(t);
            }
            dealloc!(a = T::zero());
        }
    "#,
    );
    assert!(e.contains("`a` is an ancilla of an enclosing block"), "{e}");
}
