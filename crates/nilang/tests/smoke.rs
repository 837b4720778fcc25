use nilang::{i, Real};

#[i]
fn multiplier<T: Real>(y: &mut T, a: &mut T, b: &mut T) {
    y += a * b;
}

#[i]
fn imul<T: Real>(out: &mut T, x: &mut T, anc: &mut T) {
    anc += out * x;
    out -= anc / x;
    swap(out, anc);
}

#[i]
fn imul_int(out: &mut i64, x: i64, anc: &mut i64) {
    anc += out * x;
    out -= anc / x;
    swap(out, anc);
}

#[i]
fn ifactorial(out: &mut i64, n: i64) {
    let anc = 0i64;
    out += 1;
    for i in 1..=n {
        imul_int(out, i, anc);
    }
    dealloc!(anc = 0);
}

#[i]
fn ibesselj<T: Real>(out: &mut T, nu: i64, z: &mut T) {
    let k = 0i64;
    let fact_nu = 0i64;
    let halfz = T::zero();
    let halfz_power_nu = T::zero();
    let halfz_power_2 = T::zero();
    let out_anc = T::zero();
    let anc1 = T::zero();
    let anc2 = T::zero();
    let anc3 = T::zero();
    let anc4 = T::zero();
    let anc5 = T::zero();
    routine! {
        halfz += z / 2.0;
        halfz_power_nu += pow(halfz, nu);
        halfz_power_2 += pow(halfz, 2);
        ifactorial(fact_nu, nu);
        anc1 += halfz_power_nu / fact_nu;
        out_anc += anc1;
        while (anc1.val().abs() > 1e-8 && anc4.val().abs() < 1e-8, k != 0) {
            inc(k);
            routine! {
                anc5 += k;
                anc5 += nu;
                anc2 -= k * anc5;
                anc3 += halfz_power_2 / anc2;
            }
            imul(anc1, anc3, anc4);
            out_anc += anc1;
            uncompute!();
        }
    }
    out += out_anc;
    uncompute!();
    dealloc!(k = 0, fact_nu = 0);
    dealloc!(halfz = T::zero(), halfz_power_nu = T::zero(), halfz_power_2 = T::zero());
    dealloc!(out_anc = T::zero(), anc1 = T::zero(), anc2 = T::zero());
    dealloc!(anc3 = T::zero(), anc4 = T::zero(), anc5 = T::zero());
}

#[test]
fn multiplier_runs_both_ways() {
    let (mut y, mut a, mut b) = (2i64, 3i64, 5i64);
    multiplier_int(&mut y, &mut a, &mut b);
    assert_eq!((y, a, b), (17, 3, 5));
}

#[i]
fn multiplier_int(y: &mut i64, a: &mut i64, b: &mut i64) {
    y += a * b;
}

#[test]
fn bessel() {
    let (mut out, mut z) = (0.0f64, 1.0f64);
    ibesselj(&mut out, 2, &mut z);
    println!("{out}");
    assert!((out - 0.11490348493190048).abs() < 1e-8);
    ibesselj_inv(&mut out, 2, &mut z);
    assert_eq!(out, 0.0);
}

#[test]
fn bessel_gradient() {
    use nilang::GVar;
    let (mut out, mut z) = (0.0f64, 1.0f64);
    ibesselj(&mut out, 2, &mut z);
    let mut gout = GVar::with_grad(out, 1.0);
    let mut gz = GVar::new(z);
    ibesselj_inv(&mut gout, 2, &mut gz);
    println!("{gout:?} {gz:?}");
    assert!((gz.g - 0.2102436).abs() < 1e-6);
}
