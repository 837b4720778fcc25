//! Learn by consistency (reversible Turing machine paper, §IV): training `y` so that
//! `f(x, y) = e^(x+y) − e^x` equals 1 by running the program forward, setting the output to
//! the target, and running it backward. `f2` (which uncomputes `x` arithmetically) converges to
//! the fixed point to machine precision within the paper's 200 steps; `f1` does not train.

use nilang::{i, Real};

// nograd: the generated gradient functions do not yet lift a by-value `x: T` to `GVar<T>`
#[i(nograd)]
fn f1<T: Real>(out: &mut T, x: T, y: &mut T) {
    y += x;
    out -= exp(x);
    out += exp(y);
}

#[i]
fn f2<T: Real>(out: &mut T, x: &mut T, y: &mut T) {
    y += x;
    out -= exp(x);
    // x -= log(-out)
    neg(out);
    x -= log(out);
    neg(out);
    out += exp(y);
}

/// The paper's `train`: the forward outputs at each step, and the final `y`.
fn train(
    f: impl Fn(&mut f64, &mut f64, &mut f64),
    finv: impl Fn(&mut f64, &mut f64, &mut f64),
    steps: usize,
) -> (Vec<f64>, f64) {
    let mut y = 1.6;
    let mut outs = Vec::new();
    for _ in 0..steps {
        let (mut out, mut x) = (0.0, 0.3);
        f(&mut out, &mut x, &mut y);
        outs.push(out);
        out = 1.0;
        finv(&mut out, &mut x, &mut y);
    }
    (outs, y)
}

#[test]
fn f2_trains_to_machine_precision() {
    let (outs, y) = train(f2, f2_inv, 200);
    let last = *outs.last().unwrap();
    println!("f2: out after 200 steps = {last:.17}, y = {y:.17}");
    assert!((last - 1.0).abs() < 1e-13, "{last}");
    // the fixed point: e^(0.3 + y) − e^0.3 = 1
    let y_star = (1.0 + 0.3f64.exp()).ln() - 0.3;
    assert!((y - y_star).abs() < 1e-13, "{y} vs {y_star}");
    // and it got there by training: the first outputs were far off
    assert!((outs[0] - 1.0).abs() > 1.0);
}

#[test]
fn f1_does_not_train() {
    let (outs, y) = train(|o, x, y| f1(o, *x, y), |o, x, y| f1_inv(o, *x, y), 200);
    println!(
        "f1: out = {:?} … {:?}, y = {y}",
        outs[0],
        outs.last().unwrap()
    );
    assert!((y - 1.6).abs() < 1e-14, "{y}");
    assert!((outs.last().unwrap() - outs[0]).abs() < 1e-12);
    assert!((outs.last().unwrap() - 1.0).abs() > 1.0);
}
