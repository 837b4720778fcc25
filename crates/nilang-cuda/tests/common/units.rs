// The generated units the tests compile: with g++ (host_vs_rust.rs) and with NVRTC (nvrtc.rs).
#![allow(dead_code)]

use nilang_cgen::{KernelSpec, Module};
use nilang_ir::Function;

const SPECIAL: &str = include_str!("../../../nilang/src/stdlib/special.rs");
/// GradBench's `lse` eval: two functions whose sums are `.par()` loops.
const LSE: &str = include_str!("../../../nilang-gradbench/src/evals/lse.rs");
/// GradBench's `gmm` eval, whose objective computes its main terms in a `.par()` loop.
const GMM: &str = include_str!("../../../nilang-gradbench/src/evals/gmm.rs");

pub fn find<'a>(fs: &'a [Function], name: &str) -> &'a Function {
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

pub fn programs() -> Vec<Function> {
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

/// The kernels of parallel loops of GradBench's evals, one thread per iteration: `lse`'s
/// `logsumexp` (a reduction, and the shifted maximum `a` read by every iteration: an
/// atomically summed adjoint) and `logsumexp_kept` (a reduction, and the exponentials written
/// at owned slots) when `lse`, and gmm's main terms (the first loop of `gmm_objective`: two
/// slices read by every iteration) when `gmm`.
pub fn par_unit(lse: bool, gmm: bool) -> Module {
    let mut m = Module::new();
    if lse {
        let fs = nilang_ir::parse_file(LSE).unwrap();
        m.par_kernel(find(&fs, "logsumexp"), 0)
            .unwrap()
            .par_kernel(find(&fs, "logsumexp_kept"), 0)
            .unwrap();
    }
    if gmm {
        let fs = nilang_ir::parse_file(GMM).unwrap();
        m.par_kernel(find(&fs, "gmm_objective"), 0).unwrap();
    }
    m
}

/// Every parallel loop kernel of [`par_unit`] in one unit.
pub fn par_module() -> Module {
    par_unit(true, true)
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
            par_unit(true, false).source(),
            "logsumexp__par0",
        ),
        (
            "gmm's main-terms parallel loop",
            par_unit(false, true).source(),
            "gmm_objective__par0",
        ),
        (
            "GMM_POINT_CUDA",
            macro_unit(nilang_cuda::programs::GMM_POINT_CUDA),
            "gmm_point",
        ),
    ]
}
