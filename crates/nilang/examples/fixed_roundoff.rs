//! Round-off of fixed-point programs and their gradients against f64: `exp`, `log`, `sin`,
//! `cos` by reversible series (`nilang::numbers::fixed_math`), a composition of two of them,
//! and the three-instruction program of `tests/fixed_grad.rs`, on `I21F43` (unit of the last
//! place u = 2⁻⁴³ ≈ 1.14e-13). For each, over evenly spread inputs: the largest `|fixed − f64|`
//! of the value and of the gradient (the inverse run on `GVar<I21F43>`, seeded with 1), in
//! absolute terms and in units of u. The reference is f64 at the value the fixed input holds.
//!
//!     cargo run -p nilang --example fixed_roundoff
//!
//! The table it prints is the one in the guide's NiLang chapter (`doc/nilang.md`).

use nilang::numbers::fixed_math::{icos, icos_inv, iexp, iexp_inv, ilog, ilog_inv, isin, isin_inv};
use nilang::numbers::{FixedPoint, I21F43};
use nilang::{i, GVar};

/// `y += sin(eˣ)`: two series composed through an ancilla, uncomputed.
#[i]
fn sin_of_exp<T: FixedPoint>(y: &mut T, x: &mut T) {
    let e = T::zero();
    iexp(e, x);
    isin(y, e);
    uncall!(iexp(e, x));
    dealloc!(e = T::zero());
}

/// `y += a·x − a/x + x²` with `a = 1.7` held in an ancilla (so the gradient is `∂y/∂x`).
#[i]
fn program<T: FixedPoint>(y: &mut T, x: &mut T) {
    let a = T::lit(1.7);
    y += a * x;
    y -= a / x;
    y += square(x);
    dealloc!(a = T::lit(1.7));
}

type Fx = I21F43;

/// `1.7` rounded to `I21F43`: the constant `program` holds, for its f64 reference.
fn a() -> f64 {
    Fx::from_num(1.7).to_num()
}

struct Row {
    name: &'static str,
    range: (f64, f64),
    f: fn(&mut Fx, &mut Fx),
    g_inv: fn(&mut GVar<Fx>, &mut GVar<Fx>),
    value: fn(f64) -> f64,
    derivative: fn(f64) -> f64,
}

fn main() {
    let rows = [
        Row {
            name: "exp",
            range: (-10.0, 10.0),
            f: iexp,
            g_inv: iexp_inv,
            value: f64::exp,
            derivative: f64::exp,
        },
        Row {
            name: "exp",
            range: (-1.0, 1.0),
            f: iexp,
            g_inv: iexp_inv,
            value: f64::exp,
            derivative: f64::exp,
        },
        Row {
            name: "log",
            range: (0.01, 100.0),
            f: ilog,
            g_inv: ilog_inv,
            value: f64::ln,
            derivative: |x| 1.0 / x,
        },
        Row {
            name: "sin",
            range: (-10.0, 10.0),
            f: isin,
            g_inv: isin_inv,
            value: f64::sin,
            derivative: f64::cos,
        },
        Row {
            name: "cos",
            range: (-10.0, 10.0),
            f: icos,
            g_inv: icos_inv,
            value: f64::cos,
            derivative: |x| -x.sin(),
        },
        Row {
            name: "sin(exp x)",
            range: (-3.0, 2.0),
            f: sin_of_exp,
            g_inv: sin_of_exp_inv,
            value: |x| x.exp().sin(),
            derivative: |x| x.exp() * x.exp().cos(),
        },
        Row {
            name: "a·x − a/x + x²",
            range: (0.5, 8.0),
            f: program,
            g_inv: program_inv,
            value: |x| a() * x - a() / x + x * x,
            derivative: |x| a() + a() / (x * x) + 2.0 * x,
        },
    ];
    let u = 2f64.powi(-43);
    println!(
        "| function | inputs (1001 points) | value: max abs error | max error / max(1, |f|) \
         | gradient: max abs error | max error / max(1, abs f′) |"
    );
    println!("|---|---|---|---|---|---|");
    for r in rows {
        // (absolute, scaled) worst errors of the value and of the gradient
        let (mut ev, mut sv, mut eg, mut sg): (f64, f64, f64, f64) = (0.0, 0.0, 0.0, 0.0);
        for k in 0..=1000 {
            let x0 = r.range.0 + (r.range.1 - r.range.0) * k as f64 / 1000.0;
            let x = Fx::from_num(x0);
            let xv = x.to_num::<f64>(); // the reference at the value the fixed input holds
            let (value, derivative) = ((r.value)(xv), (r.derivative)(xv));
            let mut y = Fx::ZERO;
            (r.f)(&mut y, &mut x.clone());
            let err = (y.to_num::<f64>() - value).abs();
            (ev, sv) = (ev.max(err), sv.max(err / value.abs().max(1.0)));
            let (mut gy, mut gx) = (GVar { x: y, g: Fx::ONE }, GVar { x, g: Fx::ZERO });
            (r.g_inv)(&mut gy, &mut gx);
            let restored = (gy.x, gx.x) == (Fx::ZERO, x);
            assert!(
                restored,
                "{}({xv}): the inverse restores the inputs",
                r.name
            );
            let err = (gx.g.to_num::<f64>() - derivative).abs();
            (eg, sg) = (eg.max(err), sg.max(err / derivative.abs().max(1.0)));
        }
        println!(
            "| {} | [{}, {}] | {ev:.1e} | {:.0} u | {eg:.1e} | {:.0} u |",
            r.name,
            r.range.0,
            r.range.1,
            sv / u,
            sg / u
        );
    }
}
