//! Which form the front end gives each block, read from the program it writes: temporaries
//! uncomputed in place when their inputs still hold, compute–copy–uncompute or stored
//! otherwise, decisions recorded only when the branch changes its condition, trip counts for
//! `while`, and generated names that cannot collide with the user's.

use quote::{quote, ToTokens};

fn program(attr: proc_macro2::TokenStream, f: proc_macro2::TokenStream) -> String {
    let t = nilang_auto::translate(attr, f).unwrap_or_else(|e| panic!("{e}"));
    let programs = t.reversible.iter().map(|p| p.to_token_stream());
    quote!(#(#programs)*).to_string()
}

fn count(text: &str, what: &str) -> usize {
    text.matches(what).count()
}

#[test]
fn temporaries_whose_inputs_hold_are_uncomputed_in_place_and_nothing_is_stored() {
    let p = program(
        quote!(uncompute),
        quote!(
            fn f(x: &[f64], t: f64) -> f64 {
                let mut s = 0.0;
                for i in 0..x.len() {
                    let v = x[i] * t;
                    s += v.sin();
                }
                s
            }
        ),
    );
    assert!(p.contains("v -= x [i] * t"), "{p}");
    assert_eq!(count(&p, "push !"), 0, "{p}");
    assert_eq!(count(&p, "routine !"), 1, "only the body's: {p}");
}

#[test]
fn a_carried_state_is_saved_once_per_step_and_the_slopes_uncomputed() {
    let f = quote!(
        fn f(x0: f64, h: f64, n: usize) -> f64 {
            let mut x = x0;
            for _ in 0..n {
                let k = x * x;
                x += h * k;
            }
            x
        }
    );
    let p = program(quote!(uncompute), f.clone());
    // (`tape_1` is the taped program's parameter, unused here: it calls `f_rev`)
    assert!(p.contains("push ! (tape_2 , x)"), "{p}");
    assert!(p.contains("swap (x , x_out_1)"), "{p}");
    assert_eq!(count(&p, "routine !"), 2, "{p}");
    // stored: the slope is saved instead, and x is updated in place
    let p = program(quote!(store), f);
    assert!(p.contains("push ! (tape_1 , k)"), "{p}");
    assert!(p.contains("x += h * k"), "{p}");
    // the taped program runs in place; only `f_rev` over it computes, copies and uncomputes
    assert_eq!(count(&p, "routine !"), 1, "{p}");
}

#[test]
fn only_a_decision_the_branch_changes_is_recorded() {
    let p = program(
        quote!(),
        quote!(
            fn f(x: &[f64]) -> f64 {
                let mut acc = 0.0;
                for i in 0..x.len() {
                    if x[i] > 0.0 {
                        acc += x[i];
                    }
                    if acc > 1.0 {
                        acc *= 0.5;
                    }
                }
                acc
            }
        ),
    );
    assert_eq!(count(&p, "push ! (decisions_1"), 1, "{p}");
    assert!(
        p.contains("taken_1 ^= :: nilang :: Real :: val (& acc) > 1.0"),
        "{p}"
    );
}

#[test]
fn a_while_loop_records_its_trip_count() {
    let p = program(
        quote!(),
        quote!(
            fn f(x: f64) -> f64 {
                let mut s = x;
                while s > 1.0 {
                    s *= 0.5;
                }
                s
            }
        ),
    );
    assert!(
        p.contains("while (:: nilang :: Real :: val (& s) > 1.0 , trips_1 > 0)"),
        "{p}"
    );
    // the trip count goes with the decisions, on the caller's tape in the taped program
    assert!(p.contains("push ! (decisions_1 , trips_1)"), "{p}");
}

#[test]
fn generated_names_avoid_every_identifier_of_the_function() {
    let p = program(
        quote!(),
        quote!(
            fn f(out_1: &[f64], tape_1: f64, new_1: f64) -> f64 {
                let mut s = tape_1;
                s = s * new_1 + out_1[0];
                s
            }
        ),
    );
    assert!(p.contains("out_2 : & mut T1"), "{p}");
    assert!(p.contains("push ! (tape_2 , s)"), "{p}");
    assert!(p.contains("let new_2 = T1 :: lit (- 0.0)"), "{p}");
}

#[test]
fn a_shadowing_let_is_a_binding_of_its_own() {
    let p = program(
        quote!(),
        quote!(
            fn f(x: f64) -> f64 {
                let y = x * 2.0;
                let y = y * y;
                y
            }
        ),
    );
    assert!(
        p.contains("let y_1 = T1 :: lit (- 0.0) ; y_1 += square (y)"),
        "{p}"
    );
}

#[test]
fn a_min_fold_is_searched_on_values_and_its_chosen_iteration_differentiated() {
    let p = program(
        quote!(),
        quote!(
            fn f(c: &[f64], p: f64) -> f64 {
                let mut best = f64::INFINITY;
                for j in 0..c.len() {
                    let d = c[j] - p;
                    best = best.min(d * d);
                }
                best
            }
        ),
    );
    // the search: plain Rust over the values (read through a window of `c`, without bounds
    // checks: `reduction::windows`), the first smallest
    assert!(
        p.contains(
            "let d : f64 = :: nilang :: Real :: val (& window_1 [j]) - :: nilang :: Real :: val (& * p) ;"
        ),
        "{p}"
    );
    assert!(p.contains("if x_1 < chosen_1"), "{p}");
    // the body runs for the chosen iteration only, without passing over the others, and the
    // choice is kept for the inverse
    assert!(
        p.contains("for j in (0) + pos_2 .. (0) + pos_2 + 1 {"),
        "{p}"
    );
    assert!(!p.contains("count_"), "{p}");
    assert!(p.contains("push ! (decisions_1 , pos_2)"), "{p}");
    // a loop that also writes another outer variable is differentiated as written
    let p = program(
        quote!(),
        quote!(
            fn g(c: &[f64]) -> f64 {
                let mut best = f64::INFINITY;
                let mut s = 0.0;
                for j in 0..c.len() {
                    s += c[j];
                    best = best.min(c[j]);
                }
                best + s
            }
        ),
    );
    assert!(!p.contains("pos_"), "{p}");
}

#[test]
fn a_search_with_an_inner_loop_runs_four_candidates_side_by_side() {
    // the search's bounds read `r`, which changes during the call: no table, four
    // candidates at a time on the slice itself
    let p = program(
        quote!(),
        quote!(
            fn f(c: &[f64], x: &[f64], d: usize) -> f64 {
                let mut s = 0.0;
                for r in 1..3 {
                    let mut best = f64::INFINITY;
                    for j in 0..c.len() / (d * r) {
                        let mut dist = 0.0;
                        for e in 0..d {
                            dist += (c[j * d + e] - x[e]).powi(2);
                        }
                        best = best.min(dist);
                    }
                    s += best;
                }
                s
            }
        ),
    );
    assert!(!p.contains("SearchTable"), "{p}");
    // four copies of the candidate, each with bindings of its own, in one inner loop
    assert!(p.contains("while end_1 - at_1 . min (end_1) >= 4 {"), "{p}");
    for c in 1..=4 {
        assert!(
            p.contains(&format!("let j_{c}_1 = at_1 + {}", c - 1)),
            "{p}"
        );
        assert!(
            p.contains(&format!("let mut dist_{c}_1 : f64 = 0.0 ;")),
            "{p}"
        );
    }
    // jammed, remainder and the plain search for when nothing beats ∞, reading through
    // windows (`reduction::windows`); the chosen iteration in the reversible program
    assert_eq!(count(&p, "for e in 0 .. window_len_"), 3, "{p}");
    // the jammed candidates compared without testing whether anything is chosen yet
    assert!(
        p.contains("< chosen_1 { pos_1 = k_1 ; chosen_1 = x_"),
        "{p}"
    );
    assert_eq!(count(&p, "for e in 0 .. d {"), 1, "{p}");
    assert!(
        p.contains("let window_1 = & c [if window_len_1 == 0"),
        "{p}"
    );
    // the candidates left over run one by one, as before
    assert!(p.contains("for j in at_1 .. end_1 {"), "{p}");
    // an inner range that reads the candidate cannot be shared: not jammed
    let p = program(
        quote!(),
        quote!(
            fn g(c: &[f64]) -> f64 {
                let mut best = f64::INFINITY;
                for j in 0..c.len() {
                    let mut s = 0.0;
                    for e in 0..j {
                        s += c[e];
                    }
                    best = best.min(s);
                }
                best
            }
        ),
    );
    assert!(p.contains("pos_") && !p.contains("while"), "{p}");
}

#[test]
fn a_search_of_a_parameter_reads_its_candidates_from_a_transposed_table() {
    let p = program(
        quote!(),
        quote!(
            fn f(c: &[f64], x: &[f64], d: usize) -> f64 {
                let k = c.len() / d;
                let mut cost = 0.0;
                for i in 0..x.len() / d {
                    let mut best = f64::INFINITY;
                    for j in 0..k {
                        let mut dist = 0.0;
                        for e in 0..d {
                            dist += (c[j * d + e] - x[i * d + e]).powi(2);
                        }
                        best = best.min(dist);
                    }
                    cost += best;
                }
                cost
            }
        ),
    );
    // one table for the call, declared and freed by the program, built by the search
    let table = ":: nilang :: __private :: search :: SearchTable :: new ()";
    assert!(p.contains(&format!("let table_1 = {table}")), "{p}");
    assert!(p.contains(&format!("dealloc ! (table_1 = {table})")), "{p}");
    assert!(
        p.contains("table_1 . columns (& c [..] , (at_1 , end_1) , (0 , d) , d)"),
        "{p}"
    );
    // compiled for AVX2 where the processor has it
    assert!(
        p.contains(":: nilang :: __private :: search :: dispatch"),
        "{p}"
    );
    // sixteen candidates side by side, then eight, then four, reading one row of the table
    // per coordinate; the table is built when four are there
    assert!(p.contains("if end_1 - at_1 . min (end_1) >= 4 {"), "{p}");
    for w in [16, 8, 4] {
        let block = format!("while end_1 - at_1 . min (end_1) >= {w} {{");
        assert!(p.contains(&block), "{p}");
    }
    assert!(p.contains("let j_16_1 = at_1 + 15"), "{p}");
    assert!(
        p.contains("let row_1 = & cols_1 [(e - (0)) * count_1 + (at_1 - first_1) ..] [.. 16] ;"),
        "{p}"
    );
    assert!(p.contains("row_1 [j_16_1 - at_1]"), "{p}");
    // the point's coordinates still through a window (`reduction::windows`)
    assert!(
        p.contains("let window_1 = & x [if window_len_1 == 0"),
        "{p}"
    );
    // a slice the function computes is no parameter: no table
    let p = program(
        quote!(),
        quote!(
            fn g(c: &[f64], x: &[f64], d: usize) -> f64 {
                let mut v = vec![0.0; c.len()];
                for i in 0..c.len() {
                    v[i] = 2.0 * c[i];
                }
                let mut best = f64::INFINITY;
                for j in 0..c.len() / d {
                    let mut dist = 0.0;
                    for e in 0..d {
                        dist += (v[j * d + e] - x[e]).powi(2);
                    }
                    best = best.min(dist);
                }
                best
            }
        ),
    );
    assert!(p.contains("pos_") && !p.contains("SearchTable"), "{p}");
}

#[test]
fn a_fold_written_as_an_if_is_a_reduction_too() {
    let p = program(
        quote!(),
        quote!(
            fn f(c: &[f64], p: f64) -> f64 {
                let mut best = f64::INFINITY;
                for j in 0..c.len() {
                    let d = (c[j] - p).abs();
                    if d < best {
                        best = d;
                    }
                }
                best
            }
        ),
    );
    assert!(p.contains("if x_1 < chosen_1"), "{p}");
    assert!(
        p.contains("for j in (0) + pos_2 .. (0) + pos_2 + 1 {"),
        "{p}"
    );
    // `<=` keeps the last of equal values, which the search does not: written as it is
    let p = program(
        quote!(),
        quote!(
            fn g(c: &[f64]) -> f64 {
                let mut best = f64::INFINITY;
                for j in 0..c.len() {
                    if c[j] <= best {
                        best = c[j];
                    }
                }
                best
            }
        ),
    );
    assert!(!p.contains("pos_"), "{p}");
}

#[test]
fn a_fold_over_elements_runs_the_chosen_index_alone() {
    let p = program(
        quote!(),
        quote!(
            fn f(x: &[f64]) -> f64 {
                let mut a = x[0];
                for v in x.iter() {
                    a = a.max(*v);
                }
                a
            }
        ),
    );
    // no pass over the other elements: the hidden index is the chosen position itself
    assert!(p.contains("for i_1 in 0 + pos_2 .. 0 + pos_2 + 1 {"), "{p}");
    assert!(!p.contains("count_"), "{p}");
}

#[test]
fn a_loop_that_refills_a_vector_saves_it_before_and_fills_without_pushing() {
    let p = program(
        quote!(),
        quote!(
            fn f(x: &[f64], h: f64, s: usize) -> f64 {
                let n = x.len();
                let mut y = vec![0.0; n];
                let mut k = vec![0.0; n];
                for _ in 0..s {
                    for i in 1..n {
                        k[i] = x[i] * y[i - 1];
                    }
                    for i in 0..n {
                        k[i] = k[i] * h;
                    }
                    for i in 0..n {
                        y[i] += h * k[i];
                    }
                }
                y[n - 1]
            }
        ),
    );
    // the refill: its own loop saves `k[1..n]`, then the filling loop swaps without a push
    assert!(
        p.contains("for i in 1 .. n { push ! (tape_1 , k [i]) ; }"),
        "{p}"
    );
    assert!(
        p.contains("swap (k [i] , new_1) ; dealloc ! (new_1 = T1 :: zero ())"),
        "{p}"
    );
    // a loop that reads the vector it writes saves each old value where it overwrites it
    assert!(
        p.contains("push ! (tape_1 , k [i_1]) ; swap (k [i_1] , new_2)"),
        "{p}"
    );
}

#[test]
fn a_program_that_saves_nothing_runs_on_a_plain_empty_tape_and_one_that_saves_on_a_pooled_one() {
    // `1 − w²`: the taped program pushes nothing, so `f_rev` hands it an empty `Vec` (no
    // visit to the thread's pool of tape buffers on each call)
    let p = program(
        quote!(),
        quote!(
            fn f(w: f64) -> f64 {
                1.0 - w * w
            }
        ),
    );
    assert!(
        p.contains(":: std :: vec :: Vec :: < T1 > :: new ()"),
        "{p}"
    );
    assert_eq!(count(&p, "stack :: Tape"), 0, "{p}");
    // a temporary saved at the end of the loop's body: the tape is a pooled `Tape`
    let p = program(
        quote!(),
        quote!(
            fn g(x: &[f64]) -> f64 {
                let mut s = 0.0;
                for i in 0..x.len() {
                    let e = x[i].exp();
                    s += e * s;
                }
                s
            }
        ),
    );
    assert!(p.contains("push !"), "{p}");
    assert!(
        p.contains(":: nilang :: stack :: Tape :: < T1 > :: new ()"),
        "{p}"
    );
    // a call hands the tape to the callee, which may save on it
    let p = program(
        quote!(),
        quote!(
            fn h(w: f64) -> f64 {
                f(w) * 2.0
            }
        ),
    );
    assert!(
        p.contains(":: nilang :: stack :: Tape :: < T1 > :: new ()"),
        "{p}"
    );
}

fn gradient(f: proc_macro2::TokenStream) -> String {
    let t = nilang_auto::translate(quote!(), f).unwrap_or_else(|e| panic!("{e}"));
    t.gradient.to_string()
}

#[test]
fn a_gradient_that_saves_runs_its_sweeps_on_a_tape_at_home_and_one_that_saves_nothing_inlines() {
    // saves `s` every iteration: the taped program and its adjoint, in a function of their own
    // that is not inlined, on a tape the entry point keeps in a `thread_local!` home
    let g = gradient(quote!(
        fn g(x: &[f64]) -> f64 {
            let mut s = 1.0;
            for i in 0..x.len() {
                s = s * x[i] + 1.0;
            }
            s
        }
    ));
    assert!(g.contains("# [inline (never)]"), "{g}");
    assert!(g.contains("at_home"), "{g}");
    assert!(g.contains("g_rev_taped_adjoint"), "{g}");
    assert_eq!(count(&g, "g_rev_vjp"), 0, "{g}");
    // saves nothing: `f_rev_vjp`, whose tape is a plain `Vec`
    let g = gradient(quote!(
        fn f(w: f64) -> f64 {
            1.0 - w * w
        }
    ));
    assert!(g.contains("f_rev_vjp"), "{g}");
    assert_eq!(count(&g, "at_home"), 0, "{g}");
}
