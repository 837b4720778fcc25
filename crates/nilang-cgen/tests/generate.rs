//! Generation tests: the paper's programs translate, the C++ compiles on the host (when g++
//! is installed), unsupported constructs and shared writes are rejected with clear errors.

use nilang_cgen::{generate, KernelSpec, Module, SharedGradients};
use nilang_ir::Analyzed;

const SPECIAL: &str = include_str!("../../nilang/src/stdlib/special.rs");

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

fn gxx_syntax_check(source: &str, tag: &str) {
    if std::process::Command::new("g++")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: g++ not found, the generated C++ is not compiled");
        return;
    }
    let dir = std::env::temp_dir().join(format!("nilang-cgen-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("unit.cpp");
    std::fs::write(&path, source).unwrap();
    let out = std::process::Command::new("g++")
        .args([
            "-std=c++17",
            "-fsyntax-only",
            "-Wall",
            "-Wno-unused-variable",
            "-Wno-unused-function",
        ])
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "g++ rejects the generated source ({}):\n{stderr}",
        path.display()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bessel_program_translates_and_compiles() {
    let fs = parse(SPECIAL);
    let mut m = Module::new();
    for name in ["imul_int", "ifactorial", "imul", "ibesselj"] {
        m.function(find(&fs, name)).unwrap();
    }
    m.kernel(find(&fs, "ibesselj"), &KernelSpec::new()).unwrap();
    let src = m.source();
    assert!(src.contains("NL_KERNEL void ibesselj__grad("));
    assert!(src.contains("ifactorial_inv(__nl, fact_nu, nu);"), "{src}");
    gxx_syntax_check(&src, "bessel");
}

#[test]
fn unsupported_constructs_name_the_statement() {
    let src = r#"
        #[i]
        fn f<T: Real>(y: &mut T, s: &mut Vec<T>, x: &mut T) {
            y += sin(x);
            push!(s, x);
        }
        #[i]
        fn g<T: Real>(y: &mut T, x: &mut T) {
            y += sin(x);
            safe! { println!("hi"); }
        }
        #[i]
        fn h<T: Real>(y: &mut T, x: &mut T) {
            y += MyPrim(x);
        }
    "#;
    let fs = parse(src);
    let e = generate(&fs[0]).unwrap_err();
    assert_eq!(e.function(), "f");
    assert!(e.statement().contains("Vec<T>"), "{e}");
    let e = generate(&fs[1]).unwrap_err();
    assert!(e.statement().contains("safe!"), "{e}");
    assert!(e.to_string().contains("plain Rust"), "{e}");
    let e = generate(&fs[2]).unwrap_err();
    assert_eq!(e.statement(), "y += MyPrim(x);");
    assert!(e.message().contains("user primitive `MyPrim`"), "{e}");
}

#[test]
fn untranslated_instructions_name_the_statement() {
    let src = r#"
        #[i]
        fn f<T: Real>(a: &mut T, b: &mut T) {
            a += sin(b);
            a *= exp(b);
        }
    "#;
    let e = generate(&parse(src)[0]).unwrap_err();
    assert_eq!(e.statement(), "a *= exp(b);");
    assert!(
        e.message()
            .contains("`*=` and `/=` (multiplicative number systems) have no C++"),
        "{e}"
    );
}

const SHARED: &str = r#"
    #[i]
    fn scale<T: Real>(y: &mut [T], cam: &mut [T], x: &mut [T]) {
        y[0] += cam[0] * x[0];
        y[1] += cam[1] * x[1];
    }
    #[i]
    fn clobber<T: Real>(y: &mut [T], cam: &mut [T]) {
        y[0] += cam[0];
        cam[1] += y[0];
    }
"#;

#[test]
fn shared_reads_accumulate_gradients_atomically() {
    let fs = parse(SHARED);
    let mut m = Module::new();
    m.function(&fs[0]).unwrap();
    m.kernel(&fs[0], &KernelSpec::new().shared("cam", 2))
        .unwrap();
    let src = m.source();
    assert!(
        src.contains("nl_accumulate((S*)ptrs[1] + j, p1[j]);"),
        "{src}"
    );
    assert!(src.contains("atomicAdd(p, v);"));
    assert!(src.contains("shared read of `cam` -> its gradient is accumulated atomically"));
    assert!(src.contains("//@nilang-kernel scale grad=1 params=y:real:slice:mut:per;cam:real:slice:mut:shared2;x:real:slice:mut:per"));
    gxx_syntax_check(&src, "shared");
}

#[test]
fn shared_writes_and_rejected_shared_gradients_are_errors() {
    let fs = parse(SHARED);
    let e = Module::new()
        .kernel(&fs[1], &KernelSpec::new().shared("cam", 2))
        .unwrap_err();
    assert_eq!(e.statement(), "cam[1] += y[0];");
    assert!(
        e.message()
            .contains("every thread would write the same place"),
        "{e}"
    );
    let spec = KernelSpec::new()
        .shared("cam", 2)
        .gradients(SharedGradients::Reject);
    let e = Module::new().kernel(&fs[0], &spec).unwrap_err();
    assert_eq!(e.statement(), "y[0] += cam[0] * x[0];");
    assert!(e.message().contains("shared read → shared write"), "{e}");
    let e = Module::new()
        .kernel(&fs[0], &KernelSpec::new().shared("nope", 2))
        .unwrap_err();
    assert!(e.message().contains("no parameter `nope`"));
}

#[test]
fn inverse_program_comes_from_reverse() {
    let fs = parse(SHARED);
    let text = generate(&fs[0]).unwrap();
    let inv = &text[text
        .find("NL_FN void scale_inv(nl_ctx* __nl, T* y")
        .unwrap()..];
    let inv = &inv[inv.find('{').unwrap()..];
    // the inverse undoes the second instruction first
    let first = inv.find("y[1] -= cam[1] * x[1]").unwrap();
    let second = inv.find("y[0] -= cam[0] * x[0]").unwrap();
    assert!(first < second);
    assert!(inv.contains("nl_sub2<nl_Mul>"));
}

/// A parallel loop (`.par()`) becomes the same C++ as the sequential loop (its source line, in
/// a comment, aside): the C++/CUDA programs run it sequentially.
/// C++ text without its `//` comments (which show the source statements).
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or("").trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn parallel_loops_are_sequential_in_cpp() {
    let src = |par: &str| {
        format!(
            "#[i] fn f<T: Real>(out: &mut T, y: &mut [T], x: &mut [T]) {{
                for i in (0..x.len()){par} {{ y[i] += sin(x[i]); out += square(x[i]); }}
            }}"
        )
    };
    let par = parse(&src(".par()"));
    let seq = parse(&src(""));
    let (p, s) = (generate(&par[0]).unwrap(), generate(&seq[0]).unwrap());
    assert!(
        p.contains(".par()"),
        "the source comment shows the loop: {p}"
    );
    assert_eq!(without_comments(&p), without_comments(&s));
}

#[test]
fn broadcasts_are_loops_with_one_length_check() {
    let src = r#"
        #[i]
        fn axpy<T: Real>(y: &mut [T], a: &mut T, x: &mut [T], z: &mut [T]) {
            y[..] += a * x[..];
            swap(x[..], z[..]);
        }
    "#;
    let fs = parse(src);
    let mut m = Module::new();
    m.function(&fs[0]).unwrap();
    m.kernel(&fs[0], &KernelSpec::new()).unwrap();
    let src = m.source();
    // the sites of the two length checks name their statements
    let axpy = site_id(&src, "axpy - y[..] += a * x[..];");
    let swap = site_id(&src, "axpy - swap(x[..], z[..]);");
    assert!(
        src.contains(&format!("nl_same_len(__nl, {axpy}LL, y_len, x_len)")),
        "{src}"
    );
    assert!(
        src.contains(&format!("nl_same_len(__nl, {swap}LL, x_len, z_len)")),
        "{src}"
    );
    gxx_syntax_check(&src, "broadcast");
    // a loop is a broadcast by its origin, not by its range: a hand-written end calling
    // `broadcast_len` is a call the generator does not translate
    let src = r#"
        #[i]
        fn f<T: Real>(y: &mut [T], x: &mut [T]) {
            for i in 0..::nilang::__private::broadcast_len("f", "", &[("y", y.len()), ("x", x.len())]) {
                y[i] += identity(x[i]);
            }
        }
    "#;
    let e = generate(&parse(src)[0]).unwrap_err();
    assert!(
        e.statement()
            .starts_with("for i in 0..::nilang::__private::broadcast_len"),
        "{e}"
    );
}

#[test]
fn constructors_rename_fields_and_misuse_names_the_statement() {
    // a built value is its fields, each in the variable it was built from: no C++ struct
    let src = r#"
        #[i]
        fn f<T: Real>(y: &mut T, x: &mut T) {
            let (a, b, c) = (T::zero(), T::zero(), T::zero());
            a += sin(x);
            let t = new!((a, b));
            let z = new!(Point { p: t, q: c });
            y += z.p.0 * x;
            let Point { p: t, q: c } = fields!(z);
            let (a, b) = fields!(t);
            a -= sin(x);
            dealloc!(a = T::zero(), b = T::zero(), c = T::zero());
        }
    "#;
    let fs = parse(src);
    let cpp = generate(&fs[0]).unwrap();
    assert!(cpp.contains("nl_cv<decltype(__y)>::from(a);"), "{cpp}");
    let mut m = Module::new();
    m.function(&fs[0]).unwrap();
    gxx_syntax_check(&m.source(), "constructors");
    // a whole built value where a scalar is needed
    let src = r#"
        #[i]
        fn f<T: Real>(y: &mut T, x: &mut T) {
            let (a, b) = (T::zero(), T::zero());
            let t = new!((a, b));
            g(t, x);
            let (a, b) = fields!(t);
            dealloc!(a = T::zero(), b = T::zero());
        }
    "#;
    let e = generate(&parse(src)[0]).unwrap_err();
    assert_eq!(e.statement(), "g(t, x);");
    assert!(
        e.message().contains("`t` is a value built by `new!`"),
        "{e}"
    );
    // swapping values of different shapes
    let src = r#"
        #[i]
        fn f<T: Real>(y: &mut T) {
            let (a, b, c) = (T::zero(), T::zero(), T::zero());
            let t = new!((a, b));
            swap(t, c);
            let (a, b) = fields!(t);
            dealloc!(a = T::zero(), b = T::zero(), c = T::zero());
        }
    "#;
    let e = generate(&parse(src)[0]).unwrap_err();
    assert_eq!(e.statement(), "swap(t, c);");
    assert!(
        e.message().contains("both must be values built by `new!`"),
        "{e}"
    );
}

#[test]
fn mapfoldl_is_its_loop_with_a_zero_of_the_output_type() {
    let src = r#"
        #[i]
        fn cube_into<T: Real>(c: &mut T, v: &mut T) { c += pow(v, 3); }
        #[i]
        fn add_sin<T: Real>(s: &mut T, c: &mut T) { s += sin(c); }
        #[i]
        fn f<T: Real>(out: &mut T, x: &mut [T]) { mapfoldl!(cube_into, add_sin, out, x); }
    "#;
    let fs = parse(src);
    let cpp = generate(find(&fs, "f")).unwrap();
    assert!(
        cpp.contains(
            "auto __mapfoldl_anc = out; __mapfoldl_anc = nl_lit<decltype(__mapfoldl_anc)>(-0.0);"
        ),
        "{cpp}"
    );
    let x = site_id(&cpp, "f x x[__mapfoldl_i]");
    assert!(
        cpp.contains(&format!(
            "cube_into(__nl, __mapfoldl_anc, nl_at(__nl, x, x_len, (long long)(__mapfoldl_i), {x}LL));"
        )),
        "{cpp}"
    );
    assert!(
        cpp.contains("add_sin_inv(__nl, out, __mapfoldl_anc);"),
        "{cpp}"
    );
    let mut m = Module::new();
    for f in &fs {
        m.function(f).unwrap();
    }
    gxx_syntax_check(&m.source(), "mapfoldl");
}

#[test]
fn parallel_broadcasts_are_sequential_in_cpp() {
    // the C++ adjoint is the inverse on `gvar`, which stores operand gradients in place: `a`'s
    // gradient would race under `omp parallel for` (docs/decisions/0029-broadcasts-are-loops.md)
    let src = |body: &str| {
        format!("#[i] fn f<T: Real>(y: &mut [T], a: &mut T, x: &mut [T]) {{ {body} }}")
    };
    let par = parse(&src("par! { y[..] += a * x[..]; }"));
    let seq = parse(&src("y[..] += a * x[..];"));
    let (p, s) = (generate(&par[0]).unwrap(), generate(&seq[0]).unwrap());
    assert!(!p.contains("pragma"), "{p}");
    assert_eq!(without_comments(&p), without_comments(&s));
}
