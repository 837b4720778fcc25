//! A parallel loop's kernels on a GPU (feature `cuda`): the context copied to the device, one
//! thread per iteration, gradients of places every iteration reads summed with `atomicAdd`.

use crate::arg::ArgKind;
use crate::batch::Batch;
use crate::cuda::{err, from_device, load, site_lines, to_device};
use crate::host::{check_status, marshal, Status};
use crate::par::{zeroed_partials, Direction, ParLayout};
use crate::Error;
use cudarc::driver::{
    CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Threads per block of the body's launch.
const BLOCK: u32 = 256;

/// A parallel loop's kernels (`nilang_cgen::Module::par_kernel`) compiled by NVRTC for a GPU.
/// Each call copies the context to the device and back.
pub struct CudaParKernel {
    stream: Arc<CudaStream>,
    module: Arc<CudaModule>,
    layout: ParLayout,
    /// The source's lines that describe its checks' sites (`nilang_cgen::SITE_MARK`).
    sites: String,
    device: usize,
    kernel_seconds: Mutex<Option<f64>>,
}

/// The device buffers of one call.
#[derive(Default)]
struct DeviceContext {
    f64s: Vec<Option<CudaSlice<f64>>>,
    i64s: Vec<Option<CudaSlice<i64>>>,
    count: Option<CudaSlice<i64>>,
    partials: Vec<Option<CudaSlice<f64>>>,
    status: Option<CudaSlice<i64>>,
}

impl CudaParKernel {
    /// Compiles `source` for device `device` and loads the kernels of the parallel loop `name`
    /// (`f__par0`).
    pub fn compile(source: &str, name: &str, device: usize) -> Result<CudaParKernel, Error> {
        let layout = ParLayout::from_source(source, name)?;
        let (ctx, module) = load(source, device)?;
        Ok(CudaParKernel {
            stream: ctx.default_stream(),
            module,
            layout,
            sites: site_lines(source),
            device,
            kernel_seconds: Mutex::new(None),
        })
    }

    fn function(&self, name: &str) -> Result<CudaFunction, Error> {
        self.module.load_function(name).map_err(err("kernel"))
    }

    /// Launches `f` on `threads` threads with a zeroed status in `status`, and waits for it.
    fn launch(
        &self,
        f: &CudaFunction,
        n: i64,
        threads: u32,
        ptrs: &[u64],
        lens: &[i64],
        status: &mut Option<CudaSlice<i64>>,
    ) -> Result<(), Error> {
        let s = &self.stream;
        let d_ptrs = s.clone_htod(ptrs).map_err(err("copy to device"))?;
        let d_lens = s.clone_htod(lens).map_err(err("copy to device"))?;
        let zeros: Status = [0; nilang_cgen::STATUS_WORDS];
        let d_status = to_device(s, status, &zeros)?;
        let cfg = LaunchConfig {
            grid_dim: (threads.div_ceil(BLOCK).max(1), 1, 1),
            block_dim: (BLOCK.min(threads.max(1)), 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = s.launch_builder(f);
        launch.arg(&n).arg(&d_ptrs).arg(&d_lens).arg(&d_status);
        // SAFETY: `f` is one of the loop's entries (the kernel ABI's signature). `ptrs` holds
        // the context's device buffers, each a copy of a buffer that `ParLayout::check` (first
        // line of `run`) verified holds what one instance reads (`lens[k]` elements), every
        // slice access checked against its `lens[k]` by the generated code (a failure
        // recorded in `d_status`, the ABI's `STATUS_WORDS` zeros, and a scratch place touched
        // instead; no check traps); then the count's slot (one `long long`); then, for the
        // body and the sum, each reduction's `n` partials, thread `t < n` writing partial `t`
        // (`zeroed_partials` checked `n >= 0`). All live until `run` returns.
        unsafe { launch.launch(cfg) }.map_err(err("launch"))?;
        s.synchronize().map_err(err("synchronize"))
    }

    /// `Err` when the launch of the entry `name` that wrote `status` recorded a failed check
    /// (`thread` says what a thread is, `None` for a one-thread entry).
    fn check(
        &self,
        name: &str,
        thread: Option<&str>,
        status: &Option<CudaSlice<i64>>,
    ) -> Result<(), Error> {
        let mut failed: Status = [0; nilang_cgen::STATUS_WORDS];
        from_device(&self.stream, status, &mut failed)?;
        self.stream.synchronize().map_err(err("synchronize"))?;
        check_status(&self.sites, name, thread, &failed)
    }

    fn run(&self, context: &mut Batch, d: Direction) -> Result<(), Error> {
        self.layout.check(context)?;
        let (names, gvar) = self.layout.entries(d)?;
        let [count, body, sum] = names.clone().map(|e| self.function(&e));
        let (count, body, sum) = (count?, body?, sum?);
        let s = &self.stream;
        let mut host = marshal(context, gvar);
        let mut dev = DeviceContext::default();
        let args = context.args().len();
        dev.f64s.resize_with(args, || None);
        dev.i64s.resize_with(args, || None);
        let mut ptrs = Vec::with_capacity(args + 1 + self.layout.reductions.len());
        for (k, a) in context.args().iter().enumerate() {
            ptrs.push(match a.kind() {
                ArgKind::Int => to_device(s, &mut dev.i64s[k], &host.i64s[k])?,
                _ => to_device(s, &mut dev.f64s[k], &host.f64s[k])?,
            });
        }
        let mut lens = host.lens.clone();
        ptrs.push(to_device(s, &mut dev.count, &[0i64])?);
        lens.push(1);
        let status = &mut dev.status;
        self.launch(&count, 1, 1, &ptrs, &lens, status)?;
        // a failed slot check: the loop is not run
        self.check(&names[0], None, status)?;
        let mut n = [0i64];
        from_device(s, &dev.count, &mut n)?;
        let n = n[0];
        let threads = u32::try_from(n).map_err(|_| {
            Error(format!(
                "`{}`: {n} iterations: not a launch's thread count (0 to {})",
                self.layout.layout.name,
                u32::MAX
            ))
        })?;
        let partials = zeroed_partials(&self.layout, n)?;
        dev.partials
            .resize_with(self.layout.reductions.len(), || None);
        for (slot, p) in dev.partials.iter_mut().zip(&partials) {
            ptrs.push(to_device(s, slot, p)?);
            lens.push(n);
        }
        let start = Instant::now();
        self.launch(&body, n, threads, &ptrs, &lens, status)?;
        *self.kernel_seconds.lock().expect("not poisoned") = Some(start.elapsed().as_secs_f64());
        // an access out of bounds: the results are discarded, the context is as it was
        self.check(&names[1], Some("iteration"), status)?;
        self.launch(&sum, n, 1, &ptrs, &lens, status)?;
        self.check(&names[2], None, status)?;
        for (k, a) in context.args().iter().enumerate() {
            match a.kind() {
                ArgKind::Int => from_device(s, &dev.i64s[k], &mut host.i64s[k])?,
                _ => from_device(s, &dev.f64s[k], &mut host.f64s[k])?,
            }
        }
        s.synchronize().map_err(err("synchronize"))?;
        crate::host::unmarshal(context, &host, gvar);
        Ok(())
    }
}

crate::par::par_loop_backend! {
    CudaParKernel;
    fn describe(&self) -> String {
        format!("cuda (device {}), one thread per iteration", self.device)
    }
    fn last_kernel_seconds(&self) -> Option<f64> {
        *self.kernel_seconds.lock().expect("not poisoned")
    }
}
