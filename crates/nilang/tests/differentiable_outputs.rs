//! `#[differentiable]` functions that write `&mut [f64]` outputs instead of returning a loss
//! (residual vectors, several results): the reversible program adds what the function writes
//! to its outputs, `f_gradient` is a vector–Jacobian product with one seed per output, and
//! unit seeds give the Jacobian's rows, and `f_jacobian` all of them at once; checked against
//! central differences and against forward mode (the reversible program on `Dual` numbers).

use nilang::{differentiable, Dual};

/// The residuals of an exponential decay model `p₀ e^{−p₁ t} + p₂` against data `y`.
#[differentiable(wrt(p))]
fn residuals(p: &[f64], t: &[f64], y: &[f64], r: &mut [f64]) {
    for i in 0..t.len() {
        let model = p[0] * (-p[1] * t[i]).exp() + p[2];
        r[i] = model - y[i];
    }
}

/// Two outputs: a running state written per step (overwrites), an accumulated sum and a value
/// read back from the first output.
#[differentiable]
fn two_outputs(x: &[f64], w: f64, a: &mut [f64], b: &mut [f64]) {
    let mut s = 0.0;
    for i in 0..x.len() {
        s = s * w + x[i].sin();
        a[i] = s;
        b[0] += s * s;
    }
    b[1] = a[x.len() - 1] * 2.0 + b[0];
}

/// Few outputs of many inputs (a wide Jacobian, computed in reverse mode): `r[i] =
/// Σⱼ pⱼ sin(tᵢ j) + pᵢ pᵢ₊₁ / (1 + s²)`.
#[differentiable(wrt(p, s))]
fn wide(p: &[f64], s: f64, t: &[f64], r: &mut [f64]) {
    for i in 0..t.len() {
        let mut acc = 0.0;
        for j in 0..p.len() {
            acc += p[j] * (t[i] * j as f64).sin();
        }
        r[i] = acc + p[i] * p[i + 1] / (1.0 + s * s);
    }
}

/// Reads each output before writing it: `rᵢ ← rᵢ·x_{i mod n} + x₀`, so what it writes and
/// its Jacobian depend on what the outputs hold on entry.
#[differentiable(wrt(x))]
fn scale_in_place(x: &[f64], r: &mut [f64]) {
    for i in 0..r.len() {
        r[i] = r[i] * x[i % x.len()] + x[0];
    }
}

/// Parameters named like what the entry points declare (their tape's `thread_local!` home):
/// the generated names are fresh, so these compile and mean the user's values.
#[differentiable(wrt(tape_home, HOME))]
#[allow(non_snake_case)]
fn named_like_the_home(tape_home: &[f64], HOME: f64, r: &mut [f64]) {
    r[0] = tape_home[0] * HOME;
    r[1] = tape_home[1] + HOME * HOME;
}

const T: [f64; 5] = [0.0, 0.5, 1.0, 1.5, 2.0];
const Y: [f64; 5] = [3.1, 2.2, 1.6, 1.3, 1.05];

#[test]
fn a_residual_vector_has_its_jacobian_by_unit_seeds() {
    let p = [2.0, 0.9, 1.0];
    let mut plain = [0.0; 5];
    residuals(&p, &T, &Y, &mut plain);
    for row in 0..5 {
        let mut seed = [0.0; 5];
        seed[row] = 1.0;
        let mut r = [9.0; 5];
        let g = residuals_gradient(&p, &T, &Y, &mut r, &seed);
        assert_eq!(
            r, plain,
            "the outputs are written as `residuals` writes them"
        );
        for k in 0..3 {
            let e = 1e-6;
            let (mut up, mut down) = (p, p);
            up[k] += e;
            down[k] -= e;
            let (mut ru, mut rd) = ([0.0; 5], [0.0; 5]);
            residuals(&up, &T, &Y, &mut ru);
            residuals(&down, &T, &Y, &mut rd);
            let fd = (ru[row] - rd[row]) / (2.0 * e);
            assert!(
                (g[k] - fd).abs() < 1e-7,
                "row {row}, p{k}: {} vs {fd}",
                g[k]
            );
        }
    }
}

#[test]
fn the_reversible_program_adds_the_outputs_and_its_inverse_removes_them() {
    let x = [0.3, -1.2, 0.8, 2.0];
    let (mut a, mut b) = ([0.0; 4], [0.0; 2]);
    two_outputs(&x, 0.7, &mut a, &mut b);
    let (mut xr, mut w, mut ar, mut br) = (x.to_vec(), 0.7, vec![0.0; 4], vec![0.0; 2]);
    two_outputs_rev(&mut xr, &mut w, &mut ar, &mut br);
    assert_eq!((ar.as_slice(), br.as_slice()), (&a[..], &b[..]));
    two_outputs_rev_inv(&mut xr, &mut w, &mut ar, &mut br);
    assert_eq!(
        (xr.as_slice(), w, ar, br),
        (&x[..], 0.7, vec![0.0; 4], vec![0.0; 2])
    );
}

#[test]
fn several_outputs_agree_with_forward_mode() {
    let x = [0.3, -1.2, 0.8, 2.0];
    let (seed_a, seed_b) = ([0.5, -1.0, 0.25, 2.0], [1.5, -0.5]);
    let (mut a, mut b) = ([0.0; 4], [0.0; 2]);
    let (gx, gw) = two_outputs_gradient(&x, 0.7, &mut a, &mut b, &seed_a, &seed_b);
    // forward mode along each input direction: the same directional derivative of Σ seed·out
    for k in 0..5 {
        let dual = |v: f64, j: usize| Dual {
            re: v,
            eps: if j == k { 1.0 } else { 0.0 },
        };
        let mut xd: Vec<Dual<f64>> = x.iter().enumerate().map(|(j, &v)| dual(v, j)).collect();
        let mut wd = dual(0.7, 4);
        let zero = Dual { re: 0.0, eps: 0.0 };
        let (mut ad, mut bd) = (vec![zero; 4], vec![zero; 2]);
        two_outputs_rev(&mut xd, &mut wd, &mut ad, &mut bd);
        let along: f64 = ad
            .iter()
            .zip(&seed_a)
            .chain(bd.iter().zip(&seed_b))
            .map(|(o, s)| o.eps * s)
            .sum();
        let reverse = if k < 4 { gx[k] } else { gw };
        assert!(
            (along - reverse).abs() < 1e-12,
            "input {k}: {along} vs {reverse}"
        );
    }
}

/// `f_jacobian` of the residuals (3 columns: forward mode, one sweep of four tangents) against
/// the vector–Jacobian products of unit seeds (`f_gradient`) and central differences, for 1,
/// 2, 3 and 5 rows.
#[test]
fn the_jacobian_matches_unit_seeds_and_central_differences() {
    let p = [2.0, 0.9, 1.0];
    for rows in [1, 2, 3, 5] {
        let (t, y) = (&T[..rows], &Y[..rows]);
        let mut r = vec![9.0; rows];
        let mut jac = vec![f64::NAN; rows * 3];
        residuals_jacobian(&p, t, y, &mut r, &mut jac);
        let mut plain = vec![0.0; rows];
        residuals(&p, t, y, &mut plain);
        assert_eq!(
            r, plain,
            "the outputs are written as `residuals` writes them"
        );
        for row in 0..rows {
            let mut seed = vec![0.0; rows];
            seed[row] = 1.0;
            let g = residuals_gradient(&p, t, y, &mut vec![0.0; rows], &seed);
            for k in 0..3 {
                let at = jac[row * 3 + k];
                assert!(
                    (at - g[k]).abs() <= 1e-14 * g[k].abs(),
                    "{rows} rows, ({row}, {k})"
                );
                let e = 1e-6;
                let (mut up, mut down) = (p, p);
                up[k] += e;
                down[k] -= e;
                let (mut ru, mut rd) = (vec![0.0; rows], vec![0.0; rows]);
                residuals(&up, t, y, &mut ru);
                residuals(&down, t, y, &mut rd);
                let fd = (ru[row] - rd[row]) / (2.0 * e);
                assert!(
                    (at - fd).abs() < 1e-7,
                    "{rows} rows, ({row}, {k}): {at} vs {fd}"
                );
            }
        }
    }
}

/// Two outputs and two inputs, long enough that the buffers leave the stack: every column
/// (the inputs' scalars, `x` then `w`) against forward mode on `Dual` numbers.
#[test]
fn the_jacobian_of_several_outputs_agrees_with_forward_mode() {
    let n = 23;
    let x: Vec<f64> = (0..n).map(|k| (k as f64 * 0.37).sin()).collect();
    let (mut a, mut b) = (vec![0.0; n], vec![0.0; 2]);
    let cols = n + 1;
    let mut jac = vec![f64::NAN; (n + 2) * cols];
    two_outputs_jacobian(&x, 0.7, &mut a, &mut b, &mut jac);
    let zero = Dual { re: 0.0, eps: 0.0 };
    for k in 0..cols {
        let dual = |v: f64, j: usize| Dual {
            re: v,
            eps: if j == k { 1.0 } else { 0.0 },
        };
        let mut xd: Vec<Dual<f64>> = x.iter().enumerate().map(|(j, &v)| dual(v, j)).collect();
        let mut wd = dual(0.7, n);
        let (mut ad, mut bd) = (vec![zero; n], vec![zero; 2]);
        two_outputs_rev(&mut xd, &mut wd, &mut ad, &mut bd);
        for (row, o) in ad.iter().chain(&bd).enumerate() {
            let at = jac[row * cols + k];
            assert!(
                (at - o.eps).abs() <= 1e-12 * (1.0 + o.eps.abs()),
                "({row}, {k}): {at} vs {}",
                o.eps
            );
        }
    }
    let (mut pa, mut pb) = (vec![0.0; n], vec![0.0; 2]);
    two_outputs(&x, 0.7, &mut pa, &mut pb);
    assert_eq!((a, b), (pa, pb));
}

/// `f_jacobian` of a wide function (13 columns: reverse mode) for 1, 2, 3, 5 and 6 rows (every
/// lane width, and sweeps of four followed by one or two), against unit seeds of
/// `f_gradient` and central differences.
#[test]
fn a_wide_jacobian_by_reverse_sweeps_matches_unit_seeds_and_central_differences() {
    let p: Vec<f64> = (0..12).map(|k| 0.3 * k as f64 - 1.1).collect();
    let s = 0.7;
    let cols = p.len() + 1;
    for rows in [1, 2, 3, 5, 6] {
        let t: Vec<f64> = (0..rows).map(|i| 0.4 + 0.3 * i as f64).collect();
        let (mut r, mut jac) = (vec![0.0; rows], vec![f64::NAN; rows * cols]);
        wide_jacobian(&p, s, &t, &mut r, &mut jac);
        let mut plain = vec![0.0; rows];
        wide(&p, s, &t, &mut plain);
        assert_eq!(r, plain);
        let value = |p: &[f64], s: f64, row: usize| {
            let mut r = vec![0.0; rows];
            wide(p, s, &t, &mut r);
            r[row]
        };
        for row in 0..rows {
            let mut seed = vec![0.0; rows];
            seed[row] = 1.0;
            let (gp, gs) = wide_gradient(&p, s, &t, &mut vec![0.0; rows], &seed);
            for k in 0..cols {
                let at = jac[row * cols + k];
                let by_seed = if k < p.len() { gp[k] } else { gs };
                assert!(
                    (at - by_seed).abs() <= 1e-14 * (1.0 + by_seed.abs()),
                    "{rows} rows, ({row}, {k})"
                );
                let e = 1e-6;
                let fd = if k < p.len() {
                    let (mut up, mut down) = (p.clone(), p.clone());
                    up[k] += e;
                    down[k] -= e;
                    (value(&up, s, row) - value(&down, s, row)) / (2.0 * e)
                } else {
                    (value(&p, s + e, row) - value(&p, s - e, row)) / (2.0 * e)
                };
                assert!(
                    (at - fd).abs() < 1e-7,
                    "{rows} rows, ({row}, {k}): {at} vs {fd}"
                );
            }
        }
    }
}

/// Outputs that hold values on entry, which the function reads: `f_jacobian` in both modes
/// (8 rows of 2 columns: forward; 2 rows of 9 columns: reverse) and `f_gradient` differentiate
/// what `f` does to them, and leave the outputs as `f` does.
#[test]
fn outputs_read_on_entry_are_differentiated_from_their_values() {
    for (rows, n) in [(8, 2), (2, 9)] {
        let x: Vec<f64> = (0..n).map(|k| 0.5 + 0.25 * k as f64).collect();
        let start: Vec<f64> = (0..rows).map(|i| 1.5 - 0.75 * i as f64).collect();
        let mut plain = start.clone();
        scale_in_place(&x, &mut plain);
        let (mut r, mut jac) = (start.clone(), vec![f64::NAN; rows * n]);
        scale_in_place_jacobian(&x, &mut r, &mut jac);
        assert_eq!(r, plain, "{rows} × {n}: the outputs as `f` leaves them");
        for i in 0..rows {
            for j in 0..n {
                // ∂rᵢ/∂xⱼ = rᵢ(start)·[j = i mod n] + [j = 0]
                let exact =
                    start[i] * f64::from(u8::from(j == i % n)) + f64::from(u8::from(j == 0));
                assert_eq!(jac[i * n + j], exact, "{rows} × {n}: ({i}, {j})");
            }
            let mut seed = vec![0.0; rows];
            seed[i] = 1.0;
            let mut r = start.clone();
            let g = scale_in_place_gradient(&x, &mut r, &seed);
            assert_eq!(r, plain);
            assert_eq!(
                &g[..],
                &jac[i * n..(i + 1) * n],
                "{rows} × {n}: row {i} by a seed"
            );
        }
    }
}

#[test]
#[should_panic(
    expected = "`residuals_jacobian`: the Jacobian `jacobian` has 14 entries, but 5 rows (the \
                outputs' entries) × 3 columns (the differentiable inputs' scalars) need 15"
)]
fn a_jacobian_buffer_of_the_wrong_length_is_refused() {
    let mut jac = vec![0.0; 14];
    residuals_jacobian(&[2.0, 0.9, 1.0], &T, &Y, &mut [0.0; 5], &mut jac);
}

#[test]
fn parameters_named_like_the_tapes_home_are_the_users() {
    let (mut r, mut jac) = ([0.0; 2], [0.0; 6]);
    named_like_the_home_jacobian(&[2.0, 3.0], 0.5, &mut r, &mut jac);
    let mut plain = [0.0; 2];
    named_like_the_home(&[2.0, 3.0], 0.5, &mut plain);
    assert_eq!(r, plain);
    assert_eq!(r, [1.0, 3.25]);
    // rows r₀, r₁; columns tape_home₀, tape_home₁, HOME
    assert_eq!(jac, [0.5, 0.0, 2.0, 0.0, 1.0, 1.0]);
    let mut r = [0.0; 2];
    let (g, gh) = named_like_the_home_gradient(&[2.0, 3.0], 0.5, &mut r, &[1.0, 1.0]);
    assert_eq!((r, g, gh), ([1.0, 3.25], vec![0.5, 1.0], 3.0));
}
