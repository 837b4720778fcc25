//! Bennett's time-space trade-off for reverse computing (ICLR paper, §2 Listing 3 and
//! Appendix A Listing 12).
//!
//! A computation of `N` steps `s₁ = f₀(s₀), …, s_N = f_{N−1}(s_{N−1})`, each step a reversible
//! function, can be run reversibly by keeping every state alive (`N + 1` states, `N` step
//! calls). Bennett's scheme keeps far fewer: it splits the steps into `k` sectors, runs them
//! forward (the *P* process, leaving the end state of each sector) and then runs the first
//! `k − 1` sectors backwards (the *Q* process, erasing the states in between), recursively
//! inside each sector. For `N = kⁿ` it calls steps `(2k−1)ⁿ` times and never holds more than
//! `n(k−1) + 2` states.
//!
//! A step is a [`Transition`]: a reversible function `(out, inp)` that adds `f(inp)` into a
//! zero `out` (`call`) and takes it back out (`uncall`). Any [`Reversible`] function of
//! `(&mut S, &mut S)` is one: `rev!(f)` for an `#[i] fn f(out: &mut S, inp: &mut S)`, a
//! [`Rev`](crate::Rev) pair of closures.
//! The gradient of such a loop through Bennett's scheme, with respect to `s₀` and to
//! parameters every step reads, is [`crate::checkpoint::bennett_gradient`].
//!
//! ```
//! use nilang::{i, rev, Real};
//! use nilang::schedule::Bennett;
//!
//! #[i]
//! fn double<T: Real>(out: &mut T, inp: &mut T) {
//!     out += 2.0 * inp;
//! }
//!
//! let steps = vec![rev!(double::<f64>); 16];
//! let mut b = Bennett::new(2, 1.0, steps.len());
//! b.run(&steps);
//! assert_eq!(b.final_state(), Some(&65536.0));
//! assert_eq!(b.live_states(), 2); // s₀ and s₁₆ only
//! assert_eq!(b.program_counter(), 81); // (2k−1)ⁿ = 3⁴
//! assert_eq!(b.peak_live_states(), 6); // n(k−1)+2 = 4·1+2
//! b.run_inv(&steps);
//! assert_eq!(b.live_states(), 1); // back to s₀ alone
//! ```
//!
//! NiLang's variants: [`Split::CeilSized`] splits a level as NiLang does (sectors of `⌈N/k⌉`
//! steps; ours are as equal as can be, which is the same for `N = kⁿ`), and
//! [`Bennett::run_keeping_sectors`] is NiLang's `bennett!`, which leaves the top level's sector
//! ends live instead of uncomputing them (`k(2k−1)ⁿ⁻¹` calls, `k + 1` states at the end, the
//! same peak).
//!
//! (The step trait is named `Transition` rather than `Step` because [`crate::Step`] is the
//! instruction trait of `inc`/`dec`.)

use crate::check::{fail, tolerance, Check, CheckKind, Site};
use crate::rev::Reversible;
use crate::Zeroable;

/// One step `s_{i+1} = f_i(s_i)` of a computation, as a reversible function.
///
/// ```
/// use nilang::schedule::{Bennett, Transition};
///
/// /// s_{i+1} = s_i + 1, written by hand (an `#[i]` function paired by `rev!` is one too)
/// struct Increment;
/// impl Transition<f64> for Increment {
///     fn call(&self, out: &mut f64, inp: &mut f64) {
///         *out += *inp + 1.0;
///     }
///     fn uncall(&self, out: &mut f64, inp: &mut f64) {
///         *out -= *inp + 1.0;
///     }
/// }
/// let mut b = Bennett::new(2, 0.0, 4);
/// b.run(&[Increment, Increment, Increment, Increment]);
/// assert_eq!(b.final_state(), Some(&4.0));
/// ```
pub trait Transition<S> {
    /// Computes the next state into `out` (zero on entry) from `inp`.
    fn call(&self, out: &mut S, inp: &mut S);
    /// Undoes [`call`](Transition::call): brings `out` back to zero.
    fn uncall(&self, out: &mut S, inp: &mut S);
}

/// Every reversible function of `(&mut S, &mut S)` is a step: `rev!(f)` of an `#[i] fn f(out:
/// &mut S, inp: &mut S)`, a [`Rev`](crate::Rev) pair of closures.
impl<S, R> Transition<S> for R
where
    R: for<'a, 'b> Reversible<(&'a mut S, &'b mut S)>,
{
    #[inline]
    fn call(&self, out: &mut S, inp: &mut S) {
        Reversible::call(self, (out, inp))
    }
    #[inline]
    fn uncall(&self, out: &mut S, inp: &mut S) {
        Reversible::uncall(self, (out, inp))
    }
}

/// How a level of Bennett's recursion splits its `len` steps into sectors.
///
/// ```
/// use nilang::schedule::{Bennett, Split};
/// use nilang::{i, rev, Real};
///
/// #[i]
/// fn double<T: Real>(out: &mut T, inp: &mut T) {
///     out += 2.0 * inp;
/// }
/// let steps = vec![rev!(double::<f64>); 10];
/// let mut b = Bennett::new(3, 1.0, 10).with_split(Split::CeilSized); // sectors 4 + 4 + 2
/// b.run(&steps);
/// assert_eq!(b.final_state(), Some(&1024.0));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Split {
    /// `min(k, len)` sectors as equal as can be (lengths differ by at most one, the longer
    /// ones last): the default.
    #[default]
    Equal,
    /// NiLang's `bennett!`: sectors of `⌈len/k⌉` steps, the last one shorter
    /// (`⌈len/⌈len/k⌉⌉` sectors, which can be fewer than `k`: 10 steps with `k = 3` are
    /// 4 + 4 + 2).
    CeilSized,
}

/// The state collection of Bennett's scheme (the listing's `state` dictionary) with its
/// counters.
///
/// States are numbered `0..=n_steps`; `s₀` is live from the start. [`run`](Bennett::run)
/// maps `{s₀}` to `{s₀, s_N}`, [`run_inv`](Bennett::run_inv) maps it back. A new state is
/// allocated as `s₀.zero_like()`; a state is discarded only when it is zero again, within the
/// tolerance every float check uses ([`crate::set_tolerance`]: uncalling a step of float
/// instructions leaves round-off), which is checked (a
/// [`ReversibilityError`](crate::ReversibilityError) of kind [`CheckKind::Dealloc`] naming the
/// state and the step, with the state found, otherwise).
///
/// ```
/// use nilang::schedule::Bennett;
/// use nilang::{i, rev, Real};
///
/// #[i]
/// fn double<T: Real>(out: &mut T, inp: &mut T) {
///     out += 2.0 * inp;
/// }
/// let steps = vec![rev!(double::<f64>); 9];
/// let mut b = Bennett::new(3, 1.0, steps.len());
/// b.run(&steps);
/// assert_eq!(b.final_state(), Some(&512.0));
/// assert_eq!(b.state(4), None); // uncomputed
/// assert_eq!((b.live_states(), b.peak_live_states(), b.program_counter()), (2, 6, 25));
/// ```
#[derive(Clone, Debug)]
pub struct Bennett<S> {
    sectors: Sectors,
    states: Vec<Option<S>>,
    live: usize,
    program_counter: usize,
    peak_live_states: usize,
}

const SITE_INV: Site = Site {
    function: "Bennett (uncall of a step)",
    statement: "Transition::uncall(s[i+1], s[i]) must bring s[i+1] back to zero",
};

impl<S: Zeroable + Check> Bennett<S> {
    /// A schedule with `k ≥ 2` sectors per level for a computation of `n_steps` steps starting
    /// at state `s0`.
    ///
    /// ```
    /// let b = nilang::schedule::Bennett::new(2, vec![1.0, 0.0], 8);
    /// assert_eq!(b.state(0), Some(&vec![1.0, 0.0]));
    /// assert_eq!(b.live_states(), 1);
    /// ```
    pub fn new(k: usize, s0: S, n_steps: usize) -> Self {
        assert!(k >= 2, "Bennett's scheme needs k ≥ 2 sectors");
        let mut states: Vec<Option<S>> = (0..=n_steps).map(|_| None).collect();
        states[0] = Some(s0);
        Bennett {
            sectors: Sectors {
                k,
                split: Split::Equal,
            },
            states,
            live: 1,
            program_counter: 0,
            peak_live_states: 1,
        }
    }

    /// Runs the `N = steps.len()` steps forward: afterwards `s₀` and `s_N` are live and all
    /// states in between have been uncomputed. `N` need not be a power of `k` (sectors then
    /// differ in length by at most one); the counts of the module documentation hold for
    /// `N = kⁿ`.
    ///
    /// ```
    /// use nilang::schedule::Bennett;
    /// use nilang::{i, rev, Real};
    ///
    /// #[i]
    /// fn double<T: Real>(out: &mut T, inp: &mut T) {
    ///     out += 2.0 * inp;
    /// }
    /// let steps = vec![rev!(double::<f64>); 5]; // not a power of k: sectors of 3 and 2
    /// let mut b = Bennett::new(2, 1.0, 5);
    /// b.run(&steps);
    /// assert_eq!((b.final_state(), b.live_states()), (Some(&32.0), 2));
    /// ```
    pub fn run<T: Transition<S>>(&mut self, steps: &[T]) {
        self.check_len(steps.len());
        let sectors = self.sectors;
        sectors.forward(&mut Leaves { b: self, steps }, 0, steps.len());
    }

    /// The inverse of [`run`](Bennett::run): uncomputes `s_N`, leaving `s₀` alone.
    ///
    /// ```
    /// use nilang::schedule::Bennett;
    /// use nilang::{i, rev, Real};
    ///
    /// #[i]
    /// fn double<T: Real>(out: &mut T, inp: &mut T) {
    ///     out += 2.0 * inp;
    /// }
    /// let steps = vec![rev!(double::<f64>); 4];
    /// let mut b = Bennett::new(2, 1.0, 4);
    /// b.run(&steps);
    /// b.run_inv(&steps);
    /// assert_eq!((b.final_state(), b.live_states()), (None, 1));
    /// ```
    pub fn run_inv<T: Transition<S>>(&mut self, steps: &[T]) {
        self.check_len(steps.len());
        let sectors = self.sectors;
        sectors.backward(&mut Leaves { b: self, steps }, 0, steps.len());
    }

    /// The same schedule with another way of splitting each level into sectors.
    ///
    /// ```
    /// use nilang::schedule::{Bennett, Split};
    /// let b = Bennett::new(3, 1.0, 10).with_split(Split::CeilSized);
    /// assert_eq!(b.live_states(), 1);
    /// ```
    pub fn with_split(mut self, split: Split) -> Self {
        self.sectors.split = split;
        self
    }

    /// Runs the steps forward without the top level's Q process (NiLang's `bennett!`, whose
    /// `do_uncomputing` is off at the top): afterwards `s₀`, the end state of every top-level
    /// sector and `s_N` are live. It saves the calls that would uncompute those sector ends:
    /// for `N = kⁿ`, `k(2k−1)ⁿ⁻¹` calls instead of `(2k−1)ⁿ`, for `k + 1` live states at the
    /// end instead of 2; the peak is the same, `n(k−1) + 2`.
    ///
    /// ```
    /// use nilang::schedule::Bennett;
    /// use nilang::{i, rev, Real};
    ///
    /// #[i]
    /// fn double<T: Real>(out: &mut T, inp: &mut T) {
    ///     out += 2.0 * inp;
    /// }
    /// let steps = vec![rev!(double::<f64>); 9];
    /// let mut b = Bennett::new(3, 1.0, 9);
    /// b.run_keeping_sectors(&steps);
    /// // s₀, the sector ends s₃ and s₆, and s₉; k(2k−1)ⁿ⁻¹ = 3·5 calls
    /// assert_eq!((b.state(3), b.state(6), b.final_state()), (Some(&8.0), Some(&64.0), Some(&512.0)));
    /// assert_eq!((b.live_states(), b.program_counter()), (4, 15));
    /// b.run_keeping_sectors_inv(&steps);
    /// assert_eq!(b.live_states(), 1);
    /// ```
    pub fn run_keeping_sectors<T: Transition<S>>(&mut self, steps: &[T]) {
        self.check_len(steps.len());
        let sectors = self.sectors;
        for j in 0..sectors.parts(steps.len()) {
            let (b, l) = sectors.sector(0, steps.len(), j);
            sectors.forward(&mut Leaves { b: self, steps }, b, l);
        }
    }

    /// The inverse of [`run_keeping_sectors`](Bennett::run_keeping_sectors).
    ///
    /// ```
    /// use nilang::schedule::Bennett;
    /// use nilang::{i, rev, Real};
    ///
    /// #[i]
    /// fn double<T: Real>(out: &mut T, inp: &mut T) {
    ///     out += 2.0 * inp;
    /// }
    /// let steps = vec![rev!(double::<f64>); 4];
    /// let mut b = Bennett::new(2, 1.0, 4);
    /// b.run_keeping_sectors(&steps);
    /// assert_eq!(b.live_states(), 3); // s₀, s₂, s₄
    /// b.run_keeping_sectors_inv(&steps);
    /// assert_eq!(b.live_states(), 1);
    /// ```
    pub fn run_keeping_sectors_inv<T: Transition<S>>(&mut self, steps: &[T]) {
        self.check_len(steps.len());
        let sectors = self.sectors;
        for j in (0..sectors.parts(steps.len())).rev() {
            let (b, l) = sectors.sector(0, steps.len(), j);
            sectors.backward(&mut Leaves { b: self, steps }, b, l);
        }
    }

    /// State `sᵢ`, if it is live.
    ///
    /// ```
    /// let b = nilang::schedule::Bennett::new(2, 1.0, 4);
    /// assert_eq!((b.state(0), b.state(1)), (Some(&1.0), None));
    /// ```
    pub fn state(&self, i: usize) -> Option<&S> {
        self.states.get(i).and_then(Option::as_ref)
    }

    /// The final state `s_N`, if it is live (after [`run`](Bennett::run)).
    ///
    /// ```
    /// let b = nilang::schedule::Bennett::new(2, 1.0, 4);
    /// assert_eq!(b.final_state(), None); // not run yet
    /// ```
    pub fn final_state(&self) -> Option<&S> {
        self.states.last().and_then(Option::as_ref)
    }

    /// How many states are live now.
    ///
    /// ```
    /// assert_eq!(nilang::schedule::Bennett::new(2, 1.0, 4).live_states(), 1);
    /// ```
    pub fn live_states(&self) -> usize {
        self.live
    }

    /// The most states that were live at once (the listing's `PEAK_MEM`).
    ///
    /// ```
    /// use nilang::schedule::Bennett;
    /// use nilang::{i, rev, Real};
    ///
    /// #[i]
    /// fn double<T: Real>(out: &mut T, inp: &mut T) {
    ///     out += 2.0 * inp;
    /// }
    /// let mut b = Bennett::new(2, 1.0, 4);
    /// b.run(&vec![rev!(double::<f64>); 4]);
    /// assert_eq!(b.peak_live_states(), 4); // n(k−1) + 2 with n = 2, k = 2
    /// ```
    pub fn peak_live_states(&self) -> usize {
        self.peak_live_states
    }

    /// How many step calls and uncalls have run (the listing's `PROG_COUNTER`), summed over
    /// all runs of this schedule.
    ///
    /// ```
    /// use nilang::schedule::Bennett;
    /// use nilang::{i, rev, Real};
    ///
    /// #[i]
    /// fn double<T: Real>(out: &mut T, inp: &mut T) {
    ///     out += 2.0 * inp;
    /// }
    /// let mut b = Bennett::new(2, 1.0, 4);
    /// b.run(&vec![rev!(double::<f64>); 4]);
    /// assert_eq!(b.program_counter(), 9); // (2k − 1)ⁿ = 3²
    /// ```
    pub fn program_counter(&self) -> usize {
        self.program_counter
    }

    /// The states `s₀ … s_N` (`None` where not live).
    ///
    /// ```
    /// use nilang::schedule::Bennett;
    /// use nilang::{i, rev, Real};
    ///
    /// #[i]
    /// fn double<T: Real>(out: &mut T, inp: &mut T) {
    ///     out += 2.0 * inp;
    /// }
    /// let mut b = Bennett::new(2, 1.0, 2);
    /// b.run(&vec![rev!(double::<f64>); 2]);
    /// assert_eq!(b.into_states(), vec![Some(1.0), None, Some(4.0)]);
    /// ```
    pub fn into_states(self) -> Vec<Option<S>> {
        self.states
    }

    fn check_len(&self, n: usize) {
        assert_eq!(
            n + 1,
            self.states.len(),
            "Bennett: the schedule was made for a different number of steps"
        );
    }

    /// The pair `(s[i+1], s[i])`, both borrowed mutably.
    fn pair(&mut self, i: usize) -> (&mut Option<S>, &mut Option<S>) {
        pair(&mut self.states, i)
    }
}

/// The pair `(v[i+1], v[i])`, both borrowed mutably.
fn pair<X>(v: &mut [X], i: usize) -> (&mut X, &mut X) {
    let (lo, hi) = v.split_at_mut(i + 1);
    (&mut hi[0], &mut lo[i])
}

/// Checks that uncalling step `i` brought state `s_{i+1}` back to zero, within the tolerance
/// every float check uses; a [`ReversibilityError`](crate::ReversibilityError) of kind
/// [`CheckKind::Dealloc`] naming the state and the step otherwise.
pub(crate) fn check_uncomputed<S: Zeroable + Check>(out: &S, i: usize) {
    if !out.check_eq(&out.zero_like(), tolerance()) {
        fail(
            &SITE_INV,
            CheckKind::Dealloc,
            &format!("state s{} (uncalling step {i})", i + 1),
            format!("zero, within the tolerance {:e}", tolerance()),
            format!("{out:?}"),
        );
    }
}

/// What Bennett's recursion does at a leaf, a single step: call it (allocate `s_{i+1}` and
/// compute it from `sᵢ`) or uncall it (bring `s_{i+1}` back to zero and free it).
pub(crate) trait Leaf {
    /// Step `i` forward.
    fn call(&mut self, i: usize);
    /// Step `i` backward.
    fn uncall(&mut self, i: usize);
}

/// [`Bennett`]'s leaves: its states and the steps.
struct Leaves<'a, S, T> {
    b: &'a mut Bennett<S>,
    steps: &'a [T],
}

impl<S: Zeroable + Check, T: Transition<S>> Leaf for Leaves<'_, S, T> {
    fn call(&mut self, i: usize) {
        let b = &mut *self.b;
        let (out, inp) = b.pair(i);
        let inp = inp.as_mut().expect("Bennett: input state is live");
        assert!(out.is_none(), "Bennett: output state is already live");
        let out = out.insert(inp.zero_like());
        self.steps[i].call(out, inp);
        b.live += 1;
        b.program_counter += 1;
        b.peak_live_states = b.peak_live_states.max(b.live);
    }

    fn uncall(&mut self, i: usize) {
        let b = &mut *self.b;
        let (out_slot, inp) = b.pair(i);
        let inp = inp.as_mut().expect("Bennett: input state is live");
        let out = out_slot.as_mut().expect("Bennett: output state is live");
        self.steps[i].uncall(out, inp);
        check_uncomputed(out, i);
        *out_slot = None;
        b.live -= 1;
        b.program_counter += 1;
    }
}

/// How Bennett's recursion splits its levels: `k` sectors per level, split by `split`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sectors {
    /// Sectors per level (`k ≥ 2`).
    pub(crate) k: usize,
    /// How a level is split.
    pub(crate) split: Split,
}

impl Sectors {
    /// The number of sectors of a level of `len` steps.
    pub(crate) fn parts(&self, len: usize) -> usize {
        if len == 0 {
            return 0;
        }
        match self.split {
            Split::Equal => self.k.min(len),
            Split::CeilSized => len.div_ceil(len.div_ceil(self.k)),
        }
    }

    /// Sector `j` `(start, len)` of `[base, base+len)` (see [`Split`]).
    pub(crate) fn sector(&self, base: usize, len: usize, j: usize) -> (usize, usize) {
        let parts = self.parts(len);
        match self.split {
            Split::Equal => {
                let (q, r) = (len / parts, len % parts);
                // The last `r` sectors get one step more, so that for len = kⁿ all are equal.
                let start = base + q * j + j.saturating_sub(parts - r);
                let size = q + usize::from(j >= parts - r);
                (start, size)
            }
            Split::CeilSized => {
                let n = len.div_ceil(self.k);
                (base + n * j, n.min(len - n * j))
            }
        }
    }

    /// Steps `base..base+len` forward: `{s_base}` becomes `{s_base, s_{base+len}}`.
    pub(crate) fn forward<L: Leaf>(&self, leaves: &mut L, base: usize, len: usize) {
        if len <= 1 {
            if len == 1 {
                leaves.call(base);
            }
            return;
        }
        let parts = self.parts(len);
        // the P process
        for j in 0..parts {
            let (b, l) = self.sector(base, len, j);
            self.forward(leaves, b, l);
        }
        // the Q process
        for j in (0..parts - 1).rev() {
            let (b, l) = self.sector(base, len, j);
            self.backward(leaves, b, l);
        }
    }

    /// The inverse of [`forward`](Sectors::forward).
    pub(crate) fn backward<L: Leaf>(&self, leaves: &mut L, base: usize, len: usize) {
        if len <= 1 {
            if len == 1 {
                leaves.uncall(base);
            }
            return;
        }
        let parts = self.parts(len);
        // inverse of the Q process
        for j in 0..parts - 1 {
            let (b, l) = self.sector(base, len, j);
            self.forward(leaves, b, l);
        }
        // inverse of the P process
        for j in (0..parts).rev() {
            let (b, l) = self.sector(base, len, j);
            self.backward(leaves, b, l);
        }
    }
}
