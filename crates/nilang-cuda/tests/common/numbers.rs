// Seeded inputs and the 1e-12 comparison of the tests that run generated code against Rust.
#![allow(dead_code)]

/// A seeded generator of uniform numbers in [lo, hi).
pub struct Lcg(pub u64);
impl Lcg {
    pub fn next(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        lo + (hi - lo) * ((self.0 >> 11) as f64 / (1u64 << 53) as f64)
    }
    pub fn vec(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.next(lo, hi)).collect()
    }
}

/// `a` and `b` agree to 1e-12, relative (absolute below 1).
pub fn close(a: &[f64], b: &[f64], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0),
            "{what}[{i}]: {x} vs {y}"
        );
    }
}
