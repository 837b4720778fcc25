//! Every generated unit (the batched kernels, and the kernels of parallel loops: one thread
//! per iteration) through NVRTC, without a GPU: PTX for the default architecture
//! (compute_75) and cubins for sm_80 and sm_90; a broken unit is an error that
//! carries NVRTC's log. Needs no `cuda` feature, only a loadable libnvrtc (`$NILANG_NVRTC`, or
//! `LD_LIBRARY_PATH`; see `nilang_cuda::nvrtc`). Without one these tests say that they skipped,
//! and why; with `$NILANG_NVRTC` set, a library that does not load is a failure.
//!
//! ```sh
//! pip install --no-deps --target ~/.cache/nilang/nvrtc nvidia-cuda-nvrtc-cu12
//! NILANG_NVRTC=~/.cache/nilang/nvrtc/nvidia/cuda_nvrtc/lib/libnvrtc.so.12 \
//!     cargo test -p nilang-cuda --test nvrtc
//! ```

use nilang_cuda::nvrtc::{Nvrtc, Target, ENV};
use std::io::Write;
use std::time::Instant;

#[path = "common/units.rs"]
mod units;

/// Written to the process's stderr, not to the test harness's captured output: a skip, or
/// what was compiled, shows in every `cargo test` run.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn nvrtc_or_skip(test: &str) -> Option<&'static Nvrtc> {
    match Nvrtc::load() {
        Ok(n) => Some(n),
        Err(e) => {
            assert!(
                std::env::var_os(ENV).is_none_or(|v| v.is_empty()),
                "{ENV} is set but: {e}"
            );
            say(&format!(
                "skipped: {test}: NVRTC compile check not run: {e}"
            ));
            None
        }
    }
}

fn targets(n: &Nvrtc) -> Vec<Target> {
    vec![
        Target::Ptx(n.default_arch()),
        Target::Cubin(80),
        Target::Cubin(90),
    ]
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[test]
fn every_generated_unit_compiles_to_ptx_and_cubin() {
    let Some(nvrtc) = nvrtc_or_skip("every_generated_unit_compiles_to_ptx_and_cubin") else {
        return;
    };
    let units = units::all_units();
    let targets = targets(nvrtc);
    let t0 = Instant::now();
    // units in parallel (separate NVRTC programs are independent), targets in sequence
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = units
            .iter()
            .map(|(what, src, name)| {
                let targets = &targets;
                s.spawn(move || {
                    let t = Instant::now();
                    let out: Vec<_> = targets
                        .iter()
                        .map(|&tg| {
                            let t = Instant::now();
                            let r = nvrtc.compile(src, tg);
                            (tg, r, t.elapsed())
                        })
                        .collect();
                    (*what, *name, out, t.elapsed())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut warnings = Vec::new();
    for (what, name, out, dt) in &results {
        let has_grad = units
            .iter()
            .find(|u| u.0 == *what)
            .is_some_and(|u| u.1.contains(&format!("{name}__grad(")));
        let mut kernels = vec!["fwd", "inv"];
        if has_grad {
            kernels.push("grad");
        }
        // a parallel loop's kernels: also its count and its reductions' sum
        let is_par = units
            .iter()
            .find(|u| u.0 == *what)
            .is_some_and(|u| u.1.contains(&format!("{} {name} ", nilang_cgen::PAR_MARK)));
        if is_par {
            kernels.extend(["count", "sum"]);
            if has_grad {
                kernels.extend(["count_grad", "sum_grad"]);
            }
        }
        for (target, r, _) in out {
            let c = r
                .as_ref()
                .unwrap_or_else(|e| panic!("{what} for {target}: {e}"));
            assert_eq!(c.target, *target);
            match target {
                Target::Ptx(a) => {
                    let ptx = c.ptx().expect("PTX is text");
                    assert!(
                        ptx.contains(&format!(".target sm_{a}")),
                        "{what}: PTX for compute_{a} says {:?}",
                        ptx.lines().find(|l| l.starts_with(".target"))
                    );
                    for k in &kernels {
                        assert!(
                            ptx.contains(&format!(".entry {name}__{k}(")),
                            "{what}: no kernel {name}__{k} in the PTX for compute_{a}"
                        );
                    }
                }
                Target::Cubin(a) => {
                    let img = &c.image;
                    assert!(
                        img.starts_with(b"\x7fELF"),
                        "{what}: sm_{a} cubin is no ELF"
                    );
                    // e_machine (offset 18, little endian) is EM_CUDA = 190
                    assert_eq!(
                        u16::from_le_bytes([img[18], img[19]]),
                        190,
                        "{what}: sm_{a} cubin is not for CUDA"
                    );
                    // e_flags (offset 48) name the SM: bits 0-7 in the ELF ABI of CUDA 12,
                    // bits 8-15 in that of CUDA 13
                    let flags = u32::from_le_bytes([img[48], img[49], img[50], img[51]]);
                    assert!(
                        flags & 0xff == *a || (flags >> 8) & 0xff == *a,
                        "{what}: sm_{a} cubin has e_flags {flags:#x}"
                    );
                    for k in &kernels {
                        assert!(
                            contains(img, &format!("{name}__{k}")),
                            "{what}: no kernel {name}__{k} in the sm_{a} cubin"
                        );
                    }
                }
            }
            if !c.log.trim().is_empty() {
                warnings.push(format!("{what}, {target}: {}", c.log.trim()));
            }
        }
        say(&format!(
            "nvrtc: {what} ({}): {} in {:.2} s",
            kernels
                .iter()
                .map(|k| format!("{name}__{k}"))
                .collect::<Vec<_>>()
                .join(", "),
            out.iter()
                .map(|(t, r, dt)| {
                    format!(
                        "{t} {} B {:.2} s",
                        r.as_ref().unwrap().image.len(),
                        dt.as_secs_f64()
                    )
                })
                .collect::<Vec<_>>()
                .join(", "),
            dt.as_secs_f64()
        ));
    }
    say(&format!(
        "nvrtc: NVRTC {}.{} ({}) compiled {} units for {} in {:.1} s{}",
        nvrtc.version().0,
        nvrtc.version().1,
        nvrtc.path(),
        results.len(),
        targets
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        t0.elapsed().as_secs_f64(),
        if warnings.is_empty() {
            ", no warnings".to_string()
        } else {
            format!("; warnings:\n{}", warnings.join("\n"))
        }
    ));
}

#[test]
fn a_broken_unit_is_an_error_with_the_log() {
    let Some(nvrtc) = nvrtc_or_skip("a_broken_unit_is_an_error_with_the_log") else {
        return;
    };
    let good = units::macro_unit(nilang_cuda::programs::BA_RESIDUAL_CUDA);
    let broken = format!("{good}\nNL_KERNEL void broken(double* y) {{ y[0] += no_such_name; }}\n");
    for target in [Target::Ptx(nvrtc.default_arch()), Target::Cubin(90)] {
        let e = nvrtc.compile(&broken, target).unwrap_err().0;
        assert!(e.contains("no_such_name"), "the log is in the error: {e}");
        assert!(e.contains("NVRTC_ERROR_COMPILATION"), "{e}");
    }
    // an architecture NVRTC does not know is an error too, not a panic
    let e = nvrtc.compile(&good, Target::Ptx(1)).unwrap_err().0;
    assert!(e.contains("compute_1"), "{e}");
    let e = nvrtc.compile("int x;\0", Target::Ptx(90)).unwrap_err().0;
    assert!(e.contains("NUL"), "{e}");
    // the same unit, unbroken, compiles
    nvrtc.compile(&good, Target::Ptx(90)).unwrap();
}

#[test]
fn architecture_choice() {
    let Some(nvrtc) = nvrtc_or_skip("architecture_choice") else {
        return;
    };
    let archs = nvrtc.supported_archs();
    assert!(nvrtc.default_arch() >= 75);
    assert!(nvrtc.supports(nvrtc.default_arch()), "{archs:?}");
    assert!(!nvrtc.supports(60) || nvrtc.version().0 < 13);
    assert_eq!(nvrtc.target_for_device(8, 0).unwrap(), Target::Cubin(80));
    assert_eq!(nvrtc.target_for_device(9, 0).unwrap(), Target::Cubin(90));
    // a device newer than every supported architecture gets PTX of the newest one
    let newest = *archs.iter().max().unwrap();
    assert_eq!(nvrtc.target_for_device(99, 9).unwrap(), Target::Ptx(newest));
    // one older than every supported architecture is an error
    assert!(nvrtc.target_for_device(1, 0).is_err());
}

#[test]
fn a_missing_or_foreign_library_is_an_error() {
    let e = Nvrtc::open("/nonexistent/libnvrtc.so.12").unwrap_err().0;
    assert!(e.contains("cannot load NVRTC"), "{e}");
    // a library that loads but is not NVRTC
    #[cfg(target_os = "linux")]
    {
        let e = Nvrtc::open("libc.so.6").unwrap_err().0;
        assert!(e.contains("not a usable NVRTC library"), "{e}");
    }
}
