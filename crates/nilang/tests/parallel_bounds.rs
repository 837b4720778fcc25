//! Parallel loops whose inclusive end is their type's maximum (`(0u8..=255).par()`): the end
//! of the last chunk would be no value of the type, so such a loop runs as its sequential loop
//! (`nilang::parallel::worth_splitting` is false for it), with the sequential loop's results,
//! forward, inverse and gradient, on a pool of several threads. They panicked with an internal
//! message ("a chunk bound lies in the loop's range").

use nilang::parallel::{set_min_parallel_work, worth_splitting};
use nilang::{i, Real};

/// A reduction over every `u8`.
#[i]
fn sum_u8<T: Real>(s: &mut T, x: &mut [T]) {
    for k in (0u8..=255).par() {
        s += square(x[k as usize]);
    }
}

#[i]
fn sum_u8_seq<T: Real>(s: &mut T, x: &mut [T]) {
    for k in 0u8..=255 {
        s += square(x[k as usize]);
    }
}

/// Every `i8`, backwards.
#[i]
fn sum_i8<T: Real>(s: &mut T, x: &mut [T]) {
    for k in (-128i8..=127).rev().par() {
        s += sin(x[(k as i16 + 128) as usize]);
    }
}

#[i]
fn sum_i8_seq<T: Real>(s: &mut T, x: &mut [T]) {
    for k in (-128i8..=127).rev() {
        s += sin(x[(k as i16 + 128) as usize]);
    }
}

fn two_threads<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    set_min_parallel_work(1); // split every loop that can be split
    rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap()
        .install(f)
}

fn input() -> Vec<f64> {
    (0..256).map(|k| (k as f64 * 0.37).sin()).collect()
}

#[test]
fn only_ranges_up_to_the_maximum_stay_sequential() {
    two_threads(|| {
        assert!(!worth_splitting(0u8, u8::MAX, true, 1));
        assert!(!worth_splitting(i8::MIN, i8::MAX, true, 1));
        assert!(!worth_splitting(0usize, usize::MAX, true, 1));
        // one short of the maximum, or exclusive: split as before
        assert!(worth_splitting(0u8, 254, true, 1));
        assert!(worth_splitting(0u8, u8::MAX, false, 1));
    });
}

#[test]
fn a_reduction_over_every_u8_gives_the_sequential_sum() {
    let x = input();
    let (par, seq) = two_threads(|| {
        let (mut p, mut s) = (0.0, 0.0);
        sum_u8(&mut p, &mut x.clone());
        sum_u8_seq(&mut s, &mut x.clone());
        (p, s)
    });
    assert_eq!(par.to_bits(), seq.to_bits());
    assert!(seq > 100.0, "every element counted: {seq}");
    // and the inverse undoes it
    let mut back = par;
    two_threads(|| sum_u8_inv(&mut back, &mut x.clone()));
    assert!(back.abs() < 1e-12, "{back}");
}

#[test]
fn the_gradient_over_every_u8_is_the_sequential_one() {
    let x = input();
    let (par, seq) = two_threads(|| {
        let run = |vjp: fn(&mut f64, &mut f64, &mut [f64], &mut [f64]) -> f64| {
            let (mut s, mut sg, mut xv, mut xg) = (0.0, 1.0, x.clone(), vec![0.0; 256]);
            vjp(&mut s, &mut sg, &mut xv, &mut xg);
            xg
        };
        (run(sum_u8_vjp), run(sum_u8_seq_vjp))
    });
    assert_eq!(par, seq);
    for (g, v) in par.iter().zip(&x) {
        assert!((g - 2.0 * v).abs() < 1e-12, "d(x²)/dx = 2x");
    }
}

#[test]
fn every_i8_backwards_in_a_parallel_loop() {
    let x = input();
    let (par, seq) = two_threads(|| {
        let (mut p, mut s) = (0.0, 0.0);
        sum_i8(&mut p, &mut x.clone());
        sum_i8_seq(&mut s, &mut x.clone());
        (p, s)
    });
    assert_eq!(par.to_bits(), seq.to_bits());
    // every value once, from 127 down to -128 (the checked loop's count and last value are
    // computed in 128 bits: `127 - (-128)` overflows `i8`)
    let plain = (-128i16..=127)
        .rev()
        .fold(0.0, |s, k| s + x[(k + 128) as usize].sin());
    assert_eq!(seq.to_bits(), plain.to_bits());
    let (mut sg, mut xg) = (1.0, vec![0.0; 256]);
    two_threads(|| sum_i8_vjp(&mut 0.0, &mut sg, &mut x.clone(), &mut xg));
    assert_eq!(xg[255], x[255].cos());
}
