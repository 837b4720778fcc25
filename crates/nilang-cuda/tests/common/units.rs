// The generated units the tests compile: with g++ (host_vs_rust.rs) and with NVRTC (nvrtc.rs).
#![allow(dead_code)]

use nilang_cgen::{KernelSpec, Module};
use nilang_ir::Analyzed;

const SPECIAL: &str = include_str!("../../../nilang/src/stdlib/special.rs");
/// GradBench's `lse` eval: two functions whose sums are `.par()` loops.
const LSE: &str = include_str!("../../../nilang-gradbench/src/evals/lse.rs");
/// GradBench's `gmm` eval, whose objective computes its main terms in a `.par()` loop.
const GMM: &str = include_str!("../../../nilang-gradbench/src/evals/gmm/program.rs");
/// Loops of shapes those lack (`par_programs.rs`).
const STRIDED: &str = include_str!("par_programs.rs");

pub fn find<'a>(fs: &'a [Analyzed], name: &str) -> &'a Analyzed {
    fs.iter()
        .find(|f| f.sig.ident == name)
        .unwrap_or_else(|| panic!("no {name}"))
}

/// The Bessel function J_ν of the paper, ν shared by every instance.
pub fn bessel_module() -> Module {
    let fs = nilang_ir::parse_file(SPECIAL).unwrap();
    let mut m = Module::new();
    for name in ["imul_int", "ifactorial", "imul", "ibesselj"] {
        m.function(find(&fs, name)).unwrap();
    }
    m.kernel(find(&fs, "ibesselj"), &KernelSpec::new().shared("nu", 1))
        .unwrap();
    m
}

pub fn programs() -> Vec<Analyzed> {
    nilang_ir::parse_file(nilang_cuda::programs::SOURCE).unwrap()
}

/// The bundle-adjustment residual, one camera per observation or one shared camera.
pub fn ba_module(shared_cam: bool) -> Module {
    let fs = programs();
    let f = find(&fs, "ba_residual");
    let mut m = Module::new();
    m.function(f).unwrap();
    let spec = if shared_cam {
        KernelSpec::new().shared("cam", 11)
    } else {
        KernelSpec::new()
    };
    m.kernel(f, &spec).unwrap();
    m
}

/// The GMM per-point term, `k` components in dimension `d`, the mixture shared.
pub fn gmm_module(d: usize, k: usize) -> Module {
    let fs = programs();
    let f = find(&fs, "gmm_point");
    let mut m = Module::new();
    m.function(f).unwrap();
    let spec = KernelSpec::new()
        .shared("alphas", k)
        .shared("means", k * d)
        .shared("qs", k * d)
        .shared("ls", k * d * (d - 1) / 2)
        .shared("d", 1)
        .shared("k", 1);
    m.kernel(f, &spec).unwrap();
    m
}

/// Every primitive, instruction and control construct (`common/all_prims.rs`).
pub fn all_prims_module() -> Module {
    let fs = nilang_ir::parse_file(include_str!("all_prims.rs")).unwrap();
    let mut m = Module::new();
    for f in &fs {
        m.function(f).unwrap();
    }
    m.kernel(find(&fs, "all_prims"), &KernelSpec::new())
        .unwrap();
    m
}

/// The parallel loops whose kernels the tests run, in groups: `(group, source, function)`;
/// each function's first `.par()` loop. GradBench's `lse`: `logsumexp` (a reduction, and the
/// shifted maximum `a` read by every iteration: an atomically summed adjoint) and
/// `logsumexp_kept` (a reduction, and the exponentials written at owned slots); `gmm`: the
/// main terms (the first loop of `gmm_objective`: two slices read by every iteration);
/// `strided`: `common/par_programs.rs` (strided slots, a reversed range, a branch).
const PAR_LOOPS: [(&str, &str, &str); 4] = [
    ("lse", LSE, "logsumexp"),
    ("lse", LSE, "logsumexp_kept"),
    ("gmm", GMM, "gmm_objective"),
    ("strided", STRIDED, "strided"),
];

/// The kernels of the parallel loops of `groups` ([`PAR_LOOPS`]), one thread per iteration.
pub fn par_unit(groups: &[&str]) -> Module {
    let mut m = Module::new();
    for (group, source, name) in PAR_LOOPS {
        if groups.contains(&group) {
            let fs = nilang_ir::parse_file(source).unwrap();
            m.par_kernel(find(&fs, name), 0).unwrap();
        }
    }
    m
}

/// Every kernel of [`PAR_LOOPS`] in one unit.
pub fn par_module() -> Module {
    par_unit(&["lse", "gmm", "strided"])
}

/// `#[i(cuda)]`'s constant after the header: a whole unit.
pub fn macro_unit(cuda: &str) -> String {
    format!("{}\n{}", nilang_cgen::HEADER, cuda)
}

/// Every generated unit: (what, source, kernel function).
pub fn all_units() -> Vec<(&'static str, String, &'static str)> {
    vec![
        ("Bessel J_nu", bessel_module().source(), "ibesselj"),
        ("BA residual", ba_module(false).source(), "ba_residual"),
        (
            "BA residual, shared camera",
            ba_module(true).source(),
            "ba_residual",
        ),
        ("GMM point term", gmm_module(3, 4).source(), "gmm_point"),
        ("every primitive", all_prims_module().source(), "all_prims"),
        (
            "BA_RESIDUAL_CUDA",
            macro_unit(nilang_cuda::programs::BA_RESIDUAL_CUDA),
            "ba_residual",
        ),
        (
            "lse's parallel loops",
            par_unit(&["lse"]).source(),
            "logsumexp__par0",
        ),
        (
            "gmm's main-terms parallel loop",
            par_unit(&["gmm"]).source(),
            "gmm_objective__par0",
        ),
        (
            "a strided, reversed parallel loop",
            par_unit(&["strided"]).source(),
            "strided__par0",
        ),
        (
            "GMM_POINT_CUDA",
            macro_unit(nilang_cuda::programs::GMM_POINT_CUDA),
            "gmm_point",
        ),
    ]
}
