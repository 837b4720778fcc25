//! Kernels of parallel loops (`nilang_cgen::par_kernels`): what they are made of, derived from
//! the loop's plan, and the loops that get none. (Compiled and run against Rust in
//! `nilang-cuda`'s tests `par_vs_rust` and `nvrtc`.)

use nilang_cgen::{par_kernels, par_loops, KERNEL_MARK, PAR_MARK};
use nilang_ir::Analyzed;

const LSE: &str = include_str!("../../nilang-gradbench/src/evals/lse.rs");

fn parse(src: &str) -> Vec<Analyzed> {
    nilang_ir::parse_file(src).expect("parses")
}

fn find<'a>(fs: &'a [Analyzed], name: &str) -> &'a Analyzed {
    fs.iter().find(|f| f.sig.ident == name).expect(name)
}

/// The id of the check site described by `line` (`FUNCTION SLICE TEXT`) in `source`.
fn site_id(source: &str, line: &str) -> i64 {
    source
        .lines()
        .filter_map(|l| l.strip_prefix(nilang_cgen::SITE_MARK))
        .find_map(|l| {
            let (id, rest) = l.trim_start().split_once(' ')?;
            (rest == line).then(|| id.parse().unwrap())
        })
        .unwrap_or_else(|| panic!("no site `{line}` in:\n{source}"))
}

fn line<'a>(text: &'a str, prefix: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` line in:\n{text}"))
}

#[test]
fn loops_are_listed_in_source_order_with_what_is_live() {
    let fs = parse(
        r#"
        #[i]
        fn f<T: Real>(y: &mut [T], z: &mut [T], x: &mut [T]) {
            let s = T::zero();
            routine! {
                for i in (0..x.len()).par() { s += identity(x[i]); }
            }
            if x.len() > 2 {
                for i in (0..y.len()).par() { y[i] += identity(s); }
            }
            uncompute!();
            for j in 0..2 {
                for i in (0..z.len()).par() { z[i] += identity(x[j]); }
            }
            dealloc!(s = T::zero());
        }
    "#,
    );
    let loops = par_loops(&fs[0]);
    assert_eq!(loops.len(), 3);
    let live = |k: usize| -> Vec<String> {
        loops[k]
            .ancillas
            .iter()
            .map(|b| b.name.to_string())
            .collect()
    };
    assert_eq!(live(0), ["s"]);
    assert_eq!(live(1), ["s"]);
    assert!(!loops[0].in_loop && !loops[1].in_loop && loops[2].in_loop);
    // the second loop reads the ancilla `s` at every iteration: a shared adjoint
    let k = par_kernels(&fs[0], 1).unwrap();
    assert!(
        line(&k, KERNEL_MARK).ends_with("params=y:real:slice:mut:per;s:real:scalar:mut:per"),
        "{k}"
    );
    assert!(k.contains("__Sh& s = *(__Sh*)ptrs[1];"), "{k}");
    let e = par_kernels(&fs[0], 2).unwrap_err().to_string();
    assert!(e.contains("lies in another loop"), "{e}");
    let e = par_kernels(&fs[0], 3).unwrap_err().to_string();
    assert!(e.contains("has 3 parallel loop(s)"), "{e}");
}

/// `lse`'s `logsumexp`: `s += exp(x[i] − a)` in a `.par()` loop. `x` is read at owned slots,
/// `a` by every iteration, `s` is a reduction: the plan's roles, one per place.
#[test]
fn the_kernel_follows_the_loop_plan() {
    let fs = parse(LSE);
    let k = par_kernels(find(&fs, "logsumexp"), 0).unwrap();
    assert_eq!(
        line(&k, KERNEL_MARK),
        "//@nilang-kernel logsumexp__par0 grad=1 params=x:real:slice:mut:per;a:real:scalar:mut:per;s:real:scalar:mut:per"
    );
    assert_eq!(
        line(&k, PAR_MARK),
        "//@nilang-par logsumexp__par0 reductions=2"
    );
    // x in place; a through the shared-read type; s replaced by the iteration's partial
    assert!(k.contains("T* x = (T*)ptrs[0];"), "{k}");
    assert!(k.contains("__Sh& a = *(__Sh*)ptrs[1];"), "{k}");
    assert!(k.contains("T __part0 = nl_partial(s);"), "{k}");
    assert!(
        k.contains("((double*)ptrs[4])[__t] = nl_val(__part0);"),
        "{k}"
    );
    assert!(
        !k.contains("auto __y = s;"),
        "the target is never written: {k}"
    );
    // the forward runs iteration __t, the inverse (a reversed range) the one from the end
    assert!(k.contains("const long long i = __start + (__t);"), "{k}");
    assert!(
        k.contains("const long long i = __start + (__count - 1 - __t);"),
        "{k}"
    );
    assert!(k.contains("logsumexp__par0__inv_at<gvar, nl_shared_grad>(&__nl, __t, ptrs, lens);"));
    assert!(k.contains("logsumexp__par0__fwd_at<double, nl_shared_val>(&__nl, __t, ptrs, lens);"));
    // each thread's context: the launch's status, and the iteration it records on a failure
    assert!(k.contains("nl_ctx __nl = nl_context(status, __t);"), "{k}");
    for entry in [
        "fwd",
        "inv",
        "grad",
        "count",
        "count_grad",
        "sum",
        "sum_grad",
    ] {
        assert!(
            k.contains(&format!("NL_KERNEL void logsumexp__par0__{entry}(long long n, void* const* ptrs, const long long* lens, long long* status)")),
            "{entry}: {k}"
        );
    }
}

#[test]
fn owned_slots_are_checked_before_the_loop() {
    let fs = parse(
        "#[i] fn f<T: Real>(y: &mut [T], x: &[T], o: usize) {
            for i in (0..x.len()).par() { y[2 * i + o] += identity(x[i]); }
        }",
    );
    let k = par_kernels(&fs[0], 0).unwrap();
    let site = site_id(&k, "f__par0 - y[2 * i + o]");
    assert!(
        k.contains(&format!(
            "nl_slot_check(__nl, {site}LL, o, ((long long)2LL)); // `y[2 * i + o]`"
        )),
        "{k}"
    );
    // and the access itself, against `y`'s length, in the body
    let at = site_id(&k, "f__par0 y y[2 * i + o]");
    assert!(
        k.contains(&format!(
            "nl_at(__nl, y, y_len, (long long)(((((long long)2LL) * i) + o)), {at}LL)"
        )),
        "{k}"
    );
}

#[test]
fn loops_without_a_kernel_say_why() {
    let cases = [
        (
            "#[i] fn f<T: Real>(acc: &mut [T], x: &mut [T]) {
                for i in (0..x.len()).par() { acc[0] += identity(x[i]); }
            }",
            "partials are kept for whole scalar targets",
        ),
        (
            "#[i] fn f<T: Real>(y: &mut [T], m: &mut [T]) {
                for i in (0..y.len()).par() { g(y[i], m); }
            }",
            "every iteration hands `m` to a call",
        ),
        (
            "#[i] fn f<T: Real>(y: &mut [T], x: &mut [T]) {
                let t = make(x);
                for i in (0..y.len()).par() { y[i] += identity(t); }
                dealloc!(t = make(x));
            }",
            "whose type the kernel cannot tell from `make(x)`",
        ),
        (
            "#[i] fn f<T: Real>(y: &mut [T], s: &mut S) {
                for i in (0..y.len()).par() { y[i] += identity(s.w); }
            }",
            "unsupported parameter type",
        ),
    ];
    for (src, why) in cases {
        let fs = parse(src);
        let e = par_kernels(&fs[0], 0).unwrap_err().to_string();
        assert!(e.contains(why), "{src}: {e}");
        assert!(e.contains("in `f`"), "{e}");
    }
}

/// GMM's main terms (`gmm_objective`'s first `.par()` loop): the function as a whole has no
/// C++ translation (a `Prior` parameter, a user primitive), but its loop does: the kernel
/// takes only the places the loop uses, `vec!` ancillas as slices.
#[test]
fn a_loop_of_a_function_without_cpp_gets_a_kernel() {
    let fs = parse(include_str!(
        "../../nilang-gradbench/src/evals/gmm/program.rs"
    ));
    let f = find(&fs, "gmm_objective");
    assert!(nilang_cgen::generate(f).is_err());
    let k = par_kernels(f, 0).unwrap();
    assert!(
        line(&k, KERNEL_MARK).ends_with("params=mt:real:slice:mut:per;alpha:real:slice:mut:per;x:f64:slice:const:per;d:int:value:const:per;k:int:value:const:per;sumq:real:slice:mut:per"),
        "{k}"
    );
    assert!(k.contains("__Sh* alpha = (__Sh*)ptrs[1];"), "{k}");
    assert!(k.contains("__Sh* sumq = (__Sh*)ptrs[5];"), "{k}");
    assert_eq!(
        line(&k, PAR_MARK),
        "//@nilang-par gmm_objective__par0 reductions="
    );
    // its second loop hands the means to a call at every iteration
    let e = par_kernels(f, 1).unwrap_err().to_string();
    assert!(e.contains("hands `mu` to a call"), "{e}");
}
