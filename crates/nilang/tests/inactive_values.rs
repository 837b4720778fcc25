//! Values computed from constants and read-only data alone (`nilang_ir::activity`) carry no
//! gradient in the adjoint programs: their instructions run on values, and their saved copies
//! move on the tape without a gradient. Checked here: gradients still agree with central
//! differences and with forward mode (the program on `Dual`), and the inverse restores the
//! inputs, for an ordinary function whose powers of a grid point are overwritten in a loop
//! and a hand-written reversible one that keeps a constant's powers on a stack.

use nilang::{differentiable, i, Dual, Real};
use proptest::prelude::*;

/// `½ Σᵢ (sᵢ − Σⱼ xⱼ tᵢʲ)²`: the powers `tᵢʲ` are overwritten at every `j` and read no `x`.
#[differentiable(wrt(x))]
fn least_squares(x: &[f64], t: &[f64], s: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..t.len() {
        let ti = t[i];
        let mut r = s[i];
        let mut power = 1.0;
        for j in 0..x.len() {
            r -= x[j] * power;
            power *= ti;
        }
        sum += r * r;
    }
    sum / 2.0
}

/// `y += Σⱼ xⱼ cʲ` with the powers of `c` kept on a stack, then uncomputed from it.
#[i]
fn series<T: Real>(y: &mut T, x: &mut [T], c: &T, tape: &mut Vec<T>) {
    let power = T::one();
    for j in 0..x.len() {
        y += x[j] * power;
        let next = T::zero();
        next += power * c;
        push!(tape, power);
        swap(power, next);
        dealloc!(next = T::zero());
    }
    push!(tape, power);
    dealloc!(power = T::zero());
}

fn central(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    (0..x.len())
        .map(|k| {
            let (mut up, mut down) = (x.to_vec(), x.to_vec());
            up[k] += h;
            down[k] -= h;
            (f(&up) - f(&down)) / (2.0 * h)
        })
        .collect()
}

proptest! {
    #[test]
    fn powers_of_a_grid_point_differentiate_without_gradients(
        x in prop::collection::vec(-1.0..1.0f64, 1..6),
        t in prop::collection::vec(-1.0..1.0f64, 1..8),
    ) {
        let s: Vec<f64> = t.iter().map(|v| v.signum()).collect();
        let (value, g) = least_squares_gradient(&x, &t, &s);
        prop_assert_eq!(value, least_squares(&x, &t, &s));
        let fd = central(|x| least_squares(x, &t, &s), &x);
        for (a, b) in g.iter().zip(&fd) {
            prop_assert!((a - b).abs() < 1e-5 * (1.0 + b.abs()), "{:?} vs {:?}", g, fd);
        }
        // forward mode on the same reversible program, one direction per input
        for k in 0..x.len() {
            let mut xd: Vec<Dual<f64>> = x.iter().map(|&v| Dual::constant(v)).collect();
            xd[k] = Dual::new(x[k], 1.0);
            let mut out = Dual::constant(0.0);
            least_squares_rev(&mut out, &mut xd, &t, &s);
            prop_assert!((out.eps - g[k]).abs() < 1e-9 * (1.0 + g[k].abs()));
        }
    }

    #[test]
    fn a_constants_powers_on_a_stack_move_without_gradients(
        x in prop::collection::vec(-1.0..1.0f64, 1..6),
        c in -1.5..1.5f64,
        gy in -2.0..2.0f64,
    ) {
        let (mut y, mut xs, mut tape) = (0.0, x.clone(), Vec::new());
        series(&mut y, &mut xs, &c, &mut tape);
        prop_assert_eq!(tape.len(), x.len() + 1);
        series_inv(&mut y, &mut xs, &c, &mut tape);
        // y is restored up to the rounding of adding and subtracting the same terms
        prop_assert!(y.abs() < 1e-12, "{}", y);
        prop_assert_eq!((&xs, tape.len()), (&x, 0));
        let (mut y, mut xs) = (0.0, x.clone());
        let (mut gyv, mut gx) = (gy, vec![0.0; x.len()]);
        series_vjp(&mut y, &mut gyv, &mut xs, &mut gx, &c, (), &mut Vec::new(), &mut Vec::new());
        for (j, g) in gx.iter().enumerate() {
            prop_assert!((g - gy * c.powi(j as i32)).abs() < 1e-12);
        }
    }
}
