//! Every row of the primitive table (`nilang_prims::primitives!`) as the runtime generated it,
//! at points of the row's interval: the instruction and its inverse on `f64`, the `GVar`
//! adjoint rule and the dual-number rule against central differences of the value, and the
//! derivative from the value where the row gives one; the IR interpreter's dispatch
//! (`nilang_corpus::interpreter`, by the row's name) and `nilang_dualrev`'s tape (its partials
//! of the elementary rows) on the same instruction.

use nilang::prims::{self, Binary, Unary};
use nilang::{Acc1, Acc2, Dual, GVar};
use nilang_corpus::interpreter::{run, Order, Program, State};
use nilang_dualrev::DualRev;
use nilang_prims::sample::{agrees, central, points};

/// `x[n] += name(x[0], …, x[n-1])` on the IR interpreter at `args`, forward, then its
/// inverse on `GVar`s with the output's gradient 1: the output's value and the gradients.
fn interpreted(name: &str, args: &[f64]) -> (f64, Vec<f64>) {
    let n = args.len();
    let operands: Vec<String> = (0..n).map(|k| format!("x[{k}]")).collect();
    let src = format!(
        "#[i] fn f<T: Real>(x: &mut [T], n: &mut [i64], st: &mut Vec<T>) {{ x[{n}] += {name}({}); }}",
        operands.join(", ")
    );
    let program = Program::parse(&src).unwrap();
    let mut x: Vec<GVar<f64>> = args.iter().map(|&a| GVar::new(a)).collect();
    x.push(GVar::new(0.25));
    let state = |x| State {
        x,
        n: vec![],
        q: vec![],
        peak: 0.0,
        margin: f64::INFINITY,
    };
    let (mut out, _) = run(&program, &state(x), Order::Post).unwrap();
    let y = out.x[n].x;
    out.x[n].g = 1.0;
    let (back, _) = run(&program, &out, Order::Pre).unwrap();
    assert!(
        (back.x[n].x - 0.25).abs() < 1e-12,
        "{name}: the interpreter's inverse"
    );
    (y, back.x[..n].iter().map(|g| g.g).collect())
}

/// The value and gradient of `f` on `nilang_dualrev`'s tape.
fn taped(f: impl Fn(&[DualRev]) -> DualRev, args: &[f64]) -> (f64, Vec<f64>) {
    nilang_dualrev::grad(f, args).unwrap()
}

fn unary<P: Unary<f64> + Unary<Dual<f64>> + Unary<DualRev>>(name: &str, lo: f64, hi: f64)
where
    GVar<f64>: Acc1<P>,
    f64: Acc1<P>,
{
    for x in points(lo, hi) {
        let fd = central(|x| <P as Unary<f64>>::value(x), x);
        // y += f(x), then y -= f(x): y back within its round-off, x unchanged
        let (mut y, mut xx) = (0.25, x);
        <f64 as Acc1<P>>::add1(&mut y, &mut xx);
        assert_eq!(y, 0.25 + <P as Unary<f64>>::value(x), "{name}({x})");
        <f64 as Acc1<P>>::sub1(&mut y, &mut xx);
        assert!((y - 0.25).abs() < 1e-12 && xx == x, "{name}({x}): inverse");
        // the adjoint rule: x̄ += ȳ f′(x), run where the forward ran
        let (mut gy, mut gx) = (
            GVar::with_grad(y + <P as Unary<f64>>::value(x), 1.0),
            GVar::new(x),
        );
        <GVar<f64> as Acc1<P>>::sub1(&mut gy, &mut gx);
        assert!(
            agrees(gx.g, fd),
            "{name}({x}): adjoint {} against {fd}",
            gx.g
        );
        assert!(
            (gy.x - y).abs() < 1e-12,
            "{name}({x}): the adjoint uncomputes y"
        );
        // the dual-number rule
        let d = <P as Unary<Dual<f64>>>::value(Dual::new(x, 1.0));
        assert!(
            agrees(d.eps, fd),
            "{name}({x}): dual {} against {fd}",
            d.eps
        );
        assert_eq!(d.re, <P as Unary<f64>>::value(x), "{name}({x}): dual value");
        // the interpreter and the tape
        let (iy, ig) = interpreted(name, &[x]);
        assert_eq!(
            (iy, ig[0]),
            (0.25 + <P as Unary<f64>>::value(x), gx.g),
            "{name}({x}): interpreter"
        );
        let (ty, tg) = taped(|x| <P as Unary<DualRev>>::value(x[0]), &[x]);
        assert!(
            ty == <P as Unary<f64>>::value(x) && agrees(tg[0], fd),
            "{name}({x}): tape"
        );
        // the derivative from the value, where the row gives it
        let (v, dv) = <P as Unary<f64>>::value_and_derivative(x);
        if let Some(from) = <P as Unary<f64>>::derivative_from_value(v) {
            assert!(agrees(from, fd) && from == dv, "{name}({x}): from value");
        }
    }
}

fn binary<P: Binary<f64> + Binary<Dual<f64>> + Binary<DualRev>>(
    name: &str,
    a: (f64, f64),
    b: (f64, f64),
) where
    GVar<f64>: Acc2<P>,
    f64: Acc2<P>,
{
    let value = |a, b| <P as Binary<f64>>::value(a, b);
    for (x, z) in points(a.0, a.1)
        .into_iter()
        .zip(points(b.0, b.1).into_iter().rev())
    {
        let fd = (central(|x| value(x, z), x), central(|z| value(x, z), z));
        let (mut y, mut xx, mut zz) = (0.25, x, z);
        <f64 as Acc2<P>>::add2(&mut y, &mut xx, &mut zz);
        <f64 as Acc2<P>>::sub2(&mut y, &mut xx, &mut zz);
        assert!(
            (y - 0.25).abs() < 1e-12 && (xx, zz) == (x, z),
            "{name}({x}, {z}): inverse"
        );
        let mut gy = GVar::with_grad(0.25 + value(x, z), 1.0);
        let (mut gx, mut gz) = (GVar::new(x), GVar::new(z));
        <GVar<f64> as Acc2<P>>::sub2(&mut gy, &mut gx, &mut gz);
        assert!(
            agrees(gx.g, fd.0) && agrees(gz.g, fd.1),
            "{name}({x}, {z}): adjoint"
        );
        let da = <P as Binary<Dual<f64>>>::value(Dual::new(x, 1.0), Dual::constant(z));
        let db = <P as Binary<Dual<f64>>>::value(Dual::constant(x), Dual::new(z, 1.0));
        assert!(
            agrees(da.eps, fd.0) && agrees(db.eps, fd.1),
            "{name}({x}, {z}): dual"
        );
        let (iy, ig) = interpreted(name, &[x, z]);
        assert_eq!(
            (iy, ig),
            (0.25 + value(x, z), vec![gx.g, gz.g]),
            "{name}: interpreter"
        );
        let (ty, tg) = taped(|x| <P as Binary<DualRev>>::value(x[0], x[1]), &[x, z]);
        let exact = ty == value(x, z) && agrees(tg[0], fd.0) && agrees(tg[1], fd.1);
        assert!(exact, "{name}({x}, {z}): tape");
    }
}

macro_rules! every_row {
    ([] unary { $(($ty:ident $name:ident $doc:literal $x:ident $value:block $deriv:block
        $from:tt $method:tt $cpp:tt $int:tt ($lo:literal, $hi:literal)))* }
        binary { $(($bty:ident $bname:ident $bdoc:literal $a:ident $b:ident $bvalue:block
        $partials:block $infix:tt $bcpp:tt $bint:tt $adom:tt $bdom:tt))* }) => {{
        $(unary::<prims::$ty>(stringify!($name), $lo, $hi);)*
        $(binary::<prims::$bty>(stringify!($bname), $adom, $bdom);)*
        [$(stringify!($name),)* $(stringify!($bname),)*].len()
    }};
}

#[test]
fn every_row_of_the_table() {
    let rows = nilang_prims::primitives!(every_row);
    assert_eq!(rows, nilang_ir::ast::PRIMITIVES.len());
}

/// The elementary rows' `Float` methods are the rows' values, on `f64` and on dual numbers.
#[test]
fn every_elementary_method_is_its_row() {
    macro_rules! methods {
        ([] $(($ty:ident $method:ident $doc:literal $x:ident $($rest:tt)*))*) => {$(
            let x = 0.5f64;
            assert_eq!(nilang::Float::$method(x), <prims::$ty as Unary<f64>>::value(x));
            let d = nilang::Float::$method(Dual::new(x, 1.0));
            assert_eq!((d.re, d.eps), <prims::$ty as Unary<f64>>::value_and_derivative(x));
        )*};
    }
    nilang_prims::elementary!(methods);
}

/// `log2`, the row added to the table as the proof that a primitive is declared once: in a
/// reversible function, its gradient against central differences.
#[test]
fn log2_in_a_reversible_function() {
    use nilang::{i, Loss, Real};

    #[i]
    fn bits<T: Real>(y: &mut T, x: &mut [T]) {
        for k in 0..x.len() {
            y += log2(x[k]);
        }
        y += x[0] * x[1];
    }
    let x = vec![0.5, 3.0, 10.0];
    let f = |x: &[f64]| {
        let (mut y, mut x) = (0.0, x.to_vec());
        bits(&mut y, &mut x);
        y
    };
    assert_eq!(f(&x), -1.0 + 3f64.log2() + 10f64.log2() + 1.5);
    let (_, gx) = bits_grad(Loss::arg(0), &mut 0.0, &mut x.clone()).unwrap();
    for k in 0..3 {
        let along = |t: f64| {
            let mut moved = x.clone();
            moved[k] = t;
            f(&moved)
        };
        let fd = central(along, x[k]);
        assert!(agrees(gx[k].g, fd), "x[{k}]: {} against {fd}", gx[k].g);
    }
}

/// `max` and `min` in a reversible function: the gradient goes to the operand chosen (the
/// subgradient `(1, 0)` on a tie), so the gradient of a running maximum marks its argmax.
#[test]
fn max_and_min_hand_the_gradient_to_the_operand_chosen() {
    use nilang::{i, Real};

    /// `best` = max of the values (a chain of maxima through ancillas), `worst` = their min
    /// with 0 as in `min(x₀, 0)`.
    #[i]
    fn extremes<T: Real>(best: &mut T, worst: &mut T, x: &mut [T]) {
        let m1 = T::zero();
        let m2 = T::zero();
        routine! {
            m1 += max(x[0], x[1]);
            m2 += max(m1, x[2]);
        }
        best += identity(m2);
        uncompute!();
        dealloc!(m1 = T::zero(), m2 = T::zero());
        worst += min(x[0], x[2]);
    }
    let run = |x: &[f64], seed: (f64, f64)| {
        let (mut best, mut worst, mut x) = (0.0, 0.0, x.to_vec());
        let (mut bg, mut wg, mut xg) = (seed.0, seed.1, vec![0.0; x.len()]);
        let v = extremes_vjp(&mut best, &mut bg, &mut worst, &mut wg, &mut x, &mut xg);
        (v, xg)
    };
    assert_eq!(
        run(&[1.0, 3.0, 2.0], (1.0, 0.0)),
        ((3.0, 1.0), vec![0.0, 1.0, 0.0])
    );
    assert_eq!(
        run(&[1.0, 3.0, 2.0], (0.0, 1.0)),
        ((3.0, 1.0), vec![1.0, 0.0, 0.0])
    );
    assert_eq!(
        run(&[5.0, 3.0, -2.0], (1.0, 1.0)),
        ((5.0, -2.0), vec![1.0, 0.0, 1.0])
    );
    // ties: the first operand
    assert_eq!(
        run(&[2.0, 2.0, 2.0], (1.0, 1.0)),
        ((2.0, 2.0), vec![2.0, 0.0, 0.0])
    );
    // the inverse
    let (mut best, mut worst, mut x) = (0.5, 0.25, vec![1.0, 3.0, 2.0]);
    extremes(&mut best, &mut worst, &mut x);
    assert_eq!((best, worst), (3.5, 1.25));
    extremes_inv(&mut best, &mut worst, &mut x);
    assert_eq!((best, worst, x), (0.5, 0.25, vec![1.0, 3.0, 2.0]));
}
