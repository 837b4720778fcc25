//! The standard-library functions NiLang.jl has (`nilang::stdlib`): each against a plain-Rust
//! reference on random inputs (proptest), its inverse restoring every argument, and its
//! gradient three ways — the shadow adjoint (`f_vjp`), the inverse program run on `GVar`s
//! (`f_inv::<GVar<f64>>`), and central differences.
//!
//! Every function is seen through one flat list of scalars (its outputs first, then its
//! inputs), so that one set of checks ([`check`]) serves them all; the macro [`flat!`] says
//! how the list is cut into the function's arguments.

use nilang::ad::check_gradient;
use nilang::stdlib::blas::*;
use nilang::stdlib::fft::*;
use nilang::stdlib::linalg::*;
use nilang::stdlib::nn::*;
use nilang::stdlib::stats::*;
use nilang::{GVar, Real};
use num_complex::Complex;
use proptest::prelude::*;

const CASES: u32 = 16;

/// Cuts `v` into consecutive pieces of the given lengths (which must add up to its length).
fn parts<'a, T>(mut v: &'a mut [T], lens: &[usize]) -> Vec<&'a mut [T]> {
    let mut out = Vec::new();
    for &l in lens {
        let (a, b) = std::mem::take(&mut v).split_at_mut(l);
        out.push(a);
        v = b;
    }
    assert!(v.is_empty(), "the pieces do not cover the list");
    out
}

/// A piece of the flat list seen as complex numbers (re, im pairs) for the length of one
/// call: copied in on creation, written back when dropped (at the end of the statement).
struct AsComplex<'a, T: Copy> {
    flat: &'a mut [T],
    buf: Vec<Complex<T>>,
}

impl<'a, T: Copy> AsComplex<'a, T> {
    fn new(flat: &'a mut [T]) -> Self {
        let buf = flat.chunks(2).map(|c| Complex::new(c[0], c[1])).collect();
        AsComplex { flat, buf }
    }
}

impl<T: Copy> Drop for AsComplex<'_, T> {
    fn drop(&mut self) {
        for (c, z) in self.flat.chunks_mut(2).zip(&self.buf) {
            c[0] = z.re;
            c[1] = z.im;
        }
    }
}

/// One argument cut from the list: `s` a scalar, `v` a slice, `z` a complex number, `c` a
/// slice of complex numbers.
macro_rules! arg {
    (s, $x:expr) => {
        &mut $x[0]
    };
    (v, $x:expr) => {
        $x
    };
    (c, $x:expr) => {
        &mut AsComplex::new($x).buf[..]
    };
    (z, $x:expr) => {
        &mut AsComplex::new($x).buf[0]
    };
}

/// A reversible function over a flat list: `flat!(f, f_inv, f_vjp, outputs, [kind len, …],
/// extra read-only arguments…)`.
macro_rules! flat {
    ($f:ident, $f_inv:ident, $vjp:ident, $outputs:expr, [$($kind:ident $len:expr),*] $(, $extra:expr)*) => {{
        let lens = vec![$($len),*];
        Flat {
            outputs: $outputs,
            run: Box::new({
                let lens = lens.clone();
                move |v: &mut [f64]| {
                    let mut it = parts(v, &lens).into_iter();
                    $f($(arg!($kind, it.next().unwrap())),* $(, $extra)*);
                }
            }),
            run_inv: Box::new({
                let lens = lens.clone();
                move |v: &mut [f64]| {
                    let mut it = parts(v, &lens).into_iter();
                    $f_inv($(arg!($kind, it.next().unwrap())),* $(, $extra)*);
                }
            }),
            gvar_inv: Box::new({
                let lens = lens.clone();
                move |v: &mut [GVar<f64>]| {
                    let mut it = parts(v, &lens).into_iter();
                    $f_inv($(arg!($kind, it.next().unwrap())),* $(, $extra)*);
                }
            }),
            vjp: Box::new(move |v: &mut [f64], g: &mut [f64]| {
                let (mut vi, mut gi) = (parts(v, &lens).into_iter(), parts(g, &lens).into_iter());
                $vjp($(arg!($kind, vi.next().unwrap()), arg!($kind, gi.next().unwrap())),* $(, $extra, ())*);
            }),
        }
    }};
}

type Run<T> = Box<dyn Fn(&mut [T])>;

/// A function in the four forms the checks run.
struct Flat {
    /// How many scalars at the front of the list are outputs (the rest are only read).
    outputs: usize,
    run: Run<f64>,
    run_inv: Run<f64>,
    gvar_inv: Run<GVar<f64>>,
    vjp: Box<dyn Fn(&mut [f64], &mut [f64])>,
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * 1f64.max(a.abs()).max(b.abs())
}

fn assert_close(what: &str, got: &[f64], want: &[f64], tol: f64) -> Result<(), TestCaseError> {
    prop_assert_eq!(got.len(), want.len(), "{}: lengths", what);
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        prop_assert!(
            close(*a, *b, tol),
            "{what}[{i}]: got {a}, want {b} (tol {tol})"
        );
    }
    Ok(())
}

/// The checks every function gets, at the list `v0`:
/// - forward: the outputs are `want` (within `tol`), the inputs unchanged bit for bit;
/// - inverse: every scalar back to `v0` (within `tol`);
/// - gradient of the loss `Σₖ wₖ·outₖ` (fixed weights), with respect to every scalar of the
///   list: `f_vjp` and the `GVar` inverse agree (to `1e-12`), and central differences with
///   step `h` agree (to `grad_tol`).
fn check(
    f: &Flat,
    v0: &[f64],
    want: &[f64],
    tol: f64,
    h: f64,
    grad_tol: f64,
) -> Result<(), TestCaseError> {
    let n_out = f.outputs;
    let mut v = v0.to_vec();
    (f.run)(&mut v);
    assert_close("forward", &v[..n_out], want, tol)?;
    prop_assert_eq!(&v[n_out..], &v0[n_out..], "forward changed an input");
    (f.run_inv)(&mut v);
    assert_close("inverse", &v, v0, tol)?;

    let w: Vec<f64> = (0..n_out)
        .map(|k| 1.0 + 0.5 * (k as f64 * 0.9).sin())
        .collect();
    let seed = |k: usize| if k < n_out { w[k] } else { 0.0 };
    // the shadow adjoint
    let mut v = v0.to_vec();
    let mut g: Vec<f64> = (0..v.len()).map(seed).collect();
    (f.vjp)(&mut v, &mut g);
    assert_close("f_vjp restores", &v, v0, tol)?;
    // the inverse program on GVars, after the forward on f64
    let mut v = v0.to_vec();
    (f.run)(&mut v);
    let mut gv: Vec<GVar<f64>> = v
        .iter()
        .enumerate()
        .map(|(k, &x)| GVar::with_grad(x, seed(k)))
        .collect();
    (f.gvar_inv)(&mut gv);
    let gvar_grad: Vec<f64> = gv.iter().map(|x| x.g).collect();
    assert_close("f_vjp vs GVar", &g, &gvar_grad, 1e-12)?;
    // central differences
    let loss = |p: &[f64]| {
        let mut v = p.to_vec();
        (f.run)(&mut v);
        v[..n_out].iter().zip(&w).map(|(a, b)| a * b).sum::<f64>()
    };
    if let Err(e) = check_gradient(loss, v0, &g, h, grad_tol) {
        prop_assert!(false, "gradient vs central differences: {e}");
    }
    Ok(())
}

fn vec_of(n: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-2.0f64..2.0, n)
}

fn concat(parts: &[&[f64]]) -> Vec<f64> {
    parts.concat()
}

// ---------- references ----------

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// Σ (xᵢ − x̄)(yᵢ − ȳ)
fn co_deviation(x: &[f64], y: &[f64]) -> f64 {
    let (mx, my) = (mean(x), mean(y));
    x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum()
}

fn inverse_ref(a: &[f64], n: usize) -> Vec<f64> {
    let m = nalgebra::DMatrix::from_row_slice(n, n, a);
    let inv = m.try_inverse().expect("invertible");
    inv.transpose().as_slice().to_vec() // column-major storage of the transpose: row-major
}

/// The unitary DFT by its definition, O(n²).
fn dft_ref(x: &[Complex<f64>]) -> Vec<Complex<f64>> {
    let n = x.len();
    let scale = 1.0 / (n as f64).sqrt();
    (0..n)
        .map(|k| {
            let s: Complex<f64> = (0..n)
                .map(|j| {
                    x[j] * Complex::from_polar(
                        1.0,
                        -2.0 * std::f64::consts::PI * (j * k) as f64 / n as f64,
                    )
                })
                .sum();
            s * scale
        })
        .collect()
}

fn to_complex(flat: &[f64]) -> Vec<Complex<f64>> {
    flat.chunks(2).map(|c| Complex::new(c[0], c[1])).collect()
}

fn to_flat(z: &[Complex<f64>]) -> Vec<f64> {
    z.iter().flat_map(|c| [c.re, c.im]).collect()
}

/// A well-conditioned matrix: random entries plus `n` on the diagonal... or, for pivoting,
/// a random permutation of such rows.
fn invertible(n: usize) -> impl Strategy<Value = Vec<f64>> {
    (
        vec_of(n * n),
        Just(n).prop_flat_map(|n| Just((0..n).collect::<Vec<usize>>()).prop_shuffle()),
    )
        .prop_map(move |(mut a, perm)| {
            for i in 0..n {
                a[i * n + i] += if a[i * n + i] >= 0.0 {
                    n as f64
                } else {
                    -(n as f64)
                };
            }
            let mut p = vec![0.0; n * n];
            for (i, &r) in perm.iter().enumerate() {
                p[i * n..(i + 1) * n].copy_from_slice(&a[r * n..(r + 1) * n]);
            }
            p
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn axpy(n in 0usize..6, seed in vec_of(13), y_shift in -1.0f64..1.0) {
        let (a, x) = (seed[0], &seed[1..=n]);
        let y: Vec<f64> = (0..n).map(|i| y_shift + i as f64).collect();
        let want: Vec<f64> = (0..n).map(|i| y[i] + a * x[i]).collect();
        // the output first: `axpy_yax` is `i_axpy` with the arguments reordered
        let f = flat!(axpy_yax, axpy_yax_inv, axpy_yax_vjp, n, [v n, s 1, v n]);
        check(&f, &concat(&[&y, &[a], x]), &want, 1e-14, 1e-6, 1e-7)?;
    }

    #[test]
    fn sqdistance(n in 0usize..6, seed in vec_of(12), d0 in -1.0f64..1.0) {
        let (x1, x2) = (&seed[..n], &seed[6..6 + n]);
        let want = d0 + x1.iter().zip(x2).map(|(a, b)| (a - b) * (a - b)).sum::<f64>();
        let f = flat!(i_sqdistance, i_sqdistance_inv, i_sqdistance_vjp, 1, [s 1, v n, v n]);
        check(&f, &concat(&[&[d0], x1, x2]), &[want], 1e-14, 1e-6, 1e-7)?;
    }

    #[test]
    fn norm(x in prop::collection::vec(0.5f64..2.0, 1..6), o0 in -1.0f64..1.0) {
        let n = x.len();
        let want = o0 + x.iter().map(|v| v * v).sum::<f64>().sqrt();
        let f = flat!(i_norm, i_norm_inv, i_norm_vjp, 1, [s 1, v n]);
        check(&f, &concat(&[&[o0], &x]), &[want], 1e-14, 1e-6, 1e-7)?;
    }

    #[test]
    fn complex_dot_conjugates_the_first(n in 0usize..5, seed in vec_of(20), o in vec_of(2)) {
        let (x, y) = (&seed[..2 * n], &seed[10..10 + 2 * n]);
        let dot: Complex<f64> = to_complex(x).iter().zip(to_complex(y)).map(|(a, b)| a.conj() * b).sum();
        let want = [o[0] + dot.re, o[1] + dot.im];
        let f = flat!(i_cdot, i_cdot_inv, i_cdot_vjp, 2, [z 2, c 2 * n, c 2 * n]);
        check(&f, &concat(&[&o, x, y]), &want, 1e-14, 1e-6, 1e-7)?;
    }

    #[test]
    fn complex_norms(n in 1usize..5, x in vec_of(10), o0 in -1.0f64..1.0) {
        let x = &x[..2 * n];
        let sq: f64 = x.iter().map(|v| v * v).sum();
        prop_assume!(sq > 1e-3);
        let f = flat!(i_cnorm2, i_cnorm2_inv, i_cnorm2_vjp, 1, [s 1, c 2 * n]);
        check(&f, &concat(&[&[o0], x]), &[o0 + sq], 1e-14, 1e-6, 1e-7)?;
        let f = flat!(i_cnorm, i_cnorm_inv, i_cnorm_vjp, 1, [s 1, c 2 * n]);
        check(&f, &concat(&[&[o0], x]), &[o0 + sq.sqrt()], 1e-14, 1e-6, 1e-6)?;
    }

    #[test]
    fn mean_sum(x in prop::collection::vec(-2.0f64..2.0, 1..8)) {
        let n = x.len();
        let s: f64 = x.iter().sum();
        let f = flat!(i_mean_sum, i_mean_sum_inv, i_mean_sum_vjp, 2, [s 1, s 1, v n]);
        check(&f, &concat(&[&[0.0, 0.0], &x]), &[s / n as f64, s], 1e-14, 1e-6, 1e-7)?;
    }

    #[test]
    fn var_mean_sum_is_the_sample_variance(x in prop::collection::vec(-2.0f64..2.0, 2..8)) {
        let n = x.len();
        let (s, m) = (x.iter().sum::<f64>(), mean(&x));
        let ss = co_deviation(&x, &x);
        let want = [ss / (n - 1) as f64, ss, m, s];
        let f = flat!(i_var_mean_sum, i_var_mean_sum_inv, i_var_mean_sum_vjp, 4, [s 1, s 1, s 1, s 1, v n]);
        check(&f, &concat(&[&[0.0; 4], &x]), &want, 1e-13, 1e-6, 1e-6)?;
    }

    #[test]
    fn cor_cov(n in 2usize..7, seed in vec_of(14)) {
        let (a, b) = (&seed[..n], &seed[7..7 + n]);
        let (saa, sbb, sab) = (co_deviation(a, a), co_deviation(b, b), co_deviation(a, b));
        prop_assume!(saa > 1e-2 && sbb > 1e-2);
        let want = [sab / (saa * sbb).sqrt(), sab / (n - 1) as f64];
        let f = flat!(i_cor_cov, i_cor_cov_inv, i_cor_cov_vjp, 2, [s 1, s 1, v n, v n]);
        check(&f, &concat(&[&[0.0, 0.0], a, b]), &want, 1e-12, 1e-6, 1e-5)?;
    }

    #[test]
    fn normal_logpdf(x in -3.0f64..3.0, mu in -1.0f64..1.0, sigma in 0.3f64..3.0, o0 in -1.0f64..1.0) {
        let z = (x - mu) / sigma;
        let want = o0 - z * z / 2.0 - sigma.ln() - (2.0 * std::f64::consts::PI).ln() / 2.0;
        let f = flat!(i_normal_logpdf, i_normal_logpdf_inv, i_normal_logpdf_vjp, 1, [s 1, s 1, s 1, s 1]);
        check(&f, &[o0, x, mu, sigma], &[want], 1e-14, 1e-6, 1e-6)?;
    }

    #[test]
    fn relu(x in prop::collection::vec(-2.0f64..2.0, 0..6), y_shift in -1.0f64..1.0) {
        // away from the kink, where the central difference straddles it
        prop_assume!(x.iter().all(|v| v.abs() > 1e-3));
        let n = x.len();
        let y = vec![y_shift; n];
        let want: Vec<f64> = x.iter().map(|v| y_shift + v.max(0.0)).collect();
        let f = flat!(i_relu_each, i_relu_each_inv, i_relu_each_vjp, n, [v n, v n]);
        check(&f, &concat(&[&y, &x]), &want, 1e-15, 1e-6, 1e-7)?;
    }

    #[test]
    fn inverse_matrix(a in (1usize..5).prop_flat_map(invertible)) {
        let n = (a.len() as f64).sqrt() as usize;
        let out0 = vec![0.25; n * n];
        let want: Vec<f64> = inverse_ref(&a, n).iter().map(|v| v + 0.25).collect();
        let f = flat!(i_inv, i_inv_inv, i_inv_vjp, n * n, [v n * n, v n * n], n);
        check(&f, &concat(&[&out0, &a]), &want, 1e-12, 1e-6, 1e-5)?;
    }

    #[test]
    fn fft_is_the_unitary_dft(bits in 0u32..5, seed in vec_of(32)) {
        let n = 1usize << bits;
        let x = &seed[..2 * n];
        let want = to_flat(&dft_ref(&to_complex(x)));
        let f = flat!(i_fft, i_fft_inv, i_fft_vjp, 2 * n, [c 2 * n]);
        check(&f, x, &want, 1e-13, 1e-6, 1e-7)?;
    }
}

/// `i_axpy` with the output first, so that the flat list starts with it.
#[nilang::i]
fn axpy_yax<T: Real>(y: &mut [T], a: &mut T, x: &mut [T]) {
    i_axpy(a, x, y);
}

// ---------- functions that push onto stacks: the outputs' length depends on the input ----------

use nilang::stdlib::mapreduce::{i_filter, i_filter_adjoint, i_filter_inv};
use nilang::stdlib::sorting::{i_ascending, i_ascending_adjoint, i_ascending_inv};

/// The running maxima of `a` and their indices, by a plain scan.
fn ascending_ref(a: &[f64]) -> (Vec<f64>, Vec<usize>) {
    let (mut xs, mut inds) = (Vec::new(), Vec::new());
    for (i, &v) in a.iter().enumerate() {
        if xs.last().is_none_or(|&top| v > top) {
            xs.push(v);
            inds.push(i);
        }
    }
    (xs, inds)
}

fn weights(n: usize) -> Vec<f64> {
    (0..n).map(|k| 1.0 + 0.5 * (k as f64 * 0.9).sin()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn ascending(a0 in prop::collection::vec(-2.0f64..2.0, 0..10)) {
        let (xs_want, inds_want) = ascending_ref(&a0);
        let (mut xs, mut inds, mut a) = (Vec::new(), Vec::new(), a0.clone());
        i_ascending(&mut xs, &mut inds, &mut a);
        prop_assert_eq!((&xs, &inds, &a), (&xs_want, &inds_want, &a0));
        // the adjoint, from the gradient of Σ wₖ xsₖ
        let w = weights(xs.len());
        let (mut xs_grad, mut inds_grad, mut a_grad) = (w.clone(), vec![0; inds.len()], vec![0.0; a.len()]);
        i_ascending_adjoint(&mut xs, &mut xs_grad, &mut inds, &mut inds_grad, &mut a, &mut a_grad);
        prop_assert!(xs.is_empty() && inds.is_empty() && a == a0);
        let mut want = vec![0.0; a0.len()];
        for (k, &i) in inds_want.iter().enumerate() {
            want[i] = w[k];
        }
        prop_assert_eq!(&a_grad, &want);
        // the GVar inverse gives the same
        let (mut xs, mut inds, mut a) = (Vec::new(), Vec::new(), a0.clone());
        i_ascending(&mut xs, &mut inds, &mut a);
        let mut gxs: Vec<GVar<f64>> = xs.iter().zip(&w).map(|(&x, &g)| GVar::with_grad(x, g)).collect();
        let mut ga: Vec<GVar<f64>> = a.iter().map(|&x| GVar::new(x)).collect();
        i_ascending_inv(&mut gxs, &mut inds, &mut ga);
        prop_assert!(gxs.is_empty() && inds.is_empty());
        prop_assert_eq!(ga.iter().map(|v| v.g).collect::<Vec<_>>(), want);
        // and central differences (random inputs have no ties)
        let loss = |a: &[f64]| ascending_ref(a).0.iter().zip(&w).map(|(x, w)| x * w).sum::<f64>();
        prop_assert!(check_gradient(loss, &a0, &a_grad, 1e-7, 1e-6).is_ok());
    }

    #[test]
    fn filter(x0 in prop::collection::vec(-2.0f64..2.0, 0..10), threshold in -1.0f64..1.0) {
        let keep = |v: f64| v > threshold;
        let want: Vec<f64> = x0.iter().copied().filter(|&v| keep(v)).collect();
        let (mut out, mut x) = (Vec::new(), x0.clone());
        i_filter(&mut out, &mut x, &keep);
        prop_assert_eq!((&out, &x), (&want, &x0));
        let w = weights(out.len());
        let (mut out_grad, mut x_grad) = (w.clone(), vec![0.0; x.len()]);
        i_filter_adjoint(&mut out, &mut out_grad, &mut x, &mut x_grad, &keep, ());
        prop_assert!(out.is_empty() && x == x0);
        let kept: Vec<usize> = (0..x0.len()).filter(|&i| keep(x0[i])).collect();
        let mut grad_want = vec![0.0; x0.len()];
        for (k, &i) in kept.iter().enumerate() {
            grad_want[i] = w[k];
        }
        prop_assert_eq!(&x_grad, &grad_want);
        let (mut out, mut x) = (Vec::new(), x0.clone());
        i_filter(&mut out, &mut x, &keep);
        let mut gout: Vec<GVar<f64>> = out.iter().zip(&w).map(|(&v, &g)| GVar::with_grad(v, g)).collect();
        let mut gx: Vec<GVar<f64>> = x.iter().map(|&v| GVar::new(v)).collect();
        i_filter_inv(&mut gout, &mut gx, &keep);
        prop_assert!(gout.is_empty());
        prop_assert_eq!(gx.iter().map(|v| v.g).collect::<Vec<_>>(), grad_want);
        prop_assume!(x0.iter().all(|v| (v - threshold).abs() > 1e-5));
        let loss = |x: &[f64]| {
            x.iter().filter(|&&v| keep(v)).zip(&w).map(|(v, w)| v * w).sum::<f64>()
        };
        prop_assert!(check_gradient(loss, &x0, &x_grad, 1e-7, 1e-6).is_ok());
    }
}

/// The Jacobian of the unitary FFT over the real and imaginary parts (through
/// `f_jacobian`, on a `&mut [Complex<f64>]` argument) is orthogonal, and its columns are the
/// transforms of the unit vectors.
#[test]
fn fft_jacobian_is_orthogonal() {
    for bits in 0..4 {
        let n = 1usize << bits;
        let mut x: Vec<Complex<f64>> = (0..n)
            .map(|j| Complex::new(j as f64 * 0.3, 1.0 - j as f64))
            .collect();
        let jac = i_fft_jacobian(&mut x).unwrap();
        let m = 2 * n;
        for r in 0..m {
            for c in 0..m {
                let dot: f64 = (0..m).map(|k| jac.get(r, k) * jac.get(c, k)).sum();
                let want = if r == c { 1.0 } else { 0.0 };
                assert!((dot - want).abs() < 1e-13, "n={n} (J Jᵀ)[{r}][{c}] = {dot}");
            }
        }
        // column 2j (re of input j) is the transform of e_j
        for j in 0..n {
            let mut e = vec![Complex::new(0.0, 0.0); n];
            e[j] = Complex::new(1.0, 0.0);
            let f = dft_ref(&e);
            for (k, v) in f.iter().enumerate() {
                assert!((jac.get(2 * k, 2 * j) - v.re).abs() < 1e-13);
                assert!((jac.get(2 * k + 1, 2 * j) - v.im).abs() < 1e-13);
            }
        }
    }
}
