//! Number systems: fixed-point `+=`/`-=`, logarithmic and tropical `*=`/`/=` are exactly
//! reversible; `mypower` (ICLR Listing 16) and its gradient; tropical semiring laws.

use nilang::numbers::{mypower, mypower_grad, mypower_inv, FixedPoint, Tropical, ULog, I21F43};
use nilang::prims::{Add, Div, Identity, Mul, Neg, Sub};
use nilang::{i, Acc1, Acc2, GVar, Loss, Negate, Real, Scale1, Scale2, Step};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------
// fixed point

/// One instruction of a random program on a register file (indices distinct where needed).
#[derive(Clone, Debug)]
enum Op {
    Add1(usize, usize),
    Sub1(usize, usize),
    AddNeg(usize, usize),
    AddMul(usize, usize, usize),
    SubMul(usize, usize, usize),
    AddDiv(usize, usize, usize),
    AddSum(usize, usize, usize),
    SubDiff(usize, usize, usize),
    Neg(usize),
    Inc(usize),
}

fn run_op<T>(r: &mut [T], op: &Op, inverse: bool)
where
    T: Copy
        + Acc1<Identity>
        + Acc1<Neg>
        + Acc2<Add>
        + Acc2<Sub>
        + Acc2<Mul>
        + Acc2<Div>
        + Negate
        + Step
        + nilang::Zeroable,
{
    let mut one = |y: usize, x: usize, f: &dyn Fn(&mut T, &mut T)| {
        let (mut a, mut b) = (r[y], r[x]);
        f(&mut a, &mut b);
        r[y] = a;
    };
    match *op {
        Op::Add1(y, x) if !inverse => one(y, x, &<T as Acc1<Identity>>::add1),
        Op::Add1(y, x) => one(y, x, &<T as Acc1<Identity>>::sub1),
        Op::Sub1(y, x) if !inverse => one(y, x, &<T as Acc1<Identity>>::sub1),
        Op::Sub1(y, x) => one(y, x, &<T as Acc1<Identity>>::add1),
        Op::AddNeg(y, x) if !inverse => one(y, x, &<T as Acc1<Neg>>::add1),
        Op::AddNeg(y, x) => one(y, x, &<T as Acc1<Neg>>::sub1),
        Op::Neg(y) => r[y].negate(),
        Op::Inc(y) if !inverse => r[y].inc(),
        Op::Inc(y) => r[y].dec(),
        Op::AddMul(y, a, b)
        | Op::SubMul(y, a, b)
        | Op::AddDiv(y, a, b)
        | Op::AddSum(y, a, b)
        | Op::SubDiff(y, a, b) => {
            let (mut t, mut u, mut v) = (r[y], r[a], r[b]);
            let add = !matches!(op, Op::SubMul(..) | Op::SubDiff(..)) ^ inverse;
            match (op, add) {
                (Op::AddMul(..) | Op::SubMul(..), true) => {
                    <T as Acc2<Mul>>::add2(&mut t, &mut u, &mut v)
                }
                (Op::AddMul(..) | Op::SubMul(..), false) => {
                    <T as Acc2<Mul>>::sub2(&mut t, &mut u, &mut v)
                }
                (Op::AddDiv(..), true) => {
                    if !v.is_zero() {
                        <T as Acc2<Div>>::add2(&mut t, &mut u, &mut v)
                    }
                }
                (Op::AddDiv(..), false) => {
                    if !v.is_zero() {
                        <T as Acc2<Div>>::sub2(&mut t, &mut u, &mut v)
                    }
                }
                (Op::AddSum(..), true) => <T as Acc2<Add>>::add2(&mut t, &mut u, &mut v),
                (Op::AddSum(..), false) => <T as Acc2<Add>>::sub2(&mut t, &mut u, &mut v),
                (_, true) => <T as Acc2<Sub>>::add2(&mut t, &mut u, &mut v),
                (_, false) => <T as Acc2<Sub>>::sub2(&mut t, &mut u, &mut v),
            }
            r[y] = t;
        }
    }
}

const REGS: usize = 6;

fn distinct3() -> impl Strategy<Value = (usize, usize, usize)> {
    (0..REGS, 1..REGS, 1..REGS - 1).prop_map(|(y, da, db)| {
        let a = (y + da) % REGS;
        // b differs from y (it may equal a: `y += a * a` is allowed)
        let b = (y + db) % REGS;
        (y, a, b)
    })
}

fn op() -> impl Strategy<Value = Op> {
    let pair = (0..REGS, 1..REGS).prop_map(|(y, d)| (y, (y + d) % REGS));
    prop_oneof![
        pair.clone().prop_map(|(y, x)| Op::Add1(y, x)),
        pair.clone().prop_map(|(y, x)| Op::Sub1(y, x)),
        pair.prop_map(|(y, x)| Op::AddNeg(y, x)),
        distinct3().prop_map(|(y, a, b)| Op::AddMul(y, a, b)),
        distinct3().prop_map(|(y, a, b)| Op::SubMul(y, a, b)),
        distinct3().prop_map(|(y, a, b)| Op::AddDiv(y, a, b)),
        distinct3().prop_map(|(y, a, b)| Op::AddSum(y, a, b)),
        distinct3().prop_map(|(y, a, b)| Op::SubDiff(y, a, b)),
        (0..REGS).prop_map(Op::Neg),
        (0..REGS).prop_map(Op::Inc),
    ]
}

fn run_program<T: FixedPoint>(r: &mut [T], prog: &[Op]) {
    for op in prog {
        run_op(r, op, false);
    }
}

fn run_program_inv<T: FixedPoint>(r: &mut [T], prog: &[Op]) {
    for op in prog.iter().rev() {
        run_op(r, op, true);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Long random programs of `+=`/`-=` instructions (with products and quotients) on
    /// fixed-point registers come back bit for bit, overflows included.
    #[test]
    fn fixed_point_programs_are_exactly_reversible(
        init in proptest::collection::vec(-1000.0f64..1000.0, REGS),
        prog in proptest::collection::vec(op(), 200..1000),
    ) {
        let mut r: Vec<I21F43> = init.iter().map(|&x| I21F43::from_num(x)).collect();
        let r0 = r.clone();
        run_program(&mut r, &prog);
        run_program_inv(&mut r, &prog);
        prop_assert_eq!(
            r.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            r0.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
    }

    /// A program made only of `y += a * b` and `y -= a * b` steps.
    #[test]
    fn fixed_point_multiply_accumulate_is_exactly_reversible(
        init in proptest::collection::vec(-3.0f64..3.0, REGS),
        steps in proptest::collection::vec((distinct3(), any::<bool>()), 500..2000),
    ) {
        let prog: Vec<Op> = steps
            .into_iter()
            .map(|((y, a, b), add)| if add { Op::AddMul(y, a, b) } else { Op::SubMul(y, a, b) })
            .collect();
        let mut r: Vec<I21F43> = init.iter().map(|&x| I21F43::from_num(x)).collect();
        let r0 = r.clone();
        run_program(&mut r, &prog);
        prop_assert!(r != r0 || prog.is_empty());
        run_program_inv(&mut r, &prog);
        prop_assert_eq!(r, r0);
    }
}

/// A reversible function generic over fixed-point numbers, written in the language.
#[i]
fn fixed_mix<T: FixedPoint>(y: &mut [T], a: &mut T, b: &mut T, n: usize) {
    for k in 0..n {
        y[k % 4] += a * b;
        y[(k + 1) % 4] -= y[k % 4] * b;
        y[(k + 2) % 4] += a / b;
        a += y[(k + 3) % 4];
        inc(b);
        neg(a);
        y[(k + 2) % 4] += 0.125;
    }
}

#[test]
fn reversible_function_on_fixed_point_round_trips_bit_for_bit() {
    let mut y: Vec<I21F43> = [0.3, -1.7, 2.25, 0.001]
        .iter()
        .map(|&v| I21F43::from_num(v))
        .collect();
    let (mut a, mut b) = (I21F43::from_num(0.7), I21F43::from_num(1.3));
    let (y0, a0, b0) = (y.clone(), a, b);
    fixed_mix(&mut y, &mut a, &mut b, 300);
    assert_ne!(y, y0);
    fixed_mix_inv(&mut y, &mut a, &mut b, 300);
    assert_eq!((y, a, b), (y0, a0, b0));
}

#[test]
fn same_program_in_f64_is_not_bit_exact() {
    // The reason fixed point matters: (y + x) − x ≠ y in floats.
    let (y, x) = (0.1f64, 1e17);
    assert_ne!((y + x) - x, y);
    let (yf, xf) = (I21F43::from_num(0.1), I21F43::from_num(1e5));
    assert_eq!(yf.wrapping_add(xf).wrapping_sub(xf), yf);
}

// ---------------------------------------------------------------------------------------
// logarithmic numbers

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// `*=`/`/=` on `ULog` (x, a * b, a / b and constants) come back bit for bit.
    #[test]
    fn ulog_programs_are_exactly_reversible(
        init in proptest::collection::vec(1e-30f64..1e30, 4),
        prog in proptest::collection::vec((0..4usize, 1..4usize, 1..3usize, 0..4u8), 200..1000),
    ) {
        let mut r: Vec<ULog> = init.iter().map(|&x| ULog::new(x)).collect();
        let r0 = r.clone();
        let apply = |r: &mut Vec<ULog>, &(y, da, db, kind): &(usize, usize, usize, u8), inverse: bool| {
            let (a, b) = ((y + da) % 4, (y + db) % 4);
            let (mut t, mut u, mut v) = (r[y], r[a], r[b]);
            let mut c = ULog::new(1.0 + a as f64 / 7.0);
            match (kind, inverse) {
                (0, false) => <ULog as Scale1<Identity>>::mul1(&mut t, &mut u),
                (0, true) => <ULog as Scale1<Identity>>::div1(&mut t, &mut u),
                (1, false) => <ULog as Scale2<Mul>>::mul2(&mut t, &mut u, &mut v),
                (1, true) => <ULog as Scale2<Mul>>::div2(&mut t, &mut u, &mut v),
                (2, false) => <ULog as Scale2<Div>>::mul2(&mut t, &mut u, &mut v),
                (2, true) => <ULog as Scale2<Div>>::div2(&mut t, &mut u, &mut v),
                (_, false) => <ULog as Scale1<Identity>>::div1(&mut t, &mut c),
                (_, true) => <ULog as Scale1<Identity>>::mul1(&mut t, &mut c),
            }
            // keep magnitudes inside the exact range of the grid (|ln| < 1024): a step that
            // would leave it is skipped, and the skip is recorded for the inverse run
            if t.ln.abs() < 700.0 { r[y] = t; true } else { false }
        };
        let taken: Vec<bool> = prog.iter().map(|s| apply(&mut r, s, false)).collect();
        prop_assert!(taken.iter().filter(|&&t| t).count() > prog.len() / 4);
        for (s, &t) in prog.iter().zip(&taken).rev() {
            if t {
                apply(&mut r, s, true);
            }
        }
        prop_assert_eq!(
            r.iter().map(|x| x.ln.to_bits()).collect::<Vec<_>>(),
            r0.iter().map(|x| x.ln.to_bits()).collect::<Vec<_>>()
        );
    }
}

#[test]
fn ulog_conversions() {
    for &x in &[1e-300, 0.5, 1.0, 2.0, 3.5, 1e300] {
        let l = ULog::from(x);
        let back: f64 = l.into();
        assert!((back / x - 1.0).abs() < 1e-12, "{x} -> {back}");
    }
    assert_eq!(ULog::<f64>::one().to_f64(), 1.0);
    let r = std::panic::catch_unwind(|| ULog::<f64>::new(0.0));
    assert!(r.is_err(), "zero is not a logarithmic number");
}

#[i]
fn ulog_product<T: Real>(y: &mut ULog<T>, a: &mut ULog<T>, b: &mut ULog<T>) {
    y *= a * b;
    y /= b;
    y *= a / b;
    y *= 2.5;
}

#[test]
fn ulog_in_the_language() {
    let (mut y, mut a, mut b) = (ULog::<f64>::new(3.0), ULog::new(7.0), ULog::new(0.2));
    let y0 = y;
    ulog_product(&mut y, &mut a, &mut b);
    // 3 · 7·0.2 / 0.2 · 7/0.2 · 2.5
    assert!((y.to_f64() - 3.0 * 7.0 * 7.0 / 0.2 * 2.5).abs() < 1e-9);
    ulog_product_inv(&mut y, &mut a, &mut b);
    assert_eq!(y.ln.to_bits(), y0.ln.to_bits());
}

#[test]
fn ulog_gradient_through_the_logarithm() {
    // d ln y / d ln a for y *= a·b; y /= b; y *= a/b; y *= 2.5 is 2; d/d ln b is -1.
    let (mut y, mut a, mut b) = (ULog::<f64>::new(3.0), ULog::new(7.0), ULog::new(0.2));
    ulog_product(&mut y, &mut a, &mut b);
    let mut yg = ULog {
        ln: GVar::with_grad(y.ln, 1.0),
    };
    let mut ag = ULog {
        ln: GVar::new(a.ln),
    };
    let mut bg = ULog {
        ln: GVar::new(b.ln),
    };
    ulog_product_inv(&mut yg, &mut ag, &mut bg);
    assert_eq!((ag.ln.g, bg.ln.g), (2.0, -1.0));
    assert_eq!(yg.ln.x.to_bits(), ULog::<f64>::new(3.0).ln.to_bits());
    // the same by the generated gradient function
    let (mut y, mut a, mut b) = (ULog::<f64>::new(3.0), ULog::new(7.0), ULog::new(0.2));
    let (_, ga, gb) = ulog_product_grad(Loss::arg(0), &mut y, &mut a, &mut b).unwrap();
    assert_eq!((ga.ln.g, gb.ln.g), (2.0, -1.0));
}

#[test]
fn mypower_listing_16() {
    for &(x, n) in &[
        (1.5f64, 0usize),
        (1.5, 1),
        (1.5, 10),
        (0.3, 7),
        (2.0, 30),
        (0.99, 500),
    ] {
        let (mut out, mut xx) = (0.25f64, x);
        mypower(&mut out, &mut xx, n);
        let want = 0.25 + x.powi(n as i32);
        assert!(
            (out - want).abs() <= 1e-11 * want,
            "{x}^{n}: {out} vs {want}"
        );
        assert_eq!(xx, x);
        mypower_inv(&mut out, &mut xx, n);
        assert!((out - 0.25).abs() < 1e-12);
    }
    // x ≤ 0: nothing is added (the listing's `if (x != 0, ~)`)
    let (mut out, mut x) = (1.0f64, 0.0f64);
    mypower(&mut out, &mut x, 3);
    assert_eq!(out, 1.0);
}

#[test]
fn mypower_gradient() {
    let (x, n) = (1.3f64, 5usize);
    let (mut out, mut xx) = (0.0f64, x);
    let (_gout, gx) = mypower_grad(Loss::arg(0), &mut out, &mut xx, n).unwrap();
    let want = n as f64 * x.powi(n as i32 - 1);
    assert!((gx.g - want).abs() < 1e-9 * want, "{} vs {want}", gx.g);
    assert_eq!(gx.x, x);
}

// ---------------------------------------------------------------------------------------
// tropical numbers

fn small_tropical() -> impl Strategy<Value = Tropical<i64>> {
    prop_oneof![
        1 => Just(Tropical::zero()),
        8 => (-1_000_000i64..1_000_000).prop_map(Tropical),
    ]
}

fn small_tropical_f64() -> impl Strategy<Value = Tropical<f64>> {
    prop_oneof![
        1 => Just(Tropical::zero()),
        8 => (-1_000_000i64..1_000_000).prop_map(|v| Tropical(v as f64 / 64.0)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn tropical_semiring_laws(a in small_tropical(), b in small_tropical(), c in small_tropical()) {
        let (zero, one) = (Tropical::<i64>::zero(), Tropical::<i64>::one());
        prop_assert_eq!(a + b, b + a);
        prop_assert_eq!((a + b) + c, a + (b + c));
        prop_assert_eq!(a + zero, a);
        prop_assert_eq!(a + a, a); // idempotent
        prop_assert_eq!(a * b, b * a);
        prop_assert_eq!((a * b) * c, a * (b * c));
        prop_assert_eq!(a * one, a);
        prop_assert_eq!(a * zero, zero);
        prop_assert_eq!(a * (b + c), a * b + a * c);
    }

    #[test]
    fn tropical_semiring_laws_f64(a in small_tropical_f64(), b in small_tropical_f64(), c in small_tropical_f64()) {
        let (zero, one) = (Tropical::<f64>::zero(), Tropical::<f64>::one());
        prop_assert_eq!(a + b, b + a);
        prop_assert_eq!((a + b) + c, a + (b + c));
        prop_assert_eq!(a + zero, a);
        prop_assert_eq!(a * b, b * a);
        prop_assert_eq!((a * b) * c, a * (b * c));
        prop_assert_eq!(a * one, a);
        prop_assert_eq!(a * zero, zero);
        prop_assert_eq!(a * (b + c), a * b + a * c);
    }

    /// `*=`/`/=` by non-zero elements undo each other exactly.
    #[test]
    fn tropical_scaling_is_reversible(
        y in small_tropical(),
        xs in proptest::collection::vec((-1_000_000i64..1_000_000, -1_000_000i64..1_000_000, 0..3u8), 1..200),
    ) {
        let mut t = y;
        let step = |t: &mut Tropical<i64>, &(a, b, k): &(i64, i64, u8), inv: bool| {
            let (mut a, mut b) = (Tropical(a), Tropical(b));
            match (k, inv) {
                (0, false) => <Tropical<i64> as Scale1<Identity>>::mul1(t, &mut a),
                (0, true) => <Tropical<i64> as Scale1<Identity>>::div1(t, &mut a),
                (1, false) => <Tropical<i64> as Scale2<Mul>>::mul2(t, &mut a, &mut b),
                (1, true) => <Tropical<i64> as Scale2<Mul>>::div2(t, &mut a, &mut b),
                (_, false) => <Tropical<i64> as Scale2<Add>>::mul2(t, &mut a, &mut b),
                (_, true) => <Tropical<i64> as Scale2<Add>>::div2(t, &mut a, &mut b),
            }
        };
        for s in &xs { step(&mut t, s, false); }
        for s in xs.iter().rev() { step(&mut t, s, true); }
        prop_assert_eq!(t, y);
    }
}

#[i(nograd)]
fn tropical_dot<T: Real>(y: &mut Tropical<T>, a: &mut [Tropical<T>], b: &mut [Tropical<T>])
where
    T: nilang::numbers::TropicalBase,
{
    for k in 0..a.len() {
        y *= a[k] + b[k];
    }
}

#[test]
fn tropical_in_the_language() {
    let mut y = Tropical(1.0f64);
    let mut a = vec![Tropical(1.0), Tropical(-2.0), Tropical(5.0)];
    let mut b = vec![Tropical(0.5), Tropical(3.0), Tropical(4.0)];
    tropical_dot(&mut y, &mut a, &mut b);
    assert_eq!(y, Tropical(1.0 + 1.0 + 3.0 + 5.0));
    tropical_dot_inv(&mut y, &mut a, &mut b);
    assert_eq!(y, Tropical(1.0));
}

/// `y ⊗= (a₀ ⊕ b₀) ⊗ a₁ ⊗ b₁⁻¹`: a tropical `max`, a product and a quotient, differentiable.
#[i]
fn tropical_score<T: Real>(y: &mut Tropical<T>, a: &mut [Tropical<T>], b: &mut [Tropical<T>])
where
    T: nilang::numbers::TropicalBase,
{
    y *= a[0] + b[0];
    y *= a[1];
    y /= b[1];
}

#[test]
fn tropical_gradients_follow_the_chosen_operands() {
    let (mut y, mut yg) = (Tropical(0.5f64), Tropical(1.0));
    let (mut a, mut b) = (
        vec![Tropical(1.0), Tropical(2.0)],
        vec![Tropical(4.0), Tropical(3.0)],
    );
    let (mut ag, mut bg) = (vec![Tropical(0.0); 2], vec![Tropical(0.0); 2]);
    tropical_score(&mut y, &mut a, &mut b);
    assert_eq!(y, Tropical(0.5 + 4.0 + 2.0 - 3.0));
    tropical_score_adjoint(&mut y, &mut yg, &mut a, &mut ag, &mut b, &mut bg);
    assert_eq!(y, Tropical(0.5)); // the adjoint program restored the input
                                  // the max hands its gradient to b₀ (the larger), the product to a₁, the quotient −1 to b₁
    assert_eq!(ag, vec![Tropical(0.0), Tropical(1.0)]);
    assert_eq!(bg, vec![Tropical(1.0), Tropical(-1.0)]);
    // ties go to the first operand
    let (_, ga, gb) = tropical_score_grad(
        Loss::arg(0),
        &mut Tropical(0.0),
        &mut vec![Tropical(4.0), Tropical(2.0)],
        &mut vec![Tropical(4.0), Tropical(3.0)],
    )
    .unwrap();
    assert_eq!((ga[0].0.g, gb[0].0.g), (1.0, 0.0));
    // the Jacobian runs the adjoint on several losses' gradients at once (Lanes)
    let j = tropical_score_jacobian(
        &mut Tropical(0.0),
        &mut vec![Tropical(1.0), Tropical(2.0)],
        &mut vec![Tropical(4.0), Tropical(3.0)],
    )
    .unwrap();
    assert_eq!(j.row(0), [1.0, 0.0, 1.0, 1.0, -1.0]); // ∂y/∂(y, a₀, a₁, b₀, b₁)
                                                      // max-plus expressions are piecewise linear: the Hessian is zero
    let h = tropical_score_hessian(
        Loss::arg(0),
        &mut Tropical(0.0),
        &mut vec![Tropical(1.0), Tropical(2.0)],
        &mut vec![Tropical(4.0), Tropical(3.0)],
    )
    .unwrap();
    assert!((0..h.rows).all(|i| (0..h.cols).all(|j| h[(i, j)] == 0.0)));
}

#[test]
fn tropical_zero_operand_panics() {
    let r = std::panic::catch_unwind(|| {
        let mut y = Tropical(1.0f64);
        <Tropical<f64> as Scale1<Identity>>::mul1(&mut y, &mut Tropical::zero());
    });
    let msg = *r.unwrap_err().downcast::<String>().unwrap();
    assert!(msg.contains("zero element"), "{msg}");
}

#[test]
fn complex_conj_is_an_involution() {
    use num_complex::Complex;
    #[i]
    fn c<T: Real>(z: &mut Complex<T>) {
        conj(z);
    }
    let mut z = Complex::new(1.5f64, -2.0);
    c(&mut z);
    assert_eq!(z, Complex::new(1.5, 2.0));
    c_inv(&mut z);
    assert_eq!(z, Complex::new(1.5, -2.0));
}
