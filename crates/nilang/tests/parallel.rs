//! Parallel loops (`for i in (a..b).par()`): the same results as the sequential loop.
use nilang::{i, Real};

#[i]
fn axpy<T: Real>(y: &mut [T], x: &mut [T], a: &mut T) {
    for i in (0..y.len()).par() {
        y[i] += x[i] * a;
    }
}

#[i]
fn axpy_seq<T: Real>(y: &mut [T], x: &mut [T], a: &mut T) {
    for i in 0..y.len() {
        y[i] += x[i] * a;
    }
}

#[i]
fn sumsq<T: Real>(out: &mut T, x: &mut [T]) {
    for i in (0..x.len()).par() {
        out += square(x[i]);
    }
}

#[test]
fn smoke() {
    let mut y = vec![1.0; 100];
    let mut x: Vec<f64> = (0..100).map(|k| k as f64).collect();
    let mut a = 2.0;
    axpy(&mut y, &mut x, &mut a);
    assert_eq!(y[10], 21.0);
    let mut out = 0.0;
    sumsq(&mut out, &mut x);
    assert_eq!(out, (0..100).map(|k| (k * k) as f64).sum::<f64>());
}

#[test]
fn smoke_grad() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    pool.install(|| {
        let mut y = vec![1.0; 100];
        let mut x: Vec<f64> = (0..100).map(|k| k as f64).collect();
        let mut a = 2.0;
        let (mut yg, mut xg, mut ag) = (vec![1.0; 100], vec![0.0; 100], 0.0);
        axpy(&mut y, &mut x, &mut a);
        axpy_adjoint(&mut y, &mut yg, &mut x, &mut xg, &mut a, &mut ag);
        eprintln!("{ag} {:?}", &xg[..3]);
        assert_eq!(ag, (0..100).map(|k| k as f64).sum::<f64>());
        let mut out = 0.0;
        let mut og = 1.0;
        let mut xg = vec![0.0; 100];
        sumsq(&mut out, &mut x);
        sumsq_adjoint(&mut out, &mut og, &mut x, &mut xg);
        assert_eq!(xg[3], 6.0);
        assert_eq!(out, 0.0);
    });
}
