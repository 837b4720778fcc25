//! The kernels of a parallel loop (`nilang_cgen::Module::par_kernel`: the body of a `.par()`
//! loop, one thread per iteration) against the Rust program with the same loop, on GradBench's
//! `lse` eval (`nilang-gradbench/src/evals/lse.rs`, compiled by `#[i]` there and translated
//! here from the same file). The kernels are compiled for the host (g++), where the threads
//! run as a sequential loop over the thread index; values and gradients agree with the Rust
//! `.par()` loop to 1e-12 (relative) on rayon pools of 1, 2 and 4 threads. The same checks run
//! on a GPU when there is one (`cuda` feature), and say that they skipped otherwise.

use nilang_cuda::{Backend, Batch, HostModule, HostParKernel};
use nilang_gradbench::evals::gmm::{gmm_objective, gmm_objective_vjp, Prior};
use nilang_gradbench::evals::lse::{
    logsumexp, logsumexp_kept, logsumexp_kept_vjp, logsumexp_vjp, max_value,
};
use std::sync::Arc;

#[path = "common/units.rs"]
mod units;

#[path = "common/numbers.rs"]
mod numbers;
use numbers::{close, Lcg};

#[path = "common/par_programs.rs"]
mod par_programs;
use par_programs::{strided, strided_vjp};

/// Seeded uniform numbers in [lo, hi).
fn uniform(seed: u64, n: usize, lo: f64, hi: f64) -> Vec<f64> {
    Lcg(seed).vec(n, lo, hi)
}

fn host_module() -> Option<Arc<HostModule>> {
    if let Err(why) = HostModule::compiler_available() {
        eprintln!("skipped: {why}; the parallel loops' kernels are not run on the host");
        return None;
    }
    Some(HostModule::compile(&units::par_module().source()).unwrap())
}

/// Runs `f` on a rayon pool of `threads` threads, with every parallel loop split.
fn on_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    nilang::parallel::set_min_parallel_work(1);
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

fn names(k: &HostParKernel) -> Vec<&str> {
    k.layout()
        .layout
        .params
        .iter()
        .map(|p| p.name.as_str())
        .collect()
}

/// What a kernel computed for `logsumexp_kept`'s loop: the exponentials, the sum, and the
/// gradient of `x` for the seed `1/s` on `s` (the adjoint of `out += log(s)` after the loop).
struct Kept {
    e: Vec<f64>,
    s: f64,
    x_grad: Vec<f64>,
}

/// `logsumexp_kept`'s loop on `k`: context `x, e, a, s`.
fn kept_on(k: &dyn Backend, x: &[f64], a: f64) -> Kept {
    let n = x.len();
    let mut ctx = Batch::new(1)
        .real(n, x.to_vec())
        .real(n, vec![0.0; n])
        .real(1, vec![a])
        .real(1, vec![0.0]);
    k.forward(&mut ctx).unwrap();
    let (e, s) = (ctx.values(1).to_vec(), ctx.values(3)[0]);
    ctx.grads_mut(3)[0] = 1.0 / s;
    k.gradient(&mut ctx).unwrap();
    assert_eq!(ctx.values(0), x, "the gradient restores x");
    assert!(
        ctx.values(1).iter().all(|v| *v == 0.0),
        "e swapped back out"
    );
    assert!(ctx.values(3)[0].abs() <= 1e-13 * s, "s uncomputed");
    Kept {
        e,
        s,
        x_grad: ctx.grads(0).to_vec(),
    }
}

/// The Rust program: `logsumexp_kept` forward (`out`) and its gradient for `out`'s seed 1.
/// (Its forward runs the routine's uncomputation, which swaps the exponentials back out of
/// `e`: `e` is zero again after it.)
fn kept_in_rust(x: &[f64], a: f64) -> (f64, Vec<f64>) {
    let n = x.len();
    let (mut out, mut e, mut xv) = (0.0, vec![0.0; n], x.to_vec());
    logsumexp_kept(&mut out, &mut xv, &mut e, a);
    assert!(e.iter().all(|v| *v == 0.0));
    let (mut out2, mut out_grad, mut x_grad) = (0.0, 1.0, vec![0.0; n]);
    let (mut e2, mut e_grad) = (vec![0.0; n], vec![0.0; n]);
    logsumexp_kept_vjp(
        &mut out2,
        &mut out_grad,
        &mut xv,
        &mut x_grad,
        &mut e2,
        &mut e_grad,
        a,
        (),
    );
    assert!(
        out2.abs() <= 1e-12 * out.abs().max(1.0),
        "the adjoint undoes the forward"
    );
    (out, x_grad)
}

#[test]
fn lse_kept_loop_matches_the_rust_par_loop() {
    let Some(m) = host_module() else { return };
    let k = m.par_kernel("logsumexp_kept__par0").unwrap();
    assert_eq!(names(&k), ["x", "e", "a", "s"]);
    assert_eq!(k.layout().reductions, [3], "s is the reduction");
    for n in [1, 7, 1000] {
        let x = uniform(n as u64, n, -4.0, 4.0);
        let a = max_value(&x);
        let got = kept_on(&k, &x, a);
        // what each iteration swaps into `e`: `t += exp(u)` with `u = x[i] − a` (prims.rs)
        let e: Vec<f64> = x.iter().map(|v| (v - a).exp()).collect();
        close(&got.e, &e, "e");
        for threads in [1, 2, 4] {
            let (out, x_grad) = on_pool(threads, || kept_in_rust(&x, a));
            let what = |w: &str| format!("{w}, n = {n}, {threads} thread(s)");
            close(&[got.s.ln() + a], &[out], &what("out = log(s) + a"));
            close(&got.x_grad, &x_grad, &what("x gradient"));
        }
    }
}

#[test]
fn lse_loop_with_a_shared_adjoint_matches_the_rust_par_loop() {
    let Some(m) = host_module() else { return };
    let k = m.par_kernel("logsumexp__par0").unwrap();
    assert_eq!(names(&k), ["x", "a", "s"]);
    for n in [3, 1000] {
        let x = uniform(10 + n as u64, n, -4.0, 4.0);
        let (s, x_grad, a_grad) = shared_on(&k, &x);
        for threads in [1, 2, 4] {
            let (out, rust_grad) = on_pool(threads, || {
                let (mut out, mut xv) = (0.0, x.to_vec());
                logsumexp(&mut out, &mut xv);
                let (mut out2, mut og, mut xg) = (0.0, 1.0, vec![0.0; n]);
                logsumexp_vjp(&mut out2, &mut og, &mut xv, &mut xg);
                (out, xg)
            });
            let what = |w: &str| format!("{w}, n = {n}, {threads} thread(s)");
            close(&[s.ln() + max_value(&x)], &[out], &what("out = log(s) + a"));
            close(&x_grad, &rust_grad, &what("x gradient"));
            // every iteration read `a`: its gradient is the seed 1 of `out += a` minus what
            // each iteration took (∂/∂a of log Σ exp(x − a) = −Σ softmax = −1)
            let taken: f64 = rust_grad.iter().sum();
            close(
                &[a_grad],
                &[1.0 - taken],
                &what("a gradient (shared adjoint)"),
            );
        }
    }
}

/// `logsumexp`'s loop on `k`: context `x, a, s`; the gradient for the seeds of the statements
/// after the loop (`out += log(s)`: `1/s` on `s`; `out += a`: 1 on `a`). Returns `s`, the
/// gradients of `x` and `a`.
fn shared_on(k: &dyn Backend, x: &[f64]) -> (f64, Vec<f64>, f64) {
    let n = x.len();
    let a = max_value(x);
    let mut ctx = Batch::new(1)
        .real(n, x.to_vec())
        .real(1, vec![a])
        .real(1, vec![0.0]);
    k.forward(&mut ctx).unwrap();
    let s = ctx.values(2)[0];
    ctx.grads_mut(1)[0] = 1.0;
    ctx.grads_mut(2)[0] = 1.0 / s;
    k.gradient(&mut ctx).unwrap();
    assert_eq!(ctx.values(1)[0], a, "a is only read");
    (s, ctx.grads(0).to_vec(), ctx.grads(1)[0])
}

#[test]
fn the_inverse_kernel_undoes_the_loop() {
    let Some(m) = host_module() else { return };
    let k = m.par_kernel("logsumexp_kept__par0").unwrap();
    let x = uniform(3, 500, -2.0, 2.0);
    let mut ctx = Batch::new(1)
        .real(500, x.clone())
        .real(500, vec![0.0; 500])
        .real(1, vec![max_value(&x)])
        .real(1, vec![0.0]);
    let before = ctx.clone();
    k.forward(&mut ctx).unwrap();
    assert!(ctx.values(3)[0] > 1.0);
    k.inverse(&mut ctx).unwrap();
    assert_eq!(ctx.values(0), before.values(0));
    assert_eq!(ctx.values(1), before.values(1));
    assert!(ctx.values(3)[0].abs() < 1e-12);
}

#[test]
fn a_context_of_several_instances_is_an_error() {
    let Some(m) = host_module() else { return };
    let k = m.par_kernel("logsumexp__par0").unwrap();
    let mut ctx = Batch::new(2)
        .real(3, vec![0.0; 6])
        .real(1, vec![0.0; 2])
        .real(1, vec![0.0; 2]);
    let e = k.forward(&mut ctx).unwrap_err().0;
    assert!(e.contains("Batch::new(1)"), "{e}");
    // and a name that is no parallel loop's kernel
    let e = m.par_kernel("logsumexp__par1").unwrap_err().0;
    assert!(e.contains("no kernel `logsumexp__par1`"), "{e}");
}

/// GMM's main terms `mt[i·k + c] += α_c + Σⱼ q_cj` (the first `.par()` loop of
/// `gmm_objective`; `α` and `sumq` are read by every iteration, so their gradients are shared
/// adjoints), against `gmm_objective` and `gmm_objective_vjp` at points that all equal every
/// mean: there the rest of the program adds exact zeros to `mt` (`½‖Q(x − μ)‖² = 0`) and to
/// the gradients of `α` and `q` (for seeds on `mt` only), so the Rust program's `mt` is the
/// loop's and its `α` and `q` gradients are the loop's adjoint.
#[test]
fn gmm_main_terms_loop_matches_the_rust_program() {
    let Some(m) = host_module() else { return };
    let k_ = m.par_kernel("gmm_objective__par0").unwrap();
    assert_eq!(names(&k_), ["mt", "alpha", "x", "d", "k", "sumq"]);
    let (n, d, k) = (37, 3, 4);
    let mean = uniform(1, d, -1.0, 1.0);
    let x: Vec<f64> = (0..n).flat_map(|_| mean.clone()).collect();
    let mu: Vec<f64> = (0..k).flat_map(|_| mean.clone()).collect();
    let alpha = uniform(2, k, -1.0, 1.0);
    let q = uniform(3, k * d, -0.5, 0.5);
    let l = uniform(4, k * d * (d - 1) / 2, -0.5, 0.5);
    let seeds = uniform(5, n * k, -1.0, 1.0);
    // the routine before the loop: sumq[c] = Σⱼ q[c·d + j], from zero
    let sumq: Vec<f64> = (0..k)
        .map(|c| (0..d).fold(0.0, |s, j| s + q[c * d + j]))
        .collect();
    let mut ctx = Batch::new(1)
        .real(n * k, vec![0.0; n * k])
        .real(k, alpha.clone())
        .data(n * d, x.clone())
        .int(vec![d as i64])
        .int(vec![k as i64])
        .real(k, sumq);
    k_.forward(&mut ctx).unwrap();
    let mt = ctx.values(0).to_vec();
    ctx.grads_mut(0).copy_from_slice(&seeds);
    k_.gradient(&mut ctx).unwrap();
    assert!(ctx.values(0).iter().all(|v| *v == 0.0), "mt restored");
    let (alpha_grad, sumq_grad) = (ctx.grads(1).to_vec(), ctx.grads(5).to_vec());
    let prior = Prior::new(d, k, n, 1.0, 0.0, 1.0);
    for threads in [1, 2, 4] {
        let what = |w: &str| format!("{w}, {threads} thread(s)");
        let (rust_mt, rust_alpha_grad, rust_q_grad) = on_pool(threads, || {
            let (mut a, mut mu, mut q, mut l) = (alpha.clone(), mu.clone(), q.clone(), l.clone());
            let (mut out, mut rmt, mut e) = (0.0, vec![0.0; n * k], vec![0.0; n * k]);
            gmm_objective(
                &mut out, &mut rmt, &mut e, &mut a, &mut mu, &mut q, &mut l, &x, d, k, prior,
            );
            let (mut out, mut out_grad) = (0.0, 0.0);
            let (mut mt2, mut mt_grad) = (vec![0.0; n * k], seeds.clone());
            let (mut e, mut e_grad) = (vec![0.0; n * k], vec![0.0; n * k]);
            let (mut ga, mut gmu) = (vec![0.0; k], vec![0.0; k * d]);
            let (mut gq, mut gl) = (vec![0.0; k * d], vec![0.0; l.len()]);
            gmm_objective_vjp(
                &mut out,
                &mut out_grad,
                &mut mt2,
                &mut mt_grad,
                &mut e,
                &mut e_grad,
                &mut a,
                &mut ga,
                &mut mu,
                &mut gmu,
                &mut q,
                &mut gq,
                &mut l,
                &mut gl,
                &x,
                (),
                d,
                (),
                k,
                (),
                prior,
                (),
            );
            (rmt, ga, gq)
        });
        close(&mt, &rust_mt, &what("mt"));
        close(
            &alpha_grad,
            &rust_alpha_grad,
            &what("alpha gradient (shared adjoint)"),
        );
        for c in 0..k {
            // `sumq[c] += q[c·d + j]` hands sumq's gradient to every q of the component
            for j in 0..d {
                close(
                    &[sumq_grad[c]],
                    &[rust_q_grad[c * d + j]],
                    &what("q gradient via sumq"),
                );
            }
        }
    }
}

/// `par_programs::strided`: slots of stride 2 written by an inner loop, a reversed inclusive
/// range, a branch, a shared scalar and a two-signed reduction, against its Rust program.
#[test]
fn strided_reversed_loop_with_a_branch_matches_the_rust_par_loop() {
    let Some(m) = host_module() else { return };
    let k = m.par_kernel("strided__par0").unwrap();
    assert_eq!(names(&k), ["y", "x", "w", "total", "n"]);
    for (seed, n) in [(1, 1), (2, 10), (3, 777)] {
        let x = uniform(seed, n, -1.0, 1.0);
        let y0 = uniform(seed + 100, 2 * n, -1.0, 1.0);
        let w = 0.3 + 0.1 * seed as f64;
        let y_seeds = uniform(seed + 200, 2 * n, -1.0, 1.0);
        let mut ctx = Batch::new(1)
            .real(2 * n, y0.clone())
            .real(n, x.clone())
            .real(1, vec![w])
            .real(1, vec![0.5])
            .int(vec![n as i64]);
        k.forward(&mut ctx).unwrap();
        let (y, total) = (ctx.values(0).to_vec(), ctx.values(3)[0]);
        ctx.grads_mut(0).copy_from_slice(&y_seeds);
        ctx.grads_mut(3)[0] = 0.7;
        k.gradient(&mut ctx).unwrap();
        close(ctx.values(0), &y0, "y restored");
        for threads in [1, 2, 4] {
            let what = |w: &str| format!("{w}, n = {n}, {threads} thread(s)");
            let (ry, rtotal, grads) = on_pool(threads, || {
                let (mut ry, mut rx, mut rw, mut rt) = (y0.clone(), x.clone(), w, 0.5);
                strided(&mut ry, &mut rx, &mut rw, &mut rt, n);
                let (mut yg, mut xg, mut wg, mut tg) = (y_seeds.clone(), vec![0.0; n], 0.0, 0.7);
                let (mut ry2, mut rx2, mut rw2, mut rt2) = (y0.clone(), x.clone(), w, 0.5);
                strided_vjp(
                    &mut ry2,
                    &mut yg,
                    &mut rx2,
                    &mut xg,
                    &mut rw2,
                    &mut wg,
                    &mut rt2,
                    &mut tg,
                    n,
                    (),
                );
                (ry, rt, (yg, xg, wg, tg))
            });
            close(&y, &ry, &what("y"));
            close(&[total], &[rtotal], &what("total (reduction)"));
            close(ctx.grads(0), &grads.0, &what("y gradient"));
            close(ctx.grads(1), &grads.1, &what("x gradient"));
            close(
                &[ctx.grads(2)[0]],
                &[grads.2],
                &what("w gradient (shared adjoint)"),
            );
            close(&[ctx.grads(3)[0]], &[grads.3], &what("total gradient"));
        }
    }
}

/// On a GPU: the same loops, one thread per iteration, against the host kernels (atomicAdd
/// sums the shared adjoint in any order: 1e-12).
#[test]
fn par_kernels_on_the_gpu_or_skip() {
    match nilang_cuda::is_available() {
        Err(why) => eprintln!("skipped: the parallel loops' GPU kernels were not run: {why}"),
        Ok(()) => {
            #[cfg(feature = "cuda")]
            {
                let Some(m) = host_module() else { return };
                let source = units::par_module().source();
                let x = uniform(5, 100_000, -4.0, 4.0);
                let a = max_value(&x);
                let gpu = nilang_cuda::CudaParKernel::compile(&source, "logsumexp_kept__par0", 0)
                    .unwrap();
                let host = m.par_kernel("logsumexp_kept__par0").unwrap();
                let (g, h) = (kept_on(&gpu, &x, a), kept_on(&host, &x, a));
                close(&g.e, &h.e, "GPU e");
                close(&[g.s], &[h.s], "GPU s");
                close(&g.x_grad, &h.x_grad, "GPU x gradient");
                let gpu =
                    nilang_cuda::CudaParKernel::compile(&source, "logsumexp__par0", 0).unwrap();
                let host = m.par_kernel("logsumexp__par0").unwrap();
                let (g, h) = (shared_on(&gpu, &x), shared_on(&host, &x));
                close(&[g.0], &[h.0], "GPU s");
                close(&g.1, &h.1, "GPU x gradient");
                close(&[g.2], &[h.2], "GPU a gradient (atomicAdd)");
                eprintln!(
                    "ran on the GPU: {}, 100 000 iterations, body kernel {:?} s",
                    gpu.describe(),
                    gpu.last_kernel_seconds()
                );
            }
        }
    }
}
