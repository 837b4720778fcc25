//! Broadcast statements over whole slices (`y[..] += a * x[..]`, NiLang's `y .+= a .* x`):
//! forward values against plain Rust, `f_inv(f(x)) == x`, gradients (`f_vjp`, `f_grad`)
//! against central differences and the inverse program on `GVar`s, on random inputs and
//! lengths; the runtime error for slices of different lengths.

use nilang::ad::check_gradient;
use nilang::{catch, i, CheckKind, GVar, Loss, Real};
use num_complex::Complex;
use proptest::prelude::*;

/// Every form at once: a scalar broadcast (`a`, whose gradient sums over the elements),
/// unary and binary primitives, `-=`, and the builtins `swap`, `rot` (a broadcast angle),
/// `neg`. Checked, and unchecked as `mix_fast` (bounds hoisted, the loop plain).
#[i(unchecked = mix_fast)]
fn mix<T: Real>(y: &mut [T], x: &mut [T], z: &mut [T], a: &mut T) {
    y[..] += a * x[..];
    y[..] += sin(x[..]);
    z[..] += x[..] * y[..];
    z[..] -= exp(x[..]);
    swap(x[..], z[..]);
    rot(x[..], y[..], z[..]);
    neg(y[..]);
    y[..] += 0.5;
}

/// `mix` with every broadcast in parallel (`par!`): each loop runs in chunks.
#[i(unchecked = mix_par_fast)]
fn mix_par<T: Real>(y: &mut [T], x: &mut [T], z: &mut [T], a: &mut T) {
    par! {
        y[..] += a * x[..];
        y[..] += sin(x[..]);
        z[..] += x[..] * y[..];
        z[..] -= exp(x[..]);
        swap(x[..], z[..]);
        rot(x[..], y[..], z[..]);
        neg(y[..]);
        y[..] += 0.5;
    }
}

/// `mix` in plain Rust, element by element: the reference.
fn mix_plain(y: &mut [f64], x: &mut [f64], z: &mut [f64], a: f64) {
    for k in 0..y.len() {
        y[k] += a * x[k];
        y[k] += x[k].sin();
        z[k] += x[k] * y[k];
        z[k] -= x[k].exp();
        std::mem::swap(&mut x[k], &mut z[k]);
        let (s, c) = z[k].sin_cos();
        let (xk, yk) = (x[k], y[k]);
        x[k] = c * xk - s * yk;
        y[k] = s * xk + c * yk;
        y[k] = -y[k];
        y[k] += 0.5;
    }
}

/// A read-only slice operand and a constant expression reading it.
#[i]
fn scaled_shift<T: Real>(y: &mut [T], x: &[T], c: &T) {
    y[..] += c * x[..];
    y[..] -= identity(T::lit(2.0));
}

/// A field of each element: `z[..].re`.
#[i]
fn real_parts<T: Real>(z: &mut [Complex<T>], x: &mut [T]) {
    z[..].re += square(x[..]);
}

/// A nested right-hand side under `expand!`: one ancilla per element.
#[i]
fn expanded<T: Real>(y: &mut [T], x: &mut [T], w: &mut [T]) {
    expand! {
        y[..] += sin(x[..]) * w[..];
    }
}

/// One row of a matrix (`m[r][..]`) inside a user loop whose variable is `i` (no gradients:
/// `[Vec<T>]` is not `Scalars`).
#[i(nograd)]
fn rows<T: Real>(m: &mut [Vec<T>], x: &mut [T], c: &mut [T]) {
    for i in 0..m.len() {
        m[i][..] += x[..] * c[i];
    }
}

/// A part of a slice: `y[1..]` is a slice, and `y[1..][..]` each of its elements.
#[i]
fn shifted_add<T: Real>(y: &mut [T], x: &mut [T]) {
    y[1..][..] += identity(x[..]);
}

/// Integer and boolean slices: `^=` and `flip` broadcast too.
#[i]
fn toggle_all(b: &mut [u64], c: &[u64], f: &mut [bool]) {
    b[..] ^= c[..];
    flip(f[..]);
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * 1f64.max(a.abs()).max(b.abs())
}

fn all_close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(&p, &q)| close(p, q, tol))
}

/// `(y, x, z)` of length `n` and `a`, from a flat parameter vector in that order.
fn unpack(p: &[f64]) -> (Vec<f64>, Vec<f64>, Vec<f64>, f64) {
    let n = (p.len() - 1) / 3;
    (
        p[..n].to_vec(),
        p[n..2 * n].to_vec(),
        p[2 * n..3 * n].to_vec(),
        p[3 * n],
    )
}

fn inputs() -> impl Strategy<Value = Vec<f64>> {
    (0usize..9).prop_flat_map(|n| prop::collection::vec(-1.5f64..1.5, 3 * n + 1))
}

/// Inputs long enough for several chunks of a 4-thread pool (16 chunks).
fn long_inputs() -> impl Strategy<Value = Vec<f64>> {
    (0usize..70).prop_flat_map(|n| prop::collection::vec(-1.5f64..1.5, 3 * n + 1))
}

fn bits(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

/// Runs `f` on a 4-thread pool, splitting even short loops, so that the parallel broadcasts
/// run in chunks on several threads.
fn with_threads<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    nilang::parallel::set_min_parallel_work(1);
    rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .expect("a thread pool")
        .install(f)
}

/// The `(y, x, z, a)` gradients of `mix` (`mix_par` when `par`) by its adjoint program, for
/// the loss weights `w`; checked or unchecked (`fast`).
fn mix_gradient(p: &[f64], w: &[f64], par: bool, fast: bool) -> Vec<f64> {
    let (mut y, mut x, mut z, mut a) = unpack(p);
    let n = y.len();
    let (mut yg, mut xg, mut zg, mut ag) = (
        w[..n].to_vec(),
        w[n..2 * n].to_vec(),
        w[2 * n..3 * n].to_vec(),
        w[3 * n],
    );
    let args = (
        &mut y, &mut yg, &mut x, &mut xg, &mut z, &mut zg, &mut a, &mut ag,
    );
    match (par, fast) {
        (false, false) => mix_vjp(
            args.0, args.1, args.2, args.3, args.4, args.5, args.6, args.7,
        ),
        (false, true) => mix_fast_vjp(
            args.0, args.1, args.2, args.3, args.4, args.5, args.6, args.7,
        ),
        (true, false) => mix_par_vjp(
            args.0, args.1, args.2, args.3, args.4, args.5, args.6, args.7,
        ),
        (true, true) => mix_par_fast_vjp(
            args.0, args.1, args.2, args.3, args.4, args.5, args.6, args.7,
        ),
    };
    let mut g = [yg, xg, zg].concat();
    g.push(ag);
    g
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn mix_matches_plain_rust_and_reverses(p in inputs()) {
        let (y0, x0, z0, a0) = unpack(&p);
        let (mut y, mut x, mut z, mut a) = (y0.clone(), x0.clone(), z0.clone(), a0);
        mix(&mut y, &mut x, &mut z, &mut a);
        let (mut yr, mut xr, mut zr) = (y0.clone(), x0.clone(), z0.clone());
        mix_plain(&mut yr, &mut xr, &mut zr, a0);
        prop_assert!(all_close(&y, &yr, 1e-14) && all_close(&x, &xr, 1e-14) && all_close(&z, &zr, 1e-14));
        // the unchecked program computes the same values to the bit
        let (mut yf, mut xf, mut zf, mut af) = (y0.clone(), x0.clone(), z0.clone(), a0);
        mix_fast(&mut yf, &mut xf, &mut zf, &mut af);
        prop_assert_eq!((&yf, &xf, &zf), (&y, &x, &z));
        mix_inv(&mut y, &mut x, &mut z, &mut a);
        prop_assert!(all_close(&y, &y0, 1e-12) && all_close(&x, &x0, 1e-12) && all_close(&z, &z0, 1e-12));
        prop_assert_eq!(a, a0);
        mix_fast_inv(&mut yf, &mut xf, &mut zf, &mut af);
        prop_assert!(all_close(&yf, &y0, 1e-12) && all_close(&zf, &z0, 1e-12));
    }

    #[test]
    fn mix_gradients_agree_with_differences_and_gvar(p in inputs(), w in prop::collection::vec(-1.0f64..1.0, 8 * 3 + 1)) {
        let (y0, x0, z0, a0) = unpack(&p);
        let n = y0.len();
        // the loss: a weighted sum of every output
        let (wy, wx, wz, wa) = (&w[..n], &w[8..8 + n], &w[16..16 + n], w[24]);
        let loss = |q: &[f64]| {
            let (mut y, mut x, mut z, mut a) = unpack(q);
            mix(&mut y, &mut x, &mut z, &mut a);
            let dot = |u: &[f64], v: &[f64]| u.iter().zip(v).map(|(p, q)| p * q).sum::<f64>();
            dot(&y, wy) + dot(&x, wx) + dot(&z, wz) + wa * a
        };
        let (mut y, mut x, mut z, mut a) = (y0.clone(), x0.clone(), z0.clone(), a0);
        let (mut yg, mut xg, mut zg, mut ag) = (wy.to_vec(), wx.to_vec(), wz.to_vec(), wa);
        mix_vjp(&mut y, &mut yg, &mut x, &mut xg, &mut z, &mut zg, &mut a, &mut ag);
        let mut grad = [yg.clone(), xg.clone(), zg.clone()].concat();
        grad.push(ag);
        prop_assert!(check_gradient(loss, &p, &grad, 1e-6, 1e-6).is_ok());
        // the unchecked vjp and the inverse program on GVars agree
        let (mut y, mut x, mut z, mut a) = (y0.clone(), x0.clone(), z0.clone(), a0);
        let (mut yg2, mut xg2, mut zg2, mut ag2) = (wy.to_vec(), wx.to_vec(), wz.to_vec(), wa);
        mix_fast_vjp(&mut y, &mut yg2, &mut x, &mut xg2, &mut z, &mut zg2, &mut a, &mut ag2);
        prop_assert!(all_close(&[yg2, xg2, zg2, vec![ag2]].concat(), &grad, 1e-13));
        let (mut y, mut x, mut z, mut a) = (y0.clone(), x0.clone(), z0.clone(), a0);
        mix(&mut y, &mut x, &mut z, &mut a);
        let g = |v: &[f64], s: &[f64]| -> Vec<GVar<f64>> {
            v.iter().zip(s).map(|(&v, &s)| GVar::with_grad(v, s)).collect()
        };
        let (mut gy, mut gx, mut gz, mut ga) = (g(&y, wy), g(&x, wx), g(&z, wz), GVar::with_grad(a, wa));
        mix_inv(&mut gy, &mut gx, &mut gz, &mut ga);
        let mut via_gvar: Vec<f64> = gy.iter().chain(&gx).chain(&gz).map(|v| v.g).collect();
        via_gvar.push(ga.g);
        prop_assert!(all_close(&via_gvar, &grad, 1e-12));
    }

    #[test]
    fn scalar_and_read_only_operands(x0 in prop::collection::vec(-2.0f64..2.0, 0..7), c in -2.0f64..2.0) {
        let mut y = vec![1.0; x0.len()];
        scaled_shift(&mut y, &x0, &c);
        let want: Vec<f64> = x0.iter().map(|x| 1.0 + c * x - 2.0).collect();
        prop_assert!(all_close(&y, &want, 1e-15));
        scaled_shift_inv(&mut y, &x0, &c);
        prop_assert!(y.iter().all(|&v| close(v, 1.0, 1e-15)));
    }

    #[test]
    fn fields_expand_and_rows(x0 in prop::collection::vec(-2.0f64..2.0, 0..6), w0 in prop::collection::vec(-2.0f64..2.0, 6)) {
        let n = x0.len();
        // z[..].re += x[..]²
        let mut z = vec![Complex::new(0.5, -1.0); n];
        let mut x = x0.clone();
        real_parts(&mut z, &mut x);
        prop_assert!(z.iter().zip(&x0).all(|(z, x)| z.re == 0.5 + x * x && z.im == -1.0));
        real_parts_inv(&mut z, &mut x);
        prop_assert!(z.iter().all(|z| close(z.re, 0.5, 1e-15)));
        // expand!: y[..] += sin(x[..]) * w[..], and its gradient
        let w0 = &w0[..n];
        let (mut y, mut x, mut w) = (vec![0.0; n], x0.clone(), w0.to_vec());
        expanded(&mut y, &mut x, &mut w);
        let want: Vec<f64> = x0.iter().zip(w0).map(|(x, w)| x.sin() * w).collect();
        prop_assert!(all_close(&y, &want, 1e-15));
        let (mut y, mut x, mut w) = (vec![0.0; n], x0.clone(), w0.to_vec());
        let (mut yg, mut xg, mut wg) = (vec![1.0; n], vec![0.0; n], vec![0.0; n]);
        expanded_vjp(&mut y, &mut yg, &mut x, &mut xg, &mut w, &mut wg);
        let dx: Vec<f64> = x0.iter().zip(w0).map(|(x, w)| x.cos() * w).collect();
        let dw: Vec<f64> = x0.iter().map(|x| x.sin()).collect();
        prop_assert!(all_close(&xg, &dx, 1e-15) && all_close(&wg, &dw, 1e-15));
        // rows: m[i][..] += x[..] * c[i]
        let mut m = vec![vec![1.0; n]; n];
        let (mut x, mut c) = (x0.clone(), w0.to_vec());
        rows(&mut m, &mut x, &mut c);
        for (r, row) in m.iter().enumerate() {
            let want: Vec<f64> = x0.iter().map(|x| 1.0 + x * w0[r]).collect();
            prop_assert!(all_close(row, &want, 1e-15));
        }
        rows_inv(&mut m, &mut x, &mut c);
        prop_assert!(m.iter().flatten().all(|&v| close(v, 1.0, 1e-14)));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// `par!`: the same values as the sequential broadcasts, bit for bit (every element is
    /// computed by one iteration, as in the sequential loop); the inverse restores; the
    /// gradients of the slices are the sequential ones bit for bit, and the broadcast scalar's
    /// (a sum over the elements, regrouped by chunks) within 1e-12.
    #[test]
    fn par_broadcasts_equal_the_sequential_ones(p in long_inputs(), w in prop::collection::vec(-1.0f64..1.0, 3 * 70 + 1)) {
        let (y0, x0, z0, a0) = unpack(&p);
        let n = y0.len();
        let w = [&w[..3 * n], &w[3 * 70..]].concat();
        for fast in [false, true] {
            let (mut y, mut x, mut z, mut a) = (y0.clone(), x0.clone(), z0.clone(), a0);
            mix(&mut y, &mut x, &mut z, &mut a);
            let (mut yp, mut xp, mut zp, mut ap) = (y0.clone(), x0.clone(), z0.clone(), a0);
            with_threads(|| if fast {
                mix_par_fast(&mut yp, &mut xp, &mut zp, &mut ap)
            } else {
                mix_par(&mut yp, &mut xp, &mut zp, &mut ap)
            });
            prop_assert_eq!((bits(&yp), bits(&xp), bits(&zp)), (bits(&y), bits(&x), bits(&z)));
            with_threads(|| if fast {
                mix_par_fast_inv(&mut yp, &mut xp, &mut zp, &mut ap)
            } else {
                mix_par_inv(&mut yp, &mut xp, &mut zp, &mut ap)
            });
            mix_inv(&mut y, &mut x, &mut z, &mut a);
            prop_assert_eq!((bits(&yp), bits(&xp), bits(&zp)), (bits(&y), bits(&x), bits(&z)));
            prop_assert!(all_close(&yp, &y0, 1e-12) && all_close(&xp, &x0, 1e-12) && all_close(&zp, &z0, 1e-12));
            let seq = mix_gradient(&p, &w, false, fast);
            let par = with_threads(|| mix_gradient(&p, &w, true, fast));
            prop_assert_eq!(bits(&par[..3 * n]), bits(&seq[..3 * n]));
            prop_assert!(close(par[3 * n], seq[3 * n], 1e-12));
        }
    }
}

#[test]
fn f_grad_of_a_broadcast_element() {
    // ∂y[1]/∂(y, x, z, a) for mix at a fixed point, against central differences
    let (y0, x0, z0, a0) = (
        vec![0.3, -0.2, 0.9],
        vec![0.1, 0.7, -0.4],
        vec![1.1, 0.2, -0.6],
        0.8,
    );
    let (mut y, mut x, mut z, mut a) = (y0.clone(), x0.clone(), z0.clone(), a0);
    let (gy, gx, gz, ga) = mix_grad(Loss::elem(0, 1), &mut y, &mut x, &mut z, &mut a).unwrap();
    let mut grad: Vec<f64> = gy.iter().chain(&gx).chain(&gz).map(|v| v.g).collect();
    grad.push(ga.g);
    let loss = |q: &[f64]| {
        let (mut y, mut x, mut z, mut a) = unpack(q);
        mix(&mut y, &mut x, &mut z, &mut a);
        y[1]
    };
    let p = [y0, x0, z0, vec![a0]].concat();
    check_gradient(loss, &p, &grad, 1e-6, 1e-7).unwrap();
    // only element 1 of each slice and the broadcast scalar take part
    assert!(grad[1] != 0.0 && grad[0] == 0.0 && grad[2] == 0.0 && grad[9] != 0.0);
}

#[test]
fn slices_of_different_lengths_are_a_runtime_error() {
    let (mut y, mut x, mut z, mut a) = (vec![0.0; 3], vec![0.0; 4], vec![0.0; 3], 1.0);
    let err = catch(|| mix(&mut y, &mut x, &mut z, &mut a)).unwrap_err();
    assert_eq!(err.kind, CheckKind::BroadcastLength);
    assert_eq!(err.function, "mix");
    assert_eq!(err.statement, "y[..] += a * x[..];");
    assert_eq!(err.variable, "y, x");
    assert_eq!(err.found, "y.len() = 3, x.len() = 4");
    // nothing was changed: the check runs before the loop
    assert_eq!((y, x), (vec![0.0; 3], vec![0.0; 4]));
    // the unchecked program checks the lengths too
    let (mut y, mut x, mut z) = (vec![0.0; 2], vec![0.0; 2], vec![0.0; 5]);
    let err = catch(|| mix_fast(&mut y, &mut x, &mut z, &mut a)).unwrap_err();
    assert_eq!(err.found, "z.len() = 5, x.len() = 2, y.len() = 2");
    // the inverse names itself and the inverse statement, as its other runtime checks do
    let (mut y, mut x, mut z) = (vec![0.0; 3], vec![0.0; 3], vec![0.0; 4]);
    let err = catch(|| mix_inv(&mut y, &mut x, &mut z, &mut a)).unwrap_err();
    assert_eq!(err.kind, CheckKind::BroadcastLength);
    assert_eq!(
        (err.function, err.statement),
        ("mix_inv", "irot(x[..], y[..], z[..]);")
    );
    assert_eq!(err.found, "x.len() = 3, y.len() = 3, z.len() = 4");
}

#[test]
fn stdlib_axpy_is_a_broadcast() {
    let (mut a, mut x, mut y) = (2.0, vec![1.0, -1.0, 0.5], vec![0.0, 1.0, 2.0]);
    nilang::blas::i_axpy(&mut a, &mut x, &mut y);
    assert_eq!(y, [2.0, -1.0, 3.0]);
    nilang::blas::i_axpy_inv(&mut a, &mut x, &mut y);
    assert_eq!(y, [0.0, 1.0, 2.0]);
    let mut short = vec![0.0; 2];
    let err = catch(|| nilang::blas::i_axpy(&mut a, &mut x, &mut short)).unwrap_err();
    assert_eq!(err.kind, CheckKind::BroadcastLength);
    assert_eq!(
        (err.function, err.found.as_str()),
        ("i_axpy", "y.len() = 2, x.len() = 3")
    );
}

#[test]
fn xor_and_flip_broadcast() {
    let (mut b, c, mut f) = (vec![0b1010u64, 7], vec![0b0110u64, 7], vec![true, false]);
    toggle_all(&mut b, &c, &mut f);
    assert_eq!((b.clone(), f.clone()), (vec![0b1100, 0], vec![false, true]));
    toggle_all_inv(&mut b, &c, &mut f);
    assert_eq!((b, f), (vec![0b1010, 7], vec![true, false]));
}

#[test]
fn a_part_of_a_slice_broadcasts_through_its_range() {
    let (mut y, mut x) = (vec![1.0, 2.0, 3.0], vec![10.0, 20.0]);
    shifted_add(&mut y, &mut x);
    assert_eq!(y, [1.0, 12.0, 23.0]);
    shifted_add_inv(&mut y, &mut x);
    assert_eq!(y, [1.0, 2.0, 3.0]);
    let err = catch(|| shifted_add(&mut y, &mut vec![0.0; 3])).unwrap_err();
    assert_eq!(err.found, "y[1..].len() = 2, x.len() = 3");
}
