//! `kmeans`'s cost and Newton direction, by running the sequential or the parallel program
//! (forward, and its gradient on dual numbers).

use super::{kmeans_cost, kmeans_cost_par, kmeans_cost_par_vjp, kmeans_cost_vjp};
use super::{Centroids, Problem};
use nilang::Dual;

/// The gradient (values) and the Hessian diagonal (tangents) of a gradient on dual numbers.
fn gradient_and_tangents(g: &[Dual<f64>]) -> (Vec<f64>, Vec<f64>) {
    (
        g.iter().map(|v| v.re).collect(),
        g.iter().map(|v| v.eps).collect(),
    )
}

/// Whether the evals run their parallel variants: when the points' searches, split across the
/// current rayon pool (sized by the tool's `--threads`), are worth `loops` parallel loops
/// (`nilang::parallel::worth_splitting` of their work shared among them: the cost runs one
/// loop, the gradient two, the forward one with the searches and its adjoint, each waking the
/// pool). Otherwise the sequential program runs, which is faster than the parallel one run on
/// one thread (its sum over the coordinates is kept in a register) and gives the same bits.
fn parallel(p: &Problem, loops: usize) -> bool {
    let (n, k) = (p.points.len() / p.d, p.centroids.len() / p.d);
    let work = Centroids::work_per_point(k, p.d) / loops;
    nilang::parallel::worth_splitting(0, n, false, work)
}

impl Problem {
    /// The cost, by running [`kmeans_cost`] forward ([`kmeans_cost_par`] on more than one
    /// thread).
    pub fn cost(&self) -> f64 {
        let (mut cost, mut c) = (0.0, self.centroids.clone());
        if parallel(self, 1) {
            let mut nearest_of = vec![0; self.points.len() / self.d];
            kmeans_cost_par(&mut cost, &mut c, &mut nearest_of, &self.points, self.d);
            return cost;
        }
        let mut nearest_of = Vec::with_capacity(self.points.len() / self.d);
        kmeans_cost(&mut cost, &mut c, &mut nearest_of, &self.points, self.d);
        cost
    }

    /// The gradient and the Hessian diagonal, by one [`kmeans_cost_vjp`] on dual numbers
    /// (forward over reverse, all tangents 1): values and gradients of type `Dual<f64>` in
    /// buffers of their own.
    pub fn gradient_and_hessian_diagonal(&self) -> Result<(Vec<f64>, Vec<f64>), String> {
        if parallel(self, 2) {
            return Ok(self.gradient_and_hessian_diagonal_par());
        }
        let (mut cost, mut cost_grad, mut c, mut c_grad) = self.dual_buffers();
        let n = self.points.len() / self.d;
        let (mut nearest_of, mut nearest_grad) = (Vec::with_capacity(n), Vec::with_capacity(n));
        kmeans_cost_vjp(
            &mut cost,
            &mut cost_grad,
            &mut c,
            &mut c_grad,
            &mut nearest_of,
            &mut nearest_grad,
            &self.points,
            (),
            self.d,
            (),
        );
        Ok(gradient_and_tangents(&c_grad))
    }

    /// [`Problem::gradient_and_hessian_diagonal`] by [`kmeans_cost_par_vjp`] (point `i`'s
    /// centroid in slot `i` of `n` zeros). A function of its own: with both programs in one,
    /// the sequential one ran markedly slower.
    #[inline(never)]
    fn gradient_and_hessian_diagonal_par(&self) -> (Vec<f64>, Vec<f64>) {
        let (mut cost, mut cost_grad, mut c, mut c_grad) = self.dual_buffers();
        let n = self.points.len() / self.d;
        let (mut nearest_of, mut nearest_grad) = (vec![0; n], vec![0; n]);
        kmeans_cost_par_vjp(
            &mut cost,
            &mut cost_grad,
            &mut c,
            &mut c_grad,
            &mut nearest_of,
            &mut nearest_grad,
            &self.points,
            (),
            self.d,
            (),
        );
        gradient_and_tangents(&c_grad)
    }

    /// The buffers of the gradient on dual numbers: the cost (zero) with its seed (1), the
    /// centroids with all tangents 1, their gradient (zero).
    #[allow(clippy::type_complexity)]
    fn dual_buffers(&self) -> (Dual<f64>, Dual<f64>, Vec<Dual<f64>>, Vec<Dual<f64>>) {
        let c: Vec<Dual<f64>> = self.centroids.iter().map(|&v| Dual::new(v, 1.0)).collect();
        let c_grad = vec![Dual::constant(0.0); c.len()];
        (Dual::constant(0.0), Dual::constant(1.0), c, c_grad)
    }

    /// The Newton direction `J·H⁻¹` (`k × d`, row-major).
    pub fn dir(&self) -> Result<Vec<f64>, String> {
        let (j, h) = self.gradient_and_hessian_diagonal()?;
        Ok(j.iter().zip(&h).map(|(j, h)| j / h).collect())
    }
}
