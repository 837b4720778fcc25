//! Batches: one buffer per parameter, and the layout the kernels expect.

use crate::arg::{Arg, ArgKind};
use crate::Error;
use nilang_cgen::KERNEL_MARK;

/// `n` independent instances of a reversible function: its parameters' buffers, in order.
///
/// Each buffer holds what the `n` instances read: `n * len` elements for a per-instance
/// parameter, `len` for a shared one ([`Arg::check`]). The builders check it as a buffer is
/// added, and every backend checks it again before its kernel runs (a buffer may have been
/// replaced through [`Batch::args_mut`] since).
#[derive(Clone, Debug, PartialEq)]
pub struct Batch {
    n: usize,
    args: Vec<Arg>,
}

impl Batch {
    /// A batch of `n` instances with no parameters yet.
    pub fn new(n: usize) -> Self {
        Batch {
            n,
            args: Vec::new(),
        }
    }

    /// Number of instances.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The parameters' buffers.
    pub fn args(&self) -> &[Arg] {
        &self.args
    }

    /// The parameters' buffers, mutably: their elements can be written in place; a buffer put
    /// in another's place is checked against [`Batch::n`] when a backend runs the batch.
    pub fn args_mut(&mut self) -> &mut [Arg] {
        &mut self.args
    }

    /// Adds the buffer of the next parameter; `Err` (naming the parameter and the sizes) when
    /// it does not hold what the batch's instances read, or when that size overflows `usize`.
    pub fn push(mut self, arg: Arg) -> Result<Self, Error> {
        arg.check(self.n, &format!("{} ({:?})", self.args.len(), arg.kind()))?;
        self.args.push(arg);
        Ok(self)
    }

    /// [`Batch::push`] for the builders below: a wrong size is the caller's bug.
    fn with(self, arg: Arg) -> Self {
        self.push(arg).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Adds a differentiable real parameter with `len` elements per instance.
    ///
    /// # Panics
    /// When `values` does not hold `n * len` elements, or that product overflows `usize`
    /// ([`Batch::push`] with [`Arg::real`] returns that as an `Err`).
    pub fn real(self, len: usize, values: Vec<f64>) -> Self {
        self.with(Arg::real(len, values))
    }

    /// Adds a differentiable real parameter read whole by every instance.
    pub fn shared_real(self, values: Vec<f64>) -> Self {
        self.with(Arg::shared_real(values))
    }

    /// Adds a non-differentiated real parameter with `len` elements per instance.
    ///
    /// # Panics
    /// When `values` does not hold `n * len` elements, or that product overflows `usize`
    /// ([`Batch::push`] with [`Arg::data`] returns that as an `Err`).
    pub fn data(self, len: usize, values: Vec<f64>) -> Self {
        self.with(Arg::data(len, values))
    }

    /// Adds a non-differentiated real parameter read whole by every instance.
    pub fn shared_data(self, values: Vec<f64>) -> Self {
        self.with(Arg::shared_data(values))
    }

    /// Adds an integer parameter, one value per instance.
    ///
    /// # Panics
    /// When `values` does not hold `n` elements ([`Batch::push`] with [`Arg::int`] returns
    /// that as an `Err`).
    pub fn int(self, values: Vec<i64>) -> Self {
        self.with(Arg::int(values))
    }

    /// Adds an integer parameter with one value for every instance.
    pub fn shared_int(self, value: i64) -> Self {
        self.with(Arg::shared_int(value))
    }

    /// The values of real (or data) parameter `k`.
    ///
    /// # Panics
    /// When there is no parameter `k`, or it is an integer.
    pub fn values(&self, k: usize) -> &[f64] {
        self.arg(k)
            .values()
            .unwrap_or_else(|| panic!("parameter {k} is an integer"))
    }

    /// The values of real (or data) parameter `k`, mutably.
    ///
    /// # Panics
    /// When there is no parameter `k`, or it is an integer.
    pub fn values_mut(&mut self, k: usize) -> &mut [f64] {
        self.arg_mut(k)
            .values_mut()
            .unwrap_or_else(|| panic!("parameter {k} is an integer"))
    }

    /// The gradients of real parameter `k`.
    ///
    /// # Panics
    /// When there is no parameter `k`, or it is not a real one.
    pub fn grads(&self, k: usize) -> &[f64] {
        self.arg(k)
            .grads()
            .unwrap_or_else(|| panic!("parameter {k} has no gradient"))
    }

    /// The gradients of real parameter `k`, mutably (set the seeds here).
    ///
    /// # Panics
    /// When there is no parameter `k`, or it is not a real one.
    pub fn grads_mut(&mut self, k: usize) -> &mut [f64] {
        self.arg_mut(k)
            .grads_mut()
            .unwrap_or_else(|| panic!("parameter {k} has no gradient"))
    }

    fn arg(&self, k: usize) -> &Arg {
        let n = self.args.len();
        self.args
            .get(k)
            .unwrap_or_else(|| panic!("no parameter {k}: the batch has {n}"))
    }

    fn arg_mut(&mut self, k: usize) -> &mut Arg {
        let n = self.args.len();
        self.args
            .get_mut(k)
            .unwrap_or_else(|| panic!("no parameter {k}: the batch has {n}"))
    }

    /// Sets every gradient to zero.
    pub fn zero_grads(&mut self) {
        for a in &mut self.args {
            if let Some(g) = a.grads_mut() {
                g.fill(0.0);
            }
        }
    }
}

/// One parameter of a generated kernel, as its `//@nilang-kernel` line describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutParam {
    /// The parameter's name.
    pub name: String,
    /// `real`, `f64` or `int`.
    pub elem: String,
    /// `scalar`, `slice` or `value`.
    pub shape: String,
    /// `&mut`.
    pub mutable: bool,
    /// The private-copy size of a shared parameter; `None` when per instance.
    pub shared: Option<usize>,
}

/// The parameters of a generated kernel, read from its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The function's name (the kernels are `NAME__fwd`, `NAME__inv`, `NAME__grad`).
    pub name: String,
    /// Whether a `NAME__grad` kernel exists.
    pub grad: bool,
    /// The parameters in order.
    pub params: Vec<LayoutParam>,
}

impl Layout {
    /// Finds the description of kernel `name` in generated C++ `source`.
    pub fn from_source(source: &str, name: &str) -> Result<Layout, Error> {
        let prefix = format!("{KERNEL_MARK} {name} ");
        let line = source
            .lines()
            .find(|l| l.starts_with(&prefix))
            .ok_or_else(|| {
                Error(format!(
                    "no kernel `{name}` in the source (add it with nilang_cgen::Module::kernel)"
                ))
            })?;
        let mut grad = false;
        let mut params = Vec::new();
        for field in line[prefix.len()..].split_whitespace() {
            if let Some(g) = field.strip_prefix("grad=") {
                grad = g == "1";
            } else if let Some(ps) = field.strip_prefix("params=") {
                for p in ps.split(';').filter(|p| !p.is_empty()) {
                    let parts: Vec<&str> = p.split(':').collect();
                    if parts.len() != 5 {
                        return Err(Error(format!("malformed kernel parameter `{p}`")));
                    }
                    params.push(LayoutParam {
                        name: parts[0].to_string(),
                        elem: parts[1].to_string(),
                        shape: parts[2].to_string(),
                        mutable: parts[3] == "mut",
                        shared: parts[4]
                            .strip_prefix("shared")
                            .map(|m| m.parse().unwrap_or(0)),
                    });
                }
            }
        }
        Ok(Layout {
            name: name.to_string(),
            grad,
            params,
        })
    }

    /// Checks that a batch's buffers fit the kernel's parameters: one buffer per parameter, of
    /// its kind and sharing, one element per instance for a scalar, and each buffer holding
    /// exactly what the instances read ([`Arg::check`]: `n * len` elements, or `len` when
    /// shared; `n`, the lengths and those products within the kernel ABI's `long long`). The
    /// host and CUDA launchers call it right before they hand the buffers to a kernel.
    pub fn check(&self, batch: &Batch) -> Result<(), Error> {
        if batch.args().len() != self.params.len() {
            return Err(Error(format!(
                "`{}` takes {} parameters, the batch has {}",
                self.name,
                self.params.len(),
                batch.args().len()
            )));
        }
        abi_int(batch.n(), || format!("`{}`: the instance count", self.name))?;
        for (p, a) in self.params.iter().zip(batch.args()) {
            check_param(p, a, batch.n())?;
        }
        Ok(())
    }
}

/// A count as the kernel ABI's `long long`; `Err` naming `what` when it does not fit.
pub(crate) fn abi_int(x: usize, what: impl Fn() -> String) -> Result<i64, Error> {
    i64::try_from(x).map_err(|_| {
        Error(format!(
            "{}: {x} does not fit the kernels' 64-bit signed integers",
            what()
        ))
    })
}

/// Whether buffer `a` fits parameter `p` of a kernel run over `n` instances.
fn check_param(p: &LayoutParam, a: &Arg, n: usize) -> Result<(), Error> {
    let kind_ok = matches!(
        (p.elem.as_str(), a.kind()),
        ("real", ArgKind::Real) | ("f64", ArgKind::Data) | ("int", ArgKind::Int)
    );
    if !kind_ok {
        return Err(Error(format!(
            "parameter `{}` is `{}`, the batch gives {}",
            p.name,
            p.elem,
            kind(a)
        )));
    }
    check_sharing(p, a)?;
    if p.shape != "slice" && a.len() != 1 {
        return Err(Error(format!(
            "parameter `{}` is a scalar; the batch gives {} elements",
            p.name,
            a.len()
        )));
    }
    let name = format!("`{}`", p.name);
    a.check(n, &name)?;
    abi_int(a.len(), || format!("parameter {name}: the length"))?;
    abi_int(a.elements(), || {
        format!("parameter {name}: the buffer's length")
    })?;
    Ok(())
}

/// Whether `a` is shared exactly when `p` was generated shared, within its private copy.
fn check_sharing(p: &LayoutParam, a: &Arg) -> Result<(), Error> {
    match (p.shared, a.shared()) {
        (Some(max), true) if a.len() > max => Err(Error(format!(
            "shared parameter `{}`: {} elements, at most {max}",
            p.name,
            a.len()
        ))),
        (Some(_), true) | (None, false) => Ok(()),
        (Some(_), false) => Err(Error(format!(
            "parameter `{}` was generated shared; the batch gives it per instance",
            p.name
        ))),
        (None, true) => Err(Error(format!(
            "parameter `{}` is shared in the batch; generate the kernel with KernelSpec::shared(\"{}\", len)",
            p.name, p.name
        ))),
    }
}

fn kind(a: &Arg) -> &'static str {
    match a.kind() {
        ArgKind::Real => "a real buffer",
        ArgKind::Data => "a data buffer",
        ArgKind::Int => "an integer buffer",
    }
}
