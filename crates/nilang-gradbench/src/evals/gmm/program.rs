//! `gmm`'s reversible program ([`gmm_objective`]) and the routines it calls.

use super::Prior;
use crate::evals::lse::logsumexp;
use nilang::{i, Real};

/// Position of `L[b][a]` (`b > a`) in the strictly-lower entries stored column by column.
#[inline(always)]
pub fn ltri(a: usize, b: usize, d: usize) -> usize {
    a * (d - 1) - a * a.saturating_sub(1) / 2 + b - a - 1
}

/// Where column `a` of a strictly-lower `d × d` part stored column by column begins
/// (`ltri(a, a + 1, d)`; `col(d, d)` is the part's size).
#[inline(always)]
pub fn col(a: usize, d: usize) -> usize {
    a * (d.max(1) - 1) - a * a.saturating_sub(1) / 2
}

/// `y += v·s` element by element (`y` and `v` of equal length).
#[i(nocheck)]
#[inline(always)]
pub fn iaxpy<T: Real>(y: &mut [T], v: &mut [T], s: &mut T) {
    safe! {
        assert_eq!(y.len(), v.len(), "iaxpy: y and v have different lengths");
    }
    for j in 0..y.len() {
        y[j] += v[j] * s;
    }
}

/// `y[4j + p] += v[j]·s[p]` for the four points `p` (`y` holds four vectors interleaved, and
/// has four times the length of `v`): one column of `L` applied to four points, read once.
#[i(nocheck)]
#[inline(always)]
pub fn iaxpy4<T: Real>(y: &mut [T], v: &mut [T], s0: &mut T, s1: &mut T, s2: &mut T, s3: &mut T) {
    safe! {
        assert_eq!(y.len(), 4 * v.len(), "iaxpy4: y must have four times the length of v");
    }
    for j in 0..v.len() {
        y[4 * j] += v[j] * s0;
        y[4 * j + 1] += v[j] * s1;
        y[4 * j + 2] += v[j] * s2;
        y[4 * j + 3] += v[j] * s3;
    }
}

/// `m −= ½‖Q (x − μ)‖²` for one point `x` and one component (`μ`, `Q = diag(qd) + L` with the
/// strictly-lower `L` stored column by column in `l`). The ancillas `xc = x − μ` and
/// `qx = Q (x − μ)` are computed, the squares subtracted, and the ancillas uncomputed; the
/// product is taken column by column (`qx[a + 1..] += L[a + 1.., a]·xc[a]`).
#[i(nocheck)]
#[inline]
pub fn sub_half_sqnorm<T: Real>(m: &mut T, x: &[f64], mu: &mut [T], qd: &mut [T], l: &mut [T]) {
    let xc = vec![T::zero(); x.len()];
    let qx = vec![T::zero(); x.len()];
    routine! {
        for j in 0..x.len() {
            xc[j] += identity(x[j]);
            xc[j] -= mu[j];
            qx[j] += qd[j] * xc[j];
        }
        for a in 0..x.len() {
            iaxpy(qx[a + 1..x.len()], l[col(a, x.len())..col(a + 1, x.len())], xc[a]);
        }
    }
    for j in 0..x.len() {
        expand! {
            m -= square(qx[j]) * 0.5;
        }
    }
    uncompute!();
    dealloc!(xc = vec![T::zero(); x.len()], qx = vec![T::zero(); x.len()]);
}

/// `xc[4j + p] += xₚ[j] − μ[j]` and `qx[4j + p] += qd[j]·xc[4j + p]` for the four points `xₚ`,
/// the rows of `x` (`4 × d`); `xc` and `qx` hold the four points' vectors interleaved.
#[i(nocheck)]
#[inline(always)]
pub fn center4<T: Real>(xc: &mut [T], qx: &mut [T], x: &[f64], mu: &mut [T], qd: &mut [T]) {
    for j in 0..mu.len() {
        xc[4 * j] += identity(x[j]);
        xc[4 * j] -= mu[j];
        qx[4 * j] += qd[j] * xc[4 * j];
        xc[4 * j + 1] += identity(x[mu.len() + j]);
        xc[4 * j + 1] -= mu[j];
        qx[4 * j + 1] += qd[j] * xc[4 * j + 1];
        xc[4 * j + 2] += identity(x[2 * mu.len() + j]);
        xc[4 * j + 2] -= mu[j];
        qx[4 * j + 2] += qd[j] * xc[4 * j + 2];
        xc[4 * j + 3] += identity(x[3 * mu.len() + j]);
        xc[4 * j + 3] -= mu[j];
        qx[4 * j + 3] += qd[j] * xc[4 * j + 3];
    }
}

/// `xc += x − μ` and `qx += Q (x − μ)` for four points `xₚ`, the rows of `x` (`4 × d`), and
/// one component (`μ`, `Q = diag(qd) + L` with the strictly-lower `L` stored column by column
/// in `l`); `xc` and `qx` (`4d`) hold the four points' vectors interleaved, so each column of
/// `L` is read once for the four points, and the four points' products form independent
/// chains. It writes `xc` and `qx` alone (its effects say so to its callers, which therefore
/// run it on values alone in their gradients and skip its uncomputation in their forward
/// runs).
#[i(nocheck)]
#[inline(always)]
pub fn qtimes4<T: Real>(
    xc: &mut [T],
    qx: &mut [T],
    x: &[f64],
    mu: &mut [T],
    qd: &mut [T],
    l: &mut [T],
) {
    center4(xc, qx, x, mu, qd);
    for a in 0..mu.len() {
        iaxpy4(
            qx[4 * (a + 1)..4 * mu.len()],
            l[col(a, mu.len())..col(a + 1, mu.len())],
            xc[4 * a],
            xc[4 * a + 1],
            xc[4 * a + 2],
            xc[4 * a + 3],
        );
    }
}

/// `mₚ −= ½ Σⱼ qx[4j + p]²` for the four points `p` whose vectors `qx` holds interleaved.
#[i(expand, nocheck)]
#[inline(always)]
pub fn sub_half_squares4<T: Real>(m0: &mut T, m1: &mut T, m2: &mut T, m3: &mut T, qx: &mut [T]) {
    for j in 0..qx.len() / 4 {
        m0 -= square(qx[4 * j]) * 0.5;
        m1 -= square(qx[4 * j + 1]) * 0.5;
        m2 -= square(qx[4 * j + 2]) * 0.5;
        m3 -= square(qx[4 * j + 3]) * 0.5;
    }
}

/// How many points (a multiple of four) [`sub_half_sqnorms`] takes per call at dimension `d`:
/// about 1024 values of ancillas per call (16 KB with their gradients: in the first-level
/// cache), so that small dimensions pay few allocations.
#[inline]
pub fn points_per_call(d: usize) -> usize {
    4 * (256 / d.max(1)).max(1)
}

/// `mt[i·k + c] −= ½‖Q (x_i − μ)‖²` for the points `i = i0, i0 + 1, …` whose rows are `x` (a
/// multiple of four of them) and the component `c`, four points at a time: the routine
/// computes every group's `x − μ` and `Q (x − μ)` into fresh ancillas ([`qtimes4`]), the
/// squares are subtracted ([`sub_half_squares4`]), and the ancillas are uncomputed — which
/// the forward run skips (they die here), and which the gradient's reverse sweep runs on
/// values alone before moving the gradients through it.
#[i(nocheck)]
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn sub_half_sqnorms<T: Real>(
    mt: &mut [T],
    x: &[f64],
    mu: &mut [T],
    qd: &mut [T],
    l: &mut [T],
    i0: usize,
    k: usize,
    c: usize,
) {
    let xc = vec![T::zero(); x.len()];
    let qx = vec![T::zero(); x.len()];
    routine! {
        for b in 0..x.len() / (4 * mu.len()) {
            qtimes4(
                xc[4 * b * mu.len()..4 * (b + 1) * mu.len()],
                qx[4 * b * mu.len()..4 * (b + 1) * mu.len()],
                &x[4 * b * mu.len()..4 * (b + 1) * mu.len()],
                mu,
                qd,
                l,
            );
        }
    }
    for b in 0..x.len() / (4 * mu.len()) {
        sub_half_squares4(
            mt[(i0 + 4 * b) * k + c],
            mt[(i0 + 4 * b + 1) * k + c],
            mt[(i0 + 4 * b + 2) * k + c],
            mt[(i0 + 4 * b + 3) * k + c],
            qx[4 * b * mu.len()..4 * (b + 1) * mu.len()],
        );
    }
    uncompute!();
    dealloc!(xc = vec![T::zero(); x.len()], qx = vec![T::zero(); x.len()]);
}

/// Below this, [`ExpUnderflowing`] is zero: `exp(x) < 2⁻⁹⁰⁰` there.
pub const UNDERFLOW_BELOW: f64 = -900.0 * std::f64::consts::LN_2;

/// `exp(x)`, flushed to `0` below [`UNDERFLOW_BELOW`] (where it is under `2⁻⁹⁰⁰`), with the
/// derivative of that function (its value): the shifted exponential of a main term in
/// [`logsumexps_keep`]. The shifted sum holds the largest term's `exp(0) = 1`, so a term under
/// `2⁻⁹⁰⁰` cannot change it (it is far below half its last place): the objective is the same
/// to the bit. But such a term is the weight of its point and component in the gradient,
/// and the reverse sweep multiplies it through every entry of `Q` and `x − μ`: IEEE
/// exponentials around `e⁻⁷⁰⁰` made those products subnormal, and each subnormal operation is
/// a microcode assist on Intel cores (slow enough to dominate the Jacobian at large `d`). A
/// weight of zero instead moves zeros.
#[derive(Clone, Copy, Debug)]
pub struct ExpUnderflowing;

impl<T: nilang::Float> nilang::Unary<T> for ExpUnderflowing {
    #[inline(always)]
    fn value(x: T) -> T {
        if x.to_f64() < UNDERFLOW_BELOW {
            T::f_zero()
        } else {
            x.exp()
        }
    }
    #[inline(always)]
    fn derivative(x: T) -> T {
        Self::value(x)
    }
    #[inline(always)]
    fn value_and_derivative(x: T) -> (T, T) {
        let v = Self::value(x);
        (v, v)
    }
    #[inline(always)]
    fn derivative_from_value(v: T) -> Option<T> {
        Some(v)
    }
}

/// `out += Σᵢ log Σ_c exp(x[i·k + c])` over the rows of `k` values of `x` (each row shifted
/// by its largest value, as [`logsumexp`]), with the exponentials moved into the output `e`
/// (zero on entry, the shape of `x`) instead of uncomputed: each is evaluated once forward,
/// and the gradient's reverse sweep takes it back from `e` into an ancilla deallocated right
/// after, so it reads the exponential's derivative from the value instead of evaluating it
/// again (`Acc1::sub1_released`). The exponentials under `2⁻⁹⁰⁰` are zero
/// ([`ExpUnderflowing`]: the same sum, and no subnormal weights in the gradient). The rows
/// run in a parallel loop (`out` is its reduction).
#[i(nocheck)]
#[inline]
pub fn logsumexps_keep<T: Real>(out: &mut T, e: &mut [T], x: &mut [T], k: usize) {
    for i in (0..x.len() / k).par().weight(5 * k) {
        let a = T::lit(crate::evals::lse::max_value(&x[i * k..(i + 1) * k]));
        let s = T::zero();
        for c in 0..k {
            let u = T::zero();
            let t = T::zero();
            u += x[i * k + c] - a;
            t += ExpUnderflowing(u);
            u -= x[i * k + c] - a;
            dealloc!(u = T::zero());
            s += identity(t);
            swap(t, e[i * k + c]);
            dealloc!(t = T::zero());
        }
        out += log(s);
        out += a;
        for c in (0..k).rev() {
            s -= identity(e[i * k + c]);
        }
        dealloc!(
            s = T::zero(),
            a = T::lit(crate::evals::lse::max_value(&x[i * k..(i + 1) * k]))
        );
    }
}

/// `out += f(α, μ, q, l)` for the data `x` (`n × d`, row-major), `k` components, and into
/// `mt` and `e` (`n·k` entries each, zero on entry) the main terms
/// `mt[i·k + c] = α_c + Σⱼ q_cj − ½‖Q_c (x_i − μ_c)‖²` of every point `i` and component `c`
/// and their shifted exponentials (see [`logsumexps_keep`]). `mu`, `q` are `k × d`; `l` is
/// `k × d(d−1)/2`.
///
/// The main terms and exponentials are kept in outputs rather than uncomputed. They are
/// computed in a parallel loop over blocks of [`points_per_call`] points (the points after
/// the last whole block follow, sequentially), each block component by component, so that
/// each component's `L` stays in cache across the block's points, four points at a time
/// ([`sub_half_sqnorms`]); then each point's LogSumExp is added to `out`. `exp q` and `Σⱼ q_cj` are computed once, before the points, and uncomputed at the
/// end.
#[i(nocheck)]
#[allow(clippy::too_many_arguments)]
pub fn gmm_objective<T: Real>(
    out: &mut T,
    mt: &mut [T],
    e: &mut [T],
    alpha: &mut [T],
    mu: &mut [T],
    q: &mut [T],
    l: &mut [T],
    x: &[f64],
    d: usize,
    k: usize,
    prior: Prior,
) where
    T: nilang::Acc1<ExpUnderflowing>,
{
    let qd = vec![T::zero(); k * d];
    let sumq = vec![T::zero(); k];
    let la = T::zero();
    let w = T::zero();
    routine! {
        for c in 0..k {
            for j in 0..d {
                qd[c * d + j] += exp(q[c * d + j]);
                sumq[c] += q[c * d + j];
            }
        }
    }
    // point by point, so that both directions walk `mt` contiguously
    for i in (0..x.len() / d).par().weight(k) {
        for c in 0..k {
            mt[i * k + c] += alpha[c];
            mt[i * k + c] += sumq[c];
        }
    }
    // blocks of points in parallel, each block component by component (one call per
    // component: its `L` read once for the block's points); each block's work is about
    // `2 + d + d²/8` units (about a nanosecond of one core's work) per point and component
    for b in (0..blocks(x.len() / d, d))
        .par()
        .weight(points_per_call(d) * k * (2 + d + d * d / 8))
    {
        for c in 0..k {
            sub_half_sqnorms(
                mt[points_per_call(d) * k * b..points_per_call(d) * k * (b + 1)],
                &x[points_per_call(d) * d * b..points_per_call(d) * d * (b + 1)],
                mu[c * d..(c + 1) * d],
                qd[c * d..(c + 1) * d],
                l[c * col(d, d)..(c + 1) * col(d, d)],
                0,
                k,
                c,
            );
        }
    }
    // the points after the whole blocks: four at a time, then one at a time
    for c in 0..k {
        sub_half_sqnorms(
            mt[blocks_end(x.len() / d, d) * k..x.len() / d / 4 * 4 * k],
            &x[blocks_end(x.len() / d, d) * d..x.len() / d / 4 * 4 * d],
            mu[c * d..(c + 1) * d],
            qd[c * d..(c + 1) * d],
            l[c * col(d, d)..(c + 1) * col(d, d)],
            0,
            k,
            c,
        );
        for i in 4 * (x.len() / d / 4)..x.len() / d {
            sub_half_sqnorm(
                mt[i * k + c],
                &x[i * d..(i + 1) * d],
                mu[c * d..(c + 1) * d],
                qd[c * d..(c + 1) * d],
                l[c * col(d, d)..(c + 1) * col(d, d)],
            );
        }
    }
    logsumexps_keep(out, e, mt, k);
    // − n·LSE(α)
    logsumexp(la, alpha);
    out -= la * ((x.len() / d) as f64);
    uncall!(logsumexp(la, alpha));
    // the Wishart prior
    for c in 0..k * d {
        w += square(qd[c]);
    }
    for c in 0..l.len() {
        w += square(l[c]);
    }
    out += w * prior.frobenius_weight();
    reverse! {
        for c in 0..k * d {
            w += square(qd[c]);
        }
        for c in 0..l.len() {
            w += square(l[c]);
        }
    }
    for c in 0..k {
        out -= sumq[c] * prior.log_det_weight();
    }
    out += identity(prior.constant);
    uncompute!();
    dealloc!(qd = vec![T::zero(); k * d], sumq = vec![T::zero(); k]);
    dealloc!(la = T::zero(), w = T::zero());
}

/// The number of whole blocks of [`points_per_call`] points among `n` points at dimension
/// `d`: the iterations of [`gmm_objective`]'s parallel loop.
#[inline]
pub fn blocks(n: usize, d: usize) -> usize {
    n / points_per_call(d)
}

/// The first point after the whole [`blocks`].
#[inline]
pub fn blocks_end(n: usize, d: usize) -> usize {
    blocks(n, d) * points_per_call(d)
}
