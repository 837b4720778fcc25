//! Special functions written in the reversible language: the approximate multiplier, the
//! factorial, `exp` by its Taylor series and the Bessel function of the first kind.
//!
//! These are the example programs of the papers ("Differentiate Everything with a Reversible
//! Embedded Domain-Specific Language", §5 *The first kind Bessel function*, and "Automatic
//! differentiation in reversible Turing machines", §V.B *exp function*). Each one is an `#[i]`
//! function, so each comes with its inverse (`ibesselj_inv`, …) and runs on `f64`, `f32` or
//! [`GVar`](crate::GVar) (gradients: run forward on `f64`, then the inverse on `GVar`s).
//!
//! ```
//! use nilang::special::{besselj_series, ibesselj, ibesselj_inv};
//!
//! let (mut out, mut z) = (0.0, 1.0);
//! ibesselj(&mut out, 2, &mut z);
//! assert!((out - besselj_series(2, 1.0)).abs() < 1e-15);
//! ibesselj_inv(&mut out, 2, &mut z);
//! assert_eq!((out, z), (0.0, 1.0));
//! ```
//!
//! The loops in [`ibesselj`] and [`iexp`] multiply a running term by a factor at each step.
//! `*=` is not reversible on floats, so the papers uncompute the previous term *arithmetically*
//! from the new one (`s_{n−1} = s_n / factor`), which leaves "dirty" ancillas holding round-off
//! residuals; those are cleaned exactly by the final `uncompute!()` (the compute-copy-uncompute
//! pattern), so memory use is constant in the number of terms.

use crate::{i, Real};

/// The papers' approximate reversible multiplier: `out ← out · x`, using `anc` (≈ 0 on entry,
/// a *dirty ancilla*) as scratch.
///
/// `anc += out · x` computes the product, `out -= anc / x` uncomputes the old value
/// arithmetically (leaving a round-off residual), and `swap` puts the product in `out` and the
/// residual in `anc`. Requires `x ≠ 0`. (arXiv paper, §5, `imul`.)
///
/// ```
/// use nilang::special::{imul, imul_inv};
///
/// let (mut out, mut x, mut anc) = (3.0f64, 0.1, 0.0f64);
/// imul(&mut out, &mut x, &mut anc);
/// assert!((out - 0.3).abs() < 1e-15);
/// assert!(anc.abs() < 1e-15); // the round-off residual of uncomputing 3 by division
/// imul_inv(&mut out, &mut x, &mut anc);
/// assert_eq!((out, anc), (3.0, 0.0));
/// ```
#[i]
#[inline]
pub fn imul<T: Real>(out: &mut T, x: &mut T, anc: &mut T) {
    anc += out * x;
    out -= anc / x;
    swap(out, anc);
}

/// The reversible multiplier on integers: `out ← out · x` exactly (wrapping), with `anc` as
/// scratch: 0 on entry, and 0 again on exit for `x ≠ 0`.
///
/// ```
/// use nilang::special::{imul_int, imul_int_inv};
///
/// let (mut out, mut anc) = (6, 0);
/// imul_int(&mut out, 7, &mut anc);
/// assert_eq!((out, anc), (42, 0));
/// imul_int_inv(&mut out, 7, &mut anc);
/// assert_eq!(out, 6);
/// ```
#[i]
#[inline]
pub fn imul_int(out: &mut i64, x: i64, anc: &mut i64) {
    anc += out * x;
    out -= anc / x;
    swap(out, anc);
}

/// `out += n!` (for `out = 0` on entry; in general `out ← (out + 1) · n!`), by repeated
/// [`imul_int`] with one ancilla. (arXiv paper, §5, `ifactorial`.)
///
/// ```
/// use nilang::special::{ifactorial, ifactorial_inv};
///
/// let mut out = 0;
/// ifactorial(&mut out, 5);
/// assert_eq!(out, 120);
/// ifactorial_inv(&mut out, 5);
/// assert_eq!(out, 0);
/// ```
#[i]
pub fn ifactorial(out: &mut i64, n: i64) {
    let anc = 0i64;
    out += 1;
    for i in 1..=n {
        imul_int(out, i, anc);
    }
    dealloc!(anc = 0);
}

/// `out += eˣ` by the Taylor series `Σₙ xⁿ/n!`, summed while a term is larger than `atol`
/// in magnitude, with constant memory. Requires `x ≠ 0`.
///
/// The program of "Automatic differentiation in reversible Turing machines", §V.B (`iexp`):
/// the term is updated as `sₙ = x·sₙ₋₁/n` and the previous term is uncomputed arithmetically
/// (`sₙ₋₁ = sₙ·n/x`, "allowing loss of several digits of precision"). The precondition is
/// taken in absolute value here so that negative `x` (alternating terms) also works.
///
/// **Precision.** Arithmetic uncomputing leaves round-off residuals in the ancillas that are
/// fed back and amplified by `n/|x|` at every step, so the terms are only meaningful while
/// they are above about `√ε · maxₙ|sₙ|` (≈ `1.5e-8 · max(1, e^{|x|}/√(2π|x|))`). Choose
/// `atol` well above that, e.g. `1e-8` for `|x| ≤ 2`; with the paper's `atol = 1e-14` the
/// residuals take over and the loop diverges (the checked program then reports a
/// `while`-postcondition error in the uncomputation).
///
/// ```
/// use nilang::special::{iexp, iexp_grad};
/// use nilang::Loss;
///
/// let mut out = 0.0f64;
/// iexp(&mut out, &mut 1.0, 1e-8);
/// assert!((out - 1f64.exp()).abs() < 1e-8);
/// let (_, dx) = iexp_grad(Loss::arg(0), &mut 0.0f64, &mut 1.0, 1e-8).unwrap();
/// assert!((dx.g - 1f64.exp()).abs() < 1e-7); // (eˣ)' = eˣ
/// ```
#[i]
pub fn iexp<T: Real>(out: &mut T, x: &mut T, atol: f64) {
    let anc1 = T::zero();
    let anc2 = T::zero();
    let anc3 = T::zero();
    let iplus = 0i64;
    let expout = T::zero();
    out += identity(1.0);
    routine! {
        anc1 += identity(1.0);
        while (anc1.val().abs() > atol, iplus != 0) {
            inc(iplus);
            anc2 += anc1 * x;
            anc3 += anc2 / iplus;
            expout += anc3;
            // arithmetic uncomputing of the previous term and of the product
            anc1 -= anc2 / x;
            anc2 -= anc3 * iplus;
            swap(anc1, anc3);
        }
    }
    out += expout;
    uncompute!();
    dealloc!(anc1 = T::zero(), anc2 = T::zero(), anc3 = T::zero());
    dealloc!(iplus = 0, expout = T::zero());
}

/// `out += J_ν(z)`, the Bessel function of the first kind of integer order `ν ≥ 0`, by its
/// Taylor series `J_ν(z) = Σₖ (−1)ᵏ (z/2)^{2k+ν} / (k! (k+ν)!)`, summed until a term is at most
/// `1e-8` in magnitude (as in the paper). Requires `z ≠ 0`.
///
/// This is the program of the arXiv paper, §5 *The first kind Bessel function* (`ibesselj`):
/// it uses a constant number of ancillas, the running term is multiplied by the approximate
/// multiplier [`imul`] (dirty ancilla `anc4`), and everything is uncomputed exactly at the end.
/// Checked: the ancillas' values at deallocation and the loop conditions are verified at run
/// time; [`ibesselj_nocheck`] is the same program without the checks.
///
/// **Precision.** `imul` leaves the round-off of each multiplication in `anc4`, which the next
/// multiplication divides by the term ratio, so the result drifts from the plain series
/// [`besselj_series`] as the terms shrink (bounded by about `ε · s_max² / 1e-8`, `s_max` the
/// largest term). Measured for `ν = 0…5`: at most `2e-9` for `|z| ≤ 2`, `1e-8` for `|z| ≤ 4`,
/// `4e-6` for `|z| ≤ 8`. This is why the paper stops at `1e-8` and also stops when the dirty
/// ancilla `anc4` grows past it.
///
/// ```
/// use nilang::special::{besselj_series, ibesselj, ibesselj_grad};
/// use nilang::Loss;
///
/// let mut out = 0.0f64;
/// ibesselj(&mut out, 2, &mut 1.5);
/// assert!((out - besselj_series(2, 1.5)).abs() < 2e-9);
/// // J₂' = (J₁ − J₃) / 2
/// let (_, dz) = ibesselj_grad(Loss::arg(0), &mut 0.0f64, 2, &mut 1.5).unwrap();
/// assert!((dz.g - (besselj_series(1, 1.5) - besselj_series(3, 1.5)) / 2.0).abs() < 1e-8);
/// // the same program without the runtime checks, once it is known to be correct
/// let mut fast = 0.0f64;
/// nilang::special::ibesselj_nocheck(&mut fast, 2, &mut 1.5);
/// assert_eq!(fast, out);
/// ```
#[i(unchecked = ibesselj_nocheck)]
pub fn ibesselj<T: Real>(out: &mut T, nu: i64, z: &mut T) {
    let k = 0i64;
    let fact_nu = 0i64;
    let halfz = T::zero();
    let halfz_power_nu = T::zero();
    let halfz_power_2 = T::zero();
    let out_anc = T::zero();
    let anc1 = T::zero();
    let anc2 = T::zero();
    let anc3 = T::zero();
    let anc4 = T::zero();
    let anc5 = T::zero();
    routine! {
        halfz += z / 2.0;
        halfz_power_nu += pow(halfz, nu);
        halfz_power_2 += pow(halfz, 2);
        ifactorial(fact_nu, nu);
        anc1 += halfz_power_nu / fact_nu;
        out_anc += anc1;
        while (anc1.val().abs() > 1e-8 && anc4.val().abs() < 1e-8, k != 0) {
            inc(k);
            routine! {
                anc5 += k;
                anc5 += nu;
                anc2 -= k * anc5;
                anc3 += halfz_power_2 / anc2;
            }
            imul(anc1, anc3, anc4);
            out_anc += anc1;
            uncompute!();
        }
    }
    out += out_anc;
    uncompute!();
    dealloc!(k = 0, fact_nu = 0);
    dealloc!(
        halfz = T::zero(),
        halfz_power_nu = T::zero(),
        halfz_power_2 = T::zero()
    );
    dealloc!(out_anc = T::zero(), anc1 = T::zero(), anc2 = T::zero());
    dealloc!(anc3 = T::zero(), anc4 = T::zero(), anc5 = T::zero());
}

/// The most terms [`ibesselj_terms`] keeps: the terms of the series until one is at most
/// `1e-8` must fit, which holds for every `ν ≥ 0` with `|z| ≤ 16` (tested). 32 slots of `f64`
/// are 256 bytes, which the compiler zeroes inline (with 33 it calls `memset`, which made
/// the gradient about 1.6 times slower when measured).
///
/// ```
/// use nilang::special::{besselj_series, ibesselj_terms};
///
/// // |z| = 16, the edge of the range: the terms (up to 1.7e5 in size) fit the slots
/// let mut out = 0.0f64;
/// ibesselj_terms(&mut out, 0, &mut 16.0);
/// assert!((out - besselj_series(0, 16.0)).abs() < 1e-8);
/// // |z| = 20 needs more than BESSEL_SLOTS terms: a panic, not a truncated sum
/// assert!(std::panic::catch_unwind(|| ibesselj_terms(&mut 0.0f64, 0, &mut 20.0)).is_err());
/// ```
pub const BESSEL_SLOTS: usize = 32;

/// `1/n!` for `n = 0…170` (`171!` overflows `f64`), each entry the previous one divided by `n`.
const INV_FACTORIAL: [f64; 171] = {
    let mut t = [1.0; 171];
    let mut n = 1;
    while n < 171 {
        t[n] = t[n - 1] / n as f64;
        n += 1;
    }
    t
};

/// The coefficient `(−1)ᵏ / (k! (k+ν)!)` of `(z/2)^{2k+ν}` in the series of `J_ν` (zero past
/// the table, where it underflows anyway).
#[inline]
fn series_coefficient(k: usize, nu: i64) -> f64 {
    let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
    match INV_FACTORIAL.get(k + nu as usize) {
        Some(&f) => sign * INV_FACTORIAL[k] * f,
        None => 0.0,
    }
}

/// The primitive `aⁿ` for a constant integer exponent `n ≥ 0` given as the second operand,
/// by repeated squaring written out (no call of the library's `powi`), with the partials
/// `(n aⁿ⁻¹, 0)`: the exponent is a constant, so no logarithm is computed for it. Used by
/// [`ibesselj_terms`] for `(z/2)^ν`: with the general `pow` (a call of `powi` for the value,
/// and again for the derivative in the adjoint) the gradient took about a sixth longer.
///
/// ```
/// use nilang::special::PowInt;
/// use nilang::{i, Loss, Real};
///
/// #[i]
/// fn cube<T: Real>(y: &mut T, x: &mut T) {
///     y += PowInt(x, 3.0); // the exponent is a constant: no logarithm in the derivative
/// }
/// let (_, dx) = cube_grad(Loss::arg(0), &mut 0.0, &mut 2.0).unwrap();
/// assert_eq!(dx.g, 12.0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PowInt;

/// `xⁿ` by repeated squaring (the algorithm of the compiler runtime's `powi`).
#[inline(always)]
fn pow_by_squaring<T: crate::Float>(mut x: T, mut n: u32) -> T {
    let mut y = if n % 2 == 1 { x } else { T::f_one() };
    n >>= 1;
    while n != 0 {
        x = x * x;
        if n % 2 == 1 {
            y = y * x;
        }
        n >>= 1;
    }
    y
}

impl<T: crate::Float> crate::Binary<T> for PowInt {
    #[inline(always)]
    fn value(a: T, n: T) -> T {
        pow_by_squaring(a, n.to_f64() as u32)
    }
    #[inline(always)]
    fn partials(a: T, n: T) -> (T, T) {
        let n = n.to_f64() as u32;
        let da = if n == 0 {
            T::f_zero()
        } else {
            T::from_f64(n as f64) * pow_by_squaring(a, n - 1)
        };
        (da, T::f_zero())
    }
}

/// `out += J_ν(z)` by the series of [`ibesselj`], written for speed: `J_ν(z) = (z/2)^ν ·
/// Σₖ cₖ ((z/2)²)ᵏ` with the constant coefficients `cₖ = (−1)ᵏ/(k!(k+ν)!)` from a table. The
/// only loop-carried computation is the power `((z/2)²)ᵏ`: it stays in one ancilla `power`,
/// and each step computes the next power into a fresh slot of a fixed array of
/// [`BESSEL_SLOTS`] ancillas on the stack (`s[k] += power · (z/2)²`) and swaps it into
/// `power`, so the slot keeps the previous power. There is no arithmetic uncomputing (no
/// [`imul`], no dirty ancilla), no division and no factorial program; the powers are then
/// summed with their coefficients, the sum multiplied by `(z/2)^ν` into `out`, and everything
/// uncomputed (compute, copy, uncompute), so the adjoint program walks the powers back once
/// on values and gradients. As in the paper the sum stops at the first term of magnitude at
/// most `1e-8`; for `|z| > 16`, where the slots may run out first (see [`BESSEL_SLOTS`]), it
/// panics rather than risk a truncated sum.
/// Integer order `0 ≤ ν ≤ 170`; `z = 0` is allowed. The result agrees with [`besselj_series`]
/// to round-off (its terms are the same numbers, computed in another order).
///
/// Checked; [`ibesselj_terms_nocheck`] is the same program without the runtime checks.
///
/// ```
/// use nilang::special::{besselj_series, ibesselj_terms, ibesselj_terms_inv};
///
/// let (mut out, mut z) = (0.0f64, 1.5);
/// ibesselj_terms(&mut out, 2, &mut z);
/// assert!((out - besselj_series(2, 1.5)).abs() < 1e-15);
/// ibesselj_terms_inv(&mut out, 2, &mut z);
/// assert!(out.abs() < 1e-15);
/// // unchecked, the speed the benchmarks measure
/// nilang::special::ibesselj_terms_nocheck(&mut out, 2, &mut z);
/// assert!((out - besselj_series(2, 1.5)).abs() < 1e-15);
/// ```
#[i(unchecked = ibesselj_terms_nocheck)]
pub fn ibesselj_terms<T: Real>(out: &mut T, nu: i64, z: &mut T)
where
    T: crate::Acc2<PowInt>,
{
    let k = 0usize;
    let halfz = T::zero();
    let halfz_power_nu = T::zero();
    let halfz_power_2 = T::zero();
    let power = T::zero();
    let sum = T::zero();
    let s = [T::zero(); BESSEL_SLOTS];
    routine! {
        safe! {
            assert!(
                z.val().abs() <= 16.0,
                "ibesselj_terms: J_{nu}({}) needs more than {BESSEL_SLOTS} terms for some orders \
                 past |z| = 16; use ibesselj",
                z.val()
            );
        }
        halfz += z / 2.0;
        halfz_power_2 += square(halfz);
        halfz_power_nu += PowInt(halfz, nu);
        power += 1.0;
        sum += power * series_coefficient(0, nu);
        while (
            (power.val() * series_coefficient(k, nu) * halfz_power_nu.val()).abs() > 1e-8
                && k + 1 < BESSEL_SLOTS,
            k != 0
        ) {
            inc(k);
            s[k] += power * halfz_power_2;
            swap(power, s[k]);
            sum += power * series_coefficient(k, nu);
        }
    }
    out += sum * halfz_power_nu;
    uncompute!();
    dealloc!(k = 0, s = [T::zero(); BESSEL_SLOTS]);
    dealloc!(
        halfz = T::zero(),
        halfz_power_2 = T::zero(),
        power = T::zero(),
        sum = T::zero(),
        halfz_power_nu = T::zero()
    );
}

/// The plain (irreversible) Rust series for `J_ν(z)` that [`ibesselj`] computes: the paper's
/// `besselj(ν, z; atol=1e-8)`, term by term the same arithmetic, so the two agree to the last
/// bits. Used as the reference in tests and benchmarks.
///
/// ```
/// use nilang::special::besselj_series;
/// assert!((besselj_series(0, 0.0) - 1.0).abs() < 1e-15); // J₀(0) = 1
/// assert!(besselj_series(0, 2.404825557695773).abs() < 1e-8); // J₀'s first zero
/// ```
pub fn besselj_series(nu: i64, z: f64) -> f64 {
    let halfz = z / 2.0;
    let halfz_power_2 = halfz.powi(2);
    let mut fact_nu = 1i64;
    for i in 1..=nu {
        fact_nu *= i;
    }
    let mut s = halfz.powi(nu as i32) / fact_nu as f64;
    let mut out = s;
    let mut k = 0i64;
    while s.abs() > 1e-8 {
        k += 1;
        s *= halfz_power_2 / -((k * (k + nu)) as f64);
        out += s;
    }
    out
}
