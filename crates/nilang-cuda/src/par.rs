//! Running the kernels of a parallel loop (`nilang_cgen::par_kernels`: one thread per
//! iteration of a `.par()` loop's body) on the host and, with the `cuda` feature, on a GPU.
//!
//! The loop's *context* — the places of its function that the loop uses (parameters and
//! ancillas, in the order of the kernel's [`crate::Layout`]) — is a [`Batch`] of **one
//! instance** with each place whole: `Batch::new(1).real(x.len(), x)…`. A call runs three
//! entries: `count` (the iteration count, from the context), the body with one thread per
//! iteration, and `sum` (each reduction's per-iteration partials added to its target in
//! iteration order). The [`Backend`](crate::Backend) contract holds for the context: `forward` runs the loop,
//! `inverse` undoes it, `gradient` runs the loop's adjoint on value–gradient pairs (call it
//! after `forward`, with the seeds in the gradients), gradients of places every iteration
//! reads summed over the iterations.

use crate::batch::{Batch, Layout};
use crate::host::{check_status, marshal, unmarshal, HostModule, Status};
use crate::Error;
use nilang_cgen::PAR_MARK;
use std::ffi::c_void;
use std::sync::Arc;

/// A parallel loop kernel's parameters: the context's layout and the reductions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParLayout {
    /// The loop's context, as a batched kernel's parameters (one instance).
    pub layout: Layout,
    /// The indices (into the layout's parameters) of the reduction targets, each with a
    /// buffer of per-iteration partials after the count's slot.
    pub reductions: Vec<usize>,
}

impl ParLayout {
    /// The layout of the parallel loop kernel `name` (`f__par0`) described in `source`.
    pub fn from_source(source: &str, name: &str) -> Result<ParLayout, Error> {
        let layout = Layout::from_source(source, name)?;
        let prefix = format!("{PAR_MARK} {name} reductions=");
        let line = source
            .lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .ok_or_else(|| {
                Error(format!(
                    "`{name}` is not a parallel loop's kernel (add it with nilang_cgen::Module::par_kernel)"
                ))
            })?;
        let reductions = line
            .split(',')
            .filter(|r| !r.trim().is_empty())
            .map(|r| {
                r.trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|&k| k < layout.params.len())
                    .ok_or_else(|| Error(format!("malformed reduction `{r}` of `{name}`")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ParLayout { layout, reductions })
    }

    /// The context must be one instance with each place whole.
    pub fn check(&self, context: &Batch) -> Result<(), Error> {
        if context.n() != 1 {
            return Err(Error(format!(
                "`{}` runs a parallel loop over the places of one call: give its context as \
                 a batch of one instance (Batch::new(1)), not {}",
                self.layout.name,
                context.n()
            )));
        }
        self.layout.check(context)
    }

    /// Where the count's slot is in `ptrs`; the partials of reduction `r` follow at `+ 1 + r`.
    pub fn count_slot(&self) -> usize {
        self.layout.params.len()
    }

    /// The entries of one direction (the count, the body, the sum), and whether they take
    /// value–gradient pairs.
    pub(crate) fn entries(&self, d: Direction) -> Result<([String; 3], bool), Error> {
        let (body, gvar) = match d {
            Direction::Forward => ("fwd", false),
            Direction::Inverse => ("inv", false),
            Direction::Gradient => ("grad", true),
        };
        let name = &self.layout.name;
        if gvar && !self.layout.grad {
            return Err(Error(format!(
                "`{name}` has no gradient kernel (no differentiable place in the loop)"
            )));
        }
        let suffix = if gvar { "_grad" } else { "" };
        Ok((
            [
                format!("{name}__count{suffix}"),
                format!("{name}__{body}"),
                format!("{name}__sum{suffix}"),
            ],
            gvar,
        ))
    }
}

/// One zeroed buffer of `n` partials per reduction of `layout`, `n` being the iteration count
/// that the loop's count kernel gave; `Err` when it is negative or the memory cannot be had.
pub(crate) fn zeroed_partials(layout: &ParLayout, n: i64) -> Result<Vec<Vec<f64>>, Error> {
    let name = &layout.layout.name;
    let len = usize::try_from(n)
        .map_err(|_| Error(format!("`{name}`: the loop's count is {n}, below zero")))?;
    let zeros = |_| {
        let mut v = Vec::new();
        v.try_reserve_exact(len)
            .map_err(|e| Error(format!("`{name}`: {len} partials of a reduction: {e}")))?;
        v.resize(len, 0.0);
        Ok(v)
    };
    (0..layout.reductions.len()).map(zeros).collect()
}

/// Which program of a parallel loop a call runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    /// The loop.
    Forward,
    /// Its inverse.
    Inverse,
    /// Its adjoint (the inverse on value–gradient pairs).
    Gradient,
}

/// A parallel loop's kernels compiled for the host ([`HostModule`]): the iterations in a
/// sequential loop over the thread index, shared gradients summed in iteration order.
#[derive(Debug, Clone)]
pub struct HostParKernel {
    module: Arc<HostModule>,
    layout: ParLayout,
}

impl HostModule {
    /// The kernels of the parallel loop `name` (`f__par0`, from
    /// `nilang_cgen::Module::par_kernel`) in this module.
    pub fn par_kernel(self: &Arc<Self>, name: &str) -> Result<HostParKernel, Error> {
        Ok(HostParKernel {
            layout: ParLayout::from_source(&self.source, name)?,
            module: self.clone(),
        })
    }
}

impl HostParKernel {
    /// The kernel's parameters.
    pub fn layout(&self) -> &ParLayout {
        &self.layout
    }

    fn run(&self, context: &mut Batch, d: Direction) -> Result<(), Error> {
        self.layout.check(context)?;
        let (names, gvar) = self.layout.entries(d)?;
        let [count, body, sum] = names.clone().map(|e| self.module.entry(&e));
        let (count, body, sum) = (count?, body?, sum?);
        let source = &self.module.source;
        let mut m = marshal(context, gvar);
        let mut ptrs = m.pointers(context);
        let mut lens = m.lens.clone();
        let mut count_slot = [0i64];
        ptrs.push(count_slot.as_mut_ptr() as *mut c_void);
        lens.push(1);
        let mut status: Status = [0; nilang_cgen::STATUS_WORDS];
        // SAFETY: `count` has the kernel ABI's signature (`HostModule::entry`); it reads the
        // context's buffers, which `self.layout.check` (first line) verified hold what one
        // instance reads (`lens[k]` elements of `ptrs[k]`), every slice access checked
        // against its `lens[k]` by the generated code (a failure recorded in `status`, the
        // ABI's `STATUS_WORDS` words, and a scratch place touched instead), and writes one
        // `long long` into `count_slot`, the slot after them (`ParLayout::count_slot`); it
        // reads no partials.
        unsafe { count(1, ptrs.as_ptr(), lens.as_ptr(), status.as_mut_ptr()) };
        // a failed slot check: the loop is not run
        check_status(source, &names[0], None, &status)?;
        let n = count_slot[0];
        let mut partials = zeroed_partials(&self.layout, n)?;
        for p in &mut partials {
            ptrs.push(p.as_mut_ptr() as *mut c_void);
            lens.push(n);
        }
        // SAFETY: as above for the context, the count's slot and `status`; thread `t < n`
        // writes the partial `t` of each reduction: `zeroed_partials` (just above) checked
        // `n >= 0` and gave each reduction a buffer of `n` partials, after the count's slot as
        // the kernels expect; all live until the end.
        unsafe { body(n, ptrs.as_ptr(), lens.as_ptr(), status.as_mut_ptr()) };
        // an access out of bounds: the results are discarded, the context is as it was
        check_status(source, &names[1], Some("iteration"), &status)?;
        // SAFETY: as above; `sum` reads the `n` partials of each reduction and writes its
        // target, a scalar of the context.
        unsafe { sum(n, ptrs.as_ptr(), lens.as_ptr(), status.as_mut_ptr()) };
        check_status(source, &names[2], None, &status)?;
        unmarshal(context, &m, gvar);
        Ok(())
    }
}

/// The [`Backend`](crate::Backend) of a parallel loop's launcher `$ty` with a method `run(&self, &mut Batch,
/// Direction)`, with the remaining methods given.
macro_rules! par_loop_backend {
    ($ty:ty; $($methods:tt)*) => {
        impl $crate::Backend for $ty {
            fn forward(&self, context: &mut Batch) -> Result<(), Error> {
                self.run(context, $crate::par::Direction::Forward)
            }
            fn inverse(&self, context: &mut Batch) -> Result<(), Error> {
                self.run(context, $crate::par::Direction::Inverse)
            }
            fn gradient(&self, context: &mut Batch) -> Result<(), Error> {
                self.run(context, $crate::par::Direction::Gradient)
            }
            $($methods)*
        }
    };
}
#[cfg(feature = "cuda")]
pub(crate) use par_loop_backend;

par_loop_backend! {
    HostParKernel;
    fn describe(&self) -> String {
        "host C++ (g++ -O2), the iterations in sequence".to_string()
    }
}
