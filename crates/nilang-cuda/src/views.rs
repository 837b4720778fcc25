//! Raw views of a batch's buffers for [`crate::RustKernel`]: each instance gathers its elements
//! into a scratch buffer, runs the closure, and scatters them back, instances on several
//! threads at once.

use crate::arg::Elems;
use crate::batch::Batch;
use crate::rust::{Threads, MAX_PARAMS};
use crate::Error;
use nilang::GVar;
use rayon::prelude::*;
use std::marker::PhantomData;

/// One instance's closure, on `T` (`f64` or `GVar<f64>`).
pub(crate) type Body<'f, T> = &'f (dyn Fn(&mut [&mut [T]], &[&[f64]], &[i64]) + Sync);

/// A real parameter: values and gradients, `len` per instance (or `len` in all when shared).
#[derive(Clone, Copy)]
struct Real {
    values: *mut f64,
    grads: *mut f64,
    len: usize,
    shared: bool,
    /// Where it starts in an instance's scratch buffer.
    offset: usize,
    /// Where it starts in the shared-gradient accumulator, when shared.
    acc: Option<usize>,
}

/// A data parameter.
#[derive(Clone, Copy)]
struct Data {
    values: *const f64,
    len: usize,
    shared: bool,
}

/// An integer parameter: one value per instance, or one in all.
#[derive(Clone, Copy)]
struct Int {
    values: *const i64,
    shared: bool,
}

/// The scalar a closure runs on, and how it is read from and written to the buffers.
pub(crate) trait Scalar: Copy + Default + Send {
    /// Whether gradients are written back (per instance) or summed (shared).
    const GRADS: bool;
    /// The scalar of a value, its gradient, and whether the parameter is shared.
    fn load(x: f64, g: f64, shared: bool) -> Self;
    /// The value and gradient of the scalar.
    fn store(self) -> (f64, f64);
}

/// The forward and inverse programs: values alone.
impl Scalar for f64 {
    const GRADS: bool = false;
    fn load(x: f64, _: f64, _: bool) -> f64 {
        x
    }
    fn store(self) -> (f64, f64) {
        (self, 0.0)
    }
}

/// The gradient sweep: value–gradient pairs; a shared parameter's private copy starts with a
/// zero gradient (its sum over instances is added to the buffer's afterwards).
impl Scalar for GVar<f64> {
    const GRADS: bool = true;
    fn load(x: f64, g: f64, shared: bool) -> Self {
        GVar {
            x,
            g: if shared { 0.0 } else { g },
        }
    }
    fn store(self) -> (f64, f64) {
        (self.x, self.g)
    }
}

/// Raw views of a batch's buffers, borrowed mutably for `'b`; instances write disjoint places.
pub(crate) struct Views<'b> {
    n: usize,
    reals: Vec<Real>,
    data: Vec<Data>,
    ints: Vec<Int>,
    /// The scratch buffer's length: the real parameters' lengths summed.
    total: usize,
    /// The shared-gradient accumulator's length.
    shared_total: usize,
    _batch: PhantomData<&'b mut Batch>,
}

// SAFETY: the pointers are into the batch's buffers, borrowed mutably for `'b` (no one else
// uses them meanwhile). During the parallel part an instance writes only its own elements of
// per-instance buffers (`Views::instance`'s contract, each index handed to one task) and
// only reads shared buffers; shared gradients are written after it, on the calling thread.
unsafe impl Send for Views<'_> {}
// SAFETY: as for `Send`.
unsafe impl Sync for Views<'_> {}

/// `a + b` for a length sum; `Err` naming `what` instead of a wrap.
fn add(a: usize, b: usize, what: &str) -> Result<usize, Error> {
    a.checked_add(b)
        .ok_or_else(|| Error(format!("{what}: {a} + {b} elements overflows usize")))
}

impl<'b> Views<'b> {
    /// The views of `batch`'s buffers, each checked to hold what the batch's instances read.
    pub(crate) fn new(batch: &'b mut Batch) -> Result<Views<'b>, Error> {
        let n = batch.n();
        let mut v = Views {
            n,
            reals: vec![],
            data: vec![],
            ints: vec![],
            total: 0,
            shared_total: 0,
            _batch: PhantomData,
        };
        for (k, a) in batch.args_mut().iter_mut().enumerate() {
            // the precondition of every pointer read and write below (`instance`, `run`): the
            // buffer holds `n * len` elements (`len` when shared), a real one as many
            // gradients
            a.check(n, &k.to_string())?;
            let (len, shared) = (a.len(), a.shared());
            match &mut a.elems {
                Elems::Real { values, grads } => v.push_real(values, grads, len, shared)?,
                Elems::Data(values) => v.data.push(Data {
                    values: values.as_ptr(),
                    len,
                    shared,
                }),
                Elems::Int(values) => v.ints.push(Int {
                    values: values.as_ptr(),
                    shared,
                }),
            }
        }
        if v.reals.len() > MAX_PARAMS || v.data.len() > MAX_PARAMS || v.ints.len() > MAX_PARAMS {
            return Err(Error(format!(
                "at most {MAX_PARAMS} parameters of each kind"
            )));
        }
        Ok(v)
    }

    fn push_real(
        &mut self,
        values: &mut [f64],
        grads: &mut [f64],
        len: usize,
        shared: bool,
    ) -> Result<(), Error> {
        let acc = shared.then_some(self.shared_total);
        self.reals.push(Real {
            values: values.as_mut_ptr(),
            grads: grads.as_mut_ptr(),
            len,
            shared,
            offset: self.total,
            acc,
        });
        self.total = add(self.total, len, "the real parameters of an instance")?;
        if shared {
            self.shared_total = add(self.shared_total, len, "the shared real parameters")?;
        }
        Ok(())
    }

    /// Runs instance `i`: gathers it into `scratch`, calls `f`, scatters values (per-instance
    /// parameters) and gradients (per-instance: stored; shared: added to `acc`).
    ///
    /// # Safety
    /// No other thread touches instance `i`'s elements of the per-instance buffers, nor writes
    /// the shared ones, during the call.
    unsafe fn instance<T: Scalar>(
        &self,
        i: usize,
        scratch: &mut [T],
        acc: &mut [f64],
        f: Body<'_, T>,
    ) {
        // `Views::new` checked every buffer against `n`; the elements below are in bounds for
        // `i < n`
        assert!(i < self.n, "instance {i} of a batch of {}", self.n);
        assert_eq!(scratch.len(), self.total, "an instance's scratch buffer");
        assert_eq!(acc.len(), self.shared_total, "the shared-gradient sums");
        // SAFETY: the caller's contract, and `i < n` checked above.
        unsafe { self.gather(i, scratch) };
        let mut data: [&[f64]; MAX_PARAMS] = Default::default();
        for (k, d) in self.data.iter().enumerate() {
            let base = if d.shared { 0 } else { i * d.len };
            // SAFETY: elements `base .. base + len` lie in the buffer, which holds `n * len`
            // elements (`len` when shared; `Views::new`), `i < n` (checked above); data
            // buffers are never written during a run.
            data[k] = unsafe { std::slice::from_raw_parts(d.values.add(base), d.len) };
        }
        let mut ints = [0i64; MAX_PARAMS];
        for (k, x) in self.ints.iter().enumerate() {
            // SAFETY: the buffer holds `n` values (one when shared; `Views::new`), `i < n`.
            ints[k] = unsafe { *x.values.add(if x.shared { 0 } else { i }) };
        }
        self.call(
            scratch,
            &data[..self.data.len()],
            &ints[..self.ints.len()],
            f,
        );
        // SAFETY: the caller's contract, and `i < n` checked above.
        unsafe { self.scatter(i, scratch, acc) };
    }

    /// Instance `i`'s real elements into `scratch`.
    ///
    /// # Safety
    /// `i < n`, and no other thread writes instance `i`'s elements (or shared ones).
    unsafe fn gather<T: Scalar>(&self, i: usize, scratch: &mut [T]) {
        for r in &self.reals {
            let base = if r.shared { 0 } else { i * r.len };
            for j in 0..r.len {
                // SAFETY: `base + j < n * len` (or `< len` when shared): values and gradients
                // hold that many (`Views::new`), `i < n` (the caller).
                let (x, g) = unsafe { (*r.values.add(base + j), *r.grads.add(base + j)) };
                scratch[r.offset + j] = T::load(x, g, r.shared);
            }
        }
    }

    /// `f` on the scratch buffer cut into one slice per real parameter.
    fn call<T>(&self, scratch: &mut [T], data: &[&[f64]], ints: &[i64], f: Body<'_, T>) {
        let mut slices: [&mut [T]; MAX_PARAMS] = Default::default();
        let mut rest = scratch;
        for (k, r) in self.reals.iter().enumerate() {
            let (a, b) = rest.split_at_mut(r.len);
            slices[k] = a;
            rest = b;
        }
        f(&mut slices[..self.reals.len()], data, ints);
    }

    /// Instance `i`'s real elements back from `scratch`: values and gradients of per-instance
    /// parameters stored, gradients of shared ones added to `acc`.
    ///
    /// # Safety
    /// `i < n`, and no other thread touches instance `i`'s elements.
    unsafe fn scatter<T: Scalar>(&self, i: usize, scratch: &[T], acc: &mut [f64]) {
        for r in &self.reals {
            for j in 0..r.len {
                let (x, g) = scratch[r.offset + j].store();
                match r.acc {
                    Some(o) if T::GRADS => acc[o + j] += g,
                    Some(_) => {}
                    // SAFETY: `i * len + j < n * len`, the buffers' length (`Views::new`;
                    // `i < n`, the caller); instance `i`'s elements are this thread's alone.
                    None => unsafe {
                        *r.values.add(i * r.len + j) = x;
                        if T::GRADS {
                            *r.grads.add(i * r.len + j) = g;
                        }
                    },
                }
            }
        }
    }

    /// The shared gradients already in the batch: where the running sums start.
    fn shared_grads(&self) -> Vec<f64> {
        let mut a = vec![0.0; self.shared_total];
        for r in &self.reals {
            if let Some(o) = r.acc {
                // SAFETY: a shared buffer holds `len` gradients (`Views::new`); no instance
                // runs now.
                let g = unsafe { std::slice::from_raw_parts(r.grads, r.len) };
                a[o..o + r.len].copy_from_slice(g);
            }
        }
        a
    }

    /// The summed shared gradients `acc` into the batch.
    fn store_shared_grads(&self, acc: &[f64]) {
        for r in &self.reals {
            if let Some(o) = r.acc {
                // SAFETY: a shared buffer holds `len` gradients (`Views::new`); no instance
                // runs now, and the batch is borrowed mutably by `self`.
                let g = unsafe { std::slice::from_raw_parts_mut(r.grads, r.len) };
                g.copy_from_slice(&acc[o..o + r.len]);
            }
        }
    }

    /// Runs every instance, on one thread or on rayon's pool.
    pub(crate) fn run<T: Scalar>(&self, threads: Threads, f: Body<'_, T>) {
        if self.n == 0 {
            // nothing to run (and no scratch buffer to size from lengths no buffer holds)
            return;
        }
        let start = if T::GRADS {
            self.shared_grads()
        } else {
            vec![0.0; self.shared_total]
        };
        let acc = match threads {
            Threads::Sequential => self.sequential(start, f),
            Threads::Rayon => self.parallel(start, f),
        };
        if T::GRADS {
            self.store_shared_grads(&acc);
        }
    }

    fn sequential<T: Scalar>(&self, mut acc: Vec<f64>, f: Body<'_, T>) -> Vec<f64> {
        let mut scratch = vec![T::default(); self.total];
        for i in 0..self.n {
            // SAFETY: one thread runs the instances, one after another.
            unsafe { self.instance(i, &mut scratch, &mut acc, f) };
        }
        acc
    }

    fn parallel<T: Scalar>(&self, start: Vec<f64>, f: Body<'_, T>) -> Vec<f64> {
        let partial = (0..self.n)
            .into_par_iter()
            .fold(
                || (vec![T::default(); self.total], vec![0.0; self.shared_total]),
                |(mut scratch, mut acc), i| {
                    // SAFETY: rayon hands each index to one task; no one writes shared
                    // buffers until the fold is done.
                    unsafe { self.instance(i, &mut scratch, &mut acc, f) };
                    (scratch, acc)
                },
            )
            .map(|(_, acc)| acc)
            .reduce(
                || vec![0.0; self.shared_total],
                |mut a, b| {
                    a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                    a
                },
            );
        start.iter().zip(&partial).map(|(a, b)| a + b).collect()
    }
}
