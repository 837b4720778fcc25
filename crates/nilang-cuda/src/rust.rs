//! The Rust functions themselves over a batch: sequential, or on every core with rayon.

use crate::batch::Batch;
use crate::views::Views;
use crate::{Backend, Error};
use nilang::GVar;

/// The most parameters of each kind (real, data, integer) an instance may have.
pub(crate) const MAX_PARAMS: usize = 16;

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
/// [`ArgKind::Real`](crate::ArgKind::Real) buffers), its data parameters (`&[f64]`,
/// [`ArgKind::Data`](crate::ArgKind::Data)) and its integers
/// ([`ArgKind::Int`](crate::ArgKind::Int)). Destructure the real slices to borrow them together:
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

impl<F, I, G> Backend for RustKernel<F, I, G>
where
    F: Fn(&mut [&mut [f64]], &[&[f64]], &[i64]) + Sync,
    I: Fn(&mut [&mut [f64]], &[&[f64]], &[i64]) + Sync,
    G: Fn(&mut [&mut [GVar<f64>]], &[&[f64]], &[i64]) + Sync,
{
    fn forward(&self, batch: &mut Batch) -> Result<(), Error> {
        Views::new(batch)?.run(self.threads, &self.forward);
        Ok(())
    }
    fn inverse(&self, batch: &mut Batch) -> Result<(), Error> {
        Views::new(batch)?.run(self.threads, &self.inverse);
        Ok(())
    }
    fn gradient(&self, batch: &mut Batch) -> Result<(), Error> {
        Views::new(batch)?.run(self.threads, &self.adjoint);
        Ok(())
    }
    fn describe(&self) -> String {
        match self.threads {
            Threads::Sequential => "rust (sequential)".into(),
            Threads::Rayon => format!("rust (rayon, {} threads)", rayon::current_num_threads()),
        }
    }
}
