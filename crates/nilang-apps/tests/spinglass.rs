//! The spin glass's tropical contraction against brute force, and the ground state read off
//! the gradient.

use nilang::numbers::Tropical;
use nilang_apps::spinglass::{self, brute_force, ground_state, Lattice};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Couplings and fields that are random integers in `-3..=3` (zero fields in
/// [`Lattice::random`]; here the fields break the symmetry too).
fn with_fields(l: usize, seed: u64) -> Lattice {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut lattice = Lattice::random(l, seed);
    for x in lattice
        .jh
        .iter_mut()
        .chain(&mut lattice.jv)
        .chain(&mut lattice.h)
    {
        *x = rng.gen_range(-3..=3) as f64;
    }
    lattice
}

#[test]
fn tropical_energy_equals_brute_force() {
    for l in 1..=4 {
        for seed in 0..4 {
            for lattice in [Lattice::random(l, seed), with_fields(l, 100 + seed)] {
                let e0 = brute_force(&lattice);
                assert_eq!(spinglass::ground_energy(&lattice), e0, "{lattice:?}");
                assert_eq!(spinglass::dynamic_programming(&lattice), e0, "{lattice:?}");
            }
        }
    }
}

#[test]
fn the_gradient_is_a_ground_state() {
    for l in 2..=4 {
        for seed in 0..4 {
            for lattice in [Lattice::random(l, seed), with_fields(l, 200 + seed)] {
                let e0 = brute_force(&lattice);
                let (e, spins) = ground_state(&lattice);
                assert_eq!(e, e0);
                assert_eq!(lattice.energy(&spins), e0, "{lattice:?}: {spins:?}");
            }
        }
    }
}

#[test]
fn coupling_gradients_are_products_of_the_ground_state_spins() {
    let lattice = with_fields(4, 7);
    let (_, gh, gv, gf) = spinglass::tropical_gradient(&lattice);
    let s: Vec<f64> = gf.clone();
    let l = lattice.l;
    for r in 0..l {
        for c in 0..l {
            let k = r * l + c;
            if c + 1 < l {
                assert_eq!(
                    gh[r * (l - 1) + c],
                    s[k] * s[k + 1],
                    "horizontal bond at {k}"
                );
            }
            if r + 1 < l {
                assert_eq!(gv[k], s[k] * s[k + l], "vertical bond at {k}");
            }
        }
    }
}

#[test]
fn uncall_of_call_restores_the_workspace() {
    let lattice = with_fields(3, 9);
    let l = lattice.l;
    let t = |v: &[f64]| v.iter().map(|&x| Tropical(x)).collect::<Vec<_>>();
    let (mut jh, mut jv, mut h) = (t(&lattice.jh), t(&lattice.jv), t(&lattice.h));
    let mut work = vec![Tropical::one(); spinglass::workspace_len(l)];
    let mut out = Tropical(0.5);
    spinglass::tropical_max(&mut out, &mut work, &mut jh, &mut jv, &mut h, l);
    assert_eq!(out, Tropical(0.5 - brute_force(&lattice)));
    // the contraction's vectors were uncomputed
    assert!(work.iter().all(|w| *w == Tropical::one()));
    spinglass::tropical_max_inv(&mut out, &mut work, &mut jh, &mut jv, &mut h, l);
    assert_eq!(out, Tropical(0.5));
    // one site step and its inverse (a field on site 0, so that v₁ = ±2)
    h[0] = Tropical(2.0);
    spinglass::site_step(&mut work, &mut jh, &mut jv, &mut h, l, 0);
    assert!(work[1 << l..2 << l].iter().all(|w| w.0.abs() == 2.0));
    spinglass::site_step_inv(&mut work, &mut jh, &mut jv, &mut h, l, 0);
    assert!(work.iter().all(|w| *w == Tropical::one()));
}

#[test]
fn larger_lattices_agree_with_dynamic_programming() {
    for (l, seed) in [(6, 1), (7, 2)] {
        let lattice = Lattice::random(l, seed);
        let e0 = spinglass::dynamic_programming(&lattice);
        let (e, spins) = ground_state(&lattice);
        assert_eq!(e, e0);
        assert_eq!(lattice.energy(&spins), e0);
    }
}
