//! A user instruction with its own C++ view (`#[instruction(…, cuda = TEXT)]`), called by an
//! `#[i(cuda)]` function: the unit `HEADER + add_cubes::CUDA + model::CUDA` compiled for the
//! host runs the forward, inverse and gradient kernels of `model` as the Rust programs do.

use nilang::{i, instruction, Real};
use nilang_cuda::{Backend, Batch, HostModule};

#[path = "common/numbers.rs"]
mod numbers;
use numbers::{close, Lcg};

/// `add_cubes`'s C++ view in `nilang-cgen`'s conventions: the thread's context first, a slice
/// as a pointer and a length; `add_cubes`/`add_cubes_inv` on `double` are the forward and the
/// inverse, and on `gvar` (value and gradient) `add_cubes_inv` is the adjoint and `add_cubes`
/// the adjoint's inverse, as the generated callers call them.
const ADD_CUBES_CPP: &str = r#"
NL_FN void add_cubes(nl_ctx* __nl, double& y, double* x, long long x_len) {
    for (long long i = 0; i < x_len; i++) y += x[i] * x[i] * x[i];
}
NL_FN void add_cubes_inv(nl_ctx* __nl, double& y, double* x, long long x_len) {
    for (long long i = 0; i < x_len; i++) y -= x[i] * x[i] * x[i];
}
NL_FN void add_cubes_inv(nl_ctx* __nl, gvar& y, gvar* x, long long x_len) {
    for (long long i = 0; i < x_len; i++) {
        y.x -= x[i].x * x[i].x * x[i].x;
        x[i].g += 3.0 * x[i].x * x[i].x * y.g;
    }
}
NL_FN void add_cubes(nl_ctx* __nl, gvar& y, gvar* x, long long x_len) {
    for (long long i = 0; i < x_len; i++) {
        y.x += x[i].x * x[i].x * x[i].x;
        x[i].g -= 3.0 * x[i].x * x[i].x * y.g;
    }
}
"#;

/// `y += Σ xᵢ³`, an opaque function with its inverse and adjoints by hand.
#[instruction(
    inverse = add_cubes_sub,
    adjoint = add_cubes_adjoint,
    adjoint_inv = add_cubes_adjoint_inv,
    cuda = ADD_CUBES_CPP
)]
fn add_cubes(y: &mut f64, x: &mut [f64]) {
    *y += x.iter().map(|v| v * v * v).sum::<f64>();
}

fn add_cubes_sub(y: &mut f64, x: &mut [f64]) {
    *y -= x.iter().map(|v| v * v * v).sum::<f64>();
}

fn add_cubes_adjoint(y: &mut f64, gy: &mut f64, x: &mut [f64], gx: &mut [f64]) {
    add_cubes_sub(y, x);
    x.iter().zip(gx).for_each(|(v, g)| *g += 3.0 * v * v * *gy);
}

fn add_cubes_adjoint_inv(y: &mut f64, gy: &mut f64, x: &mut [f64], gx: &mut [f64]) {
    add_cubes(y, x);
    x.iter().zip(gx).for_each(|(v, g)| *g -= 3.0 * v * v * *gy);
}

/// `y += Σ xᵢ³ + sin x₀`: the instruction and a built-in one.
#[i(cuda)]
fn model<T: Real>(y: &mut T, x: &mut [T]) {
    add_cubes(y, x);
    y += sin(x[0]);
}

#[test]
fn the_instructions_cpp_view_runs_like_its_rust_functions() {
    let unit = format!(
        "{}\n{}\n{}",
        nilang_cgen::HEADER,
        add_cubes::CUDA,
        model::CUDA
    );
    assert!(unit.contains("NL_KERNEL void model__grad("));
    if let Err(why) = HostModule::compiler_available() {
        eprintln!("skipped: {why}; the C++ view is not run on the host");
        return;
    }
    let k = HostModule::compile(&unit).unwrap().kernel("model").unwrap();
    let n = 16;
    let xs = Lcg(11).vec(3 * n, -1.0, 1.0);
    let batch = || Batch::new(n).real(1, vec![0.5; n]).real(3, xs.clone());
    let mut b = batch();
    k.forward(&mut b).unwrap();
    let mut c = b.clone();
    b.grads_mut(0).fill(1.0);
    k.gradient(&mut b).unwrap();
    for i in 0..n {
        let (mut y, mut x) = (0.5, xs[3 * i..3 * i + 3].to_vec());
        model(&mut y, &mut x);
        close(&[c.values(0)[i]], &[y], "forward");
        let (mut gy, mut gx) = (1.0, vec![0.0; 3]);
        model_vjp(&mut y, &mut gy, &mut x, &mut gx);
        close(&b.grads(1)[3 * i..3 * i + 3], &gx, "gradient");
        close(&b.values(1)[3 * i..3 * i + 3], &x, "x restored");
    }
    k.inverse(&mut c).unwrap();
    close(c.values(0), &vec![0.5; n], "inverse kernel");
}
