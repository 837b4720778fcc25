//! The adjoint programs (`f_adjoint`, `f_vjp`: values and gradients in separate buffers)
//! against the second AD mode they replace, the inverse program run on `GVar` values
//! (`f_inv::<GVar<f64>>`), on the library's programs with random inputs. The two run the
//! same adjoint rules in the same order, so their gradients agree bit for bit (checked, as in
//! debug builds; to rounding in release builds: [`same_gradients`]).

use nilang::blas::{
    i_affine, i_affine_adjoint, i_affine_inv, i_affine_vjp, i_umm, i_umm_inv, i_umm_vjp, idot,
    idot_inv, idot_vjp, imatmul, imatmul_inv, imatmul_vjp, inorm2, inorm2_adjoint, inorm2_inv,
    inorm2_vjp,
};
use nilang::special::{
    ibesselj, ibesselj_adjoint, ibesselj_inv, ibesselj_vjp, iexp, iexp_inv, iexp_vjp,
};
use nilang::stats::{
    ilogsumexp, ilogsumexp_adjoint, ilogsumexp_inv, ilogsumexp_vjp, imax, imax_inv, imax_vjp,
    imean_var, imean_var_inv, imean_var_vjp, isoftmax_cross_entropy, isoftmax_cross_entropy_inv,
    isoftmax_cross_entropy_vjp,
};
use nilang::{i, GVar, Real};
use proptest::prelude::*;

fn wrap(x: &[f64]) -> Vec<GVar<f64>> {
    x.iter().map(|&v| GVar::new(v)).collect()
}

fn grads(w: &[GVar<f64>]) -> Vec<u64> {
    w.iter().map(|v| v.g.to_bits()).collect()
}

fn values(w: &[GVar<f64>]) -> Vec<u64> {
    w.iter().map(|v| v.x.to_bits()).collect()
}

fn bits(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

/// The gradients of an adjoint program against the `GVar` program's. The checked programs
/// (debug builds, as the tests run in CI) run the same rules in the same order: the same bits.
/// A release build runs the unchecked adjoint programs, which sum the gradient of an operand
/// read by every iteration of a loop in four partial accumulators (decision 0042): the same
/// additions in another order, so the same values to rounding.
fn same_gradients(got: &[f64], want: &[GVar<f64>]) -> Result<(), TestCaseError> {
    if cfg!(debug_assertions) {
        prop_assert_eq!(bits(got), grads(want));
    } else {
        prop_assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            let tolerance = 1e-13 * (1.0 + w.g.abs());
            prop_assert!((g - w.g).abs() <= tolerance, "{g} vs {}", w.g);
        }
    }
    Ok(())
}

/// `main −= ‖L x‖²` (`L` unit lower triangular, its strict part `l` packed by columns) through
/// ancilla vectors computed in a routine. Unchecked, the uncomputation of `lx`, which nothing
/// reads after the squares, moves gradients without recomputing values
/// (`nilang_ir::dead_values`); `xc`, which it reads, is restored as usual.
#[i(nocheck)]
fn sqnorm_of_product<T: Real>(main: &mut T, x: &mut [T], l: &mut [T]) {
    let d = x.len();
    let xc = vec![T::zero(); d];
    let lx = vec![T::zero(); d];
    routine! {
        for j in 0..d {
            xc[j] += identity(x[j]);
            lx[j] += identity(xc[j]);
        }
        for a in 0..d {
            for b in a + 1..d {
                lx[b] += l[a * (2 * d - a - 1) / 2 + b - a - 1] * xc[a];
            }
        }
    }
    for j in 0..d {
        main -= square(lx[j]);
    }
    uncompute!();
    dealloc!(xc = vec![T::zero(); d], lx = vec![T::zero(); d]);
    dealloc!(d = x.len());
}

/// `y[b] += l[b] · s + l[b] · x[k]` over `b`: unchecked, the gradients of `s` and `x[k]`, the
/// same place at every iteration, are summed in partial accumulators four iterations a turn
/// (decision 0042), with `x[k]`'s index hoisted before the loop.
#[i(nocheck)]
fn scaled_rows<T: Real>(y: &mut [T], l: &mut [T], x: &mut [T], s: &mut T, k: usize) {
    for b in 0..y.len() {
        y[b] += l[b] * s;
        y[b] += l[b] * x[k];
    }
}

fn vector(n: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-2.0f64..2.0, n)
}

/// A scalar loss `out += f(x)`: the GVar program and `f_vjp` give the same gradient and
/// restore the same values; `f` then `f_adjoint` too, when given.
macro_rules! loss_of_slice {
    ($x0:expr, $f:path, $inv:path, $vjp:path $(, $adjoint:path)?) => {{
        let x0: Vec<f64> = $x0;
        // the GVar program: forward on f64, then the inverse on GVars
        let (mut out, mut x) = (0.0, x0.clone());
        $f(&mut out, &mut x);
        let (mut wo, mut wx) = (GVar::with_grad(out, 1.0), wrap(&x));
        $inv(&mut wo, &mut wx);
        // the adjoint on separate buffers
        let (mut out, mut x) = (0.0, x0.clone());
        let (mut out_grad, mut x_grad) = (1.0, vec![0.0; x0.len()]);
        $vjp(&mut out, &mut out_grad, &mut x, &mut x_grad);
        same_gradients(&x_grad, &wx)?;
        prop_assert_eq!(bits(&x), values(&wx));
        $(
            let (mut out, mut x) = (0.0, x0.clone());
            $f(&mut out, &mut x);
            let (mut out_grad, mut x_grad) = (1.0, vec![0.0; x0.len()]);
            $adjoint(&mut out, &mut out_grad, &mut x, &mut x_grad);
            same_gradients(&x_grad, &wx)?;
            prop_assert_eq!(bits(&x), values(&wx));
        )?
    }};
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn norm_logsumexp_max_and_mean_var(x in vector(7)) {
        loss_of_slice!(x.clone(), inorm2, inorm2_inv, inorm2_vjp, inorm2_adjoint);
        loss_of_slice!(x.clone(), ilogsumexp, ilogsumexp_inv, ilogsumexp_vjp, ilogsumexp_adjoint);
        loss_of_slice!(x.clone(), imax, imax_inv, imax_vjp);
        // two outputs, seeded both
        let (mut m, mut v, mut xs) = (0.0, 0.0, x.clone());
        imean_var(&mut m, &mut v, &mut xs);
        let (mut wm, mut wv, mut wx) = (GVar::with_grad(m, 0.5), GVar::with_grad(v, 2.0), wrap(&xs));
        imean_var_inv(&mut wm, &mut wv, &mut wx);
        let (mut m, mut v, mut xs) = (0.0, 0.0, x.clone());
        let (mut mg, mut vg, mut xg) = (0.5, 2.0, vec![0.0; x.len()]);
        imean_var_vjp(&mut m, &mut mg, &mut v, &mut vg, &mut xs, &mut xg);
        same_gradients(&xg, &wx)?;
    }

    #[test]
    fn softmax_cross_entropy_with_a_read_only_label(x in vector(5), label in 0usize..5) {
        let (mut loss, mut xs) = (0.0, x.clone());
        isoftmax_cross_entropy(&mut loss, &mut xs, label);
        let (mut wl, mut wx) = (GVar::with_grad(loss, 1.0), wrap(&xs));
        isoftmax_cross_entropy_inv(&mut wl, &mut wx, label);
        let (mut loss, mut xs) = (0.0, x.clone());
        let (mut lg, mut xg) = (1.0, vec![0.0; x.len()]);
        isoftmax_cross_entropy_vjp(&mut loss, &mut lg, &mut xs, &mut xg, label, ());
        same_gradients(&xg, &wx)?;
    }

    #[test]
    fn an_uncomputation_whose_values_are_dead_moves_the_same_gradients(
        x in vector(5),
        l in vector(10),
    ) {
        let (mut out, mut xs, mut ls) = (0.0, x.clone(), l.clone());
        sqnorm_of_product(&mut out, &mut xs, &mut ls);
        let (mut wo, mut wx, mut wl) = (GVar::with_grad(out, 1.0), wrap(&xs), wrap(&ls));
        sqnorm_of_product_inv(&mut wo, &mut wx, &mut wl);
        let (mut out, mut xs, mut ls) = (0.0, x.clone(), l.clone());
        let (mut og, mut xg, mut lg) = (1.0, vec![0.0; 5], vec![0.0; 10]);
        sqnorm_of_product_vjp(&mut out, &mut og, &mut xs, &mut xg, &mut ls, &mut lg);
        same_gradients(&xg, &wx)?;
        same_gradients(&lg, &wl)?;
        prop_assert_eq!((bits(&xs), bits(&ls)), (bits(&x), bits(&l)));
        // ∂/∂x₀ of −‖L x‖² = −2 Σ_b (L x)_b L_b0, by hand
        let lx: Vec<f64> = (0..5)
            .map(|b| x[b] + (0..b).map(|a| l[a * (9 - a) / 2 + b - a - 1] * x[a]).sum::<f64>())
            .collect();
        let d0 = -2.0 * (lx[0] + (1..5).map(|b| lx[b] * l[b - 1]).sum::<f64>());
        prop_assert!((xg[0] - d0).abs() < 1e-12 * (1.0 + d0.abs()), "{} vs {}", xg[0], d0);
    }

    #[test]
    fn partial_accumulators_sum_the_same_gradients(
        (l, seed) in (0usize..11).prop_flat_map(|n| (vector(n), vector(n))),
        x in vector(3), s in -2.0f64..2.0, k in 0usize..3,
    ) {
        let n = l.len();
        // every length from 0 to 10: whole turns of four, and each remainder
        let (mut ys, mut ls, mut xs, mut ss) = (vec![0.5; n], l.clone(), x.clone(), s);
        let (mut yg, mut lg, mut xg, mut sg) = (seed.clone(), vec![0.0; n], vec![0.0; 3], 0.0);
        scaled_rows_vjp(&mut ys, &mut yg, &mut ls, &mut lg, &mut xs, &mut xg, &mut ss, &mut sg, k, ());
        // operands untouched; `y` restored up to the rounding of `+=` then `-=`
        prop_assert_eq!((bits(&ls), bits(&xs)), (bits(&l), bits(&x)));
        prop_assert!(ys.iter().all(|y| (y - 0.5).abs() <= 1e-15 * 16.0), "{:?}", ys);
        prop_assert_eq!(bits(&yg), bits(&seed));
        // ∂/∂s = ∂/∂x[k] = Σ ȳ_b l_b; ∂/∂l_b = ȳ_b (s + x[k])
        let dot: f64 = seed.iter().zip(&l).map(|(g, l)| g * l).sum();
        let scale: f64 = seed.iter().zip(&l).map(|(g, l)| (g * l).abs()).sum::<f64>() + 1.0;
        prop_assert!((sg - dot).abs() <= 1e-14 * scale, "{} vs {}", sg, dot);
        prop_assert!((xg[k] - dot).abs() <= 1e-14 * scale, "{} vs {}", xg[k], dot);
        for b in 0..n {
            let want = seed[b] * s + seed[b] * x[k];
            prop_assert!((lg[b] - want).abs() <= 1e-15 * (1.0 + want.abs()), "{} vs {}", lg[b], want);
        }
        prop_assert!(xg.iter().enumerate().all(|(j, g)| j == k || *g == 0.0));
    }

    #[test]
    fn dot_gradients_reach_both_slices(x in vector(6), y in vector(6)) {
        let (mut out, mut xs, mut ys) = (0.0, x.clone(), y.clone());
        idot(&mut out, &mut xs, &mut ys);
        let (mut wo, mut wx, mut wy) = (GVar::with_grad(out, 1.0), wrap(&xs), wrap(&ys));
        idot_inv(&mut wo, &mut wx, &mut wy);
        let (mut out, mut xs, mut ys) = (0.0, x.clone(), y.clone());
        let (mut og, mut xg, mut yg) = (1.0, vec![0.0; 6], vec![0.0; 6]);
        idot_vjp(&mut out, &mut og, &mut xs, &mut xg, &mut ys, &mut yg);
        same_gradients(&xg, &wx)?;
        same_gradients(&yg, &wy)?;
    }

    #[test]
    fn affine_and_matmul_with_vector_seeds(
        w in vector(12), b in vector(3), x in vector(4), seed in vector(3),
        a in vector(6), bm in vector(6), cseed in vector(4),
    ) {
        // y += W x + b with a seed on every output
        let (mut y, mut ws, mut bs, mut xs) = (vec![0.0; 3], w.clone(), b.clone(), x.clone());
        i_affine(&mut y, &mut ws, &mut bs, &mut xs);
        let mut wy: Vec<GVar<f64>> = y.iter().zip(&seed).map(|(&v, &g)| GVar::with_grad(v, g)).collect();
        let (mut ww, mut wb, mut wx) = (wrap(&ws), wrap(&bs), wrap(&xs));
        i_affine_inv(&mut wy, &mut ww, &mut wb, &mut wx);
        for run_forward_first in [false, true] {
            let (mut y, mut ws, mut bs, mut xs) = (vec![0.0; 3], w.clone(), b.clone(), x.clone());
            let (mut yg, mut wg, mut bg, mut xg) = (seed.clone(), vec![0.0; 12], vec![0.0; 3], vec![0.0; 4]);
            if run_forward_first {
                i_affine(&mut y, &mut ws, &mut bs, &mut xs);
                i_affine_adjoint(&mut y, &mut yg, &mut ws, &mut wg, &mut bs, &mut bg, &mut xs, &mut xg);
            } else {
                i_affine_vjp(&mut y, &mut yg, &mut ws, &mut wg, &mut bs, &mut bg, &mut xs, &mut xg);
            }
            same_gradients(&wg, &ww)?;
            same_gradients(&bg, &wb)?;
            same_gradients(&xg, &wx)?;
        }
        // C += A B, 2×3 times 3×2
        let (mut c, mut as_, mut bs) = (vec![0.0; 4], a.clone(), bm.clone());
        imatmul(&mut c, &mut as_, &mut bs, 2, 3, 2);
        let mut wc: Vec<GVar<f64>> = c.iter().zip(&cseed).map(|(&v, &g)| GVar::with_grad(v, g)).collect();
        let (mut wa, mut wb) = (wrap(&as_), wrap(&bs));
        imatmul_inv(&mut wc, &mut wa, &mut wb, 2, 3, 2);
        let (mut c, mut as_, mut bs) = (vec![0.0; 4], a.clone(), bm.clone());
        let (mut cg, mut ag, mut bg) = (cseed.clone(), vec![0.0; 6], vec![0.0; 6]);
        imatmul_vjp(&mut c, &mut cg, &mut as_, &mut ag, &mut bs, &mut bg, 2, (), 3, (), 2, ());
        same_gradients(&ag, &wa)?;
        same_gradients(&bg, &wb)?;
    }

    #[test]
    fn rotations_move_gradients_to_the_angles(x in vector(6), theta in vector(3), seed in vector(6)) {
        // a unitary made of rotations: the angles get gradients through `rot`'s rule
        let (mut xs, mut ts) = (x.clone(), theta.clone());
        i_umm(&mut xs, &mut ts, 3);
        let mut wx: Vec<GVar<f64>> = xs.iter().zip(&seed).map(|(&v, &g)| GVar::with_grad(v, g)).collect();
        let mut wt = wrap(&ts);
        i_umm_inv(&mut wx, &mut wt, 3);
        let (mut xs, mut ts) = (x.clone(), theta.clone());
        let (mut xg, mut tg) = (seed.clone(), vec![0.0; 3]);
        i_umm_vjp(&mut xs, &mut xg, &mut ts, &mut tg, 3, ());
        same_gradients(&xg, &wx)?;
        same_gradients(&tg, &wt)?;
    }

    #[test]
    fn bessel_and_exp_with_integer_and_read_only_arguments(z in 0.2f64..3.0, nu in 0i64..4) {
        // ibesselj calls the integer program ifactorial (its adjoint carries no gradient)
        let (mut out, mut zz) = (0.0, z);
        ibesselj(&mut out, nu, &mut zz);
        let (mut wo, mut wz) = (GVar::with_grad(out, 1.0), GVar::new(zz));
        ibesselj_inv(&mut wo, nu, &mut wz);
        let (mut out, mut zz, mut og, mut zg) = (0.0, z, 1.0, 0.0);
        ibesselj_vjp(&mut out, &mut og, nu, (), &mut zz, &mut zg);
        prop_assert_eq!(zg.to_bits(), wz.g.to_bits());
        let (mut out, mut zz, mut og, mut zg) = (0.0, z, 1.0, 0.0);
        ibesselj(&mut out, nu, &mut zz);
        ibesselj_adjoint(&mut out, &mut og, nu, (), &mut zz, &mut zg);
        prop_assert_eq!(zg.to_bits(), wz.g.to_bits());
        prop_assert_eq!((out, zz), (0.0, z));
        // iexp: a while loop and a read-only tolerance
        // (its arithmetic uncomputation loses digits: a tolerance it holds to, as in tests/ad.rs)
        let x0 = z / 2.0;
        let (mut out, mut x) = (0.0, x0);
        iexp(&mut out, &mut x, 1e-8);
        let (mut wo, mut wx) = (GVar::with_grad(out, 1.0), GVar::new(x));
        iexp_inv(&mut wo, &mut wx, 1e-8);
        let (mut out, mut x, mut og, mut xg) = (0.0, x0, 1.0, 0.0);
        iexp_vjp(&mut out, &mut og, &mut x, &mut xg, 1e-8, ());
        prop_assert_eq!(xg.to_bits(), wx.g.to_bits());
    }

    #[test]
    fn stacks_swaps_and_calls(x in vector(5)) {
        let (mut out, mut xs, mut st) = (0.0, x.clone(), Vec::new());
        stacked(&mut out, &mut xs, &mut st);
        let (mut wo, mut wx, mut ws) = (GVar::with_grad(out, 1.0), wrap(&xs), Vec::<GVar<f64>>::new());
        stacked_inv(&mut wo, &mut wx, &mut ws);
        let (mut out, mut xs, mut st) = (0.0, x.clone(), Vec::new());
        let (mut og, mut xg, mut sg) = (1.0, vec![0.0; 5], Vec::new());
        stacked_vjp(&mut out, &mut og, &mut xs, &mut xg, &mut st, &mut sg);
        same_gradients(&xg, &wx)?;
        prop_assert!(st.is_empty() && sg.is_empty());
    }
}

/// Pushes squares on a stack, swaps, calls and uncalls, and pops them back.
#[i]
fn stacked<T: Real>(out: &mut T, x: &mut [T], stack: &mut Vec<T>) {
    for i in 0..x.len() {
        let t = T::zero();
        t += square(x[i]);
        out += sin(t);
        push!(stack, t);
        dealloc!(t = T::zero());
    }
    swap(x[0], x[1]);
    inorm2(out, x);
    swap(x[0], x[1]);
    for i in (0..x.len()).rev() {
        let t = T::zero();
        pop!(stack, t);
        out += t * x[i];
        t -= square(x[i]);
        dealloc!(t = T::zero());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// `f_jacobian_of` takes rows four (or two) at a time on `Lanes`; each row equals the
    /// gradient of its output alone (`f_grad`, one loss), bit for bit.
    #[test]
    fn lane_jacobians_equal_row_by_row_gradients(
        w in vector(7 * 3), b in vector(7), x in vector(3), rows in 1usize..8,
    ) {
        use nilang::blas::{i_affine_grad, i_affine_jacobian_of};
        use nilang::Loss;
        let outputs: Vec<Loss> = (0..rows).map(|r| Loss::elem(0, (3 * r) % 7)).collect();
        let (mut y, mut ws, mut bs, mut xs) = (vec![0.5; 7], w.clone(), b.clone(), x.clone());
        let jac = i_affine_jacobian_of(&outputs, &mut y, &mut ws, &mut bs, &mut xs).unwrap();
        for (r, &loss) in outputs.iter().enumerate() {
            let (mut y, mut ws, mut bs, mut xs) = (vec![0.5; 7], w.clone(), b.clone(), x.clone());
            let (gy, gw, gb, gx) = i_affine_grad(loss, &mut y, &mut ws, &mut bs, &mut xs).unwrap();
            let row: Vec<u64> = gy.iter().chain(&gw).chain(&gb).chain(&gx).map(|v| v.g.to_bits()).collect();
            prop_assert_eq!(bits(jac.row(r)), row, "row {}", r);
        }
    }
}

/// Keeps each `x[i]²` on a stack the caller owns (what the forward leaves for the inverse).
#[i]
fn keep_squares<T: Real>(out: &mut T, x: &mut [T], kept: &mut Vec<T>) {
    for i in 0..x.len() {
        let t = T::zero();
        t += square(x[i]);
        out += t * x[i];
        push!(kept, t);
        dealloc!(t = T::zero());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Values the plain forward pushed have no gradient entries: the adjoint pops them with
    /// zero gradients, so the caller may hand it an empty shadow stack.
    #[test]
    fn stack_values_pushed_by_the_forward_pop_with_zero_gradients(x in vector(5)) {
        let (mut out, mut xs, mut kept) = (0.0, x.clone(), Vec::new());
        keep_squares(&mut out, &mut xs, &mut kept);
        let mut wk: Vec<GVar<f64>> = kept.iter().map(|&v| GVar::new(v)).collect();
        let (mut wo, mut wx) = (GVar::with_grad(out, 1.0), wrap(&xs));
        keep_squares_inv(&mut wo, &mut wx, &mut wk);
        let (mut out, mut xs, mut kept) = (0.0, x.clone(), Vec::new());
        let (mut og, mut xg, mut kg) = (1.0, vec![0.0; 5], Vec::new());
        keep_squares_vjp(&mut out, &mut og, &mut xs, &mut xg, &mut kept, &mut kg);
        same_gradients(&xg, &wx)?;
        prop_assert!(kept.is_empty() && kg.is_empty());
        for (g, v) in xg.iter().zip(&x) {
            prop_assert!((g - 3.0 * v * v).abs() < 1e-12);
        }
    }
}

/// A computation `P` that writes an argument (`a`), not only ancillas: `f_vjp` runs the fused
/// gradient (`P` not undone forward and redone in the adjoint) only when `a`'s gradient is
/// zero on entry, and `f` then `f_adjoint` otherwise.
#[i]
fn through_an_argument<T: Real>(out: &mut T, a: &mut T, x: &mut [T]) {
    routine! {
        for i in 0..x.len() {
            a += sin(x[i]);
        }
    }
    out += exp(a);
    uncompute!();
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// With `a`'s gradient zero on entry (the fused path) or not (forward then adjoint),
    /// `f_vjp` gives what `f` then `f_adjoint` give, and the closed form (`a` is restored, so
    /// its seed passes through): `∂a = ō·e^(a + Σ sin x) + ā`, `∂x[i] = ō·e^(a + Σ sin x)·cos x[i]`.
    #[test]
    fn a_computation_that_writes_an_argument_is_fused_only_with_a_zero_seed(
        x in vector(6),
        a0 in -1.0f64..1.0,
        seed in prop_oneof![Just(0.0f64), -1.0f64..1.0],
    ) {
        let (mut out, mut a, mut xs) = (0.0, a0, x.clone());
        let (mut og, mut ag, mut xg) = (1.0, seed, vec![0.0; 6]);
        through_an_argument_vjp(&mut out, &mut og, &mut a, &mut ag, &mut xs, &mut xg);
        let (mut out2, mut a2, mut xs2) = (0.0, a0, x.clone());
        through_an_argument(&mut out2, &mut a2, &mut xs2);
        let (mut og2, mut ag2, mut xg2) = (1.0, seed, vec![0.0; 6]);
        through_an_argument_adjoint(&mut out2, &mut og2, &mut a2, &mut ag2, &mut xs2, &mut xg2);
        prop_assert!(close(a, a0) && close(a2, a0));
        prop_assert_eq!(bits(&xs), bits(&x));
        let e = (a0 + x.iter().map(|v| v.sin()).sum::<f64>()).exp();
        prop_assert!(close(ag, ag2) && close(ag, e + seed), "{} {} {}", ag, ag2, e + seed);
        for ((g, g2), v) in xg.iter().zip(&xg2).zip(&x) {
            prop_assert!(close(*g, *g2) && close(*g, e * v.cos()), "{} {} {}", g, g2, e * v.cos());
        }
    }
}

/// Unchecked, with nested expressions (`expand`): the forward on plain values skips the
/// uncomputation of the generated ancillas, the forward and inverse on `GVar`s must not (it
/// moves gradients). Both AD modes agree with the closed form.
#[i(expand, nocheck)]
fn nested_unchecked<T: Real>(out: &mut T, x: &mut [T]) {
    for i in 1..x.len() {
        out += sin(x[i] * x[i - 1]) + exp(x[i - 1]) * 0.5;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn dead_uncomputations_are_skipped_only_on_plain_values(x in vector(5)) {
        // the GVar path: forward on f64, inverse on GVars
        let (mut out, mut xs) = (0.0, x.clone());
        nested_unchecked(&mut out, &mut xs);
        let expect: f64 = (1..5).map(|i| (x[i] * x[i - 1]).sin() + 0.5 * x[i - 1].exp()).sum();
        prop_assert!(close(out, expect));
        let (mut wo, mut wx) = (GVar::with_grad(out, 1.0), wrap(&xs));
        nested_unchecked_inv(&mut wo, &mut wx);
        // forward on GVars gives the gradients back to the output (the inverse of the inverse)
        let (mut wo2, mut wx2) = (wo, wx.clone());
        nested_unchecked(&mut wo2, &mut wx2);
        prop_assert!(close(wo2.g, 1.0) && wx2.iter().all(|v| v.g.abs() < 1e-12));
        // the shadow path
        let (mut out, mut xs, mut og, mut xg) = (0.0, x.clone(), 1.0, vec![0.0; 5]);
        nested_unchecked_vjp(&mut out, &mut og, &mut xs, &mut xg);
        for k in 0..5 {
            let mut g = 0.0;
            if k >= 1 { g += (x[k] * x[k - 1]).cos() * x[k - 1]; }
            if k + 1 < 5 { g += (x[k + 1] * x[k]).cos() * x[k + 1] + 0.5 * x[k].exp(); }
            prop_assert!(close(wx[k].g, g), "GVar {} vs {}", wx[k].g, g);
            prop_assert!(close(xg[k], g), "vjp {} vs {}", xg[k], g);
        }
    }
}
