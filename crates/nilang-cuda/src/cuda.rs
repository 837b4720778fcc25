//! The generated C++ compiled by NVRTC ([`crate::nvrtc`]) and launched with one thread per
//! instance.

use crate::arg::ArgKind;
use crate::batch::{Batch, Layout};
use crate::host::{check_status, unmarshal, Marshalled, Status};
use crate::nvrtc::{Nvrtc, Target};
use crate::{Backend, Error};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DeviceRepr,
    LaunchConfig, PushKernelArg, ValidAsZeroBits,
};
// the container `load_module` takes (PTX text or a cubin); NVRTC itself is `crate::nvrtc`
use cudarc::nvrtc::Ptx;
use std::sync::{Arc, Mutex};
use std::time::Instant;

pub(crate) fn err(what: &str) -> impl Fn(cudarc::driver::DriverError) -> Error + '_ {
    move |e| Error(format!("{what}: {e:?}"))
}

/// Whether CUDA can be used here, and why not.
pub(crate) fn available() -> Result<(), String> {
    // SAFETY: it only tries to open the driver library (cudarc's loader); no precondition.
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
    /// The source's lines that describe its checks' sites (`nilang_cgen::SITE_MARK`), which
    /// name a failed check.
    sites: String,
    device: usize,
    /// The last call's kernel time ([`Backend::last_kernel_seconds`]).
    kernel_seconds: Mutex<Option<f64>>,
    /// The buffers of the last call, reused by the next one.
    staging: Mutex<Staging>,
}

/// A call's buffers, kept for the next call: the batch in the kernel ABI on the host, one
/// device buffer per parameter (grown when a batch needs more, never shrunk), and the
/// launch's status.
#[derive(Default)]
struct Staging {
    host: Marshalled,
    f64s: Vec<Option<CudaSlice<f64>>>,
    i64s: Vec<Option<CudaSlice<i64>>>,
    status: Option<CudaSlice<i64>>,
}

/// The source's lines that describe its checks' sites.
pub(crate) fn site_lines(source: &str) -> String {
    source
        .lines()
        .filter(|l| l.starts_with(nilang_cgen::SITE_MARK))
        .flat_map(|l| [l, "\n"])
        .collect()
}

/// Threads per block of a batched kernel's launch.
const BLOCK: u32 = 256;

/// The blocks of [`BLOCK`] threads that cover `n` instances (at least one block); `Err` when a
/// launch cannot hold that many (the grid's x dimension is below 2³¹).
fn blocks(n: usize) -> Result<u32, Error> {
    let need = n.div_ceil(BLOCK as usize).max(1);
    u32::try_from(need)
        .ok()
        .filter(|&b| b < 1 << 31)
        .ok_or_else(|| {
            Error(format!(
                "{n} instances need {need} blocks of {BLOCK} threads: more than one launch holds"
            ))
        })
}

/// The device buffer in `slot`, holding at least `len` elements (at least one).
fn device_buffer<'a, T: DeviceRepr + ValidAsZeroBits>(
    s: &Arc<CudaStream>,
    slot: &'a mut Option<CudaSlice<T>>,
    len: usize,
) -> Result<&'a mut CudaSlice<T>, Error> {
    if slot.as_ref().is_none_or(|b| b.len() < len) {
        *slot = Some(s.alloc_zeros(len.max(1)).map_err(err("device memory"))?);
    }
    Ok(slot.as_mut().expect("allocated just above"))
}

/// `host` copied into the device buffer in `slot` (grown if needed); its device address.
pub(crate) fn to_device<T: DeviceRepr + ValidAsZeroBits>(
    s: &Arc<CudaStream>,
    slot: &mut Option<CudaSlice<T>>,
    host: &[T],
) -> Result<u64, Error> {
    let d = device_buffer(s, slot, host.len())?;
    if !host.is_empty() {
        s.memcpy_htod(host, d).map_err(err("copy to device"))?;
    }
    // the guard only records the stream's use of the buffer; there is one stream
    Ok(d.device_ptr(s).0)
}

/// The first `host.len()` elements of the device buffer in `slot` copied back into `host`.
pub(crate) fn from_device<T: DeviceRepr>(
    s: &Arc<CudaStream>,
    slot: &Option<CudaSlice<T>>,
    host: &mut [T],
) -> Result<(), Error> {
    if host.is_empty() {
        return Ok(());
    }
    let d = slot
        .as_ref()
        .expect("copied to the device before the launch");
    s.memcpy_dtoh(&d.slice(..host.len()), host)
        .map_err(err("copy from device"))
}

/// `source` compiled for device `device` and loaded: a cubin for the device's compute
/// capability when the loaded NVRTC supports it, else PTX for the newest architecture it
/// supports below that ([`crate::nvrtc::Nvrtc::target_for_device`]).
pub(crate) fn load(
    source: &str,
    device: usize,
) -> Result<(Arc<CudaContext>, Arc<CudaModule>), Error> {
    available().map_err(Error)?;
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
    Ok((ctx, module))
}

impl CudaKernel {
    /// Compiles `source` (a whole unit from `nilang_cgen::Module`) for device `device` and
    /// loads the kernels of function `name`: a cubin for the device's compute capability when
    /// the loaded NVRTC supports it, else PTX for the newest architecture it supports below
    /// that ([`crate::nvrtc::Nvrtc::target_for_device`]).
    pub fn compile(source: &str, name: &str, device: usize) -> Result<CudaKernel, Error> {
        let layout = Layout::from_source(source, name)?;
        let (ctx, module) = load(source, device)?;
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
            sites: site_lines(source),
            device,
            kernel_seconds: Mutex::new(None),
            staging: Mutex::new(Staging::default()),
        })
    }

    fn run(
        &self,
        f: &CudaFunction,
        suffix: &str,
        batch: &mut Batch,
        gvar: bool,
    ) -> Result<(), Error> {
        self.layout.check(batch)?;
        let s = &self.stream;
        let mut staging = self.staging.lock().expect("not poisoned");
        let Staging {
            host,
            f64s,
            i64s,
            status,
        } = &mut *staging;
        host.fill(batch, gvar);
        let args = batch.args().len();
        f64s.resize_with(args, || None);
        i64s.resize_with(args, || None);
        let mut ptrs = vec![0u64; args];
        for (k, a) in batch.args().iter().enumerate() {
            ptrs[k] = match a.kind() {
                ArgKind::Int => to_device(s, &mut i64s[k], &host.i64s[k])?,
                _ => to_device(s, &mut f64s[k], &host.f64s[k])?,
            };
        }
        let d_ptrs = s.clone_htod(&ptrs).map_err(err("copy to device"))?;
        let d_lens = s.clone_htod(&host.lens).map_err(err("copy to device"))?;
        let zeros: Status = [0; nilang_cgen::STATUS_WORDS];
        let d_status = to_device(s, status, &zeros)?;
        // `Layout::check` (first line) keeps `n` within `i64`
        let n = batch.n() as i64;
        let cfg = LaunchConfig {
            grid_dim: (blocks(batch.n())?, 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = s.launch_builder(f);
        launch.arg(&n).arg(&d_ptrs).arg(&d_lens).arg(&d_status);
        // the copies to the device done, so that the kernel is timed alone
        s.synchronize().map_err(err("synchronize"))?;
        let start = Instant::now();
        // SAFETY: the kernel (the ABI's signature, `nilang_cgen`'s entry of that name) gives
        // instance `i` of the `n` the elements `i * lens[k] .. (i + 1) * lens[k]` of
        // `d_ptrs[k]` for each of the layout's parameters (all `lens[k]` when shared):
        // `self.layout.check` (first line) verified that the batch has one buffer per
        // parameter, of its kind, holding exactly `n * lens[k]` (`lens[k]`), with `n` and the
        // lengths within `i64`; `host.fill` copied each whole and `to_device` gave each a
        // device buffer of at least its length. Within an instance, the generated code checks
        // every slice access against the slice's `lens[k]` and, out of bounds, records the
        // failure in `d_status` (`STATUS_WORDS` zeros, as the ABI wants) and touches a
        // scratch place of the thread instead (`nl_at`); no check traps. All live (in
        // `staging`) until the copies back. The grid covers the `n` instances (`blocks`);
        // threads past `n` do nothing.
        unsafe { launch.launch(cfg) }.map_err(err("launch"))?;
        s.synchronize().map_err(err("synchronize"))?;
        *self.kernel_seconds.lock().expect("not poisoned") = Some(start.elapsed().as_secs_f64());
        let mut failed = zeros;
        from_device(s, status, &mut failed)?;
        s.synchronize().map_err(err("synchronize"))?;
        // a failed check: the results are discarded, the batch is as it was
        let name = format!("{}__{suffix}", self.layout.name);
        check_status(&self.sites, &name, Some("instance"), &failed)?;
        for (k, a) in batch.args().iter().enumerate() {
            match a.kind() {
                ArgKind::Int => from_device(s, &i64s[k], &mut host.i64s[k])?,
                _ => from_device(s, &f64s[k], &mut host.f64s[k])?,
            }
        }
        s.synchronize().map_err(err("synchronize"))?;
        unmarshal(batch, host, gvar);
        Ok(())
    }
}

impl Backend for CudaKernel {
    fn forward(&self, batch: &mut Batch) -> Result<(), Error> {
        self.run(&self.fwd, "fwd", batch, false)
    }
    fn inverse(&self, batch: &mut Batch) -> Result<(), Error> {
        self.run(&self.inv, "inv", batch, false)
    }
    fn gradient(&self, batch: &mut Batch) -> Result<(), Error> {
        match &self.grad {
            Some(g) => self.run(g, "grad", batch, true),
            None => Err(Error(format!(
                "`{}` has no gradient kernel",
                self.layout.name
            ))),
        }
    }
    fn describe(&self) -> String {
        format!("cuda (device {})", self.device)
    }
    fn last_kernel_seconds(&self) -> Option<f64> {
        *self.kernel_seconds.lock().expect("not poisoned")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_covers_every_instance_or_is_an_error() {
        assert_eq!(blocks(0), Ok(1));
        assert_eq!(blocks(256), Ok(1));
        assert_eq!(blocks(257), Ok(2));
        assert_eq!(blocks(((1 << 31) - 1) * 256), Ok((1 << 31) - 1));
        // the old launch cast `n` to u32: 2³² + 5 instances became one block of 5
        assert_eq!(blocks((1 << 32) + 5), Ok((1 << 24) + 1));
        let e = blocks((1 << 31) * 256).unwrap_err().0;
        assert!(e.contains("more than one launch holds"), "{e}");
        assert!(blocks(usize::MAX).is_err());
    }
}
