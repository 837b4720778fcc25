//! First writes into fresh vectors: `v[j] = e` in `for j in a..b` (or reversed, or `a..=b`)
//! into a vector allocated as zeros in the same block and written nowhere before overwrites a
//! zero, so the reversible program saves nothing for it (`nilang_auto`'s `fill`). Checked
//! here: the taped programs save exactly what the analysis leaves to save (one number per
//! element at the end of the vector's block, and the old value of every other overwrite),
//! their inverses restore every input and empty the tape, values equal the plain functions'
//! bit for bit (a `-0.0` filled in stays `-0.0`), and gradients agree with central
//! differences and with forward mode (the reversible program on dual numbers), by proptest.
//! The same for refills (a loop that overwrites a vector it does not read, in a time loop),
//! whose old values are saved before the loop: as many as the overwrites would have saved;
//! and for first writes of scalars declared `let mut x = 0.0` (also in the branches of an
//! `if`).

use nilang::stack::Decisions;
use nilang::{differentiable, Dual};
use proptest::prelude::*;

/// Three filling loops (ascending, reversed, inclusive), each read afterwards.
#[differentiable]
fn filled(x: &[f64], w: f64) -> f64 {
    let n = x.len();
    let mut y = vec![0.0; n];
    for j in 0..n {
        y[j] = (x[j] * w).sin();
    }
    let mut z = vec![0.0; n];
    for j in (0..n).rev() {
        z[j] = y[j] * x[j] + y[0];
    }
    let mut u = vec![0.0; n];
    for j in 0..=n - 1 {
        u[j] = z[j] * z[j] - w;
    }
    let mut s = 0.0;
    for j in 0..n {
        s += u[j] * y[j];
    }
    s
}

/// Overwrites that are not first writes: a vector written before its loop, a loop that writes
/// the vector twice, an index that is not the loop variable, and the second loop over a
/// vector already filled (the first is a fill).
#[differentiable]
fn overwritten(x: &[f64], w: f64) -> f64 {
    let n = x.len();
    let mut a = vec![0.0; n];
    a[0] = w;
    for j in 0..n {
        a[j] = a[j] + x[j];
    }
    let mut b = vec![0.0; n];
    for j in 0..n {
        b[j] = x[j] * w;
        b[j] = b[j] * b[j];
    }
    let mut c = vec![0.0; n];
    for j in 0..n {
        c[n - 1 - j] = a[j] * b[j];
    }
    let mut d = vec![0.0; n];
    for j in 0..n {
        d[j] = c[j].exp();
    }
    for j in 0..n {
        d[j] = d[j] * w;
    }
    let mut s = 0.0;
    for j in 0..n {
        s += d[j];
    }
    s
}

/// A time loop whose steps refill `k` and `m` (loops that overwrite a vector they do not read,
/// one with a temporary, one reversed) and update `y` from them.
#[differentiable]
fn refilled(x: &[f64], w: f64) -> f64 {
    let n = x.len();
    let mut y = vec![0.0; n];
    for j in 0..n {
        y[j] = x[j];
    }
    let mut k = vec![0.0; n];
    let mut m = vec![0.0; n];
    for _ in 0..3 {
        for j in 0..n {
            let a = y[j] * w;
            k[j] = a.sin() + x[j];
        }
        for j in (0..n).rev() {
            m[j] = k[j] * k[0];
        }
        for j in 0..n {
            y[j] += 0.5 * m[j];
        }
    }
    let mut s = 0.0;
    for j in 0..n {
        s += y[j];
    }
    s
}

/// Fills in a `-0.0` (`-0.0 · x` for `x > 0`), which a vector of `+0.0` must keep.
#[differentiable]
fn negative_zero(x: &[f64]) -> f64 {
    let mut y = vec![0.0; x.len()];
    for j in 0..x.len() {
        y[j] = -0.0 * x[j];
    }
    1.0 / y[0]
}

/// Zero-initialised scalars whose first writes are in the branches of an `if` (first writes:
/// nothing saved), one of them overwritten again afterwards, and one written in a loop (its
/// second iteration overwrites what the first wrote).
#[differentiable]
#[allow(unused_assignments)]
fn chosen(x: &[f64], w: f64) -> f64 {
    let mut p = 0.0;
    let mut q = 0.0;
    if x[0] > 0.0 {
        p = x[0].sin() * w;
        q = p + w;
    } else {
        p = x[0] * w;
    }
    q = q * p + w;
    let mut r = 0.0;
    for j in 0..x.len() {
        r = r * w + x[j];
    }
    p + q + r
}

/// Runs the taped program of `filled` at `x`, `w` and returns how many values it saved, after
/// checking that its inverse restores everything and empties the tape.
fn saved_by_filled(x: &[f64], w: f64) -> usize {
    let (mut tape, mut decisions) = (Vec::new(), Decisions::new());
    let (mut xr, mut wr, mut out) = (x.to_vec(), w, 0.0);
    filled_rev_taped(&mut out, &mut tape, &mut decisions, &mut xr, &mut wr);
    assert_eq!(out, filled(x, w));
    let saved = tape.len();
    filled_rev_taped_inv(&mut out, &mut tape, &mut decisions, &mut xr, &mut wr);
    assert_eq!((out, &xr[..], wr, tape.len()), (0.0, x, w, 0));
    saved
}

#[test]
fn first_writes_save_nothing() {
    let x = [0.3, -1.2, 0.7, 2.0, -0.4];
    // y, z, u pushed once each at the function's end (n each) and s (one): no old values
    assert_eq!(saved_by_filled(&x, 0.9), 3 * x.len() + 1);
}

#[test]
fn first_writes_of_zero_scalars_save_nothing() {
    for x in [[0.3, -1.2, 0.7], [-0.3, -1.2, 0.7]] {
        let (mut tape, mut decisions) = (Vec::new(), Decisions::new());
        let (mut xr, mut wr, mut out) = (x.to_vec(), 0.8, 0.0f64);
        chosen_rev_taped(&mut out, &mut tape, &mut decisions, &mut xr, &mut wr);
        assert_eq!(out.to_bits(), chosen(&x, 0.8).to_bits());
        // the old q of `q = q·p + w`, the old r of each iteration, and p, q, r at the end;
        // nothing for the first writes of p and q in either branch
        assert_eq!(tape.len(), 1 + x.len() + 3, "x₀ = {}", x[0]);
        chosen_rev_taped_inv(&mut out, &mut tape, &mut decisions, &mut xr, &mut wr);
        assert_eq!((out, &xr[..], wr, tape.len()), (0.0, &x[..], 0.8, 0));
    }
}

#[test]
fn other_overwrites_still_save_the_old_value() {
    let x = [0.3, -1.2, 0.7, 2.0];
    let n = x.len();
    let (mut tape, mut decisions) = (Vec::new(), Decisions::new());
    let (mut xr, mut wr, mut out) = (x.to_vec(), 0.8, 0.0);
    overwritten_rev_taped(&mut out, &mut tape, &mut decisions, &mut xr, &mut wr);
    assert_eq!(out, overwritten(&x, 0.8));
    // old values: a 1 + n, b 2n, c n, d n (its second loop); the exponentials filled into d
    // n (kept, so that the gradient does not evaluate `exp` again); then a, b, c, d (4n) and
    // s at the end
    assert_eq!(tape.len(), (1 + n) + 2 * n + n + n + n + 4 * n + 1);
    overwritten_rev_taped_inv(&mut out, &mut tape, &mut decisions, &mut xr, &mut wr);
    assert_eq!((out, &xr[..], wr, tape.len()), (0.0, &x[..], 0.8, 0));
}

#[test]
fn refills_save_each_overwritten_value_once() {
    let x = [0.3, -1.2, 0.7, 2.0];
    let n = x.len();
    let (mut tape, mut decisions) = (Vec::new(), Decisions::new());
    let (mut xr, mut wr, mut out) = (x.to_vec(), 0.8, 0.0);
    refilled_rev_taped(&mut out, &mut tape, &mut decisions, &mut xr, &mut wr);
    assert_eq!(out, refilled(&x, 0.8));
    // old values of k and m in each of 3 steps; then y, k, m (3n) and s at the end
    assert_eq!(tape.len(), 3 * 2 * n + 3 * n + 1);
    refilled_rev_taped_inv(&mut out, &mut tape, &mut decisions, &mut xr, &mut wr);
    assert_eq!((out, &xr[..], wr, tape.len()), (0.0, &x[..], 0.8, 0));
}

#[test]
fn a_negative_zero_filled_in_stays_negative() {
    let x = [2.0, 3.0];
    assert_eq!(negative_zero(&x), f64::NEG_INFINITY);
    let (mut tape, mut decisions) = (Vec::new(), Decisions::new());
    let (mut xr, mut out) = (x.to_vec(), 0.0);
    negative_zero_rev_taped(&mut out, &mut tape, &mut decisions, &mut xr);
    assert_eq!(out, f64::NEG_INFINITY);
}

fn central(f: &dyn Fn(&[f64], f64) -> f64, x: &[f64], w: f64) -> (Vec<f64>, f64) {
    let e = 1e-6;
    let gx = (0..x.len())
        .map(|i| {
            let at = |step: f64| {
                let mut p = x.to_vec();
                p[i] += step;
                f(&p, w)
            };
            (at(e) - at(-e)) / (2.0 * e)
        })
        .collect();
    (gx, (f(x, w + e) - f(x, w - e)) / (2.0 * e))
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() < tol * (1.0 + b.abs())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn filled_and_refilled_vectors_have_the_gradient_of_central_differences_and_forward_mode(
        x in prop::collection::vec(-1.5f64..1.5, 1..6),
        w in -1.0f64..1.0,
    ) {
        for (f, gradient, rev) in [
            (filled as fn(&[f64], f64) -> f64,
             filled_gradient as fn(&[f64], f64) -> (f64, (Vec<f64>, f64)),
             filled_rev::<Dual<f64>> as fn(&mut Dual<f64>, &mut [Dual<f64>], &mut Dual<f64>)),
            (overwritten, overwritten_gradient, overwritten_rev::<Dual<f64>>),
            (refilled, refilled_gradient, refilled_rev::<Dual<f64>>),
            (chosen, chosen_gradient, chosen_rev::<Dual<f64>>),
        ] {
            let (value, (gx, gw)) = gradient(&x, w);
            prop_assert_eq!(value.to_bits(), f(&x, w).to_bits());
            let (fx, fw) = central(&f, &x, w);
            prop_assert!(close(gw, fw, 1e-5), "w: {} vs {}", gw, fw);
            for i in 0..x.len() {
                prop_assert!(close(gx[i], fx[i], 1e-5), "x{}: {} vs {}", i, gx[i], fx[i]);
            }
            // forward mode in w: the reversible program on dual numbers
            let mut xd: Vec<Dual<f64>> = x.iter().map(|&u| Dual::new(u, 0.0)).collect();
            let (mut wd, mut out) = (Dual::new(w, 1.0), Dual::new(0.0, 0.0));
            rev(&mut out, &mut xd, &mut wd);
            prop_assert!(close(out.eps, gw, 1e-9), "forward {} vs {}", out.eps, gw);
        }
    }
}
