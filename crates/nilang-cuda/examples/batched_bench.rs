//! Batched kernels: single-thread Rust vs the same kernels on rayon vs the generated C++
//! compiled for the host, and, built with the `cuda` feature on a machine with a GPU, the
//! generated CUDA compiled by NVRTC (timed per call, copies to and from the device included).
//! Prints the median of several runs of each.
//!
//! `cargo run --release -p nilang-cuda [--features cuda] --example batched_bench [-- --quick]
//! [--ba-dir DIR]`
//!
//! Bessel: gradient of J2(z) (forward, then the inverse on GVar) over batches of 4000 and
//! 100 000 instances. BA: the 2×15 Jacobian blocks of every observation (two forward and two
//! gradient sweeps) of ADBench `ba1` (31 843 observations) and `ba5` (225 911), read from
//! `--ba-dir` (default shared/data/adbench/ba) when present (one camera and point,
//! replicated), else seeded inputs of the same sizes.

use nilang::GVar;
use nilang_cgen::{KernelSpec, Module};
use nilang_cuda::programs::{ba_residual, ba_residual_inv};
use nilang_cuda::{Backend, Batch, HostModule, RustKernel};
use std::time::Instant;

/// The middle value of `t` (the upper one of an even count).
fn middle(mut t: Vec<f64>) -> f64 {
    t.sort_by(|a, b| a.partial_cmp(b).unwrap());
    t[t.len() / 2]
}

fn median(mut f: impl FnMut(), reps: usize) -> f64 {
    f();
    middle(
        (0..reps)
            .map(|_| {
                let s = Instant::now();
                f();
                s.elapsed().as_secs_f64()
            })
            .collect(),
    )
}

/// Median of `reps` timed runs of `run` on fresh inputs from `setup` (not timed).
fn median_with<S>(mut setup: impl FnMut() -> S, mut run: impl FnMut(S), reps: usize) -> f64 {
    run(setup());
    middle(
        (0..reps)
            .map(|_| {
                let input = setup();
                let s = Instant::now();
                run(input);
                s.elapsed().as_secs_f64()
            })
            .collect(),
    )
}

/// The generated `source`'s kernel `name` on GPU 0, when the `cuda` feature is on and a GPU
/// can be used; else why not.
fn gpu_kernel(source: &str, name: &str) -> Result<Box<dyn Backend>, String> {
    #[cfg(feature = "cuda")]
    {
        nilang_cuda::is_available()?;
        let k = nilang_cuda::CudaKernel::compile(source, name, 0).map_err(|e| e.0)?;
        Ok(Box::new(k))
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (source, name);
        Err("built without the `cuda` feature".into())
    }
}

/// Table cells for a GPU's times (seconds: per call with the copies, and its kernels alone),
/// or why there are none.
fn gpu_cells(t: &Result<(f64, f64), String>) -> String {
    match t {
        Ok((total, kernels)) => format!("{:.3} | {:.3}", total * 1e3, kernels * 1e3),
        Err(why) => format!("not run ({why}) | —"),
    }
}

/// One gradient: the forward program, the seeds set by `seed`, the gradient sweep. Returns
/// the seconds the backend's two kernels took alone, where it can tell ([`Backend::
/// last_kernel_seconds`]; 0 otherwise).
fn sweep(k: &dyn Backend, b: &mut Batch, seed: impl Fn(&mut Batch)) -> f64 {
    k.forward(b).unwrap();
    let forward = k.last_kernel_seconds().unwrap_or(0.0);
    seed(b);
    k.gradient(b).unwrap();
    forward + k.last_kernel_seconds().unwrap_or(0.0)
}

/// The median over `reps` runs (after one more) of the kernel seconds `run` reports.
fn median_kernels(mut run: impl FnMut() -> f64, reps: usize) -> f64 {
    run();
    middle((0..reps).map(|_| run()).collect())
}

/// The largest difference between two gradient buffers, relative to the largest entry.
fn largest_difference(a: &[f64], b: &[f64]) -> f64 {
    let scale = a.iter().chain(b).fold(1e-300f64, |m, v| m.max(v.abs()));
    let diff = a
        .iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
    diff / scale
}

fn bessel(n: usize, reps: usize) {
    let special = include_str!("../../nilang/src/stdlib/special.rs");
    let fs = nilang_ir::parse_file(special).unwrap();
    let mut m = Module::new();
    for name in ["imul_int", "ifactorial", "imul", "ibesselj"] {
        m.function(fs.iter().find(|f| f.sig.ident == name).unwrap())
            .unwrap();
    }
    m.kernel(
        fs.iter().find(|f| f.sig.ident == "ibesselj").unwrap(),
        &KernelSpec::new().shared("nu", 1),
    )
    .unwrap();
    let host = HostModule::compile(&m.source())
        .unwrap()
        .kernel("ibesselj")
        .unwrap();
    let gpu = gpu_kernel(&m.source(), "ibesselj");
    let z: Vec<f64> = (0..n).map(|i| 0.2 + 2.8 * (i as f64 / n as f64)).collect();
    let batch = Batch::new(n)
        .real(1, vec![0.0; n])
        .shared_int(2)
        .real(1, z.clone());
    let mut sink = 0.0;
    let plain = median(
        || {
            for &z0 in &z {
                let (mut out, mut zz) = (0.0, z0);
                nilang::special::ibesselj_nocheck(&mut out, 2, &mut zz);
                let (mut go, mut gz) = (GVar::with_grad(out, 1.0), GVar::new(zz));
                nilang::special::ibesselj_nocheck_inv(&mut go, 2, &mut gz);
                sink += gz.g;
            }
        },
        reps,
    );
    let rust = RustKernel::new(
        |r, _, i| {
            let [o, z] = r else { unreachable!() };
            nilang::special::ibesselj_nocheck(&mut o[0], i[0], &mut z[0])
        },
        |r, _, i| {
            let [o, z] = r else { unreachable!() };
            nilang::special::ibesselj_nocheck_inv(&mut o[0], i[0], &mut z[0])
        },
        |r, _, i| {
            let [o, z] = r else { unreachable!() };
            nilang::special::ibesselj_nocheck_inv(&mut o[0], i[0], &mut z[0])
        },
    );
    let seed = |b: &mut Batch| b.grads_mut(0).fill(1.0);
    let grad_on = |k: &dyn Backend, mut b: Batch| {
        sweep(k, &mut b, seed);
        b
    };
    let seq = median_with(|| batch.clone(), |b| drop(grad_on(&rust, b)), reps);
    let rust = rust.rayon();
    let par = median_with(|| batch.clone(), |b| drop(grad_on(&rust, b)), reps);
    let cpp = median_with(|| batch.clone(), |b| drop(grad_on(&host, b)), reps);
    let (a, b) = (grad_on(&host, batch.clone()), grad_on(&rust, batch.clone()));
    assert!(a
        .grads(2)
        .iter()
        .zip(b.grads(2))
        .all(|(x, y)| (x - y).abs() <= 1e-12));
    let gpu = gpu.map(|k| {
        let g = grad_on(k.as_ref(), batch.clone());
        let d = largest_difference(g.grads(2), b.grads(2));
        assert!(d <= 1e-12, "GPU and Rust gradients differ by {d:e}");
        let total = median_with(|| batch.clone(), |b| drop(grad_on(k.as_ref(), b)), reps);
        let kernels = median_kernels(|| sweep(k.as_ref(), &mut batch.clone(), seed), reps);
        (total, kernels)
    });
    println!(
        "| Bessel J2 gradient | {n} | {:.3} | {:.3} | {:.3} | {:.3} | {} |",
        plain * 1e3,
        seq * 1e3,
        par * 1e3,
        cpp * 1e3,
        gpu_cells(&gpu)
    );
    std::hint::black_box(sink);
}

fn read_ba(path: &str, fallback_p: usize) -> (String, Vec<f64>, Vec<f64>, f64, Vec<f64>, usize) {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let v: Vec<f64> = text
                .split_whitespace()
                .map(|t| t.parse().unwrap())
                .collect();
            let p = v[2] as usize;
            let name = std::path::Path::new(path)
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .to_string();
            (
                name,
                v[3..14].to_vec(),
                v[14..17].to_vec(),
                v[17],
                v[18..20].to_vec(),
                p,
            )
        }
        Err(_) => {
            let cam = vec![
                0.1, -0.2, 0.05, 0.3, -0.1, 0.2, 400.0, 1.0, -2.0, 1e-3, 1e-4,
            ];
            (
                format!("seeded p={fallback_p}"),
                cam,
                vec![0.5, -0.4, 6.0],
                0.8,
                vec![30.0, -20.0],
                fallback_p,
            )
        }
    }
}

fn ba(path: &str, fallback_p: usize, reps: usize) {
    let (name, cam, x, w, feat, p) = read_ba(path, fallback_p);
    let fs = nilang_ir::parse_file(nilang_cuda::programs::SOURCE).unwrap();
    let f = fs.iter().find(|f| f.sig.ident == "ba_residual").unwrap();
    let mut m = Module::new();
    m.function(f)
        .unwrap()
        .kernel(f, &KernelSpec::new())
        .unwrap();
    let host = HostModule::compile(&m.source())
        .unwrap()
        .kernel("ba_residual")
        .unwrap();
    let gpu = gpu_kernel(&m.source(), "ba_residual");
    // ADBench replicates the one camera and point; perturb them per observation (seeded) so
    // that no two instances are identical.
    let cams: Vec<f64> = (0..p)
        .flat_map(|i| {
            cam.iter()
                .map(move |c| c * (1.0 + 1e-3 * ((i % 97) as f64)))
        })
        .collect();
    let points: Vec<f64> = (0..p)
        .flat_map(|i| x.iter().map(move |c| c + 1e-3 * ((i % 89) as f64)))
        .collect();
    let feats: Vec<f64> = (0..p).flat_map(|_| feat.clone()).collect();
    let batch = Batch::new(p)
        .real(2, vec![0.0; 2 * p])
        .real(11, cams.clone())
        .real(3, points.clone())
        .real(1, vec![w; p])
        .data(2, feats.clone());
    let mut sink = 0.0;
    let plain = median(
        || {
            for i in 0..p {
                for row in 0..2 {
                    let mut err = [0.0; 2];
                    let mut c = cams[11 * i..11 * i + 11].to_vec();
                    let mut xx = points[3 * i..3 * i + 3].to_vec();
                    let mut ww = w;
                    let fe = &feats[2 * i..2 * i + 2];
                    ba_residual(&mut err, &mut c, &mut xx, &mut ww, fe);
                    let mut ge = [GVar::new(err[0]), GVar::new(err[1])];
                    ge[row].g = 1.0;
                    let mut gc: [GVar<f64>; 11] = std::array::from_fn(|j| GVar::new(c[j]));
                    let mut gx: [GVar<f64>; 3] = std::array::from_fn(|j| GVar::new(xx[j]));
                    let mut gw = GVar::new(ww);
                    ba_residual_inv(&mut ge, &mut gc, &mut gx, &mut gw, fe);
                    sink += gc[0].g + gx[0].g + gw.g;
                }
            }
        },
        reps,
    );
    let rust = RustKernel::new(
        |r, d, _| {
            let [e, c, x, w] = r else { unreachable!() };
            ba_residual(e, c, x, &mut w[0], d[0])
        },
        |r, d, _| {
            let [e, c, x, w] = r else { unreachable!() };
            ba_residual_inv(e, c, x, &mut w[0], d[0])
        },
        |r, d, _| {
            let [e, c, x, w] = r else { unreachable!() };
            ba_residual_inv(e, c, x, &mut w[0], d[0])
        },
    );
    // row `row` of every observation's block: seed 1 on that residual
    let seed = |row: usize| {
        move |b: &mut Batch| {
            for i in 0..p {
                b.grads_mut(0)[2 * i + row] = 1.0;
            }
        }
    };
    let jac = |k: &dyn Backend, rows: [Batch; 2]| {
        rows.into_iter()
            .enumerate()
            .map(|(row, mut b)| {
                sweep(k, &mut b, seed(row));
                b
            })
            .collect::<Vec<_>>()
    };
    let rows = || [batch.clone(), batch.clone()];
    let seq = median_with(rows, |r| drop(jac(&rust, r)), reps);
    let rust = rust.rayon();
    let par = median_with(rows, |r| drop(jac(&rust, r)), reps);
    let cpp = median_with(rows, |r| drop(jac(&host, r)), reps);
    let gpu = gpu.map(|k| {
        let (g, r) = (jac(k.as_ref(), rows()), jac(&rust, rows()));
        for (row, (g, r)) in g.iter().zip(&r).enumerate() {
            for arg in 1..4 {
                let d = largest_difference(g.grads(arg), r.grads(arg));
                assert!(
                    d <= 1e-12,
                    "row {row}, argument {arg}: GPU and Rust differ by {d:e}"
                );
            }
        }
        let total = median_with(rows, |r| drop(jac(k.as_ref(), r)), reps);
        let kernels = median_kernels(
            || {
                (0..2)
                    .map(|row| sweep(k.as_ref(), &mut batch.clone(), seed(row)))
                    .sum()
            },
            reps,
        );
        (total, kernels)
    });
    println!(
        "| BA Jacobian ({name}) | {p} | {:.1} | {:.1} | {:.1} | {:.1} | {} |",
        plain * 1e3,
        seq * 1e3,
        par * 1e3,
        cpp * 1e3,
        gpu_cells(&gpu)
    );
    std::hint::black_box(sink);
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let reps = if quick { 3 } else { 7 };
    if let Err(why) = HostModule::compiler_available() {
        eprintln!("no host C++ compiler: {why}");
        return;
    }
    let args: Vec<String> = std::env::args().collect();
    let ba_dir = args
        .iter()
        .position(|a| a == "--ba-dir")
        .and_then(|i| args.get(i + 1))
        .map(|d| format!("{d}/"))
        .unwrap_or_else(|| {
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../../shared/data/adbench/ba/"
            )
            .to_string()
        });
    println!(
        "rayon threads: {}; CUDA: {}",
        rayon::current_num_threads(),
        match nilang_cuda::is_available() {
            Ok(()) if cfg!(feature = "cuda") => "available".to_string(),
            Ok(()) => "available, but this build has no `cuda` feature".to_string(),
            Err(why) => format!("not available ({why})"),
        }
    );
    println!("| kernel | instances | Rust 1 thread, plain loop (ms) | Batch, Rust sequential (ms) | Batch, Rust rayon (ms) | Batch, host C++ g++ -O2 (ms) | Batch, CUDA GPU, copies included (ms) | CUDA kernels alone (ms) |");
    println!("|---|---|---|---|---|---|---|---|");
    bessel(4000, reps);
    bessel(100_000, reps);
    ba(&format!("{ba_dir}ba1_n49_m7776_p31843.txt"), 31843, reps);
    if !quick {
        ba(
            &format!("{ba_dir}ba5_n257_m65132_p225911.txt"),
            225911,
            reps,
        );
    }
}
