//! Every row of the primitive table in the generated C++ header (`nilang_cgen::HEADER`),
//! compiled on the host as the kernels are (`g++ -O2 -ffp-contract=off`): the value, the
//! derivative or partials and the `gvar` adjoint instruction (`nl_sub1`, `nl_sub2`) give
//! Rust's bits (`nilang::prims`, `GVar`) at points of the row's interval. Skipped where no
//! host C++ compiler runs.

use nilang::prims::{self, Binary, Unary};
use nilang::{Acc1, Acc2, GVar};
use nilang_prims::sample::points;
use std::fmt::Write;

/// One check: the C++ expressions printed as bits, and Rust's values of the same.
#[derive(Default)]
struct Checks {
    cpp: String,
    rust: Vec<(String, u64)>,
}

impl Checks {
    fn expect(&mut self, what: String, cpp: &str, rust: f64) {
        writeln!(self.cpp, "    nl_print({cpp});").unwrap();
        self.rust.push((what, rust.to_bits()));
    }

    fn unary<P: Unary<f64>>(&mut self, ty: &str, lo: f64, hi: f64)
    where
        GVar<f64>: Acc1<P>,
    {
        for x in points(lo, hi) {
            let c = format!("nl_bits({}ull)", x.to_bits());
            let (mut y, mut gx) = (GVar::with_grad(0.25 + P::value(x), 1.0), GVar::new(x));
            <GVar<f64> as Acc1<P>>::sub1(&mut y, &mut gx);
            self.expect(
                format!("{ty}::v({x})"),
                &format!("nl_{ty}::v({c})"),
                P::value(x),
            );
            self.expect(
                format!("{ty}::d({x})"),
                &format!("nl_{ty}::d({c})"),
                P::derivative(x),
            );
            let adjoint = format!("nl_adjoint1<nl_{ty}>({c})");
            self.expect(format!("{ty} adjoint at {x}"), &adjoint, gx.g);
        }
    }

    fn binary<P: Binary<f64>>(&mut self, ty: &str, a: (f64, f64), b: (f64, f64))
    where
        GVar<f64>: Acc2<P>,
    {
        for (x, z) in points(a.0, a.1).into_iter().zip(points(b.0, b.1)) {
            let c = format!("nl_bits({}ull), nl_bits({}ull)", x.to_bits(), z.to_bits());
            let (da, db) = P::partials(x, z);
            self.expect(
                format!("{ty}::v({x}, {z})"),
                &format!("nl_{ty}::v({c})"),
                P::value(x, z),
            );
            self.expect(
                format!("{ty}::p({x}, {z}).0"),
                &format!("nl_partial<nl_{ty}>(0, {c})"),
                da,
            );
            self.expect(
                format!("{ty}::p({x}, {z}).1"),
                &format!("nl_partial<nl_{ty}>(1, {c})"),
                db,
            );
            let mut y = GVar::with_grad(0.25 + P::value(x, z), 1.0);
            let (mut gx, mut gz) = (GVar::new(x), GVar::new(z));
            <GVar<f64> as Acc2<P>>::sub2(&mut y, &mut gx, &mut gz);
            let adjoint = format!("nl_adjoint2<nl_{ty}>({c})");
            self.expect(format!("{ty} adjoint at ({x}, {z})"), &adjoint, gx.g + gz.g);
        }
    }
}

/// Helpers of the test program: doubles from and to bits (the points opaque to the compiler), and the adjoint instructions run
/// as the gradient kernels run them (the output's gradient 1).
const HELPERS: &str = r#"
#include <stdio.h>
#include <string.h>
// volatile: the points are not known to the compiler, which would fold the math at compile
// time (correctly rounded, unlike the C library that runs the kernels)
static double nl_bits(unsigned long long b) {
    volatile unsigned long long v = b;
    unsigned long long w = v;
    double d;
    memcpy(&d, &w, 8);
    return d;
}
static void nl_print(double d) { unsigned long long b; memcpy(&b, &d, 8); printf("%llu\n", b); }
template <class P> static double nl_adjoint1(double x) {
    gvar y = {0.25 + P::v(x), 1.0}, g = {x, 0.0};
    nl_sub1<P>(y, g);
    return g.g;
}
template <class P> static double nl_partial(int k, double a, double b) {
    double da, db;
    P::p(a, b, da, db);
    return k == 0 ? da : db;
}
template <class P> static double nl_adjoint2(double a, double b) {
    gvar y = {0.25 + P::v(a, b), 1.0}, ga = {a, 0.0}, gb = {b, 0.0};
    nl_sub2<P>(y, ga, gb);
    return ga.g + gb.g;
}
"#;

macro_rules! every_row {
    ([] unary { $(($ty:ident $name:ident $doc:literal $x:ident $value:block $deriv:block
        $from:tt $method:tt $cpp:tt $int:tt ($lo:literal, $hi:literal)))* }
        binary { $(($bty:ident $bname:ident $bdoc:literal $a:ident $b:ident $bvalue:block
        $partials:block $infix:tt $bcpp:tt $bint:tt $adom:tt $bdom:tt))* }) => {{
        let mut checks = Checks::default();
        $(checks.unary::<prims::$ty>(stringify!($ty), $lo, $hi);)*
        $(checks.binary::<prims::$bty>(stringify!($bty), $adom, $bdom);)*
        checks
    }};
}

/// Compiles and runs `program` with the host compiler: its standard output, or `None` where
/// no compiler runs.
fn compiled_output(program: &str) -> Option<String> {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".to_string());
    if std::process::Command::new(&cxx)
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: no host C++ compiler `{cxx}`");
        return None;
    }
    let dir = std::env::temp_dir().join(format!("nilang-prim-table-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, exe) = (dir.join("rows.cpp"), dir.join("rows"));
    std::fs::write(&src, program).unwrap();
    let flags = [
        "-std=c++17",
        "-O2",
        "-ffp-contract=off",
        "-fno-fast-math",
        "-Wall",
        "-o",
    ];
    let built = std::process::Command::new(&cxx)
        .args(flags)
        .arg(&exe)
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let run = std::process::Command::new(&exe).output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(run.status.success());
    Some(String::from_utf8(run.stdout).unwrap())
}

#[test]
fn every_row_of_the_header_gives_rusts_bits() {
    let checks = nilang_prims::primitives!(every_row);
    let program = format!(
        "{}{HELPERS}int main() {{\n{}}}\n",
        nilang_cgen::HEADER,
        checks.cpp
    );
    let Some(out) = compiled_output(&program) else {
        return;
    };
    let bits: Vec<u64> = out.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(bits.len(), checks.rust.len());
    for ((what, rust), cpp) in checks.rust.iter().zip(&bits) {
        let (r, c) = (f64::from_bits(*rust), f64::from_bits(*cpp));
        assert_eq!(rust, cpp, "{what}: Rust {r:e}, C++ {c:e}");
    }
}
