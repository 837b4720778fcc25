//! `y *= pow(a, r)` on logarithmic numbers (`ULog`, NiLang's `ulog.jl`): multiplication by
//! `aʳ` for a real exponent `r`, `ln y += r · ln a` rounded to the grid. Exact as an
//! instruction (`y /= pow(a, r)` restores `y` bit for bit); the value carries the grid's
//! relative error. Gradients (in `x` and in the exponent) against central differences,
//! forward mode on `Dual`, the `GVar` program and `f_vjp`, on random inputs.

use nilang::ad::check_gradient;
use nilang::numbers::{QLog, QLogPow, ULog};
use nilang::{i, Acc1, Acc2, Dual, GVar, Loss, Real};
use proptest::prelude::*;

/// `out += xʳ`, through logarithmic numbers (the power's rule on the logarithm's type is the
/// bound `Acc2<QLogPow>`, as `QLog`'s is `Acc1<QLog>`).
#[i]
fn power<T: Real>(out: &mut T, x: &mut T, r: &mut T)
where
    T: Acc1<QLog> + Acc2<QLogPow>,
{
    let lx = ULog::<T>::one();
    let ly = ULog::<T>::one();
    routine! {
        lx.ln += QLog(x);
        ly *= pow(lx, r);
    }
    out += exp(ly.ln);
    uncompute!();
    dealloc!(ly = ULog::<T>::one(), lx = ULog::<T>::one());
}

/// `y *= a^2.5` then `y /= b^r`: a constant exponent and a variable one, on `ULog` state.
#[i]
fn scale(y: &mut ULog<f64>, a: &mut ULog<f64>, b: &mut ULog<f64>, r: &mut f64) {
    y *= pow(a, 2.5);
    y /= pow(b, r);
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn forward_is_the_power_and_the_inverse_is_exact(
        y in 0.1f64..10.0, a in 0.1f64..10.0, b in 0.1f64..10.0, r in -3.0f64..3.0,
    ) {
        let (y0, a0, b0) = (ULog::new(y), ULog::new(a), ULog::new(b));
        let (mut yl, mut al, mut bl, mut rr) = (y0, a0, b0, r);
        scale(&mut yl, &mut al, &mut bl, &mut rr);
        let expected = y0.to_f64() * a0.to_f64().powf(2.5) / b0.to_f64().powf(r);
        // the grid's relative error 2⁻⁴⁴ per rounding, amplified by exp only through ln's size
        prop_assert!(close(yl.to_f64(), expected, 1e-12), "{} vs {}", yl.to_f64(), expected);
        prop_assert_eq!((al, bl, rr), (a0, b0, r));
        scale_inv(&mut yl, &mut al, &mut bl, &mut rr);
        prop_assert_eq!(yl.ln.to_bits(), y0.ln.to_bits());
    }

    #[test]
    fn gradient_in_the_base_and_the_exponent(x in 0.2f64..5.0, r in -2.0f64..2.0) {
        let (mut out, mut xx, mut rr) = (0.0, x, r);
        power(&mut out, &mut xx, &mut rr);
        prop_assert!(close(out, x.powf(r), 1e-12));
        // the GVar program
        let (mut wo, mut wx, mut wr) = (GVar::with_grad(out, 1.0), GVar::new(x), GVar::new(r));
        power_inv(&mut wo, &mut wx, &mut wr);
        prop_assert!(wo.x.abs() <= 1e-12);
        let gvar = [wx.g, wr.g];
        // the adjoint on separate buffers
        let (mut out, mut xx, mut rr) = (0.0, x, r);
        let (mut og, mut xg, mut rg) = (1.0, 0.0, 0.0);
        power_vjp(&mut out, &mut og, &mut xx, &mut xg, &mut rr, &mut rg);
        prop_assert_eq!([xg.to_bits(), rg.to_bits()], [gvar[0].to_bits(), gvar[1].to_bits()]);
        let (_, gx, gr) = power_grad(Loss::arg(0), &mut 0.0, &mut x.clone(), &mut r.clone()).unwrap();
        prop_assert_eq!([gx.g, gr.g], gvar);
        // analytic: ∂xʳ/∂x = r xʳ⁻¹, ∂xʳ/∂r = xʳ ln x; and central differences
        prop_assert!(close(gvar[0], r * x.powf(r - 1.0), 1e-10));
        prop_assert!(close(gvar[1], x.powf(r) * x.ln(), 1e-10));
        let f = |v: &[f64]| v[0].powf(v[1]);
        let check = check_gradient(f, &[x, r], &gvar, 1e-6, 1e-6);
        prop_assert!(check.is_ok(), "{:?}", check);
        // forward mode on dual numbers
        for (k, g) in gvar.iter().enumerate() {
            let seed = |j: usize| if j == k { 1.0 } else { 0.0 };
            let mut out = Dual::constant(0.0);
            power(&mut out, &mut Dual::new(x, seed(0)), &mut Dual::new(r, seed(1)));
            prop_assert!(close(out.eps, *g, 1e-10), "{} vs {}", out.eps, g);
        }
    }
}
