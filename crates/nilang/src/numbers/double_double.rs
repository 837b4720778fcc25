//! Double-double arithmetic: a number as the unevaluated sum `hi + lo` of two `f64`s, about
//! 106 bits of precision. The higher-precision reference of the round-off study
//! ([`crate::leapfrog`]); not a reversible number system.
//!
//! The algorithms are the classical error-free transformations (Dekker 1971; Knuth's
//! two-sum; the product's error by fused multiply-add), as in Hida, Li & Bailey's QD library.
//!
//! ```
//! use nilang::numbers::DoubleDouble;
//!
//! let (one, tiny) = (DoubleDouble::new(1.0), DoubleDouble::new(1e-20));
//! assert_eq!(((one + tiny) - one).to_f64(), 1e-20); // kept in the low part
//! assert_eq!((1.0 + 1e-20) - 1.0, 0.0); // lost in f64
//! ```

use core::ops::{Add, Div, Mul, Neg, Sub};

/// `hi + lo` with `|lo| ≤ ulp(hi)/2`.
///
/// ```
/// use nilang::numbers::DoubleDouble;
///
/// // the f64 numbers nearest 0.1, 0.2 and 0.3: their exact sum 0.1 + 0.2 − 0.3 is 2⁻⁵⁵
/// // (Python's fractions: Fraction(0.1) + Fraction(0.2) − Fraction(0.3)); f64 arithmetic
/// // rounds 0.1 + 0.2 first and gives 2⁻⁵⁴
/// let s = DoubleDouble::new(0.1) + DoubleDouble::new(0.2) - DoubleDouble::new(0.3);
/// assert_eq!(s.to_f64(), 2f64.powi(-55));
/// assert_eq!(0.1 + 0.2 - 0.3, 2f64.powi(-54));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DoubleDouble {
    /// The leading part (the value rounded to `f64`).
    pub hi: f64,
    /// The trailing part.
    pub lo: f64,
}

#[inline]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

#[inline]
fn quick_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    (s, b - (s - a))
}

#[inline]
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

impl DoubleDouble {
    /// An `f64` as a double-double.
    ///
    /// ```
    /// let d = nilang::numbers::DoubleDouble::new(1.5);
    /// assert_eq!((d.hi, d.lo), (1.5, 0.0));
    /// ```
    pub fn new(x: f64) -> Self {
        DoubleDouble { hi: x, lo: 0.0 }
    }

    /// The value rounded to `f64`.
    ///
    /// ```
    /// assert_eq!(nilang::numbers::DoubleDouble::new(0.25).to_f64(), 0.25);
    /// ```
    pub fn to_f64(self) -> f64 {
        self.hi + self.lo
    }

    /// Square root (one Newton step from the `f64` square root).
    ///
    /// ```
    /// let r = nilang::numbers::DoubleDouble::new(2.0).sqrt();
    /// assert_eq!(r.hi, 2f64.sqrt());
    /// assert!(((r * r) - nilang::numbers::DoubleDouble::new(2.0)).to_f64().abs() < 1e-30);
    /// ```
    pub fn sqrt(self) -> Self {
        if self.hi <= 0.0 {
            return DoubleDouble::new(self.hi.sqrt());
        }
        let x = self.hi.sqrt();
        let (p, e) = two_prod(x, x);
        // x + (self − x²) / (2x)
        let r = ((self.hi - p) - e + self.lo) / (2.0 * x);
        let (hi, lo) = quick_two_sum(x, r);
        DoubleDouble { hi, lo }
    }
}

impl From<f64> for DoubleDouble {
    fn from(x: f64) -> Self {
        DoubleDouble::new(x)
    }
}

impl Add for DoubleDouble {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        let (s, e) = two_sum(self.hi, o.hi);
        let (t, f) = two_sum(self.lo, o.lo);
        let (s, e) = quick_two_sum(s, e + t);
        let (hi, lo) = quick_two_sum(s, e + f);
        DoubleDouble { hi, lo }
    }
}

impl Neg for DoubleDouble {
    type Output = Self;
    fn neg(self) -> Self {
        DoubleDouble {
            hi: -self.hi,
            lo: -self.lo,
        }
    }
}

impl Sub for DoubleDouble {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        self + (-o)
    }
}

impl Mul for DoubleDouble {
    type Output = Self;
    fn mul(self, o: Self) -> Self {
        let (p, e) = two_prod(self.hi, o.hi);
        let e = e + (self.hi * o.lo + self.lo * o.hi);
        let (hi, lo) = quick_two_sum(p, e);
        DoubleDouble { hi, lo }
    }
}

impl Div for DoubleDouble {
    type Output = Self;
    fn div(self, o: Self) -> Self {
        // long division: q1 = a/b, r = a − q1 b, q2 = r/b, …
        let q1 = self.hi / o.hi;
        let r = self - o * DoubleDouble::new(q1);
        let q2 = r.hi / o.hi;
        let r = r - o * DoubleDouble::new(q2);
        let q3 = r.hi / o.hi;
        let (hi, lo) = quick_two_sum(q1, q2);
        DoubleDouble { hi, lo } + DoubleDouble::new(q3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_precise_than_f64() {
        let third = DoubleDouble::new(1.0) / DoubleDouble::new(3.0);
        let back = third * DoubleDouble::new(3.0) - DoubleDouble::new(1.0);
        assert!(back.to_f64().abs() < 1e-30, "{back:?}");
        let s = DoubleDouble::new(2.0).sqrt();
        let err = s * s - DoubleDouble::new(2.0);
        assert!(err.to_f64().abs() < 1e-30, "{err:?}");
        // 1 + 1e-20 − 1 is kept
        let x = DoubleDouble::new(1.0) + DoubleDouble::new(1e-20) - DoubleDouble::new(1.0);
        assert!((x.to_f64() - 1e-20).abs() < 1e-35);
    }
}
