//! A primitive written as a Rust method of a state variable (`x.sin()`) is a compile error
//! that says how the language writes it (`sin(x)`); methods of constants and of values read
//! from the state (`x.val().abs()`) stay constant operands.

mod common;

use common::{errors, parse};

fn body(stmt: &str) -> String {
    format!(
        "#[i] fn f<T: Real>(y: &mut T, x: &mut T, a: &mut T, n: usize, k: &mut i64) {{ {stmt} }}"
    )
}

fn suggestion(stmt: &str) -> String {
    let e = errors(&body(stmt));
    assert_eq!(e.lines().count(), 1, "{e}");
    let fix = e.split("written as functions, ").nth(1);
    fix.unwrap_or_else(|| panic!("no suggestion in: {e}"))
        .trim()
        .to_string()
}

#[test]
fn float_methods_name_the_primitive() {
    assert_eq!(suggestion("y += x.sin();"), "`sin(x)`");
    assert_eq!(suggestion("y -= x.ln();"), "`log(x)`");
    assert_eq!(suggestion("y += x.ln_1p();"), "`log1p(x)`");
    assert_eq!(suggestion("y += x.exp_m1();"), "`expm1(x)`");
    assert_eq!(suggestion("y += x.powi(2);"), "`pow(x, 2)`");
    assert_eq!(suggestion("y += x.atan2(*a);"), "`atan2(x, *a)`");
    assert_eq!(suggestion("y += a * x.exp();"), "`exp(x)`"); // an operand of a product
    assert_eq!(suggestion("y += k.abs();"), "`abs(k)`"); // integers too
}

#[test]
fn the_error_quotes_the_call() {
    let e = errors(&body("y += x.sqrt();"));
    assert!(e.starts_with("`x.sqrt()` is a Rust method call"), "{e}");
}

#[test]
fn methods_of_constants_and_other_methods_are_operands() {
    // no state variable in the receiver: a constant operand, as before
    parse(&body("y += (n as f64).sqrt();"));
    // not a primitive's method, and a method of a value read from the state
    parse(&body("y += x.val();"));
    parse(&body("y += x.val().abs();"));
    // a method whose arity is not the primitive's (`sin` takes one operand): left to rustc
    parse(&body("y += x.sin(*a);"));
}
