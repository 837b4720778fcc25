use nilang::{catch, i, CheckKind, Real};
use num_complex::Complex;

#[i]
fn branches<T: Real>(y: &mut T, x: &mut T, n: i64) {
    if n > 0 {
        y += sin(x);
    } else if n < 0 {
        y -= cos(x);
    } else {
        y += exp(x);
    }
}

#[i]
fn looping(y: &mut [f64], x: &mut f64, n: usize) {
    for i in 0..n {
        y[i] += x * 2.0;
    }
    for i in (0..n).rev() {
        y[i] += sqrt(x);
    }
    for i in (0..n).step_by(2) {
        y[i] += identity(1);
    }
    for i in 1..=n {
        y[i - 1] += i;
    }
}

#[i]
fn counting(k: &mut i64, limit: i64) {
    while (*k < limit, *k > 0) {
        inc(k);
    }
}

#[i]
fn stacks(x: &mut f64, s: &mut Vec<f64>) {
    push!(s, x);
    x += identity(3.0);
    push_copy!(s, x);
}

#[i]
fn misc<T: Real>(a: &mut T, b: &mut T, t: &mut T, s: &mut T, c: &mut T) {
    rot(a, b, t);
    neg(a);
    (s, c) += sincos(t);
    reverse! {
        a += identity(2.0);
    }
    safe! {
        let _unused = 1 + 1;
    }
    nocheck! {
        let z = T::zero();
        dealloc!(z = T::one());
    }
}

#[i(expand)]
fn nested<T: Real>(z: &mut T, x: &mut T, y: &mut T) {
    z += sin(x + 2.0 * y);
}

#[i]
fn complex_fields<T: Real>(y: &mut Complex<T>, x: &mut Complex<T>) {
    let n = T::zero();
    n += hypot(x.re, x.im);
    y.re += log(n);
    y.im += atan2(x.im, x.re);
    n -= hypot(x.re, x.im);
    dealloc!(n = T::zero());
}

#[i]
fn rfib(out: &mut i64, n: i64) {
    let n1 = 0i64;
    let n2 = 0i64;
    n1 += n - 1;
    n2 += n - 2;
    if (n <= 2, n <= 2) {
        out += 1;
    } else {
        rfib(out, n1);
        rfib(out, n2);
    }
    n1 -= n - 1;
    n2 -= n - 2;
    dealloc!(n1 = 0, n2 = 0);
}

pub struct Model {
    pub scale: f64,
}

#[i]
impl Model {
    fn step(&self, y: &mut f64, x: &mut f64) {
        y += x * self.scale;
    }
    fn twice(&self, y: &mut f64, x: &mut f64) {
        self.step(y, x);
        self.step(y, x);
        uncall!(self.step(y, x));
    }
}

#[i]
fn bad_dealloc(x: &mut f64) {
    let a = 0.0;
    a += identity(x);
    dealloc!(a = 0.0);
}

#[i]
fn aliasing(y: &mut [f64], j: usize, k: usize) {
    y[0] += y[j] * y[k];
}

#[test]
fn branches_round_trip() {
    for n in [-1, 0, 1] {
        let (mut y, mut x) = (0.5f64, 0.3f64);
        branches(&mut y, &mut x, n);
        assert_ne!(y, 0.5);
        branches_inv(&mut y, &mut x, n);
        assert!((y - 0.5).abs() < 1e-15);
    }
}

#[test]
fn loops_round_trip() {
    let mut y = vec![0.0; 5];
    let mut x = 4.0;
    looping(&mut y, &mut x, 5);
    assert_eq!(
        y,
        vec![
            8.0 + 2.0 + 1.0 + 1.0,
            8.0 + 2.0 + 2.0,
            8.0 + 2.0 + 1.0 + 3.0,
            8.0 + 2.0 + 4.0,
            8.0 + 2.0 + 1.0 + 5.0
        ]
    );
    looping_inv(&mut y, &mut x, 5);
    assert_eq!(y, vec![0.0; 5]);
}

#[test]
fn while_round_trip() {
    let mut k = 0;
    counting(&mut k, 7);
    assert_eq!(k, 7);
    counting_inv(&mut k, 7);
    assert_eq!(k, 0);
}

#[test]
fn stack_round_trip() {
    let (mut x, mut s) = (1.5, vec![]);
    stacks(&mut x, &mut s);
    assert_eq!((x, s.clone()), (3.0, vec![1.5, 3.0]));
    stacks_inv(&mut x, &mut s);
    assert_eq!((x, s), (1.5, vec![]));
}

#[test]
fn misc_round_trip() {
    let mut v = [1.0f64, 2.0, 0.3, 0.0, 0.0];
    let [a, b, t, s, c] = &mut v;
    misc(a, b, t, s, c);
    assert!((*s - 0.3f64.sin()).abs() < 1e-15);
    misc_inv(a, b, t, s, c);
    assert!((*a - 1.0).abs() < 1e-14 && (*b - 2.0).abs() < 1e-14 && *s == 0.0);
}

#[test]
fn nested_expansion() {
    let (mut z, mut x, mut y) = (0.0f64, 0.2f64, 0.4f64);
    nested(&mut z, &mut x, &mut y);
    assert!((z - (0.2f64 + 0.8).sin()).abs() < 1e-15);
    nested_inv(&mut z, &mut x, &mut y);
    assert!(z.abs() < 1e-15);
}

#[test]
fn complex_log() {
    let mut y = Complex::new(0.0f64, 0.0);
    let mut x = Complex::new(1.0f64, 2.0);
    complex_fields(&mut y, &mut x);
    let expect = x.ln();
    assert!((y - expect).norm() < 1e-15);
}

#[test]
fn fibonacci() {
    let mut out = 0;
    rfib(&mut out, 10);
    assert_eq!(out, 55);
    rfib_inv(&mut out, 10);
    assert_eq!(out, 0);
}

#[test]
fn methods() {
    let m = Model { scale: 2.0 };
    let (mut y, mut x) = (0.0, 3.0);
    m.twice(&mut y, &mut x);
    assert_eq!(y, 6.0);
    m.twice_inv(&mut y, &mut x);
    assert_eq!(y, 0.0);
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn dealloc_check() {
    let mut x = 1.0;
    let err = catch(|| bad_dealloc(&mut x)).unwrap_err();
    assert_eq!(err.kind, CheckKind::Dealloc);
    assert_eq!(err.function, "bad_dealloc");
    assert_eq!(err.variable, "a");
    println!("{err}");
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn aliasing_check() {
    let mut y = vec![0.0, 1.0, 2.0];
    aliasing(&mut y, 1, 2);
    let err = catch(|| aliasing(&mut y, 1, 1)).unwrap_err();
    assert_eq!(err.kind, CheckKind::Aliasing);
    println!("{err}");
}

#[i]
fn parity(counter: &mut i64, n: i64) {
    counter -= n % 2;
}

#[test]
fn non_primitive_operators_are_constant_operands() {
    let mut c = 10;
    parity(&mut c, 7);
    assert_eq!(c, 9);
    parity_inv(&mut c, 7);
    assert_eq!(c, 10);
}

pub struct Prior {
    pub sign: f64,
    pub gamma: f64,
}

#[i]
fn constant_arithmetic(y: &mut f64, x: &mut f64, prior: &Prior, n: usize) {
    y += x * (prior.sign * 0.5 * prior.gamma);
    y += (n / 2) as f64 * 2.0;
}

#[test]
fn arithmetic_on_read_only_values_is_a_constant_operand() {
    let p = Prior {
        sign: -1.0,
        gamma: 4.0,
    };
    let (mut y, mut x) = (0.0, 3.0);
    constant_arithmetic(&mut y, &mut x, &p, 5);
    assert_eq!(y, -6.0 + 4.0);
    constant_arithmetic_inv(&mut y, &mut x, &p, 5);
    assert_eq!(y, 0.0);
}
