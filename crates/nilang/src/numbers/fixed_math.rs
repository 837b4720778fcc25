//! `exp`, `log`, `sin` and `cos` on fixed-point numbers, as reversible functions computed by
//! series (NiLang computes them so on `Fixed43`).
//!
//! Fixed point has no `y += exp(x)` instruction: each function here is an `#[i]` program of
//! exact `+=`/`-=` instructions. It reduces the argument, computes the Taylor terms into an
//! array of ancillas, accumulates their sum into the output, and uncomputes the terms (compute,
//! copy, uncompute), so every ancilla ends at exactly zero and the inverse (`iexp_inv`, …)
//! subtracts exactly the bits that were added: `iexp_inv(iexp(y, x)) == (y, x)` bit for bit.
//! Run on [`crate::GVar`]s of fixed-point numbers, the inverse moves gradients through the
//! series ([`crate::numbers::fixed_gvar`]).
//!
//! | function | reduction | series | error bound on [`I21F43`] (tested) |
//! |---|---|---|---|
//! | [`iexp`] | `x = n ln 2 + r`, `|r| ≤ ln 2 / 2`; `eˣ = 2ⁿ eʳ` | `Σ rᵏ/k!`, [`SERIES_SLOTS`] terms | `≤ 40·2⁻⁴³·(1 + eˣ)` |
//! | [`ilog`] | `x = 2ᵉ m`, `m ∈ [√½, √2]` (`< 2` at the top of the range); `ln x = e ln 2 + ln m` | `2 Σ z²ᵏ⁺¹/(2k+1)`, `z = (m−1)/(m+1)`, [`LOG_SLOTS`] terms | `≤ 40·2⁻⁴³` |
//! | [`isin`], [`icos`] | `x = n π/2 + r`, `|r| ≤ π/4`; the quadrant `n mod 4` picks `±sin r` or `±cos r` | `Σ rᵏ/k!` with alternating signs | `≤ 40·2⁻⁴³ + |x|·2⁻⁵²` |
//!
//! The slots hold every term down to below 2⁻⁶⁴, so the series is exact to the type's
//! resolution for every fraction width up to 64 bits; on a type with fewer fraction bits the
//! last terms are simply zero. Where the bounds come from: each product or quotient of the
//! programs is within one unit `u` of the last place (2⁻⁴³) of its exact value, there are about
//! two per term, and each term's error is carried to the result with a factor of at most about
//! one (`eʳ`, `sin r`, `cos r` for `|r| ≤ π/4`; `2/(2k+1)` for `ln`), plus the reduction
//! (`n ln 2`, `n π/2` and the coefficients rounded once each; for `exp` the result scaled by
//! `2ⁿ`, hence the factor `eˣ`). That is a few dozen `u`; 40 `u` holds with a margin over the
//! worst cases measured (`cargo run -p nilang --example fixed_roundoff`, over 1001 inputs:
//! `exp` 14 u on [−1, 1] and 10 u·max(1, eˣ) on [−10, 10], `ln` 21 u on [0.01, 100], `sin` and `cos`
//! 3 u on [−10, 10]). `tests/fixed_math.rs` checks the bounds over wider grids. Gradients
//! (the inverse on `GVar`s) round about as much, times the derivative's size: see the study's
//! table in [`crate::guide::nilang`].
//!
//! ```
//! use nilang::numbers::fixed_math::{iexp, iexp_inv, isin};
//! use nilang::numbers::I21F43;
//!
//! let (mut y, mut x) = (I21F43::ZERO, I21F43::from_num(1.25));
//! iexp(&mut y, &mut x);
//! assert!((y.to_num::<f64>() - 1.25f64.exp()).abs() < 1e-11);
//! iexp_inv(&mut y, &mut x);
//! assert_eq!(y, I21F43::ZERO); // exactly: the series is uncomputed, not rounded away
//! let mut s = I21F43::ZERO;
//! isin(&mut s, &mut x);
//! assert!((s.to_num::<f64>() - 1.25f64.sin()).abs() < 1e-11);
//! ```
//!
//! [`I21F43`]: crate::numbers::I21F43

use crate::i;
use crate::numbers::FixedPoint;
use core::f64::consts::{FRAC_PI_2, LN_2};

/// The Taylor terms `rᵏ/k!`, `k < SERIES_SLOTS`, that [`iexp`], [`isin`] and [`icos`] compute
/// for a reduced argument `|r| ≤ π/4`: the last one is below `0.8¹⁹/19! < 2⁻⁶²`.
///
/// ```
/// use nilang::numbers::fixed_math::SERIES_SLOTS;
/// let last = (SERIES_SLOTS - 1) as i32;
/// let factorial: f64 = (1..=last).map(f64::from).product();
/// assert!(std::f64::consts::FRAC_PI_4.powi(last) / factorial < 2f64.powi(-62));
/// ```
pub const SERIES_SLOTS: usize = 20;

/// The terms `z²ᵏ⁺¹`, `k < LOG_SLOTS`, that [`ilog`] computes for `|z| ≤ 1/3`: the last one
/// is below `3⁻⁴¹ < 2⁻⁶⁴`. The reduced mantissa `m` lies in `[√½, √2]` (`|z| ≤ 0.1716`, where
/// the terms fall below 2⁻⁶⁴ after 13 slots and the rest are zero), except at the top of the
/// type's range, where `2ᵉ` is the largest representable power of two and `m < 2`.
///
/// ```
/// use nilang::numbers::fixed_math::LOG_SLOTS;
/// let z = 1.0f64 / 3.0;
/// assert!(z.powi(2 * LOG_SLOTS as i32 - 1) < 2f64.powi(-64));
/// ```
pub const LOG_SLOTS: usize = 21;

/// `t[k] += rᵏ/k!` for every slot `k` (`t` zero on entry): `t[k] = t[k−1]·(r/k)`, with the
/// quotient `r/k` in an ancilla computed and uncomputed around each product.
#[i]
fn taylor_terms<T: FixedPoint>(t: &mut [T], r: &mut T) {
    let q = T::zero();
    t[0] += 1.0;
    for k in 1..t.len() {
        q += r / k;
        t[k] += t[k - 1] * q;
        q -= r / k;
    }
    dealloc!(q = T::zero());
}

/// `2ᵏ` as a constant operand.
fn pow2(k: i64) -> f64 {
    2f64.powi(k as i32)
}

/// The exponent `n = round(x / ln 2)` of [`iexp`]'s reduction.
fn exp_exponent(x: f64) -> i64 {
    (x / LN_2).round() as i64
}

/// The exponent `e = round(log₂ x)` of [`ilog`]'s reduction, at most `I − 2` for a type with
/// `I` integer bits (`2ᴵ⁻¹` is not representable; the mantissa is then below 2). Any
/// deterministic choice near log₂ x works: it only has to be the same in the forward and the
/// inverse program.
fn log_exponent(x: f64, int_bits: u32) -> i64 {
    (x.log2().round() as i64).min(int_bits as i64 - 2)
}

/// The quarter turns `n = round(x / (π/2))` of [`isin`]'s and [`icos`]'s reduction.
fn quarter_turns(x: f64) -> i64 {
    (x / FRAC_PI_2).round() as i64
}

/// Panics unless `lo < x < hi`, naming the function, the range and `x` (the series' reductions
/// load constants near `x` that must be representable).
fn check_range(function: &str, x: f64, lo: f64, hi: f64) {
    assert!(
        lo < x && x < hi,
        "nilang::numbers::fixed_math::{function}: x = {x} is out of range: expected {lo} < x < {hi}"
    );
}

/// `n·c` as a constant operand (rounded once, to the fixed grid, when it is loaded).
fn times(n: i64, c: f64) -> f64 {
    n as f64 * c
}

/// The coefficient `2/(2k+1)` of the `k`-th term of [`ilog`]'s series.
fn log_coefficient(k: usize) -> f64 {
    2.0 / (2 * k + 1) as f64
}

/// `y += eˣ` by `eˣ = 2ⁿ eʳ`, `n = round(x / ln 2)`, `r = x − n ln 2`, and the Taylor series of
/// `eʳ` in [`SERIES_SLOTS`] terms, all uncomputed: exactly reversible, and differentiable by
/// running `iexp_inv` on [`crate::GVar`]s. `eˣ` must be representable: `x < (I − 1.5) ln 2`
/// for a type with `I` integer bits (`x < 13.5` on [`crate::numbers::I21F43`]), and `x` more
/// than ½ above the type's minimum; another `x` panics naming the function, the range and `x`.
///
/// ```
/// use nilang::numbers::fixed_math::{iexp, iexp_inv};
/// use nilang::numbers::I21F43;
/// use nilang::GVar;
///
/// let x0 = I21F43::from_num(-2.5);
/// let (mut y, mut x) = (I21F43::ZERO, x0);
/// iexp(&mut y, &mut x);
/// assert!((y.to_num::<f64>() - (-2.5f64).exp()).abs() < 1e-12);
/// // the gradient: the inverse on GVars, the output seeded with ∂loss/∂y = 1
/// let (mut gy, mut gx) = (GVar { x: y, g: I21F43::ONE }, GVar { x: x0, g: I21F43::ZERO });
/// iexp_inv(&mut gy, &mut gx);
/// assert_eq!((gy.x, gx.x), (I21F43::ZERO, x0));
/// assert!((gx.g.to_num::<f64>() - (-2.5f64).exp()).abs() < 1e-12); // (eˣ)′ = eˣ
/// ```
#[i]
pub fn iexp<T: FixedPoint>(y: &mut T, x: &mut T) {
    let n = exp_exponent(x.val());
    let r = T::zero();
    let s = T::zero();
    let t = [T::zero(); SERIES_SLOTS];
    routine! {
        safe! {
            // 2ⁿ and eˣ ≤ 2ⁿ⁺¹ᐟ² representable; n ln 2 (within ln 2 / 2 of x) too
            let top = (T::int_bits() - 1) as f64;
            check_range("iexp", x.val(), 0.5 - top.exp2(), (top - 0.5) * LN_2);
        }
        r += identity(x);
        r -= identity(times(n, LN_2));
        taylor_terms(t, r);
        for k in 0..SERIES_SLOTS {
            s += identity(t[k]);
        }
    }
    y += s * pow2(n);
    uncompute!();
    dealloc!(t = [T::zero(); SERIES_SLOTS], s = T::zero(), r = T::zero());
    dealloc!(n = exp_exponent(x.val()));
}

/// `y += ln x` for `x > 0`, by `x = 2ᵉ m`, `e = round(log₂ x)`, `m = x / 2ᵉ ∈ [√½, √2]` (`< 2`
/// at the top of the range, see [`LOG_SLOTS`]), and
/// `ln m = 2 artanh z = 2 Σ z²ᵏ⁺¹/(2k+1)`, `z = (m − 1)/(m + 1)`, in [`LOG_SLOTS`] terms, all
/// uncomputed: exactly reversible, and differentiable by running `ilog_inv` on
/// [`crate::GVar`]s. `x ≤ 0` panics naming the function and `x`.
///
/// ```
/// use nilang::numbers::fixed_math::{ilog, ilog_inv};
/// use nilang::numbers::I21F43;
/// use nilang::GVar;
///
/// let x0 = I21F43::from_num(1000.0);
/// let (mut y, mut x) = (I21F43::ZERO, x0);
/// ilog(&mut y, &mut x);
/// assert!((y.to_num::<f64>() - 1000f64.ln()).abs() < 1e-11);
/// let (mut gy, mut gx) = (GVar { x: y, g: I21F43::ONE }, GVar { x: x0, g: I21F43::ZERO });
/// ilog_inv(&mut gy, &mut gx);
/// assert_eq!((gy.x, gx.x), (I21F43::ZERO, x0));
/// assert!((gx.g.to_num::<f64>() - 1e-3).abs() < 1e-11); // (ln x)′ = 1/x
/// ```
#[i]
pub fn ilog<T: FixedPoint>(y: &mut T, x: &mut T) {
    safe! {
        assert!(
            x.val() > 0.0,
            "nilang::numbers::fixed_math::ilog: x = {} is out of range: expected x > 0",
            x.val()
        );
    }
    let e = log_exponent(x.val(), T::int_bits());
    let m = T::zero();
    let num = T::zero();
    let den = T::zero();
    let z = T::zero();
    let z2 = T::zero();
    let s = T::zero();
    let w = [T::zero(); LOG_SLOTS];
    routine! {
        m += x / pow2(e);
        num += identity(m);
        num -= 1.0;
        den += identity(m);
        den += 1.0;
        z += num / den;
        z2 += square(z);
        w[0] += identity(z);
        for k in 1..LOG_SLOTS {
            w[k] += w[k - 1] * z2;
        }
        for k in 0..LOG_SLOTS {
            s += w[k] * log_coefficient(k);
        }
    }
    y += identity(s);
    y += identity(times(e, LN_2));
    uncompute!();
    dealloc!(
        w = [T::zero(); LOG_SLOTS],
        s = T::zero(),
        z2 = T::zero(),
        z = T::zero()
    );
    dealloc!(den = T::zero(), num = T::zero(), m = T::zero());
    dealloc!(e = log_exponent(x.val(), T::int_bits()));
}

/// `(s, c) += (sin r, cos r)` for `r = x − n π/2`: the Taylor terms of `r`, added with the
/// signs of the two series, and uncomputed.
#[i]
fn reduced_sin_cos<T: FixedPoint>(s: &mut T, c: &mut T, x: &mut T, n: i64) {
    let r = T::zero();
    let t = [T::zero(); SERIES_SLOTS];
    routine! {
        r += identity(x);
        r -= identity(times(n, FRAC_PI_2));
        taylor_terms(t, r);
    }
    for k in 0..SERIES_SLOTS {
        if k % 4 == 0 {
            c += identity(t[k]);
        } else if k % 4 == 1 {
            s += identity(t[k]);
        } else if k % 4 == 2 {
            c -= identity(t[k]);
        } else {
            s -= identity(t[k]);
        }
    }
    uncompute!();
    dealloc!(t = [T::zero(); SERIES_SLOTS], r = T::zero());
}

/// `y += sin x`, by `x = n π/2 + r`, `|r| ≤ π/4`, the Taylor series of `sin r` and `cos r`
/// ([`SERIES_SLOTS`] terms), and the quadrant `n mod 4`; everything uncomputed, so exactly
/// reversible, and differentiable by running `isin_inv` on [`crate::GVar`]s. Any `x` more
/// than 1 inside the type's range (another panics, naming the function, the range and `x`);
/// the constant `n π/2` is exact to `|x|·2⁻⁵²`, so the error grows with `|x|` past about 2⁹ on
/// [`crate::numbers::I21F43`].
///
/// ```
/// use nilang::numbers::fixed_math::{isin, isin_inv};
/// use nilang::numbers::I21F43;
/// use nilang::GVar;
///
/// let x0 = I21F43::from_num(2.0);
/// let (mut y, mut x) = (I21F43::ZERO, x0);
/// isin(&mut y, &mut x);
/// assert!((y.to_num::<f64>() - 2f64.sin()).abs() < 1e-11);
/// let (mut gy, mut gx) = (GVar { x: y, g: I21F43::ONE }, GVar { x: x0, g: I21F43::ZERO });
/// isin_inv(&mut gy, &mut gx);
/// assert_eq!((gy.x, gx.x), (I21F43::ZERO, x0));
/// assert!((gx.g.to_num::<f64>() - 2f64.cos()).abs() < 1e-11); // sin′ = cos
/// ```
#[i]
pub fn isin<T: FixedPoint>(y: &mut T, x: &mut T) {
    safe! {
        // n π/2, within π/4 of x, representable
        let top = ((T::int_bits() - 1) as f64).exp2();
        check_range("isin", x.val(), 1.0 - top, top - 1.0);
    }
    let n = quarter_turns(x.val());
    let s = T::zero();
    let c = T::zero();
    reduced_sin_cos(s, c, x, n);
    if n.rem_euclid(4) == 0 {
        y += identity(s);
    } else if n.rem_euclid(4) == 1 {
        y += identity(c);
    } else if n.rem_euclid(4) == 2 {
        y -= identity(s);
    } else {
        y -= identity(c);
    }
    uncall!(reduced_sin_cos(s, c, x, n));
    dealloc!(s = T::zero(), c = T::zero());
    dealloc!(n = quarter_turns(x.val()));
}

/// `y += cos x`, as [`isin`] (the quadrant picks `cos r`, `−sin r`, `−cos r` or `sin r`):
/// exactly reversible, differentiable by running `icos_inv` on [`crate::GVar`]s.
///
/// ```
/// use nilang::numbers::fixed_math::{icos, icos_inv};
/// use nilang::numbers::I21F43;
///
/// let x0 = I21F43::from_num(-7.0);
/// let (mut y, mut x) = (I21F43::from_num(0.5), x0);
/// icos(&mut y, &mut x);
/// assert!((y.to_num::<f64>() - (0.5 + (-7f64).cos())).abs() < 1e-11);
/// icos_inv(&mut y, &mut x);
/// assert_eq!((y, x), (I21F43::from_num(0.5), x0));
/// ```
#[i]
pub fn icos<T: FixedPoint>(y: &mut T, x: &mut T) {
    safe! {
        // n π/2, within π/4 of x, representable
        let top = ((T::int_bits() - 1) as f64).exp2();
        check_range("icos", x.val(), 1.0 - top, top - 1.0);
    }
    let n = quarter_turns(x.val());
    let s = T::zero();
    let c = T::zero();
    reduced_sin_cos(s, c, x, n);
    if n.rem_euclid(4) == 0 {
        y += identity(c);
    } else if n.rem_euclid(4) == 1 {
        y -= identity(s);
    } else if n.rem_euclid(4) == 2 {
        y -= identity(c);
    } else {
        y += identity(s);
    }
    uncall!(reduced_sin_cos(s, c, x, n));
    dealloc!(s = T::zero(), c = T::zero());
    dealloc!(n = quarter_turns(x.val()));
}
