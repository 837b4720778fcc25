//! Learn by consistency (reversible Turing machine paper, §IV): training `y` so that
//! `f(x, y) = e^(x+y) − e^x` equals 1 by running the program forward, setting the output to
//! the target, and running it backward. `f2` (which uncomputes `x` arithmetically) converges to
//! the fixed point to machine precision within the paper's 200 steps; `f1` does not train.

use nilang::consistency::{f1, f1_inv, f2, f2_inv, fixed_point, train};

#[test]
fn f2_trains_to_machine_precision() {
    let (outs, y) = train(f2, f2_inv, 200);
    let last = *outs.last().unwrap();
    println!("f2: out after 200 steps = {last:.17}, y = {y:.17}");
    assert!((last - 1.0).abs() < 1e-13, "{last}");
    // the fixed point: e^(0.3 + y) − e^0.3 = 1
    let y_star = fixed_point();
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
