//! What the generated gradient entry points (`f_vjp`, `f_grad`, `f_jacobian`, …) call around
//! the adjoint program.

/// Whether every gradient in `g` is zero (`f_vjp`'s test for its fused path). The buffer is
/// tested in chunks of 16 with no early exit inside a chunk, so the comparisons vectorise; a
/// test element by element with an early exit stays scalar (9% of an `ode` gradient at
/// `n = 100 000`, `s = 1`).
pub fn all_zero<T, G: crate::Grad<T>>(g: &[G]) -> bool {
    let mut chunks = g.chunks_exact(16);
    for chunk in &mut chunks {
        if !chunk.iter().fold(true, |all, x| all & x.is_zero()) {
            return false;
        }
    }
    chunks.remainder().iter().all(crate::Grad::is_zero)
}

#[cfg(test)]
mod all_zero_tests {
    use super::all_zero;
    use crate::Lanes;

    #[test]
    fn finds_a_nonzero_in_the_chunks_and_in_the_remainder() {
        for len in [0, 1, 15, 16, 17, 40] {
            let zeros = vec![0.0f64; len];
            assert!(all_zero::<f64, f64>(&zeros), "len {len}");
            for at in 0..len {
                let mut g = zeros.clone();
                g[at] = 1e-300;
                assert!(!all_zero::<f64, f64>(&g), "len {len}, nonzero at {at}");
                g[at] = f64::NAN;
                assert!(!all_zero::<f64, f64>(&g), "len {len}, NaN at {at}");
                g[at] = -0.0;
                assert!(all_zero::<f64, f64>(&g), "len {len}, -0 at {at}");
            }
        }
    }

    #[test]
    fn tests_every_lane() {
        let mut g = vec![Lanes::<f64, 2>([0.0; 2]); 20];
        assert!(all_zero::<f64, _>(&g));
        g[18].0[1] = 2.0;
        assert!(!all_zero::<f64, _>(&g));
    }
}
