//! The generated C++, compiled for the host, against the Rust functions compiled from the same
//! reversible source: values and gradients agree to 1e-12 (relative) for the Bessel function,
//! the bundle-adjustment Jacobian block and the GMM per-point term; the rayon backend agrees
//! with the sequential one; the CUDA backend runs the same checks when a GPU is present.

use nilang::GVar;
use nilang_cgen::Module;
use nilang_cuda::programs::{ba_residual, ba_residual_inv, gmm_point, gmm_point_inv};
use nilang_cuda::{ArgKind, Backend, Batch, HostKernel, HostModule, RustKernel};
use std::sync::Arc;

#[path = "common/units.rs"]
mod units;
use units::{ba_module, bessel_module, gmm_module};

#[path = "common/numbers.rs"]
mod numbers;
use numbers::{close, Lcg};

fn host(module: &Module, name: &str) -> Option<HostKernel> {
    if let Err(why) = HostModule::compiler_available() {
        eprintln!("skipped: {why}; the generated C++ is not run on the host");
        return None;
    }
    let m: Arc<HostModule> = HostModule::compile(&module.source()).unwrap();
    Some(m.kernel(name).unwrap())
}

// ---------------------------------------------------------------- Bessel J2

fn bessel_batch(n: usize) -> Batch {
    let z = Lcg(7).vec(n, 0.2, 3.0);
    Batch::new(n).real(1, vec![0.0; n]).shared_int(2).real(1, z)
}

#[test]
fn bessel_j2_values_and_gradients_match_rust() {
    let Some(k) = host(&bessel_module(), "ibesselj") else {
        return;
    };
    let n = 64;
    let mut b = bessel_batch(n);
    let z0 = b.values(2).to_vec();
    k.forward(&mut b).unwrap();
    for i in 0..n {
        let (mut out, mut z) = (0.0, z0[i]);
        nilang::special::ibesselj(&mut out, 2, &mut z);
        close(&[b.values(0)[i]], &[out], "J2");
        assert!((out - nilang::special::besselj_series(2, z0[i])).abs() < 1e-9);
    }
    b.grads_mut(0).fill(1.0);
    k.gradient(&mut b).unwrap();
    for i in 0..n {
        let (mut out, mut z) = (0.0, z0[i]);
        nilang::special::ibesselj(&mut out, 2, &mut z);
        let (mut go, mut gz) = (GVar::with_grad(out, 1.0), GVar::new(z));
        nilang::special::ibesselj_inv(&mut go, 2, &mut gz);
        close(&[b.grads(2)[i]], &[gz.g], "dJ2/dz");
        close(&[b.values(2)[i]], &[z0[i]], "z restored");
        assert!(b.values(0)[i].abs() < 1e-12, "out uncomputed");
    }
    // the inverse kernel undoes the forward kernel
    let mut c = bessel_batch(n);
    k.forward(&mut c).unwrap();
    k.inverse(&mut c).unwrap();
    assert_eq!(c.values(2), &z0[..]);
}

// ---------------------------------------------------------------- bundle adjustment

fn ba_cam(rng: &mut Lcg) -> Vec<f64> {
    let mut c = rng.vec(11, -0.5, 0.5);
    c[3..6].copy_from_slice(&rng.vec(3, -1.0, 1.0));
    c[6] = rng.next(300.0, 500.0);
    c[7] = rng.next(-5.0, 5.0);
    c[8] = rng.next(-5.0, 5.0);
    c[9] = rng.next(-1e-2, 1e-2);
    c[10] = rng.next(-1e-3, 1e-3);
    c
}

fn ba_point(rng: &mut Lcg) -> Vec<f64> {
    vec![rng.next(-1.0, 1.0), rng.next(-1.0, 1.0), rng.next(4.0, 8.0)]
}

/// `n` observations; camera 0 has no rotation (the other branch of Rodrigues' formula).
fn ba_batch(n: usize, shared_cam: bool) -> Batch {
    let mut rng = Lcg(42);
    let b = Batch::new(n).real(2, vec![0.0; 2 * n]);
    let b = if shared_cam {
        b.shared_real(ba_cam(&mut rng))
    } else {
        let mut cams: Vec<f64> = (0..n).flat_map(|_| ba_cam(&mut rng)).collect();
        cams[0..3].fill(0.0);
        b.real(11, cams)
    };
    let points: Vec<f64> = (0..n).flat_map(|_| ba_point(&mut rng)).collect();
    b.real(3, points)
        .real(1, rng.vec(n, 0.5, 1.5))
        .data(2, rng.vec(2 * n, -50.0, 50.0))
}

/// The 2×15 Jacobian blocks: one forward and one gradient sweep per residual.
fn ba_jacobian(k: &dyn Backend, inputs: &Batch) -> [Batch; 2] {
    [0, 1].map(|row| {
        let mut b = inputs.clone();
        k.forward(&mut b).unwrap();
        for i in 0..b.n() {
            b.grads_mut(0)[2 * i + row] = 1.0;
        }
        k.gradient(&mut b).unwrap();
        b
    })
}

fn ba_rust() -> RustKernel<
    impl Fn(&mut [&mut [f64]], &[&[f64]], &[i64]) + Sync,
    impl Fn(&mut [&mut [f64]], &[&[f64]], &[i64]) + Sync,
    impl Fn(&mut [&mut [GVar<f64>]], &[&[f64]], &[i64]) + Sync,
> {
    RustKernel::new(
        |r, d, _| {
            let [err, cam, x, w] = r else { unreachable!() };
            ba_residual(err, cam, x, &mut w[0], d[0])
        },
        |r, d, _| {
            let [err, cam, x, w] = r else { unreachable!() };
            ba_residual_inv(err, cam, x, &mut w[0], d[0])
        },
        |r, d, _| {
            let [err, cam, x, w] = r else { unreachable!() };
            ba_residual_inv(err, cam, x, &mut w[0], d[0])
        },
    )
}

fn same_batches(a: &Batch, b: &Batch, what: &str) {
    for k in 0..a.args().len() {
        if a.args()[k].kind() == ArgKind::Int {
            continue;
        }
        close(
            a.values(k),
            b.values(k),
            &format!("{what}: values of parameter {k}"),
        );
        if a.args()[k].kind() == ArgKind::Real {
            close(
                a.grads(k),
                b.grads(k),
                &format!("{what}: gradients of parameter {k}"),
            );
        }
    }
}

#[test]
fn ba_jacobian_blocks_match_rust() {
    let Some(k) = host(&ba_module(false), "ba_residual") else {
        return;
    };
    let inputs = ba_batch(40, false);
    let rust = ba_rust();
    let (c, r) = (ba_jacobian(&k, &inputs), ba_jacobian(&rust, &inputs));
    same_batches(&c[0], &r[0], "row 0");
    same_batches(&c[1], &r[1], "row 1");
    // the forward values too, against a direct call
    let mut b = inputs.clone();
    k.forward(&mut b).unwrap();
    let (mut err, mut cam, mut x, mut w) = (
        [0.0; 2],
        inputs.values(1)[11..22].to_vec(),
        inputs.values(2)[3..6].to_vec(),
        inputs.values(3)[1],
    );
    ba_residual(&mut err, &mut cam, &mut x, &mut w, &inputs.values(4)[2..4]);
    close(&b.values(0)[2..4], &err, "residual of observation 1");
    assert!(err[0].abs() > 1.0, "a non-trivial residual");
    // d err / d w = (proj - feat) = err / w
    close(&[c[0].grads(3)[1]], &[err[0] / w], "d err0 / d w");
}

#[test]
fn ba_shared_camera_gradients_sum_over_observations() {
    let Some(k) = host(&ba_module(true), "ba_residual") else {
        return;
    };
    let inputs = ba_batch(30, true);
    let [c0, _] = ba_jacobian(&k, &inputs);
    // Rust, single thread: one camera of GVars whose gradient accumulates over observations.
    let mut cam: Vec<GVar<f64>> = inputs.values(1).iter().map(|&v| GVar::new(v)).collect();
    for i in 0..inputs.n() {
        let mut camf = inputs.values(1).to_vec();
        let mut err = [0.0; 2];
        let mut x = inputs.values(2)[3 * i..3 * i + 3].to_vec();
        let mut w = inputs.values(3)[i];
        let feat = &inputs.values(4)[2 * i..2 * i + 2];
        ba_residual(&mut err, &mut camf, &mut x, &mut w, feat);
        let mut gerr = [GVar::with_grad(err[0], 1.0), GVar::new(err[1])];
        let mut gx: Vec<GVar<f64>> = x.iter().map(|&v| GVar::new(v)).collect();
        let mut gw = GVar::new(w);
        ba_residual_inv(&mut gerr, &mut cam, &mut gx, &mut gw, feat);
        close(
            &gx.iter().map(|g| g.g).collect::<Vec<_>>(),
            &c0.grads(2)[3 * i..3 * i + 3],
            "point gradient",
        );
    }
    close(
        &cam.iter().map(|g| g.g).collect::<Vec<_>>(),
        c0.grads(1),
        "shared camera gradient",
    );
    close(
        c0.values(1),
        inputs.values(1),
        "shared camera values untouched",
    );
    // rayon sums per task: equal to the sequential sum to rounding
    let rust = ba_rust();
    let [s0, _] = ba_jacobian(&rust, &inputs);
    let [p0, _] = ba_jacobian(&ba_rust().rayon(), &inputs);
    same_batches(&s0, &c0, "sequential rust vs host C++");
    same_batches(&p0, &s0, "rayon vs sequential");
}

#[test]
fn rayon_equals_sequential_per_instance() {
    let inputs = ba_batch(200, false);
    let s = ba_jacobian(&ba_rust(), &inputs);
    let p = ba_jacobian(&ba_rust().rayon(), &inputs);
    assert_eq!(
        s, p,
        "per-instance results do not depend on the thread that computes them"
    );
}

// ---------------------------------------------------------------- GMM

const D: usize = 3;
const K: usize = 4;

fn gmm_batch(n: usize) -> Batch {
    let mut rng = Lcg(3);
    Batch::new(n)
        .real(1, vec![0.0; n])
        .data(D, rng.vec(n * D, -1.0, 1.0))
        .shared_real(rng.vec(K, -1.0, 1.0))
        .shared_real(rng.vec(K * D, -1.0, 1.0))
        .shared_real(rng.vec(K * D, -0.5, 0.5))
        .shared_real(rng.vec(K * D * (D - 1) / 2, -0.5, 0.5))
        .shared_int(D as i64)
        .shared_int(K as i64)
}

#[test]
fn gmm_point_terms_match_rust() {
    let m = gmm_module(D, K);
    let Some(k) = host(&m, "gmm_point") else {
        return;
    };
    let rust = RustKernel::new(
        |r, d, i| {
            let [out, a, mu, q, l] = r else {
                unreachable!()
            };
            gmm_point(&mut out[0], d[0], a, mu, q, l, i[0] as usize, i[1] as usize)
        },
        |r, d, i| {
            let [out, a, mu, q, l] = r else {
                unreachable!()
            };
            gmm_point_inv(&mut out[0], d[0], a, mu, q, l, i[0] as usize, i[1] as usize)
        },
        |r, d, i| {
            let [out, a, mu, q, l] = r else {
                unreachable!()
            };
            gmm_point_inv(&mut out[0], d[0], a, mu, q, l, i[0] as usize, i[1] as usize)
        },
    );
    let inputs = gmm_batch(25);
    let run = |k: &dyn Backend| {
        let mut b = inputs.clone();
        k.forward(&mut b).unwrap();
        let fwd = b.clone();
        b.grads_mut(0).fill(1.0);
        k.gradient(&mut b).unwrap();
        (fwd, b)
    };
    let (cf, cg) = run(&k);
    let (rf, rg) = run(&rust);
    same_batches(&cf, &rf, "gmm forward");
    same_batches(&cg, &rg, "gmm gradient");
    let (_, pg) = run(&rust.rayon());
    same_batches(&pg, &rg, "gmm gradient, rayon vs sequential");
    // the per-point term against a plain (irreversible) evaluation
    let x = &inputs.values(1)[0..D];
    let (a, mu, q, l) = (
        inputs.values(2),
        inputs.values(3),
        inputs.values(4),
        inputs.values(5),
    );
    let mut s = 0.0;
    for c in 0..K {
        let mut sq = 0.0;
        for i in 0..D {
            let mut z = q[c * D + i].exp() * (x[i] - mu[c * D + i]);
            for j in 0..i {
                z += l[c * (D * (D - 1) / 2) + j * D - j * (j + 1) / 2 + i - j - 1]
                    * (x[j] - mu[c * D + j]);
            }
            sq += z * z;
        }
        s += (a[c] + q[c * D..c * D + D].iter().sum::<f64>() - 0.5 * sq).exp();
    }
    assert!(
        (cf.values(0)[0] - s.ln()).abs() < 1e-12,
        "{} vs {}",
        cf.values(0)[0],
        s.ln()
    );
    assert!(
        cg.grads(2).iter().all(|g| g.abs() > 0.0),
        "every mixture weight gets a gradient"
    );
}

// ---------------------------------------------------------------- CUDA

#[test]
fn cuda_backend_or_skip() {
    match nilang_cuda::is_available() {
        Err(why) => eprintln!("skipped: GPU tests not run: {why}"),
        Ok(()) => {
            #[cfg(feature = "cuda")]
            {
                let m = ba_module(true);
                let gpu = nilang_cuda::CudaKernel::compile(&m.source(), "ba_residual", 0).unwrap();
                // the kernel keeps its buffers from call to call: a batch, a smaller one, a
                // larger one
                for n in [1000, 10, 3000] {
                    let inputs = ba_batch(n, true);
                    let g = ba_jacobian(&gpu, &inputs);
                    let r = ba_jacobian(&ba_rust(), &inputs);
                    same_batches(&g[0], &r[0], &format!("gpu vs rust, row 0, n = {n}"));
                    same_batches(&g[1], &r[1], &format!("gpu vs rust, row 1, n = {n}"));
                }
                assert!(gpu.last_kernel_seconds().is_some_and(|t| t > 0.0));
                let mut b = bessel_batch(4000);
                let k = nilang_cuda::CudaKernel::compile(&bessel_module().source(), "ibesselj", 0)
                    .unwrap();
                k.forward(&mut b).unwrap();
                b.grads_mut(0).fill(1.0);
                k.gradient(&mut b).unwrap();
                let z = bessel_batch(4000).values(2).to_vec();
                for i in 0..4000 {
                    let (mut out, mut zz) = (0.0, z[i]);
                    nilang::special::ibesselj(&mut out, 2, &mut zz);
                    let (mut go, mut gz) = (GVar::with_grad(out, 1.0), GVar::new(zz));
                    nilang::special::ibesselj_inv(&mut go, 2, &mut gz);
                    close(&[b.grads(2)[i]], &[gz.g], "gpu dJ2/dz");
                }
            }
        }
    }
}

// ---------------------------------------------------------------- every primitive

#[path = "common/all_prims.rs"]
mod all;

#[test]
fn every_primitive_and_construct_matches_rust() {
    let m = units::all_prims_module();
    let Some(k) = host(&m, "all_prims") else {
        return;
    };
    let rust = RustKernel::new(
        |r, _, i| {
            let [y, x] = r else { unreachable!() };
            all::all_prims(y, x, i[0])
        },
        |r, _, i| {
            let [y, x] = r else { unreachable!() };
            all::all_prims_inv(y, x, i[0])
        },
        |r, _, i| {
            let [y, x] = r else { unreachable!() };
            all::all_prims_inv(y, x, i[0])
        },
    );
    let n = 30;
    let mut rng = Lcg(11);
    let inputs = Batch::new(n)
        .real(25, rng.vec(25 * n, -1.0, 1.0))
        .real(19, rng.vec(19 * n, 0.1, 0.9))
        .int((0..n as i64).map(|i| i % 5).collect());
    let run = |k: &dyn Backend| {
        let mut b = inputs.clone();
        k.forward(&mut b).unwrap();
        let fwd = b.clone();
        let seeds = Lcg(5).vec(25 * n, -1.0, 1.0);
        b.grads_mut(0).copy_from_slice(&seeds);
        k.gradient(&mut b).unwrap();
        (fwd, b)
    };
    let (cf, cg) = run(&k);
    let (rf, rg) = run(&rust);
    same_batches(&cf, &rf, "forward");
    same_batches(&cg, &rg, "gradient");
    assert_eq!(cf.values(0), rf.values(0), "bit for bit");
    assert_eq!(cg.grads(1), rg.grads(1), "bit for bit");
    let mut back = cf.clone();
    k.inverse(&mut back).unwrap();
    close(back.values(0), inputs.values(0), "inverse kernel");
}

#[test]
fn macro_emitted_source_runs_like_the_module() {
    // `#[i(cuda)]` gives the function's C++ as a constant: header + constant is a unit.
    let unit = units::macro_unit(nilang_cuda::programs::BA_RESIDUAL_CUDA);
    assert!(unit.contains("NL_KERNEL void ba_residual__grad("));
    if HostModule::compiler_available().is_err() {
        eprintln!("skipped: no host C++ compiler");
        return;
    }
    let k = HostModule::compile(&unit)
        .unwrap()
        .kernel("ba_residual")
        .unwrap();
    let inputs = ba_batch(10, false);
    let a = ba_jacobian(&k, &inputs);
    let b = ba_jacobian(&ba_rust(), &inputs);
    same_batches(&a[0], &b[0], "macro source, row 0");
}
