//! The static rule against dropped gradients (`nilang_ir::dropped`): an ancilla declared from
//! a differentiable variable may not receive a gradient. Each program here is correct as a
//! reversible program; only its gradient is at stake.

use nilang_ir::dropped::{dropped_gradients, value_reads};
use nilang_ir::Analyzed;

fn parse(src: &str) -> Analyzed {
    let mut functions = nilang_ir::parse_file(src).unwrap();
    assert_eq!(functions.len(), 1);
    functions.pop().unwrap()
}

/// `(ancilla, source)` of every rejected allocation, with `params` differentiable.
fn rejected(src: &str, params: &[&str]) -> Vec<(String, String)> {
    let f = parse(src);
    let params: Vec<String> = params.iter().map(|p| p.to_string()).collect();
    let scalar = syn::parse_str("T").unwrap();
    dropped_gradients(&f.body, &params, &scalar)
        .into_iter()
        .map(|d| (d.ancilla.to_string(), d.source))
        .collect()
}

fn reads(e: &str) -> Vec<String> {
    let e: syn::Expr = syn::parse_str(e).unwrap();
    value_reads(&e).into_iter().collect()
}

#[test]
fn value_reads_are_places_and_arithmetic_not_calls() {
    assert_eq!(reads("*y"), ["y"]);
    assert_eq!(reads("x[i].re"), ["i", "x"]);
    assert_eq!(reads("y.clone()"), ["y"]);
    assert_eq!(reads("a * b + 2.0"), ["a", "b"]);
    assert!(reads("x.len()").is_empty());
    assert!(reads("T::zero()").is_empty());
    assert!(reads("T::lit(max_value(x))").is_empty());
    assert!(reads("Centroids::of(c, d)").is_empty());
    assert!(reads("vec![T::zero(); x.len()]").is_empty());
    assert!(reads("{ use ::nilang::__private::Zeroable as _; (y[k]).zero_like() }").is_empty());
}

#[test]
fn a_copy_that_receives_a_gradient_is_rejected() {
    let src = r#"
        #[i]
        fn f<T: Real>(z: &mut T, y: &mut T) {
            let x = *y;
            z += identity(x);
            dealloc!(x = *y);
        }
    "#;
    assert_eq!(rejected(src, &["z", "y"]), [("x".into(), "y".into())]);
}

#[test]
fn through_an_ancilla_inside_a_loop_and_a_routine() {
    let src = r#"
        #[i]
        fn f<T: Real>(z: &mut T, y: &mut [T]) {
            let a = T::zero();
            a += sin(y[0]);
            for i in 0..y.len() {
                routine! {
                    let b = a;
                }
                z += b * y[i];
                uncompute!();
            }
            a -= sin(y[0]);
            dealloc!(a = T::zero());
        }
    "#;
    assert_eq!(rejected(src, &["z", "y"]), [("b".into(), "a".into())]);
}

#[test]
fn swap_and_calls_pass_gradients() {
    let swapped = r#"
        #[i]
        fn f<T: Real>(z: &mut T, y: &mut T) {
            let x = *y;
            swap(x, z);
            swap(x, z);
            dealloc!(x = *y);
        }
    "#;
    assert_eq!(rejected(swapped, &["z", "y"]), [("x".into(), "y".into())]);
    let called = r#"
        #[i]
        fn f<T: Real>(z: &mut T, y: &mut T) {
            let x = *y;
            g(z, x);
            dealloc!(x = *y);
        }
    "#;
    assert_eq!(rejected(called, &["z", "y"]), [("x".into(), "y".into())]);
}

#[test]
fn accepted_shapes() {
    // the restructured copy: the instruction's adjoint moves the gradient to `y`
    let copy = r#"
        #[i]
        fn f<T: Real>(z: &mut T, y: &mut T) {
            let x = T::zero();
            x += identity(y);
            z += identity(x);
            x -= identity(y);
            dealloc!(x = T::zero());
        }
    "#;
    assert!(rejected(copy, &["z", "y"]).is_empty());
    // read only by a condition, written only as a target, an integer, a read-only source
    let others = r#"
        #[i]
        fn f<T: Real>(z: &mut T, y: &mut T, n: &mut usize, w: &[T]) {
            let c = *y;
            if c.val() > 0.0 {
                z += identity(y);
            }
            dealloc!(c = *y);
            let t = *y;
            t += sin(z);
            t -= sin(z);
            dealloc!(t = *y);
            let k = *n;
            k += 1;
            k -= 1;
            dealloc!(k = *n);
            let v = w[0];
            z += identity(v);
            z -= identity(v);
            dealloc!(v = w[0]);
        }
    "#;
    assert!(rejected(others, &["z", "y"]).is_empty());
}
