use nilang_apps::bessel::*;
use nilang_apps::plain::peers;

#[test]
fn peers_agree_on_the_bessel_gradient() {
    let (value, g) = gradient(2, 1.0);
    assert!((value - 0.11490348493190048).abs() < 1e-8);
    // dJ2/dz = (J1 - J3) / 2, from the plain series
    let analytic =
        (nilang::special::besselj_series(1, 1.0) - nilang::special::besselj_series(3, 1.0)) / 2.0;
    assert!((g - analytic).abs() < 1e-7, "{g} vs {analytic}");
    let f = |x: &[num_dual::Dual64]| besselj(2, x[0]);
    let nd = peers::num_dual_gradient(f, &[1.0])[0];
    let dr = peers::dualrev_gradient(|x| besselj(2, x[0]), &[1.0])[0];
    let ec = peers::echidna_gradient(|x| besselj(2, x[0]), &[1.0])[0];
    let list = easy_ml::differentiation::WengertList::new();
    let em = peers::easy_ml_gradient(&list, |x| besselj(2, x[0]), &[1.0])[0];
    for (name, v) in [
        ("num-dual", nd),
        ("dualrev", dr),
        ("echidna", ec),
        ("easy-ml", em),
    ] {
        assert!((v - g).abs() < 1e-7, "{name}: {v} vs {g}");
    }
    assert!((second_derivative(2, 1.0) - 0.13446683844358093).abs() < 1e-7);
}
