//! Loops that only push the elements of one slice in order (or pop them back in reverse) run
//! as one slice operation (`nilang_macros`' `codegen::bulk`). Checked here against the same
//! loops written with `.step_by(1)`, which run element by element: the same stack contents
//! and restored values, the same gradients bit for bit (the shadow stack full, as after a
//! forward with gradients, and empty, as after a plain forward), and the same clear errors
//! for a pop into a nonzero element and a pop from a stack that holds too few values.

use nilang::{i, GVar, Real};
use proptest::prelude::*;

/// Saves `v[a..b]` on `s`, leaving zeros.
#[i]
fn save<T: Real>(v: &mut [T], s: &mut Vec<T>, a: usize, b: usize) {
    for j in a..b {
        push!(s, v[j]);
    }
}

/// [`save`] of `v[a..=b]`, element by element.
#[i]
fn save_stepped<T: Real>(v: &mut [T], s: &mut Vec<T>, a: usize, b: usize) {
    for j in (a..=b).step_by(1) {
        push!(s, v[j]);
    }
}

/// [`save`] of `v[a..=b]`, as one slice.
#[i]
fn save_inclusive<T: Real>(v: &mut [T], s: &mut Vec<T>, a: usize, b: usize) {
    for j in a..=b {
        push!(s, v[j]);
    }
}

/// `out += Σ v²`, then `v` round trip through a stack (pushed, popped back), then
/// `out += Σ 2v`: the gradient `2v + 2` flows through both stack loops.
#[i]
fn through_stack<T: Real>(out: &mut T, v: &mut [T], s: &mut Vec<T>) {
    for j in 0..v.len() {
        out += square(v[j]);
    }
    for j in 0..v.len() {
        push!(s, v[j]);
    }
    for j in (0..v.len()).rev() {
        pop!(s, v[j]);
    }
    for j in 0..v.len() {
        out += 2.0 * v[j];
    }
}

/// [`through_stack`] with its stack loops element by element.
#[i]
fn through_stack_stepped<T: Real>(out: &mut T, v: &mut [T], s: &mut Vec<T>) {
    for j in 0..v.len() {
        out += square(v[j]);
    }
    for j in (0..v.len()).step_by(1) {
        push!(s, v[j]);
    }
    for j in (0..v.len()).step_by(1).rev() {
        pop!(s, v[j]);
    }
    for j in 0..v.len() {
        out += 2.0 * v[j];
    }
}

/// Keeps `v` on the caller's stack: the plain forward leaves values without gradient entries.
#[i]
fn keep<T: Real>(out: &mut T, v: &mut [T], s: &mut Vec<T>) {
    for j in 0..v.len() {
        out += square(v[j]);
    }
    for j in 0..v.len() {
        push!(s, v[j]);
    }
}

#[test]
fn a_slice_is_pushed_in_order_and_popped_back() {
    let x = [1.0, 2.0, 3.0, 4.0, 5.0];
    let (mut v, mut s) = (x.to_vec(), vec![-1.0]);
    save(&mut v, &mut s, 1, 4);
    assert_eq!(
        (&v[..], &s[..]),
        (&[1.0, 0.0, 0.0, 0.0, 5.0][..], &[-1.0, 2.0, 3.0, 4.0][..])
    );
    save_inv(&mut v, &mut s, 1, 4);
    assert_eq!((&v[..], &s[..]), (&x[..], &[-1.0][..]));
    // an empty range moves nothing, a reversed one (start after end) too
    save(&mut v, &mut s, 3, 3);
    save(&mut v, &mut s, 4, 2);
    assert_eq!((&v[..], &s[..]), (&x[..], &[-1.0][..]));
    // inclusive, against the element-by-element loop
    let (mut w, mut t) = (x.to_vec(), Vec::new());
    save_inclusive(&mut v, &mut s, 0, 4);
    save_stepped(&mut w, &mut t, 0, 4);
    assert_eq!((&v, &s[1..]), (&w, &t[..]));
    save_inclusive_inv(&mut v, &mut s, 0, 4);
    assert_eq!((&v[..], &s[..]), (&x[..], &[-1.0][..]));
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
#[should_panic(expected = "stack pop into a variable that is not zero")]
fn a_pop_into_a_nonzero_element_is_an_error() {
    let (mut v, mut s) = (vec![1.0, 2.0, 3.0], vec![7.0, 8.0]);
    save_inv(&mut v, &mut s, 0, 2);
}

#[test]
fn a_pop_of_more_values_than_the_stack_holds_is_an_error_and_pops_nothing() {
    let (mut v, mut s) = (vec![0.0; 3], vec![7.0, 8.0]);
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        save_inv(&mut v, &mut s, 0, 3);
    }))
    .expect_err("three pops from a stack of two");
    let message = err
        .downcast_ref::<String>()
        .map(String::as_str)
        .unwrap_or_default();
    assert!(message.contains("pop from an empty stack"), "{message}");
    // one slice operation: the stack is left as it was (a loop would have popped two)
    assert_eq!((&v[..], &s[..]), (&[0.0; 3][..], &[7.0, 8.0][..]));
}

fn wrap(x: &[f64]) -> Vec<GVar<f64>> {
    x.iter().map(|&v| GVar::new(v)).collect()
}

fn bits(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// `f_vjp` (the plain forward, then the adjoint: empty shadow stacks) and the inverse on
    /// `GVar`s (gradients pushed and popped beside the values) give `2v + 2`, bit for bit what
    /// the element-by-element loops give.
    #[test]
    fn gradients_through_slice_stacks_match_the_loops(x in prop::collection::vec(-2.0f64..2.0, 1..9)) {
        let n = x.len();
        macro_rules! vjp {
            ($f:ident) => {{
                let (mut out, mut og, mut v, mut vg) = (0.0, 1.0, x.clone(), vec![0.0; n]);
                let (mut s, mut sg) = (Vec::new(), Vec::new());
                $f(&mut out, &mut og, &mut v, &mut vg, &mut s, &mut sg);
                prop_assert_eq!((bits(&v), s.len(), sg.len()), (bits(&x), 0, 0));
                vg
            }};
        }
        let bulk = vjp!(through_stack_vjp);
        prop_assert_eq!(bits(&bulk), bits(&vjp!(through_stack_stepped_vjp)));
        for (g, v) in bulk.iter().zip(&x) {
            prop_assert!((g - (2.0 * v + 2.0)).abs() < 1e-12);
        }
        // the inverse on GVar: the forward run, then gradients carried back through the stack
        let (mut out, mut v, mut s) = (0.0, x.clone(), Vec::new());
        through_stack(&mut out, &mut v, &mut s);
        let (mut wo, mut wv, mut ws) = (GVar::with_grad(out, 1.0), wrap(&v), Vec::new());
        through_stack_inv(&mut wo, &mut wv, &mut ws);
        let g: Vec<f64> = wv.iter().map(|w| w.g).collect();
        prop_assert_eq!(bits(&g), bits(&bulk));
    }

    /// Values a plain forward pushed have no gradient entries: the adjoint's slice pop gives
    /// them zero gradients from an empty shadow stack, and from a shadow holding the top
    /// values' gradients only, those.
    #[test]
    fn a_partial_shadow_stack_pairs_the_top_values(x in prop::collection::vec(-2.0f64..2.0, 2..9)) {
        let n = x.len();
        let (mut out, mut v, mut s) = (0.0, x.clone(), Vec::new());
        keep(&mut out, &mut v, &mut s);
        // the kept values' gradients: the top one 10, the others absent (zero)
        let (mut og, mut vg, mut sg) = (1.0, vec![0.0; n], vec![10.0]);
        keep_adjoint(&mut out, &mut og, &mut v, &mut vg, &mut s, &mut sg);
        prop_assert_eq!((bits(&v), s.len(), sg.len()), (bits(&x), 0, 0));
        for k in 0..n {
            let kept = if k == n - 1 { 10.0 } else { 0.0 };
            let want = 2.0 * x[k] + kept;
            prop_assert!((vg[k] - want).abs() < 1e-12, "{}: {} vs {}", k, vg[k], want);
        }
    }
}
