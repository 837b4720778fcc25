// Every built-in primitive, instruction and control construct of the C++ subset, in one
// reversible function: compiled as Rust by `#[i]` and translated to C++ from this file's text.
use nilang::{i, Real};

#[i]
pub fn all_prims<T: Real>(y: &mut [T], x: &mut [T], n: i64) {
    y[0] += exp(x[0]);
    y[1] += log(x[1]);
    y[2] += log1p(x[2]);
    y[2] += log2(x[1]);
    y[3] += expm1(x[3]);
    y[4] += sin(x[4]);
    y[5] -= cos(x[5]);
    y[6] += tan(x[6]);
    y[7] += asin(x[7]);
    y[8] += acos(x[8]);
    y[9] += atan(x[9]);
    y[10] += sinh(x[10]);
    y[11] += cosh(x[11]);
    y[12] += tanh(x[12]);
    y[13] += sqrt(x[13]);
    y[14] += abs(x[14]);
    y[15] += square(x[15]);
    y[16] += sigmoid(x[16]);
    y[15] += abs2(x[16]);
    y[16] -= angle(x[15]);
    y[17] += identity(x[17]);
    y[18] += neg(x[18]);
    y[19] += x[0] + x[1];
    y[19] -= x[2] - x[3];
    y[20] += x[4] * x[5];
    y[21] += x[6] / x[7];
    y[22] += pow(x[1], x[2]);
    y[22] += pow(x[3], 3);
    y[23] += atan2(x[8], x[9]);
    y[24] += hypot(x[10], x[11]);
    y[24] += max(x[10], x[11]);
    y[23] -= min(x[8], x[9]);
    rot(y[0], y[1], x[12]);
    irot(y[2], y[3], x[13]);
    rot(y[4], y[5], 0.3);
    neg(y[6]);
    inc(y[7]);
    dec(y[8]);
    swap(y[9], y[10]);
    inv(y[11]);
    hadamard(y[12], y[13]);
    let flag = false;
    flip(flag);
    if (flag, flag) {
        y[14] += identity(x[0]);
    }
    flip(flag);
    dealloc!(flag = false);
    let k = 0i64;
    for i in 0..n {
        k += i;
        y[11] += x[14] * k;
    }
    for i in (0..n).step_by(2).rev() {
        y[12] += x[15] * i;
    }
    if y[13].val() > 0.5 {
        y[14] += sin(x[16]);
    } else {
        y[14] -= cos(x[16]);
    }
    while (k > 0, k != n * (n - 1) / 2) {
        dec(k);
        y[15] += x[17] * x[1];
    }
    for i in (0..n).rev() {
        k += i;
    }
    dealloc!(k = n * (n - 1) / 2);
    // broadcasts: loops of the element statement
    y[..] += x[0] * x[1];
    neg(y[..]);
    // reversible constructors and destructors, nested and swapped whole: C++ keeps each
    // field in the variable it was built from
    let a = T::zero();
    let b = T::zero();
    let c = T::zero();
    let d = T::zero();
    a += x[0] * x[1];
    b += sin(x[2]);
    c += identity(x[3]);
    let p = new!((a, b));
    let q = new!((c, d));
    swap(p, q);
    let w = new!(Pair { x: p, y: q });
    w.y.1 += w.x.0 * w.y.0;
    y[23] += w.y.1 * w.x.0;
    w.y.1 -= w.x.0 * w.y.0;
    let Pair { y: q, x: p } = fields!(w);
    swap(p, q);
    let (c, d) = fields!(q);
    let (a, b) = fields!(p);
    c -= identity(x[3]);
    b -= sin(x[2]);
    a -= x[0] * x[1];
    dealloc!(a = T::zero(), b = T::zero(), c = T::zero(), d = T::zero());
    // a fold with reversible functions: `y[24] ← −(y[24] + aᵢ tanh aᵢ)`, `aᵢ = sin xᵢ`
    mapfoldl!(sin_into, add_negate, y[24], x);
}

/// The map of `all_prims`' `mapfoldl!`: `anc += sin x`.
#[i]
pub fn sin_into<T: Real>(anc: &mut T, x: &mut T) {
    anc += sin(x);
}

/// The fold of `all_prims`' `mapfoldl!`, not a sum: `out ← −(out + anc·tanh anc)`.
#[i]
pub fn add_negate<T: Real>(out: &mut T, anc: &mut T) {
    let t = T::zero();
    t += tanh(anc);
    out += anc * t;
    t -= tanh(anc);
    dealloc!(t = T::zero());
    neg(out);
}

/// Two values of one type, built and taken apart by `new!`/`fields!` above.
pub struct Pair<X> {
    pub x: X,
    pub y: X,
}
