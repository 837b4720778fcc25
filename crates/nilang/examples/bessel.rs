//! The Bessel function of the first kind, J₂(1.0), by the reversible program of the arXiv
//! paper (§5), next to the plain series; then the inverse program restores the inputs.
//!
//! Run with `cargo run --release --example bessel -p nilang`.

use nilang::ad::numeric_gradient;
use nilang::special::{besselj_series, ibesselj, ibesselj_grad, ibesselj_hessian, ibesselj_inv};
use nilang::{Dual, Loss};

/// The order ν and the argument z of the example.
const NU: i64 = 2;
const Z: f64 = 1.0;

/// Forward: `out += J_ν(z)`, compared with the plain series.
fn value() {
    let (mut out, mut z) = (0.0f64, Z);
    ibesselj(&mut out, NU, &mut z);
    println!("J{NU}({Z:.1}) reversible ibesselj = {out:.17}");
    println!(
        "J{NU}({Z:.1}) plain series       = {:.17}",
        besselj_series(NU, Z)
    );
    println!("J{NU}({Z:.1}) exact (paper)       = 0.11490348493190048");

    // Inverse: undo everything the forward program did.
    ibesselj_inv(&mut out, NU, &mut z);
    println!("after ibesselj_inv: out = {out}, z = {z} (inputs restored)");
}

/// Gradient by reversal, next to forward mode and central differences.
fn gradient() {
    let (mut out, mut z) = (0.0f64, Z);
    let (_, gz) =
        ibesselj_grad(Loss::arg(0), &mut out, NU, &mut z).expect("argument 0 is the loss");
    println!(
        "\ndJ{NU}/dz at {Z:.1} by reversal (ibesselj_grad)      = {:.15}",
        gz.g
    );
    // forward mode: run the program on a dual number with tangent 1
    let (mut dout, mut dz) = (Dual::constant(0.0), Dual::new(Z, 1.0));
    ibesselj(&mut dout, NU, &mut dz);
    println!(
        "dJ{NU}/dz at {Z:.1} by a forward dual number        = {:.15}",
        dout.eps
    );
    let fd = numeric_gradient(|z| besselj_series(NU, z[0]), &[Z], 1e-5)[0];
    println!("dJ{NU}/dz at {Z:.1} by central differences          = {fd:.15}");
    println!("(the paper prints 0.2102436)");
}

/// Second derivative by dual numbers through the gradient program.
fn hessian() {
    let (mut out, mut z) = (0.0f64, Z);
    let h = ibesselj_hessian(Loss::arg(0), &mut out, NU, &mut z).expect("argument 0 is the loss");
    println!(
        "\nd²J{NU}/dz² by forward over reversal (ibesselj_hessian) = {:.17}",
        h.get(1, 1)
    );
    let g = |z: f64| {
        let (mut out, mut zz) = (0.0f64, z);
        ibesselj_grad(Loss::arg(0), &mut out, NU, &mut zz)
            .expect("argument 0 is the loss")
            .1
            .g
    };
    let h_fd = (g(Z + 1e-3) - g(Z - 1e-3)) / 2e-3;
    println!("d²J{NU}/dz² by central differences of the gradient  = {h_fd:.17} (step 1e-3: the loop length changes with z)");
    println!("(the paper prints 0.13446683844358093)");
}

fn main() {
    value();
    gradient();
    hessian();
}
