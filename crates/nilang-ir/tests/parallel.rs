//! The parallel loop in the IR: parsing, printing, reversal and the static rules.

/// The printed program keeps the loop parallel, and its inverse too.
#[test]
fn printing_and_reversal_keep_the_loop_parallel() {
    let src = r#"
        #[i]
        fn f<T: Real>(out: &mut T, x: &mut [T]) {
            for i in (0..x.len()).par() {
                out += square(x[i]);
            }
        }
    "#;
    let text = nilang_ir::expand_source(src).unwrap();
    assert!(text.contains("for i in (0..x.len()).par()"), "{text}");
    assert!(text.contains("for i in (0..x.len()).rev().par()"), "{text}");
    assert!(text.contains("out -= square(x[i]);"), "{text}");
}

/// A stated weight is kept by printing and reversal.
#[test]
fn printing_and_reversal_keep_the_weight() {
    let src = r#"
        #[i]
        fn f<T: Real>(out: &mut T, x: &mut [T], d: usize) {
            for i in (0..x.len()).par().weight(4 * d) {
                out += square(x[i]);
            }
        }
    "#;
    let text = nilang_ir::expand_source(src).unwrap();
    assert!(
        text.contains("for i in (0..x.len()).par().weight(4 * d)"),
        "{text}"
    );
    assert!(
        text.contains("for i in (0..x.len()).rev().par().weight(4 * d)"),
        "{text}"
    );
}

fn errors(src: &str) -> String {
    // parsing runs the static checks
    match nilang_ir::parse_file(src) {
        Ok(_) => String::new(),
        Err(e) => e
            .into_iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// What the static check accepts: owned slots (element, stride and offset, inner-loop
/// offset, sub-slice), reductions, ancillas, shared reads.
#[test]
fn accepted_parallel_bodies() {
    let ok = [
        "fn f(y: &mut [f64], x: &[f64]) { for i in (0..x.len()).par() { y[i] += sin(x[i]); } }",
        "fn f(y: &mut [f64], x: &[f64]) { for i in (0..x.len()).par() { y[2 * i] += sin(x[i]); y[2 * i + 1] += cos(x[i]); } }",
        "fn f(y: &mut [f64], x: &[f64], d: usize) { for i in (0..x.len()).par() { for j in 0..d { y[d * i + j] += sin(x[i]); } } }",
        "fn f(y: &mut [f64], k: usize) { for i in (0..4).par() { g(y[k * i..k * (i + 1)]); } }",
        "fn f(out: &mut f64, x: &mut [f64]) { for i in (0..x.len()).par() { out -= sin(x[i]); } }",
        "fn f(out: &mut [f64], x: &mut [f64]) { for i in (0..x.len()).par() { out[0] += sin(x[i]); } }",
        "fn f(y: &mut [f64], x: &mut [f64]) { for i in (0..x.len()).par() { let t = 0.0; t += sin(x[i]); y[i] += exp(t); t -= sin(x[i]); dealloc!(t = 0.0); } }",
        "fn f(y: &mut [f64], m: &mut [f64]) { for i in (0..y.len()).par() { y[i + 1] += sin(m[0]); } }",
        "fn f(y: &mut [f64], m: &mut [f64], d: usize) { for i in (0..y.len()).par().weight(4 * d) { for c in 0..4 { g(y[i], m[c * d..(c + 1) * d]); } } }",
        // a weight may read a place the function may write but the loop only reads
        "fn f(y: &mut [f64], m: &mut [f64]) { for i in (0..y.len()).par().weight(m.len()) { y[i] += sin(m[0]); } }",
        "fn f(z: &mut [f64], y: &mut [f64]) { for i in (0..y.len()).par() { y[i] += identity(1.0); if y[i] > 0.0 { z[i] += identity(y[i]); } } }",
        "fn f(z: &mut [f64], y: &mut [f64], d: usize) { for i in (0..z.len()).par() { y[d * i] += identity(1.0); let t = y[d * i] + y.len() as f64; z[i] += identity(t); dealloc!(t = y[d * i] + y.len() as f64); } }",
    ];
    for body in ok {
        let src = format!("#[i] {body}");
        assert_eq!(errors(&src), "", "{body}");
    }
}

/// One error per broken rule.
#[test]
fn rejected_parallel_bodies() {
    let bad = [
        ("fn f(y: &mut [f64], s: &mut f64) { for i in (0..y.len()).par() { neg(s); } }", "every iteration"),
        ("fn f(y: &mut [f64], p: &[usize]) { for i in (0..y.len()).par() { y[p[i]] += identity(1.0); } }", "cannot prove"),
        ("fn f(y: &mut [f64]) { for i in (0..y.len()).par() { y[i] += identity(1.0); y[i + 1] += identity(1.0); } }", "incompatible"),
        ("fn f(y: &mut [f64], x: &mut [f64]) { for i in (0..y.len()).par() { x[i] += sin(y[0]); y[i] += identity(1.0); } }", "written by other iterations"),
        ("fn f(y: &mut [f64], s: &mut S) { for i in (0..y.len()).par() { s.g(y); } }", "every iteration"),
        ("fn f(y: &mut [f64]) { for i in (0..y.len()).par() { y[i] += identity(1.0); g(y); } }", "written by other iterations"),
        ("fn f(y: &mut [f64], n: usize) { for i in (0..y.len()).par().weight(i * n) { y[i] += identity(1.0); } }", "weight"),
        ("fn f(y: &mut [f64], n: &mut usize) { for i in (0..y.len()).par().weight(*n) { y[i] += identity(1.0); n += 1; } }", "weight"),
        ("fn f(y: &mut [f64], x: &mut [f64]) { for i in (0..y.len()).par().weight(x.len()) { y[i] += identity(1.0); g(x); } }", "weight"),
        ("fn f(o: &mut f64, y: &mut [f64]) { for i in (0..y.len()).par() { o += sin(y[i]); y[i] += sin(o); } }", "reduction"),
        ("fn f(o: &mut f64, y: &mut [f64]) { for i in (0..y.len()).par() { o *= sin(y[i]); } }", "every iteration"),
        ("fn f(y: &mut [f64], s: &mut Vec<f64>) { for i in (0..y.len()).par() { push!(s, y[i]); } }", "stack"),
        ("fn f(y: &mut [f64]) { for i in (0..y.len()).par() { y[i] += identity(1.0); safe! { () } } }", "safe!"),
        ("fn f(y: &mut [f64]) { for i in (0..y.len()).par() { y[i] += identity(1.0); if y[0] > 0.0 { y[i] += identity(1.0); } } }", "expression"),
        ("fn f(y: &mut [f64], x: &[f64]) { for i in (0..x.len()).par() { y[i] += identity(x[y.len() - 1]); y[i] += identity(x[y[1] as usize]); } }", "expression"),
        ("fn f(o: &mut f64, y: &mut [f64]) { for i in (0..y.len()).par() { o += sin(y[i]); if o > 0.0 { } } }", "an expression in it cannot read it"),
        ("fn f(y: &mut [f64], n: usize) { for i in (0..n).par() { for j in (0..n).par() { y[n * i + j] += identity(1.0); } } }", "inside a parallel loop"),
        ("fn f(y: &mut [f64], n: usize) { for i in (0..n).par() { y[n * i + 2] += identity(1.0); } }", ""),
        ("fn f(y: &mut [f64], n: usize) { for i in (0..n).par() { for j in 0..n + 1 { y[n * i + j] += identity(1.0); } } }", "cannot prove"),
    ];
    for (body, expected) in bad {
        let src = format!("#[i] {body}");
        let e = errors(&src);
        if expected.is_empty() {
            // a run-time offset is checked before the loop, not rejected
            assert_eq!(e, "", "{body}");
        } else {
            assert!(e.contains(expected), "{body}: {e}");
        }
    }
}
