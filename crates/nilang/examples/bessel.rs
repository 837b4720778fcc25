//! The Bessel function of the first kind, J₂(1.0), by the reversible program of the arXiv
//! paper (§5), next to the plain series; then the inverse program restores the inputs.
//!
//! Run with `cargo run --release --example bessel -p nilang`.

use nilang::special::{besselj_series, ibesselj, ibesselj_inv};

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

fn main() {
    value();
    // (gradient and Hessian sections go here)
}
