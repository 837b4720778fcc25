//! `#[differentiable]` reading a struct of data by field: a simulation's settings (`s.dt`,
//! `s.steps`), a table in a field read by index (`s.forcing[i]`), a field of a field — each
//! plain Rust in the reversible program, not differentiated. On random inputs (proptest): the
//! reversible program's value equals the plain function's bit for bit, `f_rev_inv` undoes
//! `f_rev`, and the gradient agrees with central differences and with forward mode.

use nilang::{differentiable, Dual};
use proptest::prelude::*;

#[path = "support/agreement.rs"]
mod agreement;
use agreement::{duals, inputs};

/// Material constants, nested in the settings.
#[derive(Clone, Copy)]
pub struct Material {
    pub damping: f64,
}

/// A simulation's settings: plain data the function reads by field.
pub struct Settings {
    pub dt: f64,
    pub steps: usize,
    pub material: Material,
    pub forcing: Vec<f64>,
}

/// A forced, damped oscillator stepped by symplectic Euler from `p = (k, x₀)`; its final
/// energy.
#[differentiable(wrt(p))]
fn final_energy(p: &[f64], s: &Settings) -> f64 {
    let k = p[0];
    let (mut x, mut v) = (p[1], 0.0);
    for i in 0..s.steps {
        let push = s.forcing[i % s.forcing.len()];
        v -= s.dt * (k * x + s.material.damping * v - push);
        x += s.dt * v;
    }
    0.5 * v * v + 0.5 * k * x * x
}

fn settings() -> Settings {
    Settings {
        dt: 0.05,
        steps: 40,
        material: Material { damping: 0.3 },
        forcing: vec![0.0, 0.5, -0.25],
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn fields_of_data_are_read_as_plain_rust((v, dir) in inputs(2, 0.5, 2.0)) {
        let s = settings();
        let plain = |p: &[f64]| final_energy(p, &s);
        let (mut p, mut out) = (v.clone(), 0.0);
        final_energy_rev(&mut out, &mut p, &s);
        prop_assert_eq!(out.to_bits(), plain(&v).to_bits());
        final_energy_rev_inv(&mut out, &mut p, &s);
        prop_assert_eq!((&p[..], out), (&v[..], 0.0));
        let (value, grad) = final_energy_gradient(&v, &s);
        prop_assert_eq!(value.to_bits(), plain(&v).to_bits());
        nilang::ad::check_gradient(plain, &v, &grad, 1e-6, 1e-5).unwrap();
        let mut out = Dual { re: 0.0, eps: 0.0 };
        final_energy_rev(&mut out, &mut duals(&v, &dir), &s);
        let along: f64 = grad.iter().zip(&dir).map(|(g, d)| g * d).sum();
        prop_assert!((along - out.eps).abs() <= 1e-9 * (1.0 + along.abs()));
    }
}
