//! Seeded pseudo-random inputs for tests and recorded sessions: the same numbers on every
//! platform and run, without a random-number crate in the way of reproducing them.

/// `n` values in `[−1, 1)` from a 64-bit linear congruential generator started at `seed`.
pub fn uniform(seed: u64, n: usize) -> Vec<f64> {
    const A: u64 = 6364136223846793005;
    const C: u64 = 1442695040888963407;
    let mut s = seed.wrapping_mul(A).wrapping_add(C);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(A).wrapping_add(C);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}
