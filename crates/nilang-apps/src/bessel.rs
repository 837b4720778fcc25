//! The Bessel function of the first kind J_ν(z) (arXiv paper §5): the plain series, generic
//! over the peers' scalars, beside the reversible `nilang::special::ibesselj`.

use crate::plain::Plain;

/// The paper's irreversible series `besselj(ν, z; atol = 1e-8)`, generic so every peer
/// differentiates the same code (`nilang::special::besselj_series` is its `f64` form).
pub fn besselj<S: Plain>(nu: i64, z: S) -> S {
    let halfz = z / S::cst(2.0);
    let halfz_power_2 = halfz * halfz;
    let mut fact_nu = 1i64;
    for i in 1..=nu {
        fact_nu *= i;
    }
    let mut power = S::cst(1.0);
    for _ in 0..nu {
        power = power * halfz;
    }
    let mut s = power / S::cst(fact_nu as f64);
    let mut out = s;
    let mut k = 0i64;
    while s.value().abs() > 1e-8 {
        k += 1;
        s = s * (halfz_power_2 / S::cst(-((k * (k + nu)) as f64)));
        out = out + s;
    }
    out
}

/// `J_ν(z)` and its derivative by reversal of the fast program
/// (`nilang::special::ibesselj_terms`): the forward program, the value read off, then its
/// adjoint program seeded with 1 on the output (`ibesselj_terms_nocheck_vjp` with the value
/// read between its halves).
pub fn gradient(nu: i64, z: f64) -> (f64, f64) {
    use nilang::special::{ibesselj_terms_nocheck, ibesselj_terms_nocheck_adjoint};
    let (mut out, mut zz, mut out_grad, mut z_grad) = (0.0, z, 1.0, 0.0);
    ibesselj_terms_nocheck(&mut out, nu, &mut zz);
    let value = out;
    ibesselj_terms_nocheck_adjoint(&mut out, &mut out_grad, nu, (), &mut zz, &mut z_grad);
    (value, z_grad)
}

/// `d²J_ν/dz²` by forward-over-reversal (`ibesselj_hessian`).
pub fn second_derivative(nu: i64, z: f64) -> f64 {
    let (mut out, mut zz) = (0.0, z);
    let h = nilang::special::ibesselj_hessian(nilang::Loss::arg(0), &mut out, nu, &mut zz)
        .expect("argument 0 is the loss");
    h.get(1, 1)
}
