//! Runtime reversibility checks and their errors.
//!
//! In checked mode (the default; off under `#[i(nocheck)]` and inside `nocheck! { … }`) the
//! generated code verifies what the compiler cannot: the value of an ancilla at deallocation,
//! `if` postconditions, `while` pre- and postconditions, that a `for` range is unchanged by
//! its body, that a stack pop lands in a zero variable, and that dynamic indices inside one
//! instruction name different places. A failure panics with a [`ReversibilityError`] that
//! names the function, the statement, the variable, the expected and the found value;
//! [`catch`] turns such a panic back into a `Result`. [`check_inv`] checks, as a whole, that a
//! program and its inverse give back the state they started from.
//!
//! Floats compare with a tolerance: `|a − b| ≤ tol · max(1, |a|, |b|)`, `tol` defaulting to
//! `1e-8`, set globally with [`set_tolerance`] or for one thread and one closure with
//! [`with_tolerance`].
//!
//! ```
//! use nilang::{catch, i, with_tolerance, CheckKind, Real};
//!
//! #[i]
//! fn tenth<T: Real>(y: &mut T, x: &mut T) {
//!     let t = T::zero();
//!     t += x * 0.1;
//!     y += identity(t);
//!     t -= x / 10.0; // uncomputed another way: the same up to round-off
//!     dealloc!(t = T::zero());
//! }
//! // at x = 3, t keeps 3·0.1 − 3/10 = 5.6e-17: within the default tolerance
//! assert!(catch(|| tenth(&mut 0.0, &mut 3.0)).is_ok());
//! // no tolerance at all, for this closure on this thread
//! let strict = with_tolerance(0.0, || catch(|| tenth(&mut 0.0, &mut 3.0)));
//! assert_eq!(strict.unwrap_err().kind, CheckKind::Dealloc);
//! ```

mod inv;
pub use inv::{check_inv, InverseMismatch};

use core::cell::{Cell, RefCell};
use core::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// Equality as the runtime checks see it: exact for integers, within a tolerance for floats.
///
/// ```
/// use nilang::check::Check;
///
/// assert!(1.0.check_eq(&(1.0 + 1e-12), 1e-8)); // floats: within the tolerance
/// assert!(!3i64.check_eq(&4, 1.0)); // integers: exactly
/// ```
pub trait Check: fmt::Debug {
    /// Whether `self` and `other` are equal within `tol`.
    fn check_eq(&self, other: &Self, tol: f64) -> bool;
    /// `pop_copy!` run on values that carry their gradients (the `GVar` inverse program):
    /// the gradient the popped copy accumulated flows back into the value it was copied
    /// from, as in the adjoint of a copy. Values without a gradient of their own ignore it.
    #[inline(always)]
    fn absorb_copy_gradient(&mut self, copy: &Self) {
        let _ = copy;
    }
}

/// Float comparison used by the checks.
///
/// ```
/// use nilang::check::close;
/// assert!(close(1e6, 1e6 + 1e-3, 1e-8)); // relative above 1
/// assert!(!close(0.0, 1e-7, 1e-8)); // absolute below 1
/// ```
pub fn close(a: f64, b: f64, tol: f64) -> bool {
    if a == b {
        return true;
    }
    let scale = 1f64.max(a.abs()).max(b.abs());
    (a - b).abs() <= tol * scale
}

macro_rules! check_exact {
    ($($t:ty),*) => {$(
        impl Check for $t {
            #[inline]
            fn check_eq(&self, other: &Self, _tol: f64) -> bool { self == other }
        }
    )*};
}
check_exact!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, bool, char);

impl Check for f64 {
    fn check_eq(&self, other: &Self, tol: f64) -> bool {
        close(*self, *other, tol)
    }
}

impl Check for f32 {
    fn check_eq(&self, other: &Self, tol: f64) -> bool {
        close(
            *self as f64,
            *other as f64,
            tol.max(f32::EPSILON as f64 * 8.0),
        )
    }
}

impl<T: Check, G: core::fmt::Debug + Copy + core::ops::Add<Output = G>> Check
    for crate::GVar<T, G>
{
    /// Compares values only: gradients are not part of a program's state checks.
    fn check_eq(&self, other: &Self, tol: f64) -> bool {
        self.x.check_eq(&other.x, tol)
    }
    /// The adjoint rule of a copy, [`crate::GVar`]'s (`gvar.rs`, with the other rules).
    #[inline(always)]
    fn absorb_copy_gradient(&mut self, copy: &Self) {
        self.copy_adjoint(copy);
    }
}

impl<T: Check> Check for num_complex::Complex<T> {
    fn check_eq(&self, other: &Self, tol: f64) -> bool {
        self.re.check_eq(&other.re, tol) && self.im.check_eq(&other.im, tol)
    }
    fn absorb_copy_gradient(&mut self, copy: &Self) {
        self.re.absorb_copy_gradient(&copy.re);
        self.im.absorb_copy_gradient(&copy.im);
    }
}

impl<T: Check> Check for Vec<T> {
    fn check_eq(&self, other: &Self, tol: f64) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a.check_eq(b, tol))
    }
    fn absorb_copy_gradient(&mut self, copy: &Self) {
        self.iter_mut()
            .zip(copy)
            .for_each(|(x, c)| x.absorb_copy_gradient(c));
    }
}

impl<T: Check, const N: usize> Check for [T; N] {
    fn check_eq(&self, other: &Self, tol: f64) -> bool {
        self.iter().zip(other).all(|(a, b)| a.check_eq(b, tol))
    }
    fn absorb_copy_gradient(&mut self, copy: &Self) {
        self.iter_mut()
            .zip(copy)
            .for_each(|(x, c)| x.absorb_copy_gradient(c));
    }
}

static GLOBAL_TOLERANCE: AtomicU64 = AtomicU64::new(0x3E45798EE2308C3A); // 1e-8

thread_local! {
    static LOCAL_TOLERANCE: Cell<Option<f64>> = const { Cell::new(None) };
    static LAST_ERROR: RefCell<Option<ReversibilityError>> = const { RefCell::new(None) };
    static IN_CATCH: Cell<bool> = const { Cell::new(false) };
}

/// Sets the tolerance of float checks for every thread (default `1e-8`).
///
/// ```
/// nilang::set_tolerance(1e-6);
/// assert_eq!(nilang::tolerance(), 1e-6);
/// nilang::set_tolerance(1e-8); // the default again
/// ```
pub fn set_tolerance(tol: f64) {
    GLOBAL_TOLERANCE.store(tol.to_bits(), Ordering::Relaxed);
}

/// The tolerance in force on this thread.
///
/// ```
/// assert_eq!(nilang::tolerance(), 1e-8); // the default
/// ```
pub fn tolerance() -> f64 {
    LOCAL_TOLERANCE
        .with(|t| t.get())
        .unwrap_or_else(|| f64::from_bits(GLOBAL_TOLERANCE.load(Ordering::Relaxed)))
}

/// Runs `f` with a tolerance for this thread only.
///
/// ```
/// use nilang::{catch, i, with_tolerance, Real};
///
/// #[i]
/// fn drift<T: Real>(y: &mut T, x: &mut T) {
///     let a = T::zero();
///     a += x * 1e-7;
///     y += identity(a);
///     y -= identity(a);
///     dealloc!(a = T::zero()); // off by 1e-7 · x
/// }
/// assert!(catch(|| drift(&mut 0.0, &mut 1.0)).is_err()); // 1e-7 > the default 1e-8
/// assert!(with_tolerance(1e-6, || catch(|| drift(&mut 0.0, &mut 1.0))).is_ok());
/// assert_eq!(nilang::tolerance(), 1e-8); // restored
/// ```
pub fn with_tolerance<R>(tol: f64, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<f64>);
    impl Drop for Restore {
        fn drop(&mut self) {
            LOCAL_TOLERANCE.with(|t| t.set(self.0));
        }
    }
    let _restore = Restore(LOCAL_TOLERANCE.with(|t| t.replace(Some(tol))));
    f()
}

/// The thread-local state of the checks that a parallel loop's chunks take to the threads
/// they run on: the local tolerance and whether a [`catch`] is in force.
pub(crate) struct ThreadChecks {
    tolerance: Option<f64>,
    in_catch: bool,
}

/// This thread's check state.
pub(crate) fn thread_checks() -> ThreadChecks {
    ThreadChecks {
        tolerance: LOCAL_TOLERANCE.with(|t| t.get()),
        in_catch: IN_CATCH.with(|c| c.get()),
    }
}

/// Runs `f` with another thread's check state, restoring this thread's afterwards.
pub(crate) fn with_thread_checks<R>(state: &ThreadChecks, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<f64>, bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            LOCAL_TOLERANCE.with(|t| t.set(self.0));
            IN_CATCH.with(|c| c.set(self.1));
        }
    }
    let _restore = Restore(
        LOCAL_TOLERANCE.with(|t| t.replace(state.tolerance)),
        IN_CATCH.with(|c| c.replace(state.in_catch)),
    );
    f()
}

/// Takes the reversibility error recorded on this thread by the last failed check.
pub(crate) fn take_last_error() -> Option<ReversibilityError> {
    LAST_ERROR.with(|e| e.borrow_mut().take())
}

/// Records a reversibility error on this thread (one that a chunk of a parallel loop raised
/// on another), for [`catch`].
pub(crate) fn set_last_error(err: ReversibilityError) {
    LAST_ERROR.with(|e| *e.borrow_mut() = Some(err));
}

/// Which runtime check failed.
///
/// ```
/// use nilang::{catch, i, CheckKind, Real};
///
/// #[i]
/// fn leak<T: Real>(y: &mut T, x: &mut T) {
///     let a = T::zero();
///     a += identity(x);
///     y += identity(a);
///     dealloc!(a = T::zero()); // a still holds x
/// }
/// let err = catch(|| leak(&mut 0.0, &mut 2.0)).unwrap_err();
/// assert_eq!(err.kind, CheckKind::Dealloc);
/// assert!(err.kind.hint().contains("uncomputed before its deallocation"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckKind {
    /// An ancilla did not hold its declared value at deallocation.
    Dealloc,
    /// The postcondition of an `if` disagreed with its precondition.
    IfPostcondition,
    /// The postcondition of a `while` was true on entry.
    WhileEntry,
    /// The postcondition of a `while` was false after an iteration.
    WhileIteration,
    /// A `for` loop's range was changed by its body.
    ForRange,
    /// A pop into a variable that was not zero.
    PopIntoNonZero,
    /// A pop from an empty stack.
    EmptyStack,
    /// A copy-pop found a value different from the variable's.
    PopCopyMismatch,
    /// Two dataviews of one instruction are the same place.
    Aliasing,
    /// A `for` loop with a step that is not positive.
    BadStep,
    /// In an adjoint program, an ancilla declared from a differentiable value still carried a
    /// gradient where it was allocated: the gradient with respect to that value would be
    /// dropped (`nilang_ir::dropped`).
    DroppedGradient,
    /// In an adjoint program, an instruction turned a finite value or gradient into a NaN or an
    /// infinity: a primitive at a singular point, or an overflow (see `nilang::prims`).
    NonFinite,
    /// A broadcast statement (`y[..] += a * x[..]`) over slices of different lengths.
    BroadcastLength,
}

impl CheckKind {
    /// How such a failure is usually fixed, printed as the error's `hint:` line.
    ///
    /// ```
    /// use nilang::CheckKind;
    /// assert_eq!(CheckKind::BadStep.hint(), "use a positive step, and `.rev()` to count down");
    /// ```
    pub fn hint(&self) -> &'static str {
        match self {
            CheckKind::Dealloc => {
                "is this ancilla uncomputed before its deallocation, and is the declared value \
                 the one it holds then?"
            }
            CheckKind::IfPostcondition => {
                "the branch changed what the condition reads: give a postcondition that holds \
                 after the branch taken (`if (pre, post) { … }`)"
            }
            CheckKind::WhileEntry | CheckKind::WhileIteration => {
                "the postcondition must be false before the loop and true after every iteration \
                 (e.g. `while (i < n, i > 0) { … }`)"
            }
            CheckKind::ForRange => "copy the bounds into ancillas the body does not write",
            CheckKind::PopIntoNonZero => "pop into a fresh or zeroed variable",
            CheckKind::EmptyStack => "every pop needs an earlier push on the same stack",
            CheckKind::PopCopyMismatch => {
                "the variable changed between `push_copy!` and `pop_copy!`"
            }
            CheckKind::Aliasing => "copy one of the two places into an ancilla first",
            CheckKind::BadStep => "use a positive step, and `.rev()` to count down",
            CheckKind::BroadcastLength => {
                "a statement over whole slices (`x[..]`) runs once per element: pass slices of \
                 one length, or write a `for` loop over the part you mean"
            }
            CheckKind::DroppedGradient => {
                "allocate the ancilla as a constant and copy with an instruction (`let x = \
                 T::zero(); x += identity(y);` … `x -= identity(y); dealloc!(x = T::zero());`): \
                 its adjoint moves the gradient to the source"
            }
            CheckKind::NonFinite => {
                "a primitive at a singular point (sqrt or log at 0, a division by 0, asin/acos \
                 at ±1, atan2 at the origin, pow of 0 or of a negative base) or an overflow; \
                 see the singular-point policy in `nilang::prims`"
            }
        }
    }
}

impl fmt::Display for CheckKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CheckKind::Dealloc => "ancilla does not hold its declared value at deallocation",
            CheckKind::IfPostcondition => "`if` postcondition disagrees with the precondition",
            CheckKind::WhileEntry => "`while` postcondition is true on entry",
            CheckKind::WhileIteration => "`while` postcondition is false after an iteration",
            CheckKind::ForRange => "`for` range changed by the loop body",
            CheckKind::PopIntoNonZero => "stack pop into a variable that is not zero",
            CheckKind::EmptyStack => "pop from an empty stack",
            CheckKind::PopCopyMismatch => "copy-pop found a different value",
            CheckKind::Aliasing => "two dataviews of one instruction are the same place",
            CheckKind::BadStep => "`for` step is not positive",
            CheckKind::DroppedGradient => {
                "an ancilla declared from a differentiable value carries a gradient that its \
                 allocation would drop"
            }
            CheckKind::NonFinite => "an instruction produced a NaN or an infinity",
            CheckKind::BroadcastLength => "the slices of a broadcast have different lengths",
        })
    }
}

/// A runtime reversibility violation.
///
/// ```
/// use nilang::{catch, i, CheckKind, Real};
///
/// #[i]
/// fn leak<T: Real>(y: &mut T, x: &mut T) {
///     let a = T::zero();
///     a += identity(x);
///     y += identity(a);
///     dealloc!(a = T::zero());
/// }
/// let err = catch(|| leak(&mut 0.0, &mut 2.0)).unwrap_err();
/// assert_eq!((err.function, err.variable.as_str()), ("leak", "a"));
/// assert_eq!((err.expected.as_str(), err.found.as_str()), ("0.0", "2.0"));
/// println!("{err}"); // function, statement, variable, expected, found and a hint, one a line
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ReversibilityError {
    /// Which check failed.
    pub kind: CheckKind,
    /// The reversible function (with `_inv` for its inverse).
    pub function: &'static str,
    /// The statement, as source text.
    pub statement: &'static str,
    /// The variable or expression checked.
    pub variable: String,
    /// The expected value.
    pub expected: String,
    /// The value found.
    pub found: String,
}

impl fmt::Display for ReversibilityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "reversibility check failed in `{}`: {}\n  statement: {}\n  variable:  {}\n  expected:  {}\n  found:     {}\n  hint:      {}",
            self.function, self.kind, self.statement, self.variable, self.expected, self.found,
            self.kind.hint()
        )
    }
}

impl std::error::Error for ReversibilityError {}

/// Where a check is made: the function and the statement, as the error names them.
///
/// ```
/// use nilang::check::{fail, Site};
/// use nilang::{catch, CheckKind};
///
/// let site = Site { function: "my_step", statement: "out -= 2 * inp" };
/// let err = catch(|| fail(&site, CheckKind::Dealloc, "out", "0".into(), "0.001".into()));
/// let err = err.unwrap_err();
/// assert_eq!((err.function, err.statement), ("my_step", "out -= 2 * inp"));
/// assert!(err.to_string().starts_with("reversibility check failed in `my_step`"));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Site {
    /// The function (forward name, or inverse name in the inverse).
    pub function: &'static str,
    /// The statement as source text.
    pub statement: &'static str,
}

/// Reports a failed check: records it for [`catch`] and panics with its message.
///
/// Generated code calls it for every runtime check; hand-written reversible code calls it
/// too (as [`crate::schedule::Bennett`] does when a step's uncall leaves a state nonzero), so
/// that its violations read like the generated ones and [`catch`] returns them as values.
///
/// ```
/// use nilang::check::{close, fail, tolerance, Site};
/// use nilang::{catch, CheckKind};
///
/// /// Hand-written uncomputation of a scratch value: it must hold `expected` (what was
/// /// computed into it) before it is cleared, as `dealloc!` checks in generated code.
/// fn release(scratch: &mut f64, expected: f64) {
///     const SITE: Site = Site { function: "release", statement: "scratch -= expected" };
///     if !close(*scratch, expected, tolerance()) {
///         let (e, f) = (expected.to_string(), scratch.to_string());
///         fail(&SITE, CheckKind::Dealloc, "scratch", e, f);
///     }
///     *scratch -= expected;
/// }
/// assert!(catch(|| release(&mut 2.0, 2.0)).is_ok());
/// let err = catch(|| release(&mut 1.5, 2.0)).unwrap_err();
/// assert_eq!((err.kind, err.variable.as_str(), err.found.as_str()), (CheckKind::Dealloc, "scratch", "1.5"));
/// ```
#[cold]
#[inline(never)]
pub fn fail(site: &Site, kind: CheckKind, variable: &str, expected: String, found: String) -> ! {
    let err = ReversibilityError {
        kind,
        function: site.function,
        statement: site.statement,
        variable: variable.to_string(),
        expected,
        found,
    };
    let msg = err.to_string();
    LAST_ERROR.with(|e| *e.borrow_mut() = Some(err));
    panic!("{msg}");
}

/// Runs `f`; a reversibility violation inside becomes `Err` instead of a panic. Other panics
/// are propagated.
///
/// ```
/// use nilang::{catch, i, CheckKind, Real};
///
/// #[i]
/// fn guarded<T: Real>(y: &mut T, x: &mut T) {
///     // the postcondition says the branch leaves y positive
///     if (*x > T::zero(), *y > T::zero()) {
///         y += identity(x);
///     }
/// }
/// assert!(catch(|| guarded(&mut 0.0, &mut 1.0)).is_ok());
/// let err = catch(|| guarded(&mut 1.0, &mut -5.0)).unwrap_err();
/// assert_eq!(err.function, "guarded");
/// assert_eq!(err.kind, CheckKind::IfPostcondition);
/// ```
pub fn catch<R>(f: impl FnOnce() -> R) -> Result<R, ReversibilityError> {
    static QUIET_HOOK: std::sync::Once = std::sync::Once::new();
    QUIET_HOOK.call_once(|| {
        // Reversibility errors caught by `catch` are values, not crashes: do not print them.
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !IN_CATCH.with(|c| c.get()) {
                previous(info)
            }
        }));
    });
    LAST_ERROR.with(|e| e.borrow_mut().take());
    let was = IN_CATCH.with(|c| c.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    IN_CATCH.with(|c| c.set(was));
    match result {
        Ok(r) => Ok(r),
        Err(payload) => match LAST_ERROR.with(|e| e.borrow_mut().take()) {
            Some(err) => Err(err),
            None => std::panic::resume_unwind(payload),
        },
    }
}
