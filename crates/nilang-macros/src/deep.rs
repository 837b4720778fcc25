//! Deep sources: `#[i]` handles expressions and blocks nested as deeply as rustc compiles
//! them. The macro runs on rustc's thread, whose stack a recursive descent over a product of
//! hundreds of factors would overflow (a crash of rustc, not an error); [`crate::attribute`]
//! runs on a stack of its own (`nilang_ir::on_deep_stack`). The tests call it on a thread with
//! a small stack (2 MiB, which overflowed at 200 factors and at 100 nested `if`s without it),
//! so that they fail the same way on every machine.

use proc_macro2::TokenStream;

/// `f` on a new thread with a 2 MiB stack (rustc's is 8 MiB).
fn on_small_stack<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("the macro does not panic")
}

/// The text `#[i(attr)]` generates for the function `src`, which must be no compile error and
/// hold the gradient functions.
fn generates_all(attr: &'static str, src: String) {
    let out = on_small_stack(move || {
        let attr: TokenStream = attr.parse().expect("options");
        let item: TokenStream = src.parse().expect("Rust tokens");
        crate::attribute(attr, item).to_string()
    });
    assert!(!out.contains("compile_error"), "{out}");
    for name in [
        "fn f <",
        "fn f_inv <",
        "fn f_adjoint <",
        "fn f_vjp <",
        "fn f_grad <",
    ] {
        assert!(out.contains(name), "`{name}` is generated");
    }
}

/// `expand! { y += x[0] * x[1] * … * x[n - 1]; }`: a left-nested product, `n - 1` levels deep.
fn product(n: usize) -> String {
    let factors: Vec<String> = (0..n).map(|k| format!("x[{k}]")).collect();
    format!(
        "fn f<T: Real>(y: &mut T, x: &mut [T]) {{ expand! {{ y += {}; }} }}",
        factors.join(" * ")
    )
}

#[test]
fn a_product_of_300_factors_under_expand() {
    generates_all("", product(300));
}

/// The product of the review that crashed rustc. The macro is quadratic in the depth of the
/// nesting (each level's code is copied into the next), which takes minutes unoptimised.
#[test]
#[ignore = "minutes in a debug build: cargo test --release -p nilang-macros -- --ignored"]
fn a_product_of_2000_factors_under_expand() {
    generates_all("", product(2000));
}

#[test]
fn a_sum_of_300_terms_with_the_expand_option() {
    let terms: Vec<String> = (0..300).map(|k| format!("sin(x[{k}])")).collect();
    let src = format!(
        "fn f<T: Real>(y: &mut T, x: &mut [T]) {{ y += {}; }}",
        terms.join(" + ")
    );
    generates_all("expand", src);
}

#[test]
fn four_hundred_nested_ifs() {
    let depth = 400;
    let src = format!(
        "fn f<T: Real>(y: &mut T, x: &mut T, n: usize) {{ {} y += sin(x); {} }}",
        "if n > 0 { ".repeat(depth),
        "} ".repeat(depth)
    );
    generates_all("", src);
}
