//! The error models of the gradient comparisons, shared by both layers of random-program
//! tests (the interpreter of the IR and the compiled corpus). Each comparison allows the
//! error of the method it checks against, and no more:
//!
//! - a reversal gradient (the inverse program on `GVar`s, or the adjoint program) against the
//!   tape engine's: the reversal takes its derivatives at values the inverse recomputed, which
//!   carry the inverse's round-off; [`within_round_off`] allows a tolerance relatively to the
//!   gradient's largest component (round-off of a reverse sweep reaches every component):
//!   [`sampled_tolerance`] of the round-off that the interpreter samples at every operation
//!   (Monte Carlo arithmetic; the compiled code gives the interpreter's values bit for bit, so
//!   the compiled corpus takes the same samples; a probe from the output moved by 64 ulps,
//!   which it used before, can miss the amplified directions);
//! - the tape engine's gradient (the forward's own derivatives) against central differences:
//!   [`against_differences`] allows their truncation error, estimated from four differences at
//!   halved steps, and trusts a step only in its asymptotic range.

/// The least relative tolerance of a round trip and of a reversal gradient (what a
/// well-conditioned run meets by orders of magnitude).
pub const LEAST_TOLERANCE: f64 = 1e-6;

/// How many runs sample round-off by Monte Carlo arithmetic (every rounded result of the run
/// moved at random within its round-off) for [`sampled_tolerance`].
pub const ROUND_OFF_SAMPLES: u64 = 4;

/// The relative tolerance that round-off sampled by Monte Carlo arithmetic allows: `sampled`
/// is the largest deviation of [`ROUND_OFF_SAMPLES`] jittered runs of an inverse from the
/// unjittered one. The error checked (a round trip, or a reversal gradient at recomputed
/// values) carries the round-off of the forward and of the inverse, each distributed about
/// like one sample, and a sample can pass the largest of four: 8 times `sampled` (twice for
/// the two runs, four times for the tail; the calibration test `round_off_probes_calibration`
/// of the random programs found the error at most 2.3 times `sampled` in 133 programs whose
/// round-off was amplified past 1e-12), at least [`LEAST_TOLERANCE`].
pub fn sampled_tolerance(sampled: f64) -> f64 {
    (8.0 * sampled).max(LEAST_TOLERANCE)
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
/// changes within the step. For each input, steps h = 1e-5 … 1e-8 are tried in turn at h, h/2,
/// h/4 and h/8. In the asymptotic range (the difference is the derivative plus c·h²) the
/// truncation error keeps its sign and shrinks fourfold when the step halves, and the last
/// difference's error is a third of its change from the one before. A step is in range when
/// its three changes have one sign, each shrinks by a factor of 2^1.5 to 2^2.5 (an observed
/// order of 1.5 to 2.5: `in_asymptotic_range`), and the first is within 1% of the
/// derivative; or when all changes are at round-off level (1e-7 of the largest component).
/// The first step in range is compared, allowing 8 changes plus 1e-6 of the largest
/// component. A step whose differences cross a branch decision is passed over for the
/// smaller ones (a decision at a distance d of the input is crossed by the steps past d only).
///
/// Gradients of 1e6 to 1e9 from moderate values (near a pole of `inv`, rotations by state
/// angles) need the smaller steps. Where the loss oscillates faster than the step (a gradient
/// of 4.8e7 whose derivatives grow about 5e7-fold each, from six rotations by state angles),
/// the differences see an averaged slope: at 1e-7, 5e-8 and 2.5e-8 they rose by 5e4, then
/// fell by 4e3, 1.1% off, which a test of three differences that only asked the change to
/// halve took for the asymptotic range.
///
/// `Ok` says how many components were compared (and agree) and why the others could not be
/// (a branch within the step, or no step in range).
pub fn against_differences(
    gradient: &[f64],
    central: impl Fn(usize, f64) -> Option<f64>,
) -> Result<Differences, Disagreement> {
    let scale = largest(gradient);
    let mut counts = Differences::default();
    for (k, g) in gradient.iter().enumerate() {
        let mut compared = false;
        let mut crossed = false;
        for h in [1e-5, 1e-6, 1e-7, 1e-8] {
            let steps = [h, h / 2.0, h / 4.0, h / 8.0];
            let Some(d) = steps
                .iter()
                .map(|h| central(k, *h))
                .collect::<Option<Vec<f64>>>()
            else {
                crossed = true;
                continue;
            };
            let changes = [d[1] - d[0], d[2] - d[1], d[3] - d[2]];
            let last = d[3];
            let round_off = changes.iter().all(|c| c.abs() <= 1e-7 * scale);
            if !(in_asymptotic_range(&changes) && changes[0].abs() <= 1e-2 * last.abs())
                && !round_off
            {
                continue;
            }
            let allowed = 8.0 * changes[2].abs() + 1e-6 * scale;
            if (last - g).abs() > allowed {
                return Err(Disagreement {
                    k,
                    difference: last,
                    allowed,
                    step: steps[3],
                });
            }
            compared = true;
            break;
        }
        match (compared, crossed) {
            (true, _) => counts.agreed += 1,
            (false, true) => counts.crossed += 1,
            (false, false) => counts.out_of_range += 1,
        }
    }
    Ok(counts)
}

/// How many gradient components [`against_differences`] compared, and why it did not
/// compare the others.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Differences {
    /// Compared with differences in their asymptotic range, and agreeing.
    pub agreed: usize,
    /// Not compared: a branch decision changes within some step, and no other step was in the
    /// asymptotic range.
    pub crossed: usize,
    /// Not compared: no step down to 1e-8 was in the asymptotic range.
    pub out_of_range: usize,
}

impl Differences {
    /// Whether every component was compared.
    pub fn all(&self) -> bool {
        self.crossed + self.out_of_range == 0
    }

    /// The sum of two counts.
    pub fn add(self, other: Differences) -> Differences {
        Differences {
            agreed: self.agreed + other.agreed,
            crossed: self.crossed + other.crossed,
            out_of_range: self.out_of_range + other.out_of_range,
        }
    }
}

/// Whether the successive changes of differences at halved steps behave as a truncation
/// error c·h² does: one sign, each smaller than the one before by a factor of 2^1.5 to 2^2.5
/// (4 in the limit).
fn in_asymptotic_range(changes: &[f64]) -> bool {
    let (lo, hi) = (2f64.powf(1.5), 2f64.powf(2.5));
    changes.windows(2).all(|c| {
        let ratio = c[0] / c[1];
        (lo..=hi).contains(&ratio)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The differences of a smooth function agree with its derivative; a wrong derivative is
    /// found; a branch within the step, or differences never in their asymptotic range, compare
    /// nothing.
    #[test]
    fn differences_find_a_wrong_derivative() {
        let f = |x: f64| (3.0 * x).sin() + x * x * x;
        let at = |x: f64| move |_k: usize, h: f64| Some((f(x + h) - f(x - h)) / (2.0 * h));
        let exact = |x: f64| 3.0 * (3.0 * x).cos() + 3.0 * x * x;
        assert!(against_differences(&[exact(0.4)], at(0.4)).unwrap().all());
        assert!(against_differences(&[exact(0.4) * (1.0 + 1e-4)], at(0.4)).is_err());
        assert_eq!(
            against_differences(&[1.0], |_, _| None).unwrap(),
            Differences {
                crossed: 1,
                ..Differences::default()
            }
        );
        // a decision at 2e-6 from the input: the steps past it are passed over, 1e-6 compares
        let beyond = |k: usize, h: f64| (h < 2e-6).then(|| at(0.4)(k, h)).flatten();
        assert!(against_differences(&[exact(0.4)], beyond).unwrap().all());
        // differences that change linearly with the step are never in their asymptotic range
        assert_eq!(
            against_differences(&[1.0], |_, h| Some(1.0 + 1e3 * h)).unwrap(),
            Differences {
                out_of_range: 1,
                ..Differences::default()
            }
        );
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
        assert!(against_differences(&[exact(1e-4)], near(1e-4))
            .unwrap()
            .all());
        assert!(against_differences(&[exact(1e-4) * 1.05], near(1e-4)).is_err());
        assert!(against_differences(&[exact(1e-5)], near(1e-5))
            .unwrap()
            .all());
        assert!(against_differences(&[exact(1e-5) * 1.05], near(1e-5)).is_err());
    }

    /// A loss that oscillates faster than the steps (x + 0.3·sin(ω(x + 0.4))/ω, ω = 7.388e6):
    /// at 1e-5, 5e-6 and 2.5e-6 the differences see the averaged slope, about 1, where the
    /// derivative is 0.886; their changes shrink more than twofold, which a three-difference
    /// test took for the asymptotic range (and found the right derivative 13% off). The
    /// changes of four differences do not shrink fourfold there; at 1e-7 they do, and the
    /// derivative is confirmed, a wrong one (5% off) found.
    #[test]
    fn differences_of_a_fast_oscillation_wait_for_the_asymptotic_range() {
        let w = 7.388e6;
        let f = |x: f64| x + 0.3 * (w * (x + 0.4)).sin() / w;
        let central = |_k: usize, h: f64| Some((f(h) - f(-h)) / (2.0 * h));
        let exact = 1.0 + 0.3 * (w * 0.4).cos();
        let d = [1e-5, 5e-6, 2.5e-6].map(|h| central(0, h).unwrap());
        let (e1, e2) = ((d[1] - d[0]).abs(), (d[2] - d[1]).abs());
        assert!(e2 <= e1 / 2.0 && e1 <= 1e-2 * d[2].abs());
        assert!((d[2] - exact).abs() > 0.1 * exact.abs());
        assert!(against_differences(&[exact], central).unwrap().all());
        assert!(against_differences(&[exact * 1.05], central).is_err());
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
        assert_eq!(sampled_tolerance(1e-9), LEAST_TOLERANCE);
    }
}
