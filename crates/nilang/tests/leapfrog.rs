//! The round-off study (ICLR Appendix F) on a short run: Listing 25's reversible integrator is
//! the irreversible one bit for bit and comes back to its start at round-off level; Listing
//! 26 accumulates round-off in the positions, both in the run → inverse-run experiment and
//! against a double-double reference.

use nilang::leapfrog::*;
use nilang::numbers::DoubleDouble;
use nilang::Real;

const STEPS: usize = 1000;

fn there_and_back<T: Real>(start: &Bodies<T>, cumulative: bool) -> f64 {
    let mut b = start.clone();
    run_reversible(&mut b, STEPS, cumulative);
    assert!(max_state_difference(&b, start) > 1.0, "the planets moved");
    run_reversible_inv(&mut b, STEPS, cumulative);
    max_state_difference(&b, start)
}

#[test]
fn listing_25_is_reversible_to_round_off_and_listing_26_accumulates() {
    let sys = solar_system();
    let (rev64, cum64) = (there_and_back(&sys, false), there_and_back(&sys, true));
    let sys32 = sys.convert(|v| v as f32);
    let (rev32, cum32) = (there_and_back(&sys32, false), there_and_back(&sys32, true));
    println!("f64: {rev64:e} vs {cum64:e}; f32: {rev32:e} vs {cum32:e}");
    // round-off level: a few ulps of coordinates of size ~30
    assert!(rev64 < 1e-12, "{rev64:e}");
    assert!(rev32 < 1e-4, "{rev32:e}");
    assert!(cum64 > 5.0 * rev64, "{cum64:e} vs {rev64:e}");
    assert!(cum32 > 5.0 * rev32, "{cum32:e} vs {rev32:e}");
}

#[test]
fn listing_25_forward_is_the_regular_integrator_and_listing_26_drifts() {
    let sys = solar_system();
    let mut regular = sys.clone();
    let mut reversible = sys.clone();
    let mut cumulative = sys.clone();
    let mut reference = sys.convert(DoubleDouble::new);
    for _ in 0..STEPS {
        regular_step(&mut regular);
        regular_step(&mut reference);
    }
    run_reversible(&mut reversible, STEPS, false);
    run_reversible(&mut cumulative, STEPS, true);
    // Figure 6's overlapping lines: the same floating-point operations
    assert_eq!(regular, reversible);
    let err =
        |b: &Bodies<f64>| mean_position_error(b, &reference, |v| v, |v: DoubleDouble| v.to_f64());
    let (e_reg, e_cum) = (err(&regular), err(&cumulative));
    println!("position error after {STEPS} steps: regular {e_reg:e}, cumulative {e_cum:e}");
    assert!(e_reg < 1e-12, "{e_reg:e}");
    assert!(e_cum > 2.0 * e_reg, "{e_cum:e} vs {e_reg:e}");
}

#[test]
fn double_double_reference_is_more_precise_than_f64() {
    // the f64 run and the reference agree to round-off, and the reference is not just f64
    let sys = solar_system();
    let mut a = sys.clone();
    let mut r = sys.convert(DoubleDouble::new);
    for _ in 0..100 {
        regular_step(&mut a);
        regular_step(&mut r);
    }
    let e = mean_position_error(&a, &r, |v| v, |v: DoubleDouble| v.to_f64());
    assert!(e > 0.0 && e < 1e-13, "{e:e}");
    assert!(r.x.iter().flatten().any(|v| v.lo != 0.0));
}
