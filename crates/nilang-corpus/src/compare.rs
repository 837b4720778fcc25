//! The error models of the gradient comparisons, shared by both layers of random-program
//! tests (the interpreter of the IR and the compiled corpus). Each comparison allows the
//! error of the method it checks against, and no more:
//!
//! - a reversal gradient (the inverse program on `GVar`s, or the adjoint program) against the
//!   tape engine's: the reversal takes its derivatives at values the inverse recomputed, which
//!   carry the inverse's round-off; [`within_round_off`] allows the inverse's probed spread
//!   relatively to the gradient's largest component (round-off of a reverse sweep reaches every
//!   component);
//! - the tape engine's gradient (the forward's own derivatives) against central differences:
//!   [`against_differences`] allows their truncation error, estimated from three halved steps,
//!   and trusts a step only in its asymptotic range.

/// The least relative tolerance of a round trip and of a reversal gradient (what a
/// well-conditioned run meets by orders of magnitude).
pub const LEAST_TOLERANCE: f64 = 1e-6;

/// The relative tolerance that the inverse's probed `spread` allows (how far the restored
/// inputs move when the inverse starts from the output moved by 64 ulps); at least
/// [`LEAST_TOLERANCE`].
pub fn round_off_tolerance(spread: f64) -> f64 {
    spread.max(LEAST_TOLERANCE)
}

/// The index of the first component where `reversal` and `tape` differ by more than
/// `tolerance` times the largest component of `tape` (at least 1), with the absolute bound.
pub fn within_round_off(
    reversal: &[f64],
    tape: &[f64],
    tolerance: f64,
) -> Result<(), (usize, f64)> {
    let scale = largest(tape);
    match reversal
        .iter()
        .zip(tape)
        .position(|(r, t)| (r - t).abs() > tolerance * scale)
    {
        Some(k) => Err((k, tolerance * scale)),
        None => Ok(()),
    }
}

/// The largest magnitude of `v`, at least 1.
fn largest(v: &[f64]) -> f64 {
    v.iter().fold(1.0, |m: f64, x| m.max(x.abs()))
}

/// A gradient component that central differences in their asymptotic range contradict.
#[derive(Debug)]
pub struct Disagreement {
    /// The input.
    pub k: usize,
    /// The central difference at the smallest step.
    pub difference: f64,
    /// The error it allowed.
    pub allowed: f64,
    /// That step.
    pub step: f64,
}

/// Compares an exact gradient with central differences: `central(k, h)` is the central
/// difference quotient of the loss in input `k` at step `h`, or `None` where a branch decision
/// changes within the step. For each input, steps h = 1e-5 … 1e-8 are tried in turn at h, h/2
/// and h/4: in the asymptotic range the truncation error shrinks fourfold when the step halves,
/// and the last difference's error is a third of its change from the one before; a step is in
/// range when halving it halves the change and the change is within 1% of the derivative, or
/// when both changes are at round-off level (1e-7 of the largest component). The first step
/// in range is compared, allowing 8 changes plus 1e-6 of the largest component. Gradients of
/// 1e6 to 1e9 from moderate values (near a pole of `inv`, rotations by state angles) need the
/// smaller steps: at 1e-5 and 5e-6 their differences can agree within 0.5% and be 10% off.
///
/// `Ok(true)`: every component compared; `Ok(false)`: some component could not be (a branch
/// within the step, or no step in range), the others agree.
pub fn against_differences(
    gradient: &[f64],
    central: impl Fn(usize, f64) -> Option<f64>,
) -> Result<bool, Disagreement> {
    let scale = largest(gradient);
    let mut all = true;
    for (k, g) in gradient.iter().enumerate() {
        let mut compared = false;
        for h in [1e-5, 1e-6, 1e-7, 1e-8] {
            let (Some(d1), Some(d2), Some(d3)) =
                (central(k, h), central(k, h / 2.0), central(k, h / 4.0))
            else {
                break;
            };
            let (e1, e2) = ((d1 - d2).abs(), (d2 - d3).abs());
            let in_range = e2 <= e1 / 2.0 && e1 <= 1e-2 * d3.abs();
            if !in_range && e1.max(e2) > 1e-7 * scale {
                continue;
            }
            let allowed = 8.0 * e2 + 1e-6 * scale;
            if (d3 - g).abs() > allowed {
                return Err(Disagreement {
                    k,
                    difference: d3,
                    allowed,
                    step: h / 4.0,
                });
            }
            compared = true;
            break;
        }
        all &= compared;
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The differences of a smooth function agree with its derivative; a wrong derivative is
    /// found; a branch within the step compares nothing.
    #[test]
    fn differences_find_a_wrong_derivative() {
        let f = |x: f64| (3.0 * x).sin() + x * x * x;
        let at = |x: f64| move |_k: usize, h: f64| Some((f(x + h) - f(x - h)) / (2.0 * h));
        let exact = |x: f64| 3.0 * (3.0 * x).cos() + 3.0 * x * x;
        assert!(matches!(
            against_differences(&[exact(0.4)], at(0.4)),
            Ok(true)
        ));
        assert!(against_differences(&[exact(0.4) * (1.0 + 1e-4)], at(0.4)).is_err());
        assert!(matches!(
            against_differences(&[1.0], |_, _| None),
            Ok(false)
        ));
    }

    /// Near a pole (1/x at 1e-4: a derivative of −1e8) the differences at 1e-5 are 1% off;
    /// the error bound from their change covers that, and a derivative 5% off is found.
    /// Closer to the pole (1e-5) the steps down to 1e-7 are out of range and 1e-8 compares.
    #[test]
    fn differences_near_a_pole_take_smaller_steps() {
        let near =
            |x: f64| move |_k: usize, h: f64| Some((1.0 / (x + h) - 1.0 / (x - h)) / (2.0 * h));
        let exact = |x: f64| -1.0 / (x * x);
        assert!((near(1e-4)(0, 1e-5).unwrap() - exact(1e-4)).abs() > 1e-3 * exact(1e-4).abs());
        assert!(matches!(
            against_differences(&[exact(1e-4)], near(1e-4)),
            Ok(true)
        ));
        assert!(against_differences(&[exact(1e-4) * 1.05], near(1e-4)).is_err());
        assert!(matches!(
            against_differences(&[exact(1e-5)], near(1e-5)),
            Ok(true)
        ));
        assert!(against_differences(&[exact(1e-5) * 1.05], near(1e-5)).is_err());
    }

    /// Round-off tolerance is relative to the largest component.
    #[test]
    fn round_off_is_relative_to_the_largest_component() {
        let tape = [875.0, 6.5955];
        assert!(within_round_off(&[875.0, 6.5956], &tape, 4.7e-4).is_ok());
        assert_eq!(
            within_round_off(&[875.0, 7.0], &tape, 1e-4).unwrap_err().0,
            1
        );
        assert_eq!(round_off_tolerance(1e-9), LEAST_TOLERANCE);
    }
}
