//! Split gradient sums (`nilang_macros`' `codegen::split_sums`): in an unchecked adjoint
//! program, an innermost loop that reads a value no iteration changes adds that value's
//! gradient into four partial sums, added after the loop. Checked here on loops of every
//! length modulo four: the adjoint program's values equal the inverse run on `GVar`s bit for
//! bit, and its gradients agree with it to rounding (the summation order differs) and with
//! central differences.

use nilang::{i, GVar, Real};
use proptest::prelude::*;

/// `out −= Σ_b (Σ_{a<b} l_ab x_a + x_b)²`: the adjoint's loop over `b` reads `xc[a]` in every
/// iteration (its gradient is split), and `l[…]`, indexed by `b`, is not.
#[i(nocheck)]
fn triangular<T: Real>(out: &mut T, x: &mut [T], l: &mut [T]) {
    let d = x.len();
    let xc = vec![T::zero(); d];
    let lx = vec![T::zero(); d];
    routine! {
        for j in 0..d {
            xc[j] += identity(x[j]);
            lx[j] += identity(xc[j]);
        }
        for a in 0..d {
            for b in a + 1..d {
                lx[b] += l[a * (2 * d - a - 1) / 2 + b - a - 1] * xc[a];
            }
        }
    }
    for j in 0..d {
        out -= square(lx[j]);
    }
    uncompute!();
    dealloc!(xc = vec![T::zero(); d], lx = vec![T::zero(); d]);
    dealloc!(d = x.len());
}

/// `y += s · x` then `out += Σ y²`: the scalar `s` (a whole variable) and `x[0]` (an element
/// at a fixed index) are read by every iteration; two instructions read `s`.
#[i(nocheck)]
fn broadcast<T: Real>(out: &mut T, s: &mut T, x: &mut [T]) {
    let n = x.len();
    let y = vec![T::zero(); n];
    routine! {
        for j in 0..n {
            y[j] += s * x[j];
            y[j] += s * x[0];
        }
    }
    for j in 0..n {
        out += square(y[j]);
    }
    uncompute!();
    dealloc!(y = vec![T::zero(); n]);
    dealloc!(n = x.len());
}

fn wrap(x: &[f64]) -> Vec<GVar<f64>> {
    x.iter().map(|&v| GVar::new(v)).collect()
}

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.iter()
        .zip(b)
        .all(|(u, v)| (u - v).abs() <= tol * (1.0 + v.abs()))
}

fn triangle(d: usize) -> usize {
    d * d.saturating_sub(1) / 2
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn a_split_triangular_product_has_the_gradient_of_the_gvar_program(
        d in 1usize..11,
        seed in prop::collection::vec(-2.0f64..2.0, 11 + 55),
    ) {
        let (x, l) = (seed[..d].to_vec(), seed[11..11 + triangle(d)].to_vec());
        let (mut out, mut xs, mut ls) = (0.0, x.clone(), l.clone());
        triangular(&mut out, &mut xs, &mut ls);
        let value = out;
        let (mut wo, mut wx, mut wl) = (GVar::with_grad(out, 1.0), wrap(&xs), wrap(&ls));
        triangular_inv(&mut wo, &mut wx, &mut wl);
        let (mut out, mut xs, mut ls) = (0.0, x.clone(), l.clone());
        let (mut og, mut xg, mut lg) = (1.0, vec![0.0; d], vec![0.0; l.len()]);
        triangular_vjp(&mut out, &mut og, &mut xs, &mut xg, &mut ls, &mut lg);
        let gx: Vec<f64> = wx.iter().map(|v| v.g).collect();
        let gl: Vec<f64> = wl.iter().map(|v| v.g).collect();
        prop_assert!(close(&xg, &gx, 1e-13), "{:?} vs {:?}", xg, gx);
        prop_assert!(close(&lg, &gl, 1e-13), "{:?} vs {:?}", lg, gl);
        // the values are restored exactly
        prop_assert_eq!((xs, ls), (x.clone(), l.clone()));
        // central differences in x
        let f = |x: &[f64]| {
            let (mut o, mut xs, mut ls) = (0.0, x.to_vec(), l.clone());
            triangular(&mut o, &mut xs, &mut ls);
            o
        };
        prop_assert_eq!(f(&x), value);
        for i in 0..d {
            let (mut up, mut down) = (x.clone(), x.clone());
            up[i] += 1e-6;
            down[i] -= 1e-6;
            let fd = (f(&up) - f(&down)) / 2e-6;
            prop_assert!((xg[i] - fd).abs() < 1e-5 * (1.0 + fd.abs()), "x{}: {} vs {}", i, xg[i], fd);
        }
    }

    #[test]
    fn a_split_broadcast_scalar_has_the_gradient_of_the_gvar_program(
        n in 1usize..14,
        s in -1.5f64..1.5,
        seed in prop::collection::vec(-2.0f64..2.0, 14),
    ) {
        let x = seed[..n].to_vec();
        let (mut out, mut ss, mut xs) = (0.0, s, x.clone());
        broadcast(&mut out, &mut ss, &mut xs);
        let (mut wo, mut ws, mut wx) = (GVar::with_grad(out, 1.0), GVar::new(ss), wrap(&xs));
        broadcast_inv(&mut wo, &mut ws, &mut wx);
        let (mut out, mut ss, mut xs) = (0.0, s, x.clone());
        let (mut og, mut sg, mut xg) = (1.0, 0.0, vec![0.0; n]);
        broadcast_vjp(&mut out, &mut og, &mut ss, &mut sg, &mut xs, &mut xg);
        let gx: Vec<f64> = wx.iter().map(|v| v.g).collect();
        prop_assert!(close(&[sg], &[ws.g], 1e-13), "{} vs {}", sg, ws.g);
        prop_assert!(close(&xg, &gx, 1e-13), "{:?} vs {:?}", xg, gx);
        prop_assert_eq!((ss, xs), (s, x.clone()));
        // by hand: out = Σ_j s² (x_j + x_0)², so ∂out/∂s = 2 s Σ_j (x_j + x_0)²
        let ds = 2.0 * s * x.iter().map(|v| (v + x[0]) * (v + x[0])).sum::<f64>();
        prop_assert!((sg - ds).abs() < 1e-12 * (1.0 + ds.abs()), "{} vs {}", sg, ds);
    }
}
