//! The plain simulator, written once over any [`Plain`](crate::plain::Plain) scalar: `f64`
//! for the reference the tests compare with, the tape engines' scalars for their gradients.
//! Amplitudes are `Cx` pairs (the tapes' scalars are not `num_traits` numbers, so `Complex<S>` has no arithmetic
//! for them); each operation keeps `num_complex`'s order, so at `f64` it rounds as `Complex`
//! does. The `f64` functions take and give `Complex<f64>`.

use super::{bit, zz_energy, Circuit};
use crate::plain::Plain;
use num_complex::Complex;

type C = Complex<f64>;

/// A complex number over a [`Plain`] scalar, with the few operations the simulator needs.
#[derive(Clone, Copy)]
struct Cx<S> {
    re: S,
    im: S,
}

impl<S: Plain> Cx<S> {
    #[inline(always)]
    fn real(re: S) -> Cx<S> {
        Cx {
            re,
            im: S::cst(0.0),
        }
    }

    #[inline(always)]
    fn add(self, b: Cx<S>) -> Cx<S> {
        Cx {
            re: self.re + b.re,
            im: self.im + b.im,
        }
    }

    #[inline(always)]
    fn sub(self, b: Cx<S>) -> Cx<S> {
        Cx {
            re: self.re - b.re,
            im: self.im - b.im,
        }
    }

    #[inline(always)]
    fn mul(self, b: Cx<S>) -> Cx<S> {
        Cx {
            re: self.re * b.re - self.im * b.im,
            im: self.re * b.im + self.im * b.re,
        }
    }

    /// `self · k` for a real constant `k`.
    #[inline(always)]
    fn scale(self, k: f64) -> Cx<S> {
        Cx {
            re: self.re * S::cst(k),
            im: self.im * S::cst(k),
        }
    }

    #[inline(always)]
    fn neg(self) -> Cx<S> {
        Cx {
            re: -self.re,
            im: -self.im,
        }
    }
}

impl Cx<f64> {
    fn of(c: C) -> Cx<f64> {
        Cx { re: c.re, im: c.im }
    }

    fn complex(self) -> C {
        C::new(self.re, self.im)
    }
}

/// The matrix of `exp(−iθP/2)` for `P` = `'x'`, `'y'` or `'z'`.
fn rotation_of<S: Plain>(p: char, theta: S) -> [[Cx<S>; 2]; 2] {
    let half = theta * S::cst(0.5);
    let (c, s) = (half.cos(), half.sin());
    let zero = S::cst(0.0);
    let im = |v: S| Cx { re: zero, im: v };
    let re = Cx::real;
    match p {
        'x' => [[re(c), im(-s)], [im(-s), re(c)]],
        'y' => [[re(c), re(-s)], [re(s), re(c)]],
        'z' => [
            [Cx { re: c, im: -s }, re(zero)],
            [re(zero), Cx { re: c, im: s }],
        ],
        _ => panic!("no rotation about {p}"),
    }
}

/// `ψ ← U ψ` for a 2×2 matrix `U` on qubit `q`.
fn apply_to<S: Plain>(psi: &mut [Cx<S>], q: usize, u: [[Cx<S>; 2]; 2]) {
    for i in 0..psi.len() {
        if !bit(i, q) {
            let (a, b) = (psi[i], psi[i | 1 << q]);
            psi[i] = u[0][0].mul(a).add(u[0][1].mul(b));
            psi[i | 1 << q] = u[1][0].mul(a).add(u[1][1].mul(b));
        }
    }
}

/// `U(θ)|0…0⟩`.
fn state_of<S: Plain>(c: &Circuit, theta: &[S]) -> Vec<Cx<S>> {
    assert_eq!(theta.len(), c.parameters(), "number of angles");
    let n = c.qubits;
    let mut psi = vec![Cx::real(S::cst(0.0)); 1 << n];
    psi[0] = Cx::real(S::cst(1.0));
    for l in 0..c.layers {
        for q in 0..n {
            let k = 3 * (l * n + q);
            apply_to(&mut psi, q, rotation_of('x', theta[k]));
            apply_to(&mut psi, q, rotation_of('y', theta[k + 1]));
            apply_to(&mut psi, q, rotation_of('z', theta[k + 2]));
        }
        for q in 1..n {
            // CNOT(q − 1, q): X on qubit q where qubit q − 1 is set
            for i in 0..psi.len() {
                if bit(i, q - 1) && !bit(i, q) {
                    psi.swap(i, i | 1 << q);
                }
            }
        }
        if n >= 2 {
            for (i, a) in psi.iter_mut().enumerate() {
                if bit(i, n - 1) && bit(i, 0) {
                    *a = a.neg();
                }
            }
        }
    }
    psi
}

/// `H ψ` for the transverse-field Ising chain.
fn hamiltonian_of<S: Plain>(c: &Circuit, psi: &[Cx<S>]) -> Vec<Cx<S>> {
    let mut out: Vec<Cx<S>> = psi
        .iter()
        .enumerate()
        .map(|(i, a)| a.scale(zz_energy(i, c.qubits, c.j)))
        .collect();
    for q in 0..c.qubits {
        for (i, o) in out.iter_mut().enumerate() {
            *o = o.sub(psi[i ^ (1 << q)].scale(c.g));
        }
    }
    out
}

/// `ψ ← U ψ` for a 2×2 matrix `U` on qubit `q`.
pub fn apply1(psi: &mut [C], q: usize, u: [[C; 2]; 2]) {
    let mut pairs: Vec<Cx<f64>> = psi.iter().copied().map(Cx::of).collect();
    apply_to(&mut pairs, q, u.map(|row| row.map(Cx::of)));
    psi.iter_mut()
        .zip(pairs)
        .for_each(|(p, c)| *p = c.complex());
}

/// The matrix of `exp(−iθP/2)` for `P` = `'x'`, `'y'` or `'z'`.
pub fn rotation(p: char, theta: f64) -> [[C; 2]; 2] {
    rotation_of(p, theta).map(|row| row.map(Cx::complex))
}

/// `U(θ)|0…0⟩`.
pub fn state(c: &Circuit, theta: &[f64]) -> Vec<C> {
    state_of(c, theta).into_iter().map(Cx::complex).collect()
}

/// `H ψ` for the transverse-field Ising chain.
pub fn hamiltonian(c: &Circuit, psi: &[C]) -> Vec<C> {
    let pairs: Vec<Cx<f64>> = psi.iter().copied().map(Cx::of).collect();
    hamiltonian_of(c, &pairs)
        .into_iter()
        .map(Cx::complex)
        .collect()
}

/// `⟨ψ|H|ψ⟩` for `ψ = U(θ)|0…0⟩`.
pub fn energy(c: &Circuit, theta: &[f64]) -> f64 {
    energy_generic(c, theta)
}

/// [`energy`] over any [`Plain`] scalar (`f64`, or the tape engines' scalars, which then
/// record every real operation of the simulation): `Σᵢ Re(conj(ψᵢ) (Hψ)ᵢ)`.
///
/// ```
/// use nilang_apps::plain::peers;
/// use nilang_apps::quantum::{energy_and_gradient, plain, Circuit};
///
/// let c = Circuit { qubits: 3, layers: 1, j: 1.0, g: 0.7 };
/// let theta: Vec<f64> = (0..c.parameters()).map(|k| 0.1 * k as f64).collect();
/// let tape = peers::dualrev_gradient(|t| plain::energy_generic(&c, t), &theta);
/// let (_, reversal) = energy_and_gradient(&c, &theta);
/// assert!(tape.iter().zip(&reversal).all(|(a, b)| (a - b).abs() < 1e-12));
/// ```
pub fn energy_generic<S: Plain>(c: &Circuit, theta: &[S]) -> S {
    let psi = state_of(c, theta);
    let h = hamiltonian_of(c, &psi);
    psi.iter()
        .zip(&h)
        .fold(S::cst(0.0), |e, (a, b)| e + (a.re * b.re + a.im * b.im))
}
