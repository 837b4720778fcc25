//! Learn by consistency (reversible Turing machine paper, §IV, Algorithm 2): find `y` with
//! `f(x = 0.3, y) = e^(x+y) − e^x = 1` by running the program forward, setting the output to
//! the target 1, and running it backward, which updates `y`. [`f2`] uncomputes `x`
//! arithmetically and trains; [`f1`] keeps `x` and does not (its output garbage `x, x + y`
//! determines `y`).
//!
//! ```
//! use nilang::consistency::{f1, f1_inv, f2, f2_inv, fixed_point, train};
//!
//! let (_, y) = train(f2, f2_inv, 200);
//! assert!((y - fixed_point()).abs() < 1e-13); // learned y*
//! let (_, y) = train(|o, x, y| f1(o, *x, y), |o, x, y| f1_inv(o, *x, y), 200);
//! assert!((y - 1.6).abs() < 1e-14); // still the start: f1's garbage x + y pins y
//! ```

use crate::{i, Real};

/// `y += x; out += e^y − e^x`, keeping `x`: running it backward cannot move `y`.
///
/// ```
/// use nilang::consistency::{f1, f1_inv, train};
///
/// // x is kept: setting the output and running backwards cannot move y
/// let (_, y) = train(|o, x, y| f1(o, *x, y), |o, x, y| f1_inv(o, *x, y), 10);
/// assert_eq!(y, 1.6);
/// ```
#[i]
pub fn f1<T: Real>(out: &mut T, x: T, y: &mut T) {
    y += x;
    out -= exp(x);
    out += exp(y);
}

/// The same output, with `x` uncomputed as `x −= log(−out)`: running it backward from a
/// target output updates `y`.
///
/// ```
/// use nilang::consistency::{f2, f2_inv, fixed_point, train};
///
/// // x is uncomputed from the output: running backwards from the target output moves y
/// let (outs, y) = train(f2, f2_inv, 50);
/// assert!((y - fixed_point()).abs() < 1e-6);
/// assert!((outs[49] - 1.0).abs() < 1e-6);
/// ```
#[i]
pub fn f2<T: Real>(out: &mut T, x: &mut T, y: &mut T) {
    y += x;
    out -= exp(x);
    // x -= log(-out)
    neg(out);
    x -= log(out);
    neg(out);
    out += exp(y);
}

/// The paper's training loop from `y = 1.6`, `x = 0.3`: `steps` times run `f` forward, set
/// the output to the target 1 and run `finv`. Returns the forward output of every step and the
/// final `y`.
///
/// ```
/// use nilang::consistency::{f2, f2_inv, train};
///
/// let (outs, _) = train(f2, f2_inv, 3);
/// assert_eq!(outs.len(), 3);
/// assert!((outs[0] - ((0.3f64 + 1.6).exp() - 0.3f64.exp())).abs() < 1e-12); // f at y = 1.6
/// ```
pub fn train(
    f: impl Fn(&mut f64, &mut f64, &mut f64),
    finv: impl Fn(&mut f64, &mut f64, &mut f64),
    steps: usize,
) -> (Vec<f64>, f64) {
    let mut y = 1.6;
    let mut outs = Vec::with_capacity(steps);
    for _ in 0..steps {
        let (mut out, mut x) = (0.0, 0.3);
        f(&mut out, &mut x, &mut y);
        outs.push(out);
        out = 1.0;
        finv(&mut out, &mut x, &mut y);
    }
    (outs, y)
}

/// The fixed point `y*` with `e^(0.3 + y*) − e^0.3 = 1`.
///
/// ```
/// let y = nilang::consistency::fixed_point();
/// assert!(((0.3 + y).exp() - 0.3f64.exp() - 1.0).abs() < 1e-15);
/// ```
pub fn fixed_point() -> f64 {
    (1.0 + 0.3f64.exp()).ln() - 0.3
}
