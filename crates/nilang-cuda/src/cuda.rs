//! The generated C++ compiled by NVRTC ([`crate::nvrtc`]) and launched with one thread per
//! instance.

use crate::batch::{Arg, Batch, Layout};
use crate::host::{marshal, unmarshal};
use crate::nvrtc::{Nvrtc, Target};
use crate::{Backend, Error};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaStream, DevicePtr, LaunchConfig, PushKernelArg,
};
// the container `load_module` takes (PTX text or a cubin); NVRTC itself is `crate::nvrtc`
use cudarc::nvrtc::Ptx;
use std::sync::Arc;

fn err(what: &str) -> impl Fn(cudarc::driver::DriverError) -> Error + '_ {
    move |e| Error(format!("{what}: {e:?}"))
}

/// Whether CUDA can be used here, and why not.
pub(crate) fn available() -> Result<(), String> {
    // SAFETY: only probes whether the shared library can be opened.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("no CUDA driver library (libcuda) on this machine".into());
    }
    crate::nvrtc::Nvrtc::load().map_err(|e| e.0)?;
    match CudaContext::device_count() {
        Ok(n) if n > 0 => Ok(()),
        Ok(_) => Err("the CUDA driver reports no device".into()),
        Err(e) => Err(format!("the CUDA driver fails: {e:?}")),
    }
}

/// The batched kernels of one function on a GPU: the generated source compiled by NVRTC
/// ([`crate::nvrtc::OPTIONS`]: `--fmad=false`, so that values match the host's), one thread
/// per instance, shared gradients summed with `atomicAdd`. Buffers are copied to the device and
/// back on each call.
pub struct CudaKernel {
    stream: Arc<CudaStream>,
    fwd: CudaFunction,
    inv: CudaFunction,
    grad: Option<CudaFunction>,
    layout: Layout,
    device: usize,
}

impl CudaKernel {
    /// Compiles `source` (a whole unit from `nilang_cgen::Module`) for device `device` and
    /// loads the kernels of function `name`: a cubin for the device's compute capability when
    /// the loaded NVRTC supports it, else PTX for the newest architecture it supports below
    /// that ([`crate::nvrtc::Nvrtc::target_for_device`]).
    pub fn compile(source: &str, name: &str, device: usize) -> Result<CudaKernel, Error> {
        available().map_err(Error)?;
        let layout = Layout::from_source(source, name)?;
        let nvrtc = Nvrtc::load()?;
        let ctx = CudaContext::new(device).map_err(err("CUDA context"))?;
        let (major, minor) = ctx
            .compute_capability()
            .map_err(err("compute capability"))?;
        let target = nvrtc.target_for_device(major as u32, minor as u32)?;
        let compiled = nvrtc.compile(source, target)?;
        let image = match target {
            Target::Ptx(_) => Ptx::from_src(String::from_utf8_lossy(&compiled.image)),
            Target::Cubin(_) => Ptx::from_binary(compiled.image),
        };
        let module = ctx.load_module(image).map_err(err("loading the module"))?;
        let get = |s: &str| {
            module
                .load_function(&format!("{name}__{s}"))
                .map_err(err("kernel"))
        };
        let grad = if layout.grad {
            Some(get("grad")?)
        } else {
            None
        };
        Ok(CudaKernel {
            stream: ctx.default_stream(),
            fwd: get("fwd")?,
            inv: get("inv")?,
            grad,
            layout,
            device,
        })
    }

    fn run(&self, f: &CudaFunction, batch: &mut Batch, gvar: bool) -> Result<(), Error> {
        self.layout.check(batch)?;
        let s = &self.stream;
        let mut m = marshal(batch, gvar);
        let mut f64s = Vec::new();
        let mut i64s = Vec::new();
        for (k, a) in batch.args().iter().enumerate() {
            match a {
                Arg::Int { .. } => {
                    i64s.push((k, s.clone_htod(&m.i64s[k]).map_err(err("copy to device"))?));
                }
                _ => f64s.push((k, s.clone_htod(&m.f64s[k]).map_err(err("copy to device"))?)),
            }
        }
        let mut ptrs = vec![0u64; batch.args().len()];
        {
            let mut guards = Vec::new();
            for (k, b) in &f64s {
                let (p, g) = b.device_ptr(s);
                ptrs[*k] = p;
                guards.push(g);
            }
            for (k, b) in &i64s {
                let (p, g) = b.device_ptr(s);
                ptrs[*k] = p;
                guards.push(g);
            }
        }
        let d_ptrs = s.clone_htod(&ptrs).map_err(err("copy to device"))?;
        let d_lens = s.clone_htod(&m.lens).map_err(err("copy to device"))?;
        let n = batch.n() as i64;
        let cfg = LaunchConfig {
            grid_dim: ((batch.n() as u32).div_ceil(256).max(1), 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = s.launch_builder(f);
        launch.arg(&n).arg(&d_ptrs).arg(&d_lens);
        // SAFETY: the kernel reads `n * lens[k]` elements of each buffer (or `lens[k]` for
        // shared ones), as `Layout::check` verified; the buffers live until the copies back.
        unsafe { launch.launch(cfg) }.map_err(err("launch"))?;
        for (k, b) in &f64s {
            m.f64s[*k] = s.clone_dtoh(b).map_err(err("copy from device"))?;
        }
        for (k, b) in &i64s {
            m.i64s[*k] = s.clone_dtoh(b).map_err(err("copy from device"))?;
        }
        s.synchronize().map_err(err("synchronize"))?;
        unmarshal(batch, &m, gvar);
        Ok(())
    }
}

impl Backend for CudaKernel {
    fn forward(&self, batch: &mut Batch) -> Result<(), Error> {
        self.run(&self.fwd, batch, false)
    }
    fn inverse(&self, batch: &mut Batch) -> Result<(), Error> {
        self.run(&self.inv, batch, false)
    }
    fn gradient(&self, batch: &mut Batch) -> Result<(), Error> {
        match &self.grad {
            Some(g) => self.run(g, batch, true),
            None => Err(Error(format!(
                "`{}` has no gradient kernel",
                self.layout.name
            ))),
        }
    }
    fn describe(&self) -> String {
        format!("cuda (device {})", self.device)
    }
}
