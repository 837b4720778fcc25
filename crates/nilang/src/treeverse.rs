//! Griewank's Treeverse (binomial checkpointing): differentiating a long chain of steps in
//! bounded memory (ICLR paper, §2, Figure 1(a), Table 1 and Eq. (1)).
//!
//! A chain `x₁ = f₀(x₀), …, x_T = f_{T−1}(x_{T−1})` is differentiated backwards: the
//! vector–Jacobian product of step `i` needs the state `xᵢ`. Storing every state costs `T`
//! states; Treeverse stores at most `S` (the *snapshots*, the budget) and recomputes the rest
//! from the nearest stored state, splitting the chain binomially. With `S` snapshots and
//! `r` sweeps it reverses up to `η(r, S) = C(r + S, S)` steps, each step recomputed at most
//! `r` times; the number of forward steps it spends is the optimum (Griewank 1992; Griewank &
//! Walther 2000)
//!
//! ```text
//! t(T, S) = r·T − η(r − 1, S + 1),   r the least integer with η(r, S) ≥ T,
//! ```
//!
//! so `t ≤ r·T` (the paper's `T_c = tT, S_c = dS`, Eq. (1)); the extremes are the two rows of
//! the paper's Table 1 for checkpointing: `S = T` gives `T − 1` steps, `S = 1` gives
//! `T(T − 1)/2`.
//!
//! The steps are any [`Chain`]; [`ReversalChain`] is a chain of reversible functions
//! `#[i] fn step<T: Real>(out: &mut [T], inp: &mut [T])` (`out += f(inp)`), each
//! differentiated by the reversal AD of this crate: its vector–Jacobian product comes from
//! running `step_inv` on [`GVar`] values. Bennett's scheme for reverse computing, the other
//! column of Table 1, is [`crate::schedule::Bennett`]. For a loop whose steps read
//! parameters, and for speed, [`crate::checkpoint::treeverse_gradient`] runs the same schedule
//! on flat buffers with each step's generated `f_vjp`, and gives the parameters' gradient too.
//!
//! ```
//! use nilang::{i, GVar, Real};
//! use nilang::treeverse::{treeverse, ReversalChain};
//!
//! #[i]
//! fn step<T: Real>(out: &mut [T], inp: &mut [T]) {
//!     out[0] += sin(inp[1]);
//!     out[1] += inp[0] * inp[1];
//! }
//!
//! let chain = ReversalChain::new(2, step::<f64>, step_inv::<GVar<f64>>);
//! // d x_T[0] / d x_0 over 1000 steps, with 10 stored states
//! let r = treeverse(&chain, &vec![0.3, 0.9], 1000, 10, |_x_t| vec![1.0, 0.0]);
//! assert_eq!(r.stats.vjps, 1000);
//! assert!(r.stats.peak_snapshots <= 10);
//! let full = treeverse(&chain, &vec![0.3, 0.9], 1000, 1000, |_x_t| vec![1.0, 0.0]);
//! assert_eq!(r.gradient, full.gradient);
//! ```

use crate::gvar::GVar;

/// A chain of steps `x_{i+1} = f_i(x_i)` with the vector–Jacobian product of each step.
///
/// ```
/// use nilang::treeverse::{treeverse, Chain};
///
/// /// x_{i+1} = x_i², written by hand
/// struct Squares;
/// impl Chain for Squares {
///     type State = f64;
///     type Grad = f64;
///     fn step(&self, _: usize, x: &f64) -> f64 {
///         x * x
///     }
///     fn vjp(&self, _: usize, x: &f64, g: &mut f64) {
///         *g *= 2.0 * x;
///     }
/// }
/// // x₃ = x₀⁸: d x₃ / d x₀ = 8 x₀⁷
/// let r = treeverse(&Squares, &1.5, 3, 2, |_| 1.0);
/// assert_eq!((r.final_state, r.gradient), (1.5f64.powi(8), 8.0 * 1.5f64.powi(7)));
/// ```
pub trait Chain {
    /// A state `xᵢ`.
    type State: Clone;
    /// A cotangent (the gradient of the loss with respect to a state).
    type Grad;
    /// `x_{i+1} = f_i(x_i)`.
    fn step(&self, i: usize, x: &Self::State) -> Self::State;
    /// `g ← (∂f_i/∂x at x)ᵀ g`: the gradient with respect to `x_{i+1}` becomes the gradient
    /// with respect to `x_i = x`.
    fn vjp(&self, i: usize, x: &Self::State, g: &mut Self::Grad);
}

/// What a run of [`treeverse`] cost.
///
/// ```
/// use nilang::treeverse::{optimal_forward_steps, treeverse, ReversalChain};
/// use nilang::{i, GVar, Real};
///
/// #[i]
/// fn step<T: Real>(out: &mut [T], inp: &mut [T]) {
///     out[0] += sin(inp[0]);
/// }
/// let chain = ReversalChain::new(1, step::<f64>, step_inv::<GVar<f64>>);
/// let r = treeverse(&chain, &vec![0.5], 100, 5, |_| vec![1.0]);
/// assert_eq!(r.stats.vjps, 100);
/// assert_eq!(r.stats.forward_steps, optimal_forward_steps(100, 5));
/// assert!(r.stats.peak_snapshots <= 5);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Forward steps spent advancing from stored states (the `t` of Griewank's formula): the
    /// first sweep and all recomputation, not counting the one evaluation of the last step
    /// that gives the final state to the loss.
    pub forward_steps: usize,
    /// Vector–Jacobian products (one per step).
    pub vjps: usize,
    /// The most states stored at once (snapshots, `x₀`'s included).
    pub peak_snapshots: usize,
}

/// The result of [`treeverse`].
///
/// ```
/// use nilang::treeverse::{treeverse, ReversalChain};
/// use nilang::{i, GVar, Real};
///
/// #[i]
/// fn step<T: Real>(out: &mut [T], inp: &mut [T]) {
///     out[0] += 2.0 * inp[0];
/// }
/// let chain = ReversalChain::new(1, step::<f64>, step_inv::<GVar<f64>>);
/// let r = treeverse(&chain, &vec![1.0], 10, 3, |_| vec![1.0]);
/// assert_eq!((r.final_state, r.gradient), (vec![1024.0], vec![1024.0]));
/// ```
#[derive(Clone, Debug)]
pub struct Gradient<S, G> {
    /// The final state `x_T`.
    pub final_state: S,
    /// The gradient with respect to `x₀`.
    pub gradient: G,
    /// The cost.
    pub stats: Stats,
}

/// `η(τ, δ) = C(τ + δ, δ)`, the binomial function of Figure 1 (saturating at `usize::MAX`).
///
/// ```
/// use nilang::treeverse::eta;
/// assert_eq!(eta(2, 3), 10); // C(5, 3)
/// assert_eq!(eta(0, 7), 1);
/// ```
pub fn eta(tau: usize, delta: usize) -> usize {
    let (n, k) = (tau + delta, tau.min(delta));
    // in 64 bits while the product fits (a 128-bit division is a library call, and the
    // schedule evaluates η at every split), in 128 from there on
    let mut r: u64 = 1;
    for j in 0..k {
        match r.checked_mul((n - j) as u64) {
            Some(p) => r = p / (j + 1) as u64,
            None => return eta_wide(r as u128, n, j, k),
        }
    }
    usize::try_from(r).unwrap_or(usize::MAX)
}

/// [`eta`]'s product from factor `j` on, in 128 bits, saturating at `usize::MAX`.
fn eta_wide(mut r: u128, n: usize, from: usize, k: usize) -> usize {
    for j in from..k {
        r = r * (n - j) as u128 / (j + 1) as u128;
        if r > usize::MAX as u128 {
            return usize::MAX;
        }
    }
    r as usize
}

/// The number of sweeps `r`: the least integer with `η(r, snapshots) ≥ steps`.
///
/// ```
/// use nilang::treeverse::sweeps;
/// assert_eq!(sweeps(10, 3), 2); // η(1, 3) = 4 < 10 ≤ η(2, 3) = 10
/// assert_eq!(sweeps(11, 3), 3);
/// ```
pub fn sweeps(steps: usize, snapshots: usize) -> usize {
    let mut r = 0;
    while eta(r, snapshots) < steps {
        r += 1;
    }
    r
}

/// The optimal number of forward steps to reverse `steps` steps with `snapshots` stored
/// states: `r·T − η(r − 1, S + 1)` (Griewank & Walther 2000, Proposition 1), `0` for `T ≤ 1`.
///
/// ```
/// use nilang::treeverse::optimal_forward_steps;
/// assert_eq!(optimal_forward_steps(10, 10), 9); // every state stored: T − 1
/// assert_eq!(optimal_forward_steps(10, 1), 45); // one state: T(T − 1)/2
/// ```
pub fn optimal_forward_steps(steps: usize, snapshots: usize) -> usize {
    assert!(snapshots >= 1, "treeverse needs at least one stored state");
    if steps <= 1 {
        return 0;
    }
    let r = sweeps(steps, snapshots);
    r * steps - eta(r - 1, snapshots + 1)
}

/// The first split of a binomial partition: the distance from the stored state to the next
/// snapshot, for `len` steps with `snaps` snapshots (the stored one included), chosen in the
/// range where the schedule is optimal: `η(r−2, S) ≤ m ≤ η(r−1, S)` and
/// `η(r−1, S−1) ≤ len − m ≤ η(r, S−1)`.
fn split(len: usize, snaps: usize) -> usize {
    let r = sweeps(len, snaps);
    let lo = if r >= 2 { eta(r - 2, snaps) } else { 1 };
    let m = lo.max(len.saturating_sub(eta(r, snaps - 1))).max(1);
    m.min(len - 1)
}

/// The operations a Treeverse schedule runs: a stack of stored states (`x₀` at the bottom
/// from the start) and one working state. [`reverse_schedule`] decides which to run;
/// [`treeverse`] runs them on a [`Chain`]'s states, [`crate::checkpoint`] on flat buffers
/// with each step's generated vector–Jacobian product.
pub(crate) trait Machine {
    /// The working state becomes a copy of the top stored state.
    fn load(&mut self);
    /// The working state `xᵢ` becomes `x_{i+1} = f_i(xᵢ)`.
    fn step(&mut self, i: usize);
    /// Stores the working state on the stack (it stays the working state).
    fn store(&mut self);
    /// Drops the top stored state.
    fn discard(&mut self);
    /// Reverses step `i` at the working state `xᵢ`: the gradient with respect to `x_{i+1}`
    /// becomes the gradient with respect to `xᵢ`. The first call (`i = T − 1`) evaluates the
    /// last step and seeds the gradient from its output, the final state.
    fn reverse(&mut self, i: usize);
}

/// Runs Treeverse's schedule for `n ≥ 1` steps with `snaps` stored states on `m`, whose stack
/// holds `x₀` alone on entry (and nothing on return), and counts what it cost.
///
/// Each frame of the explicit stack is a stored state `x_a` (the machine's stored state at
/// the same depth) with the steps `a..b` still to reverse from it and the number of stored
/// states it may use (its own included); the stack's length is the number of snapshots held.
/// Splitting a frame advances to `x_m`, leaves `(x_a, a..m, s)` pending below
/// `(x_m, m..b, s − 1)`.
pub(crate) fn reverse_schedule<M: Machine>(m: &mut M, n: usize, snaps: usize) -> Stats {
    let mut stats = Stats {
        peak_snapshots: 1,
        ..Stats::default()
    };
    let mut frames: Vec<(usize, usize, usize)> = vec![(0, n, snaps)];
    while let Some(&mut (a, b, s)) = frames.last_mut() {
        let len = b - a;
        if len <= 1 || s == 1 || s >= len {
            frames.pop();
            if s >= len {
                // every state of the sector fits (one step included): one sweep, then reverse
                m.load();
                for i in a..b - 1 {
                    m.step(i);
                    m.store();
                }
                stats.forward_steps += len - 1;
                stats.peak_snapshots = stats.peak_snapshots.max(frames.len() + len);
                for i in (a..b).rev() {
                    m.load();
                    m.reverse(i);
                    m.discard();
                }
            } else {
                // one stored state: recompute from it for every step
                for k in (a..b).rev() {
                    advance(m, &mut stats, a, k);
                    m.reverse(k);
                }
                m.discard();
            }
            stats.vjps += len;
            continue;
        }
        let mid = a + split(len, s);
        advance(m, &mut stats, a, mid);
        m.store();
        frames.last_mut().expect("a frame").1 = mid;
        frames.push((mid, b, s - 1));
        stats.peak_snapshots = stats.peak_snapshots.max(frames.len());
    }
    stats
}

/// Loads the top stored state `x_a` and advances it to `x_to`.
fn advance<M: Machine>(m: &mut M, stats: &mut Stats, a: usize, to: usize) {
    m.load();
    for i in a..to {
        m.step(i);
    }
    stats.forward_steps += to - a;
}

/// [`treeverse`]'s machine: the stored states of a [`Chain`] and the gradient.
struct ChainMachine<'a, C: Chain, F> {
    chain: &'a C,
    n: usize,
    stored: Vec<C::State>,
    work: Option<C::State>,
    seed: Option<F>,
    grad: Option<C::Grad>,
    final_state: Option<C::State>,
}

impl<C: Chain, F: FnOnce(&C::State) -> C::Grad> Machine for ChainMachine<'_, C, F> {
    fn load(&mut self) {
        self.work = Some(self.stored.last().expect("a stored state").clone());
    }

    fn step(&mut self, i: usize) {
        // a stored working state is the top stored one (`store` moves it there)
        let x = match &self.work {
            Some(x) => x,
            None => self.stored.last().expect("a stored state"),
        };
        self.work = Some(self.chain.step(i, x));
    }

    fn store(&mut self) {
        let x = self.work.take().expect("a loaded state");
        self.stored.push(x);
    }

    fn discard(&mut self) {
        self.stored.pop();
    }

    fn reverse(&mut self, i: usize) {
        let x = self.work.take().expect("a loaded state");
        if i + 1 == self.n {
            // the turn: the last step's output is the loss input
            let y = self.chain.step(i, &x);
            let seed = self.seed.take().expect("the last step is reversed once");
            self.grad = Some(seed(&y));
            self.final_state = Some(y);
        }
        let g = self
            .grad
            .as_mut()
            .expect("the reverse sweep starts at the last step");
        self.chain.vjp(i, &x, g);
    }
}

/// Differentiates the chain of `steps` steps from `x0` with at most `snapshots` stored states
/// (`x₀` included; `snapshots ≥ 1`): `seed(x_T)` gives the gradient of the loss with respect
/// to the final state, and the result holds `x_T`, the gradient with respect to `x₀`, and the
/// cost. The forward step count is [`optimal_forward_steps`]`(steps, snapshots)`. With
/// `steps = 0` the final state is `x₀` and the gradient `seed(x₀)`.
///
/// For steps that read parameters (an ODE's coefficients, an RNN's weights) and want their
/// gradients too, [`crate::checkpoint::treeverse_gradient`] runs the steps' generated
/// `f_vjp` on flat buffers.
///
/// ```
/// use nilang::treeverse::{treeverse, ReversalChain};
/// use nilang::{i, GVar, Real};
///
/// #[i]
/// fn step<T: Real>(out: &mut [T], inp: &mut [T]) {
///     out[0] += inp[0] * inp[1];
///     out[1] += identity(inp[1]);
/// }
/// // x_T[0] = x₀[0] · x₀[1]^T: the gradient of x_T[0] is (x₀[1]^T, T x₀[0] x₀[1]^(T−1))
/// let chain = ReversalChain::new(2, step::<f64>, step_inv::<GVar<f64>>);
/// let r = treeverse(&chain, &vec![3.0, 0.5], 20, 4, |_x_t| vec![1.0, 0.0]);
/// assert_eq!(r.gradient, vec![0.5f64.powi(20), 20.0 * 3.0 * 0.5f64.powi(19)]);
/// ```
///
/// # Panics
///
/// When `snapshots` is 0.
pub fn treeverse<C: Chain>(
    chain: &C,
    x0: &C::State,
    steps: usize,
    snapshots: usize,
    seed: impl FnOnce(&C::State) -> C::Grad,
) -> Gradient<C::State, C::Grad> {
    assert!(
        snapshots >= 1,
        "treeverse: `snapshots` is 0, but it needs at least one stored state (x₀)"
    );
    if steps == 0 {
        return Gradient {
            final_state: x0.clone(),
            gradient: seed(x0),
            stats: Stats::default(),
        };
    }
    let mut m = ChainMachine {
        chain,
        n: steps,
        stored: vec![x0.clone()],
        work: None,
        seed: Some(seed),
        grad: None,
        final_state: None,
    };
    let stats = reverse_schedule(&mut m, steps, snapshots);
    Gradient {
        final_state: m.final_state.expect("the last step ran"),
        gradient: m.grad.expect("the reverse sweep ran"),
        stats,
    }
}

/// A chain of one reversible function `out += f(inp)` on `f64` vectors of length `dim`,
/// differentiated by reversal: the forward function on `f64`, the inverse on [`GVar`]
/// (`ReversalChain::new(dim, step::<f64>, step_inv::<GVar<f64>>)` for an `#[i] fn step`).
///
/// `step` runs the forward function on a zero `out`; `vjp` runs it again, wraps `out` with
/// the incoming gradient and `inp` with zero, and runs the inverse: `inp.g` is `Jᵀ ḡ`.
///
/// ```
/// use nilang::treeverse::{Chain, ReversalChain};
/// use nilang::{i, GVar, Real};
///
/// #[i]
/// fn step<T: Real>(out: &mut [T], inp: &mut [T]) {
///     out[0] += square(inp[0]);
/// }
/// let chain = ReversalChain::new(1, step::<f64>, step_inv::<GVar<f64>>);
/// assert_eq!(chain.step(0, &vec![3.0]), vec![9.0]);
/// let mut g = vec![1.0];
/// chain.vjp(0, &vec![3.0], &mut g); // ∂x²/∂x = 2x
/// assert_eq!(g, vec![6.0]);
/// ```
pub struct ReversalChain<F, G> {
    dim: usize,
    forward: F,
    inverse: G,
}

impl<F, G> ReversalChain<F, G>
where
    F: Fn(&mut [f64], &mut [f64]),
    G: Fn(&mut [GVar<f64>], &mut [GVar<f64>]),
{
    /// The chain of `forward` (on `f64`) with its inverse on `GVar<f64>`.
    ///
    /// ```
    /// use nilang::treeverse::ReversalChain;
    /// use nilang::{i, GVar, Real};
    ///
    /// #[i]
    /// fn step<T: Real>(out: &mut [T], inp: &mut [T]) {
    ///     out[0] += sin(inp[1]);
    ///     out[1] += cos(inp[0]);
    /// }
    /// // states of dimension 2, the forward step on f64, its inverse on GVar<f64>
    /// let _chain = ReversalChain::new(2, step::<f64>, step_inv::<GVar<f64>>);
    /// ```
    pub fn new(dim: usize, forward: F, inverse: G) -> Self {
        ReversalChain {
            dim,
            forward,
            inverse,
        }
    }
}

impl<F, G> Chain for ReversalChain<F, G>
where
    F: Fn(&mut [f64], &mut [f64]),
    G: Fn(&mut [GVar<f64>], &mut [GVar<f64>]),
{
    type State = Vec<f64>;
    type Grad = Vec<f64>;

    fn step(&self, _i: usize, x: &Vec<f64>) -> Vec<f64> {
        let mut out = vec![0.0; self.dim];
        let mut inp = x.clone();
        (self.forward)(&mut out, &mut inp);
        out
    }

    fn vjp(&self, i: usize, x: &Vec<f64>, g: &mut Vec<f64>) {
        let y = self.step(i, x);
        let mut out: Vec<GVar<f64>> = y
            .iter()
            .zip(g.iter())
            .map(|(&v, &gv)| GVar::with_grad(v, gv))
            .collect();
        let mut inp: Vec<GVar<f64>> = x.iter().map(|&v| GVar::new(v)).collect();
        (self.inverse)(&mut out, &mut inp);
        for (gi, v) in g.iter_mut().zip(&inp) {
            *gi = v.g;
        }
    }
}
