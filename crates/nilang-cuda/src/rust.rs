//! The Rust functions themselves over a batch: sequential, or on every core with rayon.

use crate::batch::{Arg, Batch};
use crate::{Backend, Error};
use nilang::GVar;
use rayon::prelude::*;

/// The most parameters of each kind (real, data, integer) an instance may have.
pub const MAX_PARAMS: usize = 16;

/// How [`RustKernel`] spreads instances over threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threads {
    /// One thread, instances in order (shared gradients summed in instance order, like the
    /// host C++ kernels).
    Sequential,
    /// rayon's thread pool (shared gradients summed per task, then across tasks).
    Rayon,
}

/// A batched Rust function: closures that run one instance forward (on `f64`), backward (its
/// inverse on `f64`) and its gradient sweep (its inverse on `GVar<f64>`).
///
/// Each closure gets the instance's real parameters (`&mut [T]` each, in order of the batch's
/// [`Arg::Real`] buffers), its data parameters (`&[f64]`, [`Arg::Data`]) and its integers
/// ([`Arg::Int`]). Destructure the real slices to borrow them together:
///
/// ```
/// use nilang::{i, Real};
/// use nilang_cuda::{Backend, Batch, RustKernel};
///
/// #[i]
/// fn f<T: Real>(y: &mut T, x: &mut T) {
///     y += sin(x);
/// }
///
/// let k = RustKernel::new(
///     |r: &mut [&mut [f64]], _: &[&[f64]], _: &[i64]| { let [y, x] = r else { panic!() }; f(&mut y[0], &mut x[0]) },
///     |r: &mut [&mut [f64]], _: &[&[f64]], _: &[i64]| { let [y, x] = r else { panic!() }; f_inv(&mut y[0], &mut x[0]) },
///     |r: &mut [&mut [nilang::GVar<f64>]], _: &[&[f64]], _: &[i64]| { let [y, x] = r else { panic!() }; f_inv(&mut y[0], &mut x[0]) },
/// );
/// let mut b = Batch::new(3).real(1, vec![0.0; 3]).real(1, vec![0.1, 0.2, 0.3]);
/// k.forward(&mut b).unwrap();
/// b.grads_mut(0).fill(1.0);
/// k.gradient(&mut b).unwrap();
/// assert!((b.grads(1)[2] - 0.3f64.cos()).abs() < 1e-15);
/// ```
pub struct RustKernel<F, I, G> {
    forward: F,
    inverse: I,
    adjoint: G,
    threads: Threads,
}

impl<F, I, G> RustKernel<F, I, G>
where
    F: Fn(&mut [&mut [f64]], &[&[f64]], &[i64]) + Sync,
    I: Fn(&mut [&mut [f64]], &[&[f64]], &[i64]) + Sync,
    G: Fn(&mut [&mut [GVar<f64>]], &[&[f64]], &[i64]) + Sync,
{
    /// A sequential kernel from its three closures.
    pub fn new(forward: F, inverse: I, adjoint: G) -> Self {
        RustKernel {
            forward,
            inverse,
            adjoint,
            threads: Threads::Sequential,
        }
    }

    /// The same kernel on rayon's thread pool.
    pub fn rayon(mut self) -> Self {
        self.threads = Threads::Rayon;
        self
    }

    /// The same kernel on one thread.
    pub fn sequential(mut self) -> Self {
        self.threads = Threads::Sequential;
        self
    }
}

/// Raw views of a batch's buffers, written by instances at disjoint places.
struct Views {
    n: usize,
    reals: Vec<(*mut f64, *mut f64, usize, bool)>,
    data: Vec<(*const f64, usize, bool)>,
    ints: Vec<(*const i64, bool)>,
    /// Offsets of each real parameter in an instance's scratch buffer, and the total.
    offsets: Vec<usize>,
    total: usize,
    /// Offsets of shared reals in the shared-gradient accumulator, and its length.
    shared_offsets: Vec<Option<usize>>,
    shared_total: usize,
}

// SAFETY: instances only write their own elements of per-instance buffers; shared buffers are
// only read during the parallel part (their gradients go to per-task accumulators).
unsafe impl Send for Views {}
unsafe impl Sync for Views {}

impl Views {
    fn new(batch: &mut Batch) -> Result<Views, Error> {
        let n = batch.n();
        let mut v = Views {
            n,
            reals: vec![],
            data: vec![],
            ints: vec![],
            offsets: vec![],
            total: 0,
            shared_offsets: vec![],
            shared_total: 0,
        };
        for a in batch.args_mut() {
            match a {
                Arg::Real {
                    values,
                    grads,
                    len,
                    shared,
                } => {
                    v.reals
                        .push((values.as_mut_ptr(), grads.as_mut_ptr(), *len, *shared));
                    v.offsets.push(v.total);
                    v.total += *len;
                    if *shared {
                        v.shared_offsets.push(Some(v.shared_total));
                        v.shared_total += *len;
                    } else {
                        v.shared_offsets.push(None);
                    }
                }
                Arg::Data {
                    values,
                    len,
                    shared,
                } => v.data.push((values.as_ptr(), *len, *shared)),
                Arg::Int { values, shared } => v.ints.push((values.as_ptr(), *shared)),
            }
        }
        if v.reals.len() > MAX_PARAMS || v.data.len() > MAX_PARAMS || v.ints.len() > MAX_PARAMS {
            return Err(Error(format!(
                "at most {MAX_PARAMS} parameters of each kind"
            )));
        }
        Ok(v)
    }

    /// Runs instance `i`: gathers it into `scratch`, calls `f`, scatters values (per-instance
    /// parameters) and gradients (per-instance: stored; shared: added to `acc`).
    ///
    /// # Safety
    /// No other thread touches instance `i`'s elements.
    unsafe fn instance<T: Copy>(
        &self,
        i: usize,
        scratch: &mut [T],
        acc: &mut [f64],
        load: impl Fn(f64, f64, bool) -> T,
        store: impl Fn(T) -> (f64, f64),
        grads: bool,
        f: &(dyn Fn(&mut [&mut [T]], &[&[f64]], &[i64]) + Sync),
    ) {
        for (k, &(vals, gs, len, shared)) in self.reals.iter().enumerate() {
            let base = if shared { 0 } else { i * len };
            for j in 0..len {
                scratch[self.offsets[k] + j] = load(*vals.add(base + j), *gs.add(base + j), shared);
            }
        }
        let mut data: [&[f64]; MAX_PARAMS] = Default::default();
        for (k, &(vals, len, shared)) in self.data.iter().enumerate() {
            let base = if shared { 0 } else { i * len };
            data[k] = std::slice::from_raw_parts(vals.add(base), len);
        }
        let mut ints = [0i64; MAX_PARAMS];
        for (k, &(vals, shared)) in self.ints.iter().enumerate() {
            ints[k] = *vals.add(if shared { 0 } else { i });
        }
        {
            let mut slices: [&mut [T]; MAX_PARAMS] = Default::default();
            let mut rest: &mut [T] = scratch;
            for (k, &(_, _, len, _)) in self.reals.iter().enumerate() {
                let (a, b) = std::mem::take(&mut rest).split_at_mut(len);
                slices[k] = a;
                rest = b;
            }
            f(
                &mut slices[..self.reals.len()],
                &data[..self.data.len()],
                &ints[..self.ints.len()],
            );
        }
        for (k, &(vals, gs, len, shared)) in self.reals.iter().enumerate() {
            for j in 0..len {
                let (x, g) = store(scratch[self.offsets[k] + j]);
                if shared {
                    if grads {
                        let a = &mut acc[self.shared_offsets[k].unwrap() + j];
                        *a += g;
                    }
                } else {
                    *vals.add(i * len + j) = x;
                    if grads {
                        *gs.add(i * len + j) = g;
                    }
                }
            }
        }
    }

    fn run<T: Copy + Default + Send>(
        &self,
        threads: Threads,
        load: impl Fn(f64, f64, bool) -> T + Sync,
        store: impl Fn(T) -> (f64, f64) + Sync,
        grads: bool,
        f: &(dyn Fn(&mut [&mut [T]], &[&[f64]], &[i64]) + Sync),
    ) {
        let acc_init: Vec<f64> = if grads {
            // the running sums start from the shared gradients already there
            let mut a = vec![0.0; self.shared_total];
            for (k, &(_, gs, len, shared)) in self.reals.iter().enumerate() {
                if shared {
                    let o = self.shared_offsets[k].unwrap();
                    for j in 0..len {
                        a[o + j] = unsafe { *gs.add(j) };
                    }
                }
            }
            a
        } else {
            vec![0.0; self.shared_total]
        };
        let acc = match threads {
            Threads::Sequential => {
                let mut scratch = vec![T::default(); self.total];
                let mut acc = acc_init;
                for i in 0..self.n {
                    // SAFETY: one thread.
                    unsafe { self.instance(i, &mut scratch, &mut acc, &load, &store, grads, f) };
                }
                acc
            }
            Threads::Rayon => {
                let partial = (0..self.n)
                    .into_par_iter()
                    .fold(
                        || (vec![T::default(); self.total], vec![0.0; self.shared_total]),
                        |(mut scratch, mut acc), i| {
                            // SAFETY: rayon hands each index to one task.
                            unsafe {
                                self.instance(i, &mut scratch, &mut acc, &load, &store, grads, f)
                            };
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
                acc_init.iter().zip(&partial).map(|(a, b)| a + b).collect()
            }
        };
        if grads {
            for (k, &(_, gs, len, shared)) in self.reals.iter().enumerate() {
                if shared {
                    let o = self.shared_offsets[k].unwrap();
                    for j in 0..len {
                        unsafe { *gs.add(j) = acc[o + j] };
                    }
                }
            }
        }
    }
}

impl<F, I, G> Backend for RustKernel<F, I, G>
where
    F: Fn(&mut [&mut [f64]], &[&[f64]], &[i64]) + Sync,
    I: Fn(&mut [&mut [f64]], &[&[f64]], &[i64]) + Sync,
    G: Fn(&mut [&mut [GVar<f64>]], &[&[f64]], &[i64]) + Sync,
{
    fn forward(&self, batch: &mut Batch) -> Result<(), Error> {
        Views::new(batch)?.run(
            self.threads,
            |x, _, _| x,
            |x| (x, 0.0),
            false,
            &self.forward,
        );
        Ok(())
    }
    fn inverse(&self, batch: &mut Batch) -> Result<(), Error> {
        Views::new(batch)?.run(
            self.threads,
            |x, _, _| x,
            |x| (x, 0.0),
            false,
            &self.inverse,
        );
        Ok(())
    }
    fn gradient(&self, batch: &mut Batch) -> Result<(), Error> {
        Views::new(batch)?.run(
            self.threads,
            |x, g, shared| GVar {
                x,
                g: if shared { 0.0 } else { g },
            },
            |v: GVar<f64>| (v.x, v.g),
            true,
            &self.adjoint,
        );
        Ok(())
    }
    fn describe(&self) -> String {
        match self.threads {
            Threads::Sequential => "rust (sequential)".into(),
            Threads::Rayon => format!("rust (rayon, {} threads)", rayon::current_num_threads()),
        }
    }
}
