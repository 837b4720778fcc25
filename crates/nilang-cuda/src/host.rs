//! The generated C++ compiled for the host (g++) and loaded at run time: the CPU check of the
//! code that runs on the GPU, and a fast sequential backend.

use crate::batch::{Arg, Batch, Layout};
use crate::{Backend, Error};
use rayon::prelude::*;
use std::ffi::c_void;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

pub(crate) type Entry = unsafe extern "C" fn(i64, *const *mut c_void, *const i64);

/// A generated translation unit compiled into a shared library and loaded.
pub struct HostModule {
    lib: libloading::Library,
    pub(crate) source: String,
    dir: PathBuf,
}

impl std::fmt::Debug for HostModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostModule")
            .field("dir", &self.dir)
            .finish()
    }
}

impl Drop for HostModule {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The host C++ compiler: `$CXX`, else `g++`.
fn compiler() -> String {
    std::env::var("CXX").unwrap_or_else(|_| "g++".to_string())
}

impl HostModule {
    /// Whether a host C++ compiler runs here (`Err` says why not).
    pub fn compiler_available() -> Result<(), String> {
        match Command::new(compiler()).arg("--version").output() {
            Ok(o) if o.status.success() => Ok(()),
            Ok(_) => Err(format!("`{} --version` failed", compiler())),
            Err(e) => Err(format!("no host C++ compiler `{}`: {e}", compiler())),
        }
    }

    /// Compiles `source` (a whole unit, e.g. `nilang_cgen::Module::source()`) with
    /// `g++ -O2 -ffp-contract=off` (no fused multiply-add, so results match Rust's bit for bit)
    /// into a temporary directory, and loads it.
    pub fn compile(source: &str) -> Result<Arc<HostModule>, Error> {
        static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let id = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("nilang-host-{}-{id}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| Error(format!("temp dir: {e}")))?;
        let src = dir.join("kernels.cpp");
        let lib = dir.join("libkernels.so");
        std::fs::write(&src, source)
            .map_err(|e| Error(format!("writing {}: {e}", src.display())))?;
        let out = Command::new(compiler())
            .args([
                "-std=c++17",
                "-O2",
                "-ffp-contract=off",
                "-fno-fast-math",
                "-shared",
                "-fPIC",
                "-o",
            ])
            .arg(&lib)
            .arg(&src)
            .output()
            .map_err(|e| Error(format!("running {}: {e}", compiler())))?;
        if !out.status.success() {
            return Err(Error(format!(
                "{} failed on the generated source {}:\n{}",
                compiler(),
                src.display(),
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        // SAFETY: the library is the generated kernels: no initialisers with side effects.
        let lib = unsafe { libloading::Library::new(&lib) }
            .map_err(|e| Error(format!("loading: {e}")))?;
        Ok(Arc::new(HostModule {
            lib,
            source: source.to_string(),
            dir,
        }))
    }

    /// The kernels of function `name` in this module.
    pub fn kernel(self: &Arc<Self>, name: &str) -> Result<HostKernel, Error> {
        let layout = Layout::from_source(&self.source, name)?;
        Ok(HostKernel {
            module: self.clone(),
            layout,
        })
    }

    pub(crate) fn entry(&self, name: &str) -> Result<Entry, Error> {
        // SAFETY: every `NL_KERNEL` entry has the `Entry` signature.
        unsafe { self.lib.get::<Entry>(name.as_bytes()).map(|s| *s) }
            .map_err(|e| Error(format!("no kernel `{name}`: {e}")))
    }
}

/// The batched kernels of one function, compiled for the host: a sequential loop over
/// instances (shared gradients summed in instance order).
#[derive(Debug, Clone)]
pub struct HostKernel {
    module: Arc<HostModule>,
    layout: Layout,
}

/// Buffers in the kernel ABI: one per parameter (`gvar` = interleaved value, gradient).
#[derive(Default)]
pub(crate) struct Marshalled {
    pub(crate) f64s: Vec<Vec<f64>>,
    pub(crate) i64s: Vec<Vec<i64>>,
    pub(crate) lens: Vec<i64>,
}

impl Marshalled {
    /// The batch's arguments in the kernel ABI, written into the buffers already here (their
    /// memory is reused: a fresh buffer's pages are faulted in on first write, which took most
    /// of a GPU call's time on large batches).
    pub(crate) fn fill(&mut self, batch: &Batch, gvar: bool) {
        let n = batch.args().len();
        self.f64s.resize_with(n, Vec::new);
        self.i64s.resize_with(n, Vec::new);
        self.lens.clear();
        for ((a, f), i) in batch.args().iter().zip(&mut self.f64s).zip(&mut self.i64s) {
            self.lens.push(a.len() as i64);
            f.clear();
            i.clear();
            match a {
                Arg::Real { values, grads, .. } if gvar => interleave(values, grads, f),
                Arg::Real { values, .. } | Arg::Data { values, .. } => f.extend_from_slice(values),
                Arg::Int { values, .. } => i.extend_from_slice(values),
            }
        }
    }
}

impl Marshalled {
    /// The kernel ABI's `ptrs`: each parameter's buffer (filled from `batch`).
    pub(crate) fn pointers(&mut self, batch: &Batch) -> Vec<*mut c_void> {
        self.f64s
            .iter_mut()
            .zip(self.i64s.iter_mut())
            .zip(batch.args())
            .map(|((f, i), a)| match a {
                Arg::Int { .. } => i.as_mut_ptr() as *mut c_void,
                _ => f.as_mut_ptr() as *mut c_void,
            })
            .collect()
    }
}

pub(crate) fn marshal(batch: &Batch, gvar: bool) -> Marshalled {
    let mut m = Marshalled::default();
    m.fill(batch, gvar);
    m
}

/// Elements per rayon task when (de)interleaving values and gradients: a batch below this is
/// one task, on the calling thread.
const INTERLEAVE_TASK: usize = 1 << 14;

/// `out` = value, gradient, value, gradient, … (the `gvar` layout), on the current rayon pool.
fn interleave(values: &[f64], grads: &[f64], out: &mut Vec<f64>) {
    out.resize(2 * values.len(), 0.0);
    out.par_chunks_exact_mut(2)
        .zip(values.par_iter().zip(grads))
        .with_min_len(INTERLEAVE_TASK)
        .for_each(|(o, (v, g))| {
            o[0] = *v;
            o[1] = *g;
        });
}

/// The gradients (and the values, unless `None`) back out of the `gvar` layout `buf`.
fn deinterleave(buf: &[f64], values: Option<&mut [f64]>, grads: &mut [f64]) {
    let pairs = buf.par_chunks_exact(2).with_min_len(INTERLEAVE_TASK);
    match values {
        Some(values) => pairs
            .zip(values.par_iter_mut().zip(grads.par_iter_mut()))
            .for_each(|(p, (v, g))| {
                *v = p[0];
                *g = p[1];
            }),
        None => pairs.zip(grads.par_iter_mut()).for_each(|(p, g)| *g = p[1]),
    }
}

pub(crate) fn unmarshal(batch: &mut Batch, m: &Marshalled, gvar: bool) {
    for (k, a) in batch.args_mut().iter_mut().enumerate() {
        match a {
            Arg::Real {
                values,
                grads,
                shared,
                ..
            } => {
                let buf = &m.f64s[k];
                let values = (!*shared).then_some(&mut values[..]);
                if gvar {
                    deinterleave(buf, values, grads);
                } else if let Some(values) = values {
                    values.copy_from_slice(buf);
                }
            }
            Arg::Data {
                values,
                shared: false,
                ..
            } => values.copy_from_slice(&m.f64s[k]),
            Arg::Int {
                values,
                shared: false,
            } => values.copy_from_slice(&m.i64s[k]),
            _ => {}
        }
    }
}

impl HostKernel {
    /// The kernel's parameters.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    fn run(&self, batch: &mut Batch, suffix: &str, gvar: bool) -> Result<(), Error> {
        self.layout.check(batch)?;
        let entry = self
            .module
            .entry(&format!("{}__{suffix}", self.layout.name))?;
        let mut m = marshal(batch, gvar);
        let ptrs = m.pointers(batch);
        // SAFETY: every buffer holds `n * lens[k]` elements of the type the kernel reads (or
        // `lens[k]` for shared ones), as `Layout::check` verified.
        unsafe { entry(batch.n() as i64, ptrs.as_ptr(), m.lens.as_ptr()) };
        unmarshal(batch, &m, gvar);
        Ok(())
    }
}

impl Backend for HostKernel {
    fn forward(&self, batch: &mut Batch) -> Result<(), Error> {
        self.run(batch, "fwd", false)
    }
    fn inverse(&self, batch: &mut Batch) -> Result<(), Error> {
        self.run(batch, "inv", false)
    }
    fn gradient(&self, batch: &mut Batch) -> Result<(), Error> {
        if !self.layout.grad {
            return Err(Error(format!(
                "`{}` has no gradient kernel (not generic over a Real scalar)",
                self.layout.name
            )));
        }
        self.run(batch, "grad", true)
    }
    fn describe(&self) -> String {
        "host C++ (g++ -O2, sequential)".to_string()
    }
}
