//! Checkpointed loops with parameters: the gradient of a loss of `x_T` after `T` steps
//! `x_{i+1} = f(xᵢ, θ)` with respect to the initial state `x₀` *and* the parameters `θ` that
//! every step reads (an ODE's coefficients, an RNN's weights), in bounded memory.
//!
//! A step is an `#[i]` function on flat slices, `out += f(inp, params)`:
//!
//! ```text
//! #[i] fn f<T: Real>(out: &mut [T], inp: &mut [T], params: &mut [T])
//! ```
//!
//! It computes `x_{i+1}` into `out` (zero on entry), and leaves `inp` and `params` as it found
//! them; `params` is `&mut` because that is what makes it a differentiable argument of the
//! generated gradient functions (a `&[T]` parameter gets no gradient). Each step is
//! differentiated by its generated adjoint program on buffers this module owns, never by the
//! generic inverse on [`GVar`](crate::GVar)s:
//!
//! | scheduler | what it runs | stored | forward steps |
//! |---|---|---|---|
//! | [`trajectory_gradient`] | `(f, f_vjp)`: [`ParamStep`] | every state: `T·d` scalars | `T` |
//! | [`treeverse_gradient`] | `(f, f_vjp)`: [`ParamStep`] | `δ` states (Griewank's Treeverse) | [`optimal_forward_steps`]`(T, δ)` ≤ `τT` |
//! | [`bennett_gradient`] | `(f, f_inv, f_adjoint)`: [`ParamTransition`] | `n(k−1)+2` states and their gradients (`T = kⁿ`) | `(2k−1)ⁿ` calls and as many uncalls |
//!
//! (`d` the length of a state, `δ` the budget of stored states, `τ` the sweeps: the least with
//! `η(τ, δ) = C(τ+δ, δ) ≥ T`; `δ = ⌈log₂ T⌉` gives O(log T) memory and `τ ≤ δ`, O(T log T)
//! time — `τ = 5` for `T = 10⁴`. Bennett: `n` levels of `k` sectors.) Every
//! scheduler returns a [`LoopGradient`]: the final state, the gradient with respect to `x₀`,
//! the gradient with respect to the parameters accumulated over all steps, and the cost. The
//! gradient of the loss with respect to `x_T` comes from `seed(x_T)`.
//!
//! ```
//! use nilang::{i, Real};
//! use nilang::checkpoint::{trajectory_gradient, treeverse_gradient};
//!
//! /// One explicit Euler step of x' = −θ₀ x + θ₁ (time step 0.01; `expand`: the nested
//! /// product gets an ancilla).
//! #[i(expand)]
//! fn decay<T: Real>(out: &mut [T], x: &mut [T], theta: &mut [T]) {
//!     out[0] += identity(x[0]);
//!     out[0] -= 0.01 * theta[0] * x[0];
//!     out[0] += 0.01 * theta[1];
//! }
//! let (x0, theta) = ([1.0], [0.5, 0.2]);
//! // ∂x_T/∂(x₀, θ) over 1000 steps, storing at most 10 states: the generated `decay` and
//! // `decay_vjp` plug in as a pair
//! let r = treeverse_gradient(&(decay, decay_vjp), &x0, &theta, 1000, 10, |_x_t| vec![1.0]);
//! assert!(r.cost.peak_snapshots <= 10);
//! let a: f64 = 1.0 - 0.01 * 0.5; // x_{i+1} = a xᵢ + 0.01 θ₁
//! assert!((r.state_grad[0] - a.powi(1000)).abs() < 1e-12);
//! // the same numbers as storing the whole trajectory
//! let all = trajectory_gradient(&(decay, decay_vjp), &x0, &theta, 1000, |_x_t| vec![1.0]);
//! assert_eq!((r.state_grad, r.param_grad), (all.state_grad, all.param_grad));
//! ```

use crate::check::Check;
use crate::float::Float;
use crate::schedule::{check_uncomputed, Leaf, Sectors, Split};
pub use crate::treeverse::optimal_forward_steps;
use crate::treeverse::{reverse_schedule, Machine, Stats};
use std::collections::BTreeMap;

/// A step `out += f(inp, params)` with its vector–Jacobian product, for
/// [`treeverse_gradient`] and [`trajectory_gradient`]. The pair `(f, f_vjp)` of the functions
/// `#[i] fn f<T: Real>(out: &mut [T], inp: &mut [T], params: &mut [T])` generates is one;
/// [`vjp_step`] pairs two closures with these signatures, e.g. for a step that takes further
/// arguments.
///
/// ```
/// use nilang::checkpoint::ParamStep;
/// use nilang::{i, Real};
///
/// #[i]
/// fn scale<T: Real>(out: &mut [T], x: &mut [T], p: &mut [T]) {
///     out[0] += p[0] * x[0];
/// }
/// let step = (scale, scale_vjp);
/// let (mut out, mut x, mut p) = ([0.0], [3.0], [2.0]);
/// ParamStep::forward(&step, &mut out, &mut x, &mut p);
/// assert_eq!(out, [6.0]);
/// let (mut out, mut og, mut xg, mut pg) = ([0.0], [1.0], [0.0], [0.0]);
/// step.vjp(&mut out, &mut og, &mut x, &mut xg, &mut p, &mut pg);
/// assert_eq!((xg, pg), ([2.0], [3.0]));
/// ```
pub trait ParamStep<T> {
    /// `out += f(inp, params)`, `out` zero on entry.
    fn forward(&self, out: &mut [T], inp: &mut [T], params: &mut [T]);
    /// `f_vjp`: runs `f` and its adjoint program. On entry `out` is zero, `out_grad` the
    /// gradient with respect to `out`; on return `inp_grad` and `params_grad` have the
    /// gradients with respect to `inp` and `params` added, and `out` is zero again (up to
    /// round-off).
    fn vjp(
        &self,
        out: &mut [T],
        out_grad: &mut [T],
        inp: &mut [T],
        inp_grad: &mut [T],
        params: &mut [T],
        params_grad: &mut [T],
    );
}

impl<T, F, V> ParamStep<T> for (F, V)
where
    F: Fn(&mut [T], &mut [T], &mut [T]),
    V: Fn(&mut [T], &mut [T], &mut [T], &mut [T], &mut [T], &mut [T]),
{
    #[inline]
    fn forward(&self, out: &mut [T], inp: &mut [T], params: &mut [T]) {
        (self.0)(out, inp, params)
    }
    #[inline]
    fn vjp(&self, o: &mut [T], og: &mut [T], x: &mut [T], xg: &mut [T], p: &mut [T], pg: &mut [T]) {
        (self.1)(o, og, x, xg, p, pg)
    }
}

/// Pairs a forward step and its vector–Jacobian product into a [`ParamStep`], fixing the
/// closures' signatures: the way to hand a scheduler a step that takes further arguments (a
/// time step, a table), which the closures pass on. A read-only argument's gradient in
/// `f_vjp` is `()`.
///
/// ```
/// use nilang::checkpoint::{trajectory_gradient, vjp_step};
/// use nilang::{i, Real};
///
/// /// x' = −p x, one Euler step of length h
/// #[i]
/// fn decay<T: Real>(out: &mut [T], x: &mut [T], p: &mut [T], h: &T) {
///     let hp = T::zero();
///     routine! {
///         hp += *h * p[0];
///     }
///     out[0] += identity(x[0]);
///     out[0] -= hp * x[0];
///     uncompute!();
///     dealloc!(hp = T::zero());
/// }
/// let h = 0.1f64;
/// let step = vjp_step(
///     |o, x, p| decay(o, x, p, &h),
///     |o, og, x, xg, p, pg| decay_vjp(o, og, x, xg, p, pg, &h, ()),
/// );
/// let r = trajectory_gradient(&step, &[1.0], &[2.0], 3, |_| vec![1.0]);
/// // x_T = (1 − h p)³ x₀: ∂/∂x₀ = 0.8³, ∂/∂p = −3 h 0.8² x₀
/// assert!((r.state_grad[0] - 0.512).abs() < 1e-15);
/// assert!((r.param_grad[0] + 0.192).abs() < 1e-15);
/// ```
pub fn vjp_step<T, F, V>(forward: F, vjp: V) -> (F, V)
where
    F: Fn(&mut [T], &mut [T], &mut [T]),
    V: Fn(&mut [T], &mut [T], &mut [T], &mut [T], &mut [T], &mut [T]),
{
    (forward, vjp)
}

/// A step `out += f(inp, params)` as a reversible function with its adjoint program, for
/// [`bennett_gradient`]: the triple `(f, f_inv, f_adjoint)` that `#[i]` generates is one.
///
/// ```
/// use nilang::checkpoint::ParamTransition;
/// use nilang::{i, Real};
///
/// #[i]
/// fn scale<T: Real>(out: &mut [T], x: &mut [T], p: &mut [T]) {
///     out[0] += p[0] * x[0];
/// }
/// let step = (scale, scale_inv, scale_adjoint);
/// let (mut out, mut x, mut p) = ([0.0], [3.0], [2.0]);
/// step.call(&mut out, &mut x, &mut p);
/// assert_eq!(out, [6.0]);
/// let (mut og, mut xg, mut pg) = ([1.0], [0.0], [0.0]);
/// step.adjoint(&mut out, &mut og, &mut x, &mut xg, &mut p, &mut pg);
/// assert_eq!((out, xg, pg), ([0.0], [2.0], [3.0]));
/// ```
pub trait ParamTransition<T> {
    /// `out += f(inp, params)`.
    fn call(&self, out: &mut [T], inp: &mut [T], params: &mut [T]);
    /// `out −= f(inp, params)`: the inverse of [`call`](ParamTransition::call).
    fn uncall(&self, out: &mut [T], inp: &mut [T], params: &mut [T]);
    /// `f_adjoint`: the inverse run on values and gradients. On return `out` is zero (up to
    /// round-off) and `inp_grad`, `params_grad` have `out_grad`'s contribution added.
    fn adjoint(
        &self,
        out: &mut [T],
        out_grad: &mut [T],
        inp: &mut [T],
        inp_grad: &mut [T],
        params: &mut [T],
        params_grad: &mut [T],
    );
}

impl<T, F, I, A> ParamTransition<T> for (F, I, A)
where
    F: Fn(&mut [T], &mut [T], &mut [T]),
    I: Fn(&mut [T], &mut [T], &mut [T]),
    A: Fn(&mut [T], &mut [T], &mut [T], &mut [T], &mut [T], &mut [T]),
{
    #[inline]
    fn call(&self, out: &mut [T], inp: &mut [T], params: &mut [T]) {
        (self.0)(out, inp, params)
    }
    #[inline]
    fn uncall(&self, out: &mut [T], inp: &mut [T], params: &mut [T]) {
        (self.1)(out, inp, params)
    }
    #[inline]
    fn adjoint(
        &self,
        o: &mut [T],
        og: &mut [T],
        x: &mut [T],
        xg: &mut [T],
        p: &mut [T],
        pg: &mut [T],
    ) {
        (self.2)(o, og, x, xg, p, pg)
    }
}

/// Groups a step, its inverse and its adjoint program into a [`ParamTransition`], fixing the
/// closures' signatures (as [`vjp_step`] does for [`ParamStep`]).
///
/// ```
/// use nilang::checkpoint::{adjoint_step, bennett_gradient};
/// use nilang::{i, Real};
///
/// /// x' = c p x
/// #[i]
/// fn grow<T: Real>(out: &mut [T], x: &mut [T], p: &mut [T], c: &T) {
///     let cp = T::zero();
///     routine! {
///         cp += *c * p[0];
///     }
///     out[0] += cp * x[0];
///     uncompute!();
///     dealloc!(cp = T::zero());
/// }
/// let c = 0.5;
/// let step = adjoint_step(
///     |o, x, p| grow(o, x, p, &c),
///     |o, x, p| grow_inv(o, x, p, &c),
///     |o, og, x, xg, p, pg| grow_adjoint(o, og, x, xg, p, pg, &c, ()),
/// );
/// let r = bennett_gradient(&step, 2, &[1.0], &[4.0], 4, |_| vec![1.0]);
/// assert_eq!(r.final_state, [16.0]); // (c p)⁴ x₀
/// assert_eq!((r.state_grad, r.param_grad), (vec![16.0], vec![16.0])); // 4 c⁴ p³ x₀
/// ```
pub fn adjoint_step<T, F, I, A>(call: F, uncall: I, adjoint: A) -> (F, I, A)
where
    F: Fn(&mut [T], &mut [T], &mut [T]),
    I: Fn(&mut [T], &mut [T], &mut [T]),
    A: Fn(&mut [T], &mut [T], &mut [T], &mut [T], &mut [T], &mut [T]),
{
    (call, uncall, adjoint)
}

/// The gradient of a loop: what every scheduler of this module returns. `C` is its cost:
/// [`Stats`] for Treeverse and the trajectory, [`BennettStats`] for Bennett.
///
/// ```
/// use nilang::checkpoint::treeverse_gradient;
/// use nilang::{i, Real};
///
/// /// xᵢ₊₁ = xᵢ + p: x_T = x₀ + T p
/// #[i]
/// fn shift<T: Real>(out: &mut [T], x: &mut [T], p: &mut [T]) {
///     out[0] += x[0] + p[0];
/// }
/// // the loss 3 x_T: ∂/∂x₀ = 3, ∂/∂p = 3T
/// let r = treeverse_gradient(&(shift, shift_vjp), &[1.0], &[0.25], 8, 3, |_| vec![3.0]);
/// assert_eq!((r.final_state, r.state_grad, r.param_grad), (vec![3.0], vec![3.0], vec![24.0]));
/// assert_eq!((r.cost.vjps, r.cost.peak_snapshots), (8, 3));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct LoopGradient<T, C> {
    /// The final state `x_T`.
    pub final_state: Vec<T>,
    /// The gradient of the loss with respect to `x₀`.
    pub state_grad: Vec<T>,
    /// The gradient of the loss with respect to the parameters, summed over all steps.
    pub param_grad: Vec<T>,
    /// What it cost.
    pub cost: C,
}

/// Checks the seed's length and the budget, naming the function and what was wrong.
fn seed_checked<T>(function: &str, seed: impl FnOnce(&[T]) -> Vec<T>, x: &[T]) -> Vec<T> {
    let g = seed(x);
    assert!(
        g.len() == x.len(),
        "{function}: `seed` returned a gradient of length {}, but the state has length {}",
        g.len(),
        x.len()
    );
    g
}

/// Treeverse's machine on flat buffers: the stored states one after another in `stored`,
/// the working state, and the gradients.
struct FlatMachine<'a, T, S, F> {
    step: &'a S,
    n: usize,
    dim: usize,
    stored: Vec<T>,
    work: Vec<T>,
    /// Scratch: the next state, or the zero `out` of a vector–Jacobian product.
    next: Vec<T>,
    params: Vec<T>,
    param_grad: Vec<T>,
    grad: Vec<T>,
    /// Scratch: the gradient with respect to the step's input.
    grad_in: Vec<T>,
    seed: Option<F>,
    final_state: Vec<T>,
}

impl<T: Float, S: ParamStep<T>, F: FnOnce(&[T]) -> Vec<T>> Machine for FlatMachine<'_, T, S, F> {
    fn load(&mut self) {
        let top = self.stored.len() - self.dim;
        copy_short(&mut self.work, &self.stored[top..]);
    }

    fn step(&mut self, _i: usize) {
        zero_short(&mut self.next);
        self.step
            .forward(&mut self.next, &mut self.work, &mut self.params);
        std::mem::swap(&mut self.next, &mut self.work);
    }

    fn store(&mut self) {
        if self.dim <= 8 {
            // one push per number: `extend_from_slice` is a `memcpy` call (see `zero_short`)
            for &v in &self.work {
                self.stored.push(v);
            }
        } else {
            self.stored.extend_from_slice(&self.work);
        }
    }

    fn discard(&mut self) {
        self.stored.truncate(self.stored.len() - self.dim);
    }

    fn reverse(&mut self, i: usize) {
        if i + 1 == self.n {
            // the turn: the last step's output is the loss input
            zero_short(&mut self.next);
            self.step
                .forward(&mut self.next, &mut self.work, &mut self.params);
            self.final_state.clone_from(&self.next);
            let seed = self.seed.take().expect("the last step is reversed once");
            self.grad = seed_checked("treeverse_gradient", seed, &self.final_state);
        }
        zero_short(&mut self.next);
        zero_short(&mut self.grad_in);
        self.step.vjp(
            &mut self.next,
            &mut self.grad,
            &mut self.work,
            &mut self.grad_in,
            &mut self.params,
            &mut self.param_grad,
        );
        std::mem::swap(&mut self.grad, &mut self.grad_in);
    }
}

/// `s.fill(0)`, the length spelled out for states of up to eight numbers. Filled through
/// `memset`, as `fill` is for a length known only at run time, a small ODE's two or four
/// numbers cost a library call per step, more than the step itself (a van der Pol Euler step:
/// 3 ns).
#[inline(always)]
fn zero_short<T: Float>(s: &mut [T]) {
    macro_rules! by_length {
        ($($n:literal)*) => {
            match s.len() {
                $($n => *<&mut [T; $n]>::try_from(s).expect("the length just matched") =
                    [T::f_zero(); $n],)*
                _ => s.fill(T::f_zero()),
            }
        };
    }
    by_length!(1 2 3 4 5 6 7 8)
}

/// `dst.copy_from_slice(src)`, the length spelled out for up to eight numbers (see
/// [`zero_short`]); lengths that differ panic as `copy_from_slice` does.
#[inline(always)]
fn copy_short<T: Float>(dst: &mut [T], src: &[T]) {
    macro_rules! by_length {
        ($($n:literal)*) => {
            match (dst.len(), src.len()) {
                $(($n, $n) => *<&mut [T; $n]>::try_from(dst).expect("the length just matched") =
                    *<&[T; $n]>::try_from(src).expect("the length just matched"),)*
                _ => dst.copy_from_slice(src),
            }
        };
    }
    by_length!(1 2 3 4 5 6 7 8)
}

/// The gradient of a loss of `x_T` after `steps` steps `x_{i+1} = f(xᵢ, params)` from `x0`,
/// with respect to `x0` and `params`, storing at most `snapshots` states (`x₀` included;
/// Griewank's Treeverse, see [`crate::treeverse`]). `seed(x_T)` is the gradient of the loss
/// with respect to `x_T`. Each step is reversed by `step.vjp` (the generated `f_vjp`) on the
/// state recomputed from the nearest stored one; the parameter gradient is accumulated over
/// all steps, in reverse order.
///
/// Cost: [`optimal_forward_steps`]`(steps, snapshots)` forward steps plus one per step inside
/// `f_vjp` (`cost.forward_steps` counts the former), `steps` vector–Jacobian products.
/// Memory: `cost.peak_snapshots ≤ snapshots` stored states of `x0.len()` scalars, plus six
/// buffers of a state or parameter vector (the working state and its successor, two
/// gradients, the parameters and their gradient) — nothing that grows with `steps`.
/// `snapshots ≥ steps` stores the whole trajectory ([`trajectory_gradient`]). `steps = 0`
/// gives `x₀`, `seed(x₀)` and zero parameter gradients.
///
/// ```
/// use nilang::checkpoint::treeverse_gradient;
/// use nilang::{i, Real};
///
/// /// xᵢ₊₁ = p · xᵢ: x_T = pᵀ x₀
/// #[i]
/// fn scale<T: Real>(out: &mut [T], x: &mut [T], p: &mut [T]) {
///     out[0] += p[0] * x[0];
/// }
/// let r = treeverse_gradient(&(scale, scale_vjp), &[3.0], &[0.5], 20, 4, |_| vec![1.0]);
/// assert_eq!(r.final_state, [3.0 * 0.5f64.powi(20)]);
/// assert_eq!(r.state_grad, [0.5f64.powi(20)]); // ∂x_T/∂x₀ = pᵀ
/// assert!((r.param_grad[0] - 20.0 * 3.0 * 0.5f64.powi(19)).abs() < 1e-18); // T pᵀ⁻¹ x₀
/// assert!(r.cost.peak_snapshots <= 4);
/// ```
///
/// # Panics
///
/// When `snapshots` is 0, or `seed` returns a gradient whose length is not `x0.len()` (the
/// message names the function and both lengths).
pub fn treeverse_gradient<T: Float, S: ParamStep<T>>(
    step: &S,
    x0: &[T],
    params: &[T],
    steps: usize,
    snapshots: usize,
    seed: impl FnOnce(&[T]) -> Vec<T>,
) -> LoopGradient<T, Stats> {
    assert!(
        snapshots >= 1,
        "treeverse_gradient: `snapshots` is 0, but it needs at least one stored state (x₀)"
    );
    let zero = |len| vec![T::f_zero(); len];
    if steps == 0 {
        return LoopGradient {
            final_state: x0.to_vec(),
            state_grad: seed_checked("treeverse_gradient", seed, x0),
            param_grad: zero(params.len()),
            cost: Stats::default(),
        };
    }
    let dim = x0.len();
    let mut stored = Vec::with_capacity(dim * snapshots.min(steps));
    stored.extend_from_slice(x0);
    let mut m = FlatMachine {
        step,
        n: steps,
        dim,
        stored,
        work: zero(dim),
        next: zero(dim),
        params: params.to_vec(),
        param_grad: zero(params.len()),
        grad: zero(dim),
        grad_in: zero(dim),
        seed: Some(seed),
        final_state: zero(dim),
    };
    let cost = reverse_schedule(&mut m, steps, snapshots);
    LoopGradient {
        final_state: m.final_state,
        state_grad: m.grad,
        param_grad: m.param_grad,
        cost,
    }
}

/// [`treeverse_gradient`] with every state stored: one forward sweep keeps `x₀ … x_{T−1}`
/// (`T·d` scalars, `d = x0.len()`), then one `f_vjp` per step backwards. The fastest
/// schedule when the trajectory fits in memory.
///
/// ```
/// use nilang::checkpoint::trajectory_gradient;
/// use nilang::{i, Real};
///
/// #[i]
/// fn scale<T: Real>(out: &mut [T], x: &mut [T], p: &mut [T]) {
///     out[0] += p[0] * x[0];
/// }
/// let r = trajectory_gradient(&(scale, scale_vjp), &[3.0], &[0.5], 20, |_| vec![1.0]);
/// assert_eq!((r.cost.forward_steps, r.cost.peak_snapshots), (19, 20));
/// assert_eq!(r.state_grad, [0.5f64.powi(20)]);
/// ```
pub fn trajectory_gradient<T: Float, S: ParamStep<T>>(
    step: &S,
    x0: &[T],
    params: &[T],
    steps: usize,
    seed: impl FnOnce(&[T]) -> Vec<T>,
) -> LoopGradient<T, Stats> {
    treeverse_gradient(step, x0, params, steps, steps.max(1), seed)
}

/// The chunk length of a loop of `n` iterations under `#[checkpoint(levels = L)]` in a
/// `#[differentiable]` function: the least `c ≥ 1` with `c^(L+1) ≥ n`, so that `L` levels of
/// at most `c` chunks, each of `c^l` iterations, cover the loop. The generated program keeps
/// at most `c` chunk starts per level and `c` iterations' saved values: about `(L+1)·c`
/// states where storing every iteration keeps `n`.
///
/// ```
/// use nilang::checkpoint::chunk_length;
/// assert_eq!(chunk_length(10_000, 1), 100); // √n
/// assert_eq!(chunk_length(10_000, 3), 10);
/// assert_eq!(chunk_length(10_001, 1), 101);
/// assert_eq!((chunk_length(0, 2), chunk_length(1, 2)), (1, 1));
/// ```
pub fn chunk_length(n: usize, levels: usize) -> usize {
    let power = u32::try_from(levels.saturating_add(1)).unwrap_or(u32::MAX);
    let covers = |c: usize| c.checked_pow(power).is_none_or(|p| p >= n);
    // the floating-point root is within one of the answer
    let guess = (n as f64).powf(1.0 / f64::from(power)).floor().max(1.0) as usize;
    let mut c = guess.saturating_sub(1).max(1);
    while !covers(c) {
        c += 1;
    }
    c
}

/// What a run of [`bennett_gradient`] cost.
///
/// ```
/// use nilang::checkpoint::bennett_gradient;
/// use nilang::{i, Real};
///
/// #[i]
/// fn shift<T: Real>(out: &mut [T], x: &mut [T], p: &mut [T]) {
///     out[0] += x[0] + p[0];
/// }
/// let step = (shift, shift_inv, shift_adjoint);
/// let r = bennett_gradient(&step, 3, &[1.0], &[0.25], 9, |_| vec![1.0]);
/// // T = 3²: (2k−1)ⁿ = 25 calls and as many uncalls; n(k−1)+2 = 6 states
/// assert_eq!((r.cost.calls, r.cost.uncalls + r.cost.adjoints), (25, 25));
/// assert_eq!((r.cost.adjoints, r.cost.peak_live_states), (9, 6));
/// assert_eq!(r.param_grad, vec![9.0]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BennettStats {
    /// Steps called forward (`f`), in both sweeps.
    pub calls: usize,
    /// Steps uncalled without a gradient to carry (`f_inv`).
    pub uncalls: usize,
    /// Steps uncalled with a gradient (`f_adjoint`): one per step.
    pub adjoints: usize,
    /// The most states live at once (`x₀` included; `n(k−1) + 2` for `T = kⁿ`).
    pub peak_live_states: usize,
    /// The most gradient buffers live at once.
    pub peak_live_grads: usize,
}

/// Bennett's leaves on flat buffers: the live states and the live gradients by index (only
/// the live ones take memory), a pool of freed buffers, the parameters and their gradient.
struct FlatLeaves<'a, T, S> {
    step: &'a S,
    states: BTreeMap<usize, Vec<T>>,
    grads: BTreeMap<usize, Vec<T>>,
    pool: Vec<Vec<T>>,
    dim: usize,
    params: Vec<T>,
    param_grad: Vec<T>,
    cost: BennettStats,
}

impl<T: Float, S> FlatLeaves<'_, T, S> {
    fn zeros(&mut self) -> Vec<T> {
        let mut v = self.pool.pop().unwrap_or_default();
        v.clear();
        v.resize(self.dim, T::f_zero());
        v
    }

    fn count_live(&mut self) {
        let c = &mut self.cost;
        c.peak_live_states = c.peak_live_states.max(self.states.len());
        c.peak_live_grads = c.peak_live_grads.max(self.grads.len());
    }
}

impl<T: Float + Check, S: ParamTransition<T>> Leaf for FlatLeaves<'_, T, S> {
    fn call(&mut self, i: usize) {
        let mut out = self.zeros();
        let inp = self
            .states
            .get_mut(&i)
            .expect("Bennett: input state is live");
        self.step.call(&mut out, inp, &mut self.params);
        let old = self.states.insert(i + 1, out);
        assert!(old.is_none(), "Bennett: output state was live");
        self.cost.calls += 1;
        self.count_live();
    }

    fn uncall(&mut self, i: usize) {
        let mut out = self
            .states
            .remove(&(i + 1))
            .expect("Bennett: output state is live");
        match self.grads.remove(&(i + 1)) {
            Some(mut g) => {
                if !self.grads.contains_key(&i) {
                    let zeros = self.zeros();
                    self.grads.insert(i, zeros);
                }
                let inp_grad = self.grads.get_mut(&i).expect("inserted above");
                let inp = self
                    .states
                    .get_mut(&i)
                    .expect("Bennett: input state is live");
                let (p, pg) = (&mut self.params, &mut self.param_grad);
                self.step.adjoint(&mut out, &mut g, inp, inp_grad, p, pg);
                self.pool.push(g);
                self.cost.adjoints += 1;
            }
            None => {
                let inp = self
                    .states
                    .get_mut(&i)
                    .expect("Bennett: input state is live");
                self.step.uncall(&mut out, inp, &mut self.params);
                self.cost.uncalls += 1;
            }
        }
        check_uncomputed(&out, i);
        self.pool.push(out);
    }
}

/// The gradient of a loss of `x_T` after `steps` steps `x_{i+1} = f(xᵢ, params)` by
/// Bennett's reverse computing with `k ≥ 2` sectors per level (see [`crate::schedule`]):
/// the forward run [`Bennett::run`](crate::schedule::Bennett::run) computes `x_T` and
/// uncomputes the states in between, then its inverse runs on values and gradients — a
/// state's uncall is its `f_adjoint` once the gradient has reached it (one per step), its
/// `f_inv` before. No state is ever dropped: each is uncomputed back to zero and checked
/// (within [`crate::tolerance`]); a step that does not restore it panics with a
/// [`ReversibilityError`](crate::ReversibilityError).
///
/// Memory: `cost.peak_live_states` states (`n(k−1) + 2` for `T = kⁿ`, `x₀` included) and
/// `cost.peak_live_grads` gradients. Time: Bennett's
/// `(2k−1)ⁿ` step calls (its forward run and its inverse together) and as many uncalls, far
/// more than [`treeverse_gradient`] at equal memory; use it where every state must be
/// uncomputed rather than dropped.
///
/// ```
/// use nilang::checkpoint::{bennett_gradient, trajectory_gradient};
/// use nilang::{i, Real};
///
/// #[i]
/// fn scale<T: Real>(out: &mut [T], x: &mut [T], p: &mut [T]) {
///     out[0] += p[0] * x[0];
/// }
/// let step = (scale, scale_inv, scale_adjoint);
/// let b = bennett_gradient(&step, 2, &[3.0], &[0.5], 16, |_| vec![1.0]);
/// let t = trajectory_gradient(&(scale, scale_vjp), &[3.0], &[0.5], 16, |_| vec![1.0]);
/// assert_eq!((b.state_grad, b.param_grad), (t.state_grad, t.param_grad));
/// assert_eq!(b.cost.peak_live_states, 6); // n(k−1) + 2 with 16 = 2⁴
/// assert_eq!(b.cost.adjoints, 16);
/// ```
///
/// # Panics
///
/// When `k < 2`, when `seed` returns a gradient whose length is not `x0.len()`, or when a
/// step's uncall leaves a state that is not zero.
pub fn bennett_gradient<T: Float + Check, S: ParamTransition<T>>(
    step: &S,
    k: usize,
    x0: &[T],
    params: &[T],
    steps: usize,
    seed: impl FnOnce(&[T]) -> Vec<T>,
) -> LoopGradient<T, BennettStats> {
    assert!(
        k >= 2,
        "bennett_gradient: `k` is {k}, but Bennett's scheme needs k ≥ 2 sectors"
    );
    let sectors = Sectors {
        k,
        split: Split::Equal,
    };
    let mut leaves = FlatLeaves {
        step,
        states: BTreeMap::from([(0, x0.to_vec())]),
        grads: BTreeMap::new(),
        pool: Vec::new(),
        dim: x0.len(),
        params: params.to_vec(),
        param_grad: vec![T::f_zero(); params.len()],
        cost: BennettStats::default(),
    };
    leaves.count_live();
    sectors.forward(&mut leaves, 0, steps);
    let final_state = leaves.states[&steps].clone();
    let seed = seed_checked("bennett_gradient", seed, &final_state);
    leaves.grads.insert(steps, seed);
    leaves.count_live();
    sectors.backward(&mut leaves, 0, steps);
    let state_grad = leaves.grads.remove(&0).expect("the gradient reached x₀");
    LoopGradient {
        final_state,
        state_grad,
        param_grad: leaves.param_grad,
        cost: leaves.cost,
    }
}

#[cfg(test)]
mod tests {
    use super::{copy_short, zero_short};

    #[test]
    fn short_fills_and_copies_do_what_fill_and_copy_from_slice_do() {
        for len in 0..=11 {
            let src: Vec<f64> = (0..len).map(|k| k as f64 + 0.5).collect();
            let mut dst = vec![7.0; len];
            copy_short(&mut dst, &src);
            assert_eq!(dst, src, "copy of {len}");
            zero_short(&mut dst);
            assert_eq!(dst, vec![0.0; len], "zero of {len}");
        }
    }

    #[test]
    #[should_panic(
        expected = "source slice length (3) does not match destination slice length (2)"
    )]
    fn a_short_copy_of_another_length_panics_as_copy_from_slice() {
        copy_short(&mut [0.0; 2], &[1.0, 2.0, 3.0]);
    }
}
