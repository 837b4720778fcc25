//! NVRTC without a GPU: the generated units compiled to PTX (a virtual architecture,
//! `compute_XX`) or to a cubin (a real one, `sm_XX`), with no CUDA driver and no device.
//!
//! The library is loaded at run time with `libloading` (no build-time CUDA, no `cuda` feature):
//!
//! 1. `$NILANG_NVRTC`, when set: the path of the library file itself
//!    (e.g. `…/nvidia/cuda_nvrtc/lib/libnvrtc.so.12`). If it cannot be loaded, that is an error;
//!    no other library is tried.
//! 2. Otherwise the names of CUDA 13, 12 and 11 (`libnvrtc.so`, `libnvrtc.so.13`,
//!    `libnvrtc.so.12`, `libnvrtc.so.11.2`), searched by the dynamic loader (so
//!    `LD_LIBRARY_PATH` applies), then in `$CUDA_HOME/lib64` and `/usr/local/cuda/lib64`.
//!
//! NVRTC itself ships on PyPI (package `nvidia-cuda-nvrtc-cu12`, or `nvidia-cuda-nvrtc` for
//! CUDA 13), so the compile check runs on any Linux machine:
//!
//! ```sh
//! pip install --no-deps --target ~/.cache/nilang/nvrtc nvidia-cuda-nvrtc-cu12
//! NILANG_NVRTC=~/.cache/nilang/nvrtc/nvidia/cuda_nvrtc/lib/libnvrtc.so.12 \
//!     cargo test -p nilang-cuda --test nvrtc -- --nocapture
//! ```
//!
//! ```no_run
//! # fn main() -> Result<(), nilang_cuda::Error> {
//! use nilang_cuda::nvrtc::{Nvrtc, Target};
//! let nvrtc = Nvrtc::load()?;
//! let src = format!("{}\n{}", nilang_cgen::HEADER, nilang_cuda::programs::BA_RESIDUAL_CUDA);
//! let ptx = nvrtc.compile(&src, Target::Ptx(nvrtc.default_arch()))?;
//! let cubin = nvrtc.compile(&src, Target::Cubin(90))?;
//! assert!(ptx.ptx().unwrap().contains(".entry ba_residual__grad"));
//! assert!(cubin.image.starts_with(b"\x7fELF"));
//! # Ok(()) }
//! ```

use crate::Error;
use std::ffi::{c_char, c_int, CStr, CString, OsStr, OsString};
use std::sync::OnceLock;

/// The environment variable naming the NVRTC library file to load.
pub const ENV: &str = "NILANG_NVRTC";

/// The architecture used when there is no device to ask: the oldest one that NVRTC 13 still
/// accepts (Turing). `compute_60`, which the double `atomicAdd` needs at least, is deprecated
/// in NVRTC 12.9 and rejected by NVRTC 13.
pub const DEFAULT_ARCH: u32 = 75;

/// The options every unit is compiled with: no fused multiply-add, so that values match the
/// host's (`g++ -ffp-contract=off`) and Rust's.
pub const OPTIONS: [&str; 2] = ["--fmad=false", "--std=c++14"];

/// What NVRTC produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// PTX for the virtual architecture `compute_XX` (`-arch=compute_XX`): JIT-compiled by the
    /// driver for the device it is loaded on (that architecture or newer).
    Ptx(u32),
    /// A cubin (ELF) for the real architecture `sm_XX` (`-arch=sm_XX`, `nvrtcGetCUBIN`): runs
    /// on devices of that architecture only, without a JIT step.
    Cubin(u32),
}

impl Target {
    /// The NVRTC option that selects it: `-arch=compute_XX` or `-arch=sm_XX`.
    pub fn option(&self) -> String {
        match self {
            Target::Ptx(a) => format!("-arch=compute_{a}"),
            Target::Cubin(a) => format!("-arch=sm_{a}"),
        }
    }

    /// The architecture number (`80` for `compute_80` and `sm_80`).
    pub fn arch(&self) -> u32 {
        match self {
            Target::Ptx(a) | Target::Cubin(a) => *a,
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Ptx(a) => write!(f, "PTX compute_{a}"),
            Target::Cubin(a) => write!(f, "cubin sm_{a}"),
        }
    }
}

/// A compiled unit.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// What was asked for.
    pub target: Target,
    /// The PTX text (without its trailing NUL) or the cubin's bytes.
    pub image: Vec<u8>,
    /// NVRTC's log (warnings; empty when there are none).
    pub log: String,
}

impl Compiled {
    /// The PTX text, for a [`Target::Ptx`].
    pub fn ptx(&self) -> Option<&str> {
        match self.target {
            Target::Ptx(_) => std::str::from_utf8(&self.image).ok(),
            Target::Cubin(_) => None,
        }
    }
}

type NvrtcResult = c_int;
type Program = *mut std::ffi::c_void;

/// The NVRTC entry points used here (all present since CUDA 11.2; `nvrtcGetCUBIN` since 11.1).
struct Api {
    get_error_string: unsafe extern "C" fn(NvrtcResult) -> *const c_char,
    version: unsafe extern "C" fn(*mut c_int, *mut c_int) -> NvrtcResult,
    create_program: unsafe extern "C" fn(
        *mut Program,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> NvrtcResult,
    destroy_program: unsafe extern "C" fn(*mut Program) -> NvrtcResult,
    compile_program: unsafe extern "C" fn(Program, c_int, *const *const c_char) -> NvrtcResult,
    get_program_log_size: unsafe extern "C" fn(Program, *mut usize) -> NvrtcResult,
    get_program_log: unsafe extern "C" fn(Program, *mut c_char) -> NvrtcResult,
    get_ptx_size: unsafe extern "C" fn(Program, *mut usize) -> NvrtcResult,
    get_ptx: unsafe extern "C" fn(Program, *mut c_char) -> NvrtcResult,
    get_cubin_size: Option<unsafe extern "C" fn(Program, *mut usize) -> NvrtcResult>,
    get_cubin: Option<unsafe extern "C" fn(Program, *mut c_char) -> NvrtcResult>,
    get_num_supported_archs: Option<unsafe extern "C" fn(*mut c_int) -> NvrtcResult>,
    get_supported_archs: Option<unsafe extern "C" fn(*mut c_int) -> NvrtcResult>,
}

/// A loaded NVRTC library.
pub struct Nvrtc {
    api: Api,
    // kept loaded as long as `api` is used
    _lib: libloading::Library,
    path: String,
    version: (u32, u32),
    archs: Vec<u32>,
}

impl std::fmt::Debug for Nvrtc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nvrtc")
            .field("path", &self.path)
            .field("version", &self.version)
            .field("archs", &self.archs)
            .finish()
    }
}

/// The library names tried when `$NILANG_NVRTC` is not set, in order.
pub fn candidates() -> Vec<OsString> {
    #[cfg(windows)]
    let names = [
        "nvrtc64_130_0.dll",
        "nvrtc64_120_0.dll",
        "nvrtc64_112_0.dll",
    ];
    #[cfg(not(windows))]
    let names = [
        "libnvrtc.so",
        "libnvrtc.so.13",
        "libnvrtc.so.12",
        "libnvrtc.so.11.2",
    ];
    let mut out: Vec<OsString> = names.iter().map(OsString::from).collect();
    #[cfg(not(windows))]
    {
        let mut dirs = Vec::new();
        if let Some(home) = std::env::var_os("CUDA_HOME") {
            dirs.push(std::path::PathBuf::from(home).join("lib64"));
        }
        dirs.push("/usr/local/cuda/lib64".into());
        for d in dirs {
            for n in names {
                out.push(d.join(n).into_os_string());
            }
        }
    }
    out
}

fn open(path: &OsStr) -> Result<libloading::Library, String> {
    // SAFETY: loading runs the library's initialisers. `path` is NVRTC: `$NILANG_NVRTC`, one
    // of its names (`candidates`), or the file given to `Nvrtc::open` (the crate doc's
    // "Soundness": a library that is not NVRTC is outside the contract); NVRTC's initialisers
    // only set up the library itself.
    unsafe { libloading::Library::new(path) }.map_err(|e| match std::error::Error::source(&e) {
        Some(why) => format!("{e}: {why}"),
        None => e.to_string(),
    })
}

impl Nvrtc {
    /// The library of `$NILANG_NVRTC`, or the first of [`candidates`] that loads; loaded once
    /// per process. `Err` says why none could be used (with every name tried).
    pub fn load() -> Result<&'static Nvrtc, Error> {
        static LOADED: OnceLock<Result<Nvrtc, Error>> = OnceLock::new();
        LOADED
            .get_or_init(|| match std::env::var_os(ENV) {
                Some(p) if !p.is_empty() => Nvrtc::open(&p)
                    .map_err(|e| Error(format!("{ENV}={}: {e}", p.to_string_lossy()))),
                _ => {
                    let mut tried = Vec::new();
                    for c in candidates() {
                        match open(&c) {
                            Ok(lib) => return Nvrtc::from_library(lib, &c),
                            Err(e) => tried.push(e),
                        }
                    }
                    Err(Error(format!(
                        "no NVRTC library: set {ENV} to its file or add its folder to \
                         LD_LIBRARY_PATH (tried {})",
                        candidates()
                            .iter()
                            .map(|c| c.to_string_lossy().into_owned())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )))
                }
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The NVRTC library at `path` (a file, or a name for the dynamic loader to search).
    pub fn open(path: impl AsRef<OsStr>) -> Result<Nvrtc, Error> {
        let path = path.as_ref();
        let lib = open(path).map_err(|e| Error(format!("cannot load NVRTC: {e}")))?;
        Nvrtc::from_library(lib, path)
    }

    fn from_library(lib: libloading::Library, path: &OsStr) -> Result<Nvrtc, Error> {
        let path = path.to_string_lossy().into_owned();
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the type is the NVRTC prototype of that symbol (nvrtc.h), in the
                // NVRTC library `lib` (`open`'s contract); the function pointer copied out stays
                // valid as long as `lib`, which `Nvrtc` keeps loaded beside `api`.
                unsafe { lib.get($name).map(|s| *s) }.map_err(|e| {
                    Error(format!(
                        "{path} is not a usable NVRTC library: {}: {e}",
                        String::from_utf8_lossy(&$name[..$name.len() - 1])
                    ))
                })
            };
        }
        let api = Api {
            get_error_string: sym!(b"nvrtcGetErrorString\0")?,
            version: sym!(b"nvrtcVersion\0")?,
            create_program: sym!(b"nvrtcCreateProgram\0")?,
            destroy_program: sym!(b"nvrtcDestroyProgram\0")?,
            compile_program: sym!(b"nvrtcCompileProgram\0")?,
            get_program_log_size: sym!(b"nvrtcGetProgramLogSize\0")?,
            get_program_log: sym!(b"nvrtcGetProgramLog\0")?,
            get_ptx_size: sym!(b"nvrtcGetPTXSize\0")?,
            get_ptx: sym!(b"nvrtcGetPTX\0")?,
            get_cubin_size: sym!(b"nvrtcGetCUBINSize\0").ok(),
            get_cubin: sym!(b"nvrtcGetCUBIN\0").ok(),
            get_num_supported_archs: sym!(b"nvrtcGetNumSupportedArchs\0").ok(),
            get_supported_archs: sym!(b"nvrtcGetSupportedArchs\0").ok(),
        };
        let mut n = Nvrtc {
            api,
            _lib: lib,
            path,
            version: (0, 0),
            archs: Vec::new(),
        };
        let (mut major, mut minor) = (0, 0);
        // SAFETY: `nvrtcVersion(int*, int*)`: two out-parameters, both valid `c_int`s.
        n.check(
            unsafe { (n.api.version)(&mut major, &mut minor) },
            "nvrtcVersion",
        )?;
        n.version = (major as u32, minor as u32);
        if let (Some(num), Some(get)) = (n.api.get_num_supported_archs, n.api.get_supported_archs) {
            n.archs = n.supported(num, get)?;
        }
        Ok(n)
    }

    /// The real architectures, from `nvrtcGetNumSupportedArchs` and `nvrtcGetSupportedArchs`.
    fn supported(
        &self,
        num: unsafe extern "C" fn(*mut c_int) -> NvrtcResult,
        get: unsafe extern "C" fn(*mut c_int) -> NvrtcResult,
    ) -> Result<Vec<u32>, Error> {
        let mut k: c_int = 0;
        // SAFETY: one out-parameter, a valid `c_int`.
        self.check(unsafe { num(&mut k) }, "nvrtcGetNumSupportedArchs")?;
        let k = usize::try_from(k)
            .map_err(|_| Error(format!("nvrtcGetNumSupportedArchs: {k} architectures")))?;
        let mut a = vec![0 as c_int; k];
        if k > 0 {
            // SAFETY: `nvrtcGetSupportedArchs` writes the `k` architectures that
            // `nvrtcGetNumSupportedArchs` counted; `a` holds `k` (checked `>= 0` above).
            self.check(unsafe { get(a.as_mut_ptr()) }, "nvrtcGetSupportedArchs")?;
        }
        Ok(a.into_iter().map(|x| x as u32).collect())
    }

    fn error_string(&self, r: NvrtcResult) -> String {
        // SAFETY: returns a static string for every value (NVRTC documents "unrecognized
        // error code" for unknown ones).
        let s = unsafe { (self.api.get_error_string)(r) };
        if s.is_null() {
            format!("NVRTC error {r}")
        } else {
            // SAFETY: not null (checked above): NVRTC's static, NUL-terminated message.
            unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()
        }
    }

    fn check(&self, r: NvrtcResult, what: &str) -> Result<(), Error> {
        if r == 0 {
            Ok(())
        } else {
            Err(Error(format!("{what}: {}", self.error_string(r))))
        }
    }

    /// The file or name it was loaded from.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// NVRTC's version, `(major, minor)` (`nvrtcVersion`).
    pub fn version(&self) -> (u32, u32) {
        self.version
    }

    /// The real architectures it compiles for (`nvrtcGetSupportedArchs`, e.g. `75` for
    /// `sm_75`); empty when the library does not say (before CUDA 11.2).
    pub fn supported_archs(&self) -> &[u32] {
        &self.archs
    }

    /// Whether `arch` is in [`Nvrtc::supported_archs`] (or the library does not say).
    pub fn supports(&self, arch: u32) -> bool {
        self.archs.is_empty() || self.archs.contains(&arch)
    }

    /// The architecture for compiling without a device: [`DEFAULT_ARCH`] (`75`) when supported,
    /// else the oldest supported one newer than it.
    pub fn default_arch(&self) -> u32 {
        if self.supports(DEFAULT_ARCH) {
            DEFAULT_ARCH
        } else {
            self.archs
                .iter()
                .copied()
                .filter(|&a| a > DEFAULT_ARCH)
                .min()
                .unwrap_or(DEFAULT_ARCH)
        }
    }

    /// What to compile for a device of compute capability `major.minor`: a cubin for
    /// `sm_{major}{minor}` when this NVRTC supports it; else PTX for the newest supported
    /// architecture not newer than the device (the driver JIT-compiles it); `Err` when the
    /// device is older than every supported architecture.
    pub fn target_for_device(&self, major: u32, minor: u32) -> Result<Target, Error> {
        let cc = major * 10 + minor;
        if self.api.get_cubin.is_some() && self.archs.contains(&cc) {
            return Ok(Target::Cubin(cc));
        }
        if self.archs.is_empty() {
            return Ok(Target::Ptx(cc));
        }
        match self.archs.iter().copied().filter(|&a| a <= cc).max() {
            Some(a) => Ok(Target::Ptx(a)),
            None => Err(Error(format!(
                "NVRTC {}.{} does not compile for compute capability {major}.{minor} \
                 (supported: sm_{})",
                self.version.0,
                self.version.1,
                self.archs
                    .iter()
                    .map(|a| a.to_string())
                    .collect::<Vec<_>>()
                    .join(", sm_")
            ))),
        }
    }

    /// Compiles `source` (a whole unit: `nilang_cgen::Module::source()`, or
    /// `nilang_cgen::HEADER` followed by a function's `NAME_CUDA`) for `target`, with
    /// [`OPTIONS`]. No device is needed. A compile error comes back as `Err` with NVRTC's log.
    pub fn compile(&self, source: &str, target: Target) -> Result<Compiled, Error> {
        if let Target::Cubin(_) = target {
            if self.api.get_cubin.is_none() {
                return Err(Error(format!(
                    "NVRTC {}.{} ({}) cannot produce cubins (no nvrtcGetCUBIN)",
                    self.version.0, self.version.1, self.path
                )));
            }
        }
        let src = CString::new(source)
            .map_err(|_| Error("the source contains a NUL byte".to_string()))?;
        let name = c"nilang_unit.cu";
        let mut opts: Vec<CString> = OPTIONS
            .iter()
            .map(|o| CString::new(*o).expect("no NUL"))
            .collect();
        opts.push(CString::new(target.option()).expect("no NUL"));
        let opt_ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
        let mut prog: Program = std::ptr::null_mut();
        // SAFETY: `prog` is an out-parameter; source and name are NUL-terminated strings
        // (`CString`, `c""`) that outlive the call; no headers (count 0, null arrays).
        self.check(
            unsafe {
                (self.api.create_program)(
                    &mut prog,
                    src.as_ptr(),
                    name.as_ptr(),
                    0,
                    std::ptr::null(),
                    std::ptr::null(),
                )
            },
            "nvrtcCreateProgram",
        )?;
        let out = self.compile_program(prog, &opt_ptrs, target);
        // SAFETY: `prog` was created above (`check` returned early otherwise) and is
        // destroyed once, here.
        unsafe { (self.api.destroy_program)(&mut prog) };
        out
    }

    /// Compiles `prog`, a program created by [`Nvrtc::compile`] and not yet destroyed.
    fn compile_program(
        &self,
        prog: Program,
        opts: &[*const c_char],
        target: Target,
    ) -> Result<Compiled, Error> {
        // SAFETY: `prog` is live (this function's contract); `opts` are pointers to
        // NUL-terminated strings (`compile`'s `CString`s) that outlive the call, and their
        // count is `opts.len()` (a few options: within `c_int`).
        let r = unsafe { (self.api.compile_program)(prog, opts.len() as c_int, opts.as_ptr()) };
        let log = self.log(prog);
        if r != 0 {
            return Err(Error(format!(
                "NVRTC {}.{} ({target}, {}): {}\n{}",
                self.version.0,
                self.version.1,
                OPTIONS.join(" "),
                self.error_string(r),
                log.trim_end()
            )));
        }
        let (size_fn, get_fn, what) = match target {
            Target::Ptx(_) => (self.api.get_ptx_size, self.api.get_ptx, "nvrtcGetPTX"),
            Target::Cubin(_) => (
                self.api.get_cubin_size.expect("checked"),
                self.api.get_cubin.expect("checked"),
                "nvrtcGetCUBIN",
            ),
        };
        let mut size = 0usize;
        // SAFETY: `prog` is live (this function's contract); one out-parameter.
        self.check(unsafe { size_fn(prog, &mut size) }, what)?;
        if size == 0 {
            return Err(Error(format!(
                "{what}: NVRTC produced nothing for {target}"
            )));
        }
        let mut image = vec![0u8; size];
        // SAFETY: `prog` is live; NVRTC writes the `size` bytes it just reported, and
        // `image` holds `size` (checked non-zero above).
        self.check(
            unsafe { get_fn(prog, image.as_mut_ptr() as *mut c_char) },
            what,
        )?;
        if let Target::Ptx(_) = target {
            while image.last() == Some(&0) {
                image.pop();
            }
        }
        Ok(Compiled { target, image, log })
    }

    /// The log of `prog`, a program created by [`Nvrtc::compile`] and not yet destroyed.
    fn log(&self, prog: Program) -> String {
        let mut size = 0usize;
        // SAFETY: `prog` is live (this function's contract); one out-parameter.
        if unsafe { (self.api.get_program_log_size)(prog, &mut size) } != 0 || size <= 1 {
            return String::new();
        }
        let mut buf = vec![0u8; size];
        // SAFETY: NVRTC writes the `size` bytes it just reported (the log and its NUL);
        // `buf` holds `size`.
        if unsafe { (self.api.get_program_log)(prog, buf.as_mut_ptr() as *mut c_char) } != 0 {
            return String::new();
        }
        while buf.last() == Some(&0) {
            buf.pop();
        }
        String::from_utf8_lossy(&buf).into_owned()
    }
}

/// Compiles `source` for `target` with the NVRTC of [`Nvrtc::load`]; no device is needed.
/// `Err` when no NVRTC library loads, or with NVRTC's log when the unit does not compile.
pub fn compile(source: &str, target: Target) -> Result<Compiled, Error> {
    Nvrtc::load()?.compile(source, target)
}
