//! The reversible quantum circuit simulator against an ordinary state-vector simulator, its
//! inverse, and its gradient against central finite differences and the parameter-shift rule.

use nilang_apps::plain::peers;
use nilang_apps::quantum::{self, plain, Circuit};
use num_complex::Complex;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type C = Complex<f64>;

fn random_angles(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| rng.gen_range(-3.2..3.2)).collect()
}

/// A random normalised state of `n` qubits.
fn random_state(n: usize, seed: u64) -> Vec<C> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let v: Vec<C> = (0..1 << n)
        .map(|_| C::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)))
        .collect();
    let norm = v.iter().map(|a| a.norm_sqr()).sum::<f64>().sqrt();
    v.into_iter().map(|a| a / norm).collect()
}

fn max_diff(a: &[C], b: &[C]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).norm())
        .fold(0.0, f64::max)
}

fn max_diff_real(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

const TFIM: Circuit = Circuit {
    qubits: 5,
    layers: 3,
    j: 1.0,
    g: 0.8,
};

#[test]
fn each_gate_matches_its_matrix() {
    let n = 4;
    for q in 0..n {
        for (k, p) in ['x', 'y', 'z'].into_iter().enumerate() {
            let theta = 0.3 + 0.7 * k as f64 + 0.1 * q as f64;
            let mut psi = random_state(n, 10 + q as u64);
            let mut expected = psi.clone();
            plain::apply1(&mut expected, q, plain::rotation(p, theta));
            let mut t = theta;
            match p {
                'x' => quantum::rx(&mut psi, q, &mut t),
                'y' => quantum::ry(&mut psi, q, &mut t),
                _ => quantum::rz(&mut psi, q, &mut t),
            }
            assert!(max_diff(&psi, &expected) < 1e-14, "R{p} on qubit {q}");
            assert_eq!(t, theta, "the angle is unchanged");
        }
    }
    // CNOT(0, 2) maps |001⟩ (qubit 0 set) to |101⟩; CZ(1, 3) flips the sign of |1010⟩ only
    let mut psi = vec![C::new(0.0, 0.0); 16];
    psi[0b0001] = C::new(1.0, 0.0);
    quantum::cnot(&mut psi, 0, 2);
    assert_eq!(psi[0b0101], C::new(1.0, 0.0));
    assert_eq!(psi.iter().filter(|a| a.norm() > 0.0).count(), 1);
    let mut psi: Vec<C> = (0..16).map(|i| C::new(i as f64, 1.0)).collect();
    quantum::cz(&mut psi, 1, 3);
    for (i, a) in psi.iter().enumerate() {
        let sign = if i & 0b1010 == 0b1010 { -1.0 } else { 1.0 };
        assert_eq!(*a, C::new(i as f64, 1.0) * sign, "amplitude {i}");
    }
}

#[test]
fn forward_matches_plain_state_vector_simulation() {
    for (c, seed) in [
        (TFIM, 1),
        (
            Circuit {
                qubits: 6,
                layers: 2,
                j: -0.5,
                g: 1.3,
            },
            2,
        ),
        (
            Circuit {
                qubits: 2,
                layers: 4,
                j: 1.0,
                g: 0.5,
            },
            3,
        ),
    ] {
        let theta = random_angles(c.parameters(), seed);
        let psi = c.state(&theta);
        let expected = plain::state(&c, &theta);
        assert!(max_diff(&psi, &expected) < 1e-13, "{c:?}");
        let norm: f64 = psi.iter().map(|a| a.norm_sqr()).sum();
        assert!((norm - 1.0).abs() < 1e-13);
        let (e, e_plain) = (c.energy(&theta), plain::energy(&c, &theta));
        assert!((e - e_plain).abs() < 1e-12, "{e} vs {e_plain}");
    }
}

#[test]
fn uncall_of_call_is_the_identity() {
    let c = TFIM;
    let mut theta = random_angles(c.parameters(), 4);
    let theta0 = theta.clone();
    let psi0 = random_state(c.qubits, 5);
    let mut psi = psi0.clone();
    quantum::circuit(&mut psi, &mut theta, c.qubits, c.layers);
    assert!(max_diff(&psi, &psi0) > 0.1, "the circuit changes the state");
    quantum::circuit_inv(&mut psi, &mut theta, c.qubits, c.layers);
    assert!(max_diff(&psi, &psi0) < 1e-13);
    assert_eq!(theta, theta0);

    // the energy too: e returns to its input, psi to |ψ₀⟩
    let mut e = 0.25;
    quantum::vqe_energy(&mut e, &mut psi, &mut theta, c.qubits, c.layers, c.j, c.g);
    assert!((e - 0.25).abs() > 1e-3);
    quantum::vqe_energy_inv(&mut e, &mut psi, &mut theta, c.qubits, c.layers, c.j, c.g);
    assert!((e - 0.25).abs() < 1e-13);
    assert!(max_diff(&psi, &psi0) < 1e-13);
}

#[test]
fn gradient_matches_parameter_shift_rule() {
    for (c, seed) in [
        (TFIM, 6),
        (
            Circuit {
                qubits: 4,
                layers: 2,
                j: 0.7,
                g: -1.1,
            },
            7,
        ),
    ] {
        let theta = random_angles(c.parameters(), seed);
        let (e, grad) = quantum::energy_and_gradient(&c, &theta);
        assert!((e - plain::energy(&c, &theta)).abs() < 1e-12);
        let shift = quantum::parameter_shift(&c, &theta);
        let err = max_diff_real(&grad, &shift);
        assert!(err < 1e-12, "{c:?}: max |reversal − shift| = {err:e}");
        assert!(
            grad.iter().any(|g| g.abs() > 1e-2),
            "a gradient that is not zero"
        );
    }
}

#[test]
fn gradient_matches_central_finite_differences() {
    let c = TFIM;
    let theta = random_angles(c.parameters(), 8);
    let (_, grad) = quantum::energy_and_gradient(&c, &theta);
    let fd = quantum::finite_differences(&c, &theta, 1e-5);
    let err = max_diff_real(&grad, &fd);
    assert!(err < 1e-8, "max |reversal − finite differences| = {err:e}");
}

#[test]
fn the_gradient_uncomputes_the_state() {
    let c = TFIM;
    let mut theta = random_angles(c.parameters(), 9);
    let mut psi = c.zero_state();
    let mut psi_grad = vec![C::new(0.0, 0.0); psi.len()];
    let mut theta_grad = vec![0.0; theta.len()];
    let (mut e, mut e_grad) = (0.0, 1.0);
    let value = quantum::vqe_energy_vjp(
        &mut e,
        &mut e_grad,
        &mut psi,
        &mut psi_grad,
        &mut theta,
        &mut theta_grad,
        c.qubits,
        (),
        c.layers,
        (),
        c.j,
        (),
        c.g,
        (),
    );
    assert!((value - plain::energy(&c, &theta)).abs() < 1e-12);
    // back at the input: |0…0⟩ and e = 0
    assert!(max_diff(&psi, &c.zero_state()) < 1e-13);
    assert!(e.abs() < 1e-13);
    // ∂E/∂ψ₀ = 2 (U† H U ψ₀) at ψ₀ = |0…0⟩ (E = ⟨ψ₀|U†HU|ψ₀⟩ as a function of Re, Im)
    assert!((psi_grad[0].re - 2.0 * value).abs() < 1e-11);
    assert!(psi_grad[0].im.abs() < 1e-11);
}

#[test]
fn ground_state_of_two_qubits_is_reached_by_gradient_descent() {
    // H = −Z₀Z₁ − g(X₀ + X₁) has ground energy −√(1 + 4g²); gradient descent on two layers reaches it
    let c = Circuit {
        qubits: 2,
        layers: 2,
        j: 1.0,
        g: 0.5,
    };
    let mut theta = random_angles(c.parameters(), 11);
    for _ in 0..1500 {
        let (_, grad) = quantum::energy_and_gradient(&c, &theta);
        for (t, g) in theta.iter_mut().zip(&grad) {
            *t -= 0.2 * g;
        }
    }
    let exact = -(1.0f64 + 4.0 * 0.25).sqrt();
    let e = c.energy(&theta);
    assert!((e - exact).abs() < 1e-9, "{e} vs {exact}");
}

#[test]
fn tape_gradients_of_the_plain_simulator_match_reversal() {
    let c = Circuit {
        qubits: 6,
        layers: 2,
        j: 1.0,
        g: 0.8,
    };
    let theta = random_angles(c.parameters(), 15);
    let (e, reversal) = quantum::energy_and_gradient(&c, &theta);
    let dualrev = peers::dualrev_gradient(|t| plain::energy_generic(&c, t), &theta);
    let echidna = peers::echidna_gradient(|t| plain::energy_generic(&c, t), &theta);
    let list = easy_ml::differentiation::WengertList::new();
    let easy_ml = peers::easy_ml_gradient(&list, |t| plain::energy_generic(&c, t), &theta);
    let num_dual = peers::num_dual_gradient(|t| plain::energy_generic(&c, t), &theta);
    assert!((plain::energy_generic(&c, &theta) - e).abs() < 1e-12);
    assert!(
        reversal.iter().any(|g| g.abs() > 1e-2),
        "a gradient that is not zero"
    );
    for (name, g) in [
        ("nilang-dualrev", dualrev),
        ("echidna", echidna),
        ("easy-ml", easy_ml),
        ("num-dual", num_dual),
    ] {
        let err = max_diff_real(&g, &reversal);
        assert!(err < 1e-10, "{name}: max |tape − reversal| = {err:e}");
    }
}
