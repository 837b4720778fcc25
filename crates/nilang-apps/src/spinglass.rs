//! The ground state of a spin glass by a tropical contraction, and its configuration from the
//! gradient (the NiLang paper's outlook: "differentiating over tropical numbers to solve the
//! ground state configurations"; Liu et al., *Tropical tensor network for ground states of
//! spin glasses*, PRL 126, 090506 (2021)).
//!
//! **Model.** Ising spins `sᵢ = ±1` on an `L × L` square lattice with open boundaries, bond
//! couplings `J_ij` (random `±1` in [`Lattice::random`]) and local fields `hᵢ`:
//!
//! `H(s) = −Σ_⟨ij⟩ J_ij sᵢ sⱼ − Σᵢ hᵢ sᵢ`,  ground-state energy `E₀ = min_s H(s)`.
//!
//! **Tropical contraction.** In the max-plus semiring (⊕ = max, ⊗ = +), `−E₀ = ⊕_s ⊗_terms
//! (−H's terms)`, a contraction done site by site in row-major order. The frontier is the last
//! `L` sites added, one per column (`2^L` configurations, bit `c` the spin in column `c`, set
//! for `s = +1`); vector `v_k` holds, per frontier configuration, the best `−H` of the first
//! `k` sites. Adding site `k = (r, c)` replaces the spin of `(r − 1, c)` in bit `c`:
//!
//! `v_{k+1}[σ] = [(v_k[σ, bit c = 0] ⊗ (−J_v s)) ⊕ (v_k[σ, bit c = 1] ⊗ J_v s)] ⊗ J_h s s_left ⊗ h s`
//!
//! (`s` the spin of bit `c` of `σ`, `s_left` that of bit `c − 1`; each product of numbers is
//! one tropical factor; the bracket's terms are the old spin `−1` and `+1`; the vertical term
//! only for `r > 0`, the horizontal only for `c > 0`): one `y *= a + b` (a tropical `max`) per
//! entry, `2^L · L²` in all. A tree of
//! maxima over `v_{L²}` gives `−E₀`. Written in the language ([`site_step`], [`max_tree`],
//! [`tropical_max`]): the vectors are ancillas in a workspace, computed, read and uncomputed,
//! and tropical `*=` and `/=` by a coupling are exact on the integer-valued `f64` contents.
//!
//! **Configuration from the gradient.** The generated `tropical_max_vjp` runs the program
//! backwards on `Tropical<f64>` values with gradients. Tropical `*=` adds a gradient to its
//! operand; a tropical `max` hands the whole gradient to its larger operand (the first on
//! ties), so the gradient of `−E₀` flows back along exactly one optimal path of choices — the
//! back-tracking of dynamic programming, done by the adjoint program. Along it
//! `∂(−E₀)/∂hᵢ = sᵢ*` and `∂(−E₀)/∂J_ij = sᵢ* sⱼ*` for one ground state `s*`, which
//! [`ground_state`] reads off the field gradients.
//!
//! **Cost.** `L² · 2^L` tropical `max`es forward, as many again in the adjoint. Reversibility
//! keeps every vector `v_k` until it is uncomputed: the workspace is `(L² + 2) · 2^L` tropical
//! numbers (and as many gradients), where the irreversible dynamic programming
//! ([`dynamic_programming`]) overwrites two vectors of `2^L`. Back-tracking needs the vectors
//! anyway, so the gradient costs no more memory than the value.
//!
//! Run `cargo run --release -p nilang-apps --example spinglass` for a 10 × 10 lattice
//! (`-- 14` for 14 × 14).
//!
//! ```
//! use nilang_apps::spinglass::{brute_force, ground_state, Lattice};
//!
//! let lattice = Lattice::random(3, 7);
//! let (e0, spins) = ground_state(&lattice);
//! assert_eq!(e0, brute_force(&lattice));
//! assert_eq!(lattice.energy(&spins), e0);
//! ```

use nilang::numbers::{Tropical, TropicalBase};
use nilang::{i, Real};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Whether bit `c` of `sigma` is set (the spin in column `c` is `+1`).
#[inline(always)]
fn up(sigma: usize, c: usize) -> bool {
    (sigma >> c) & 1 == 1
}

/// Offset in the workspace of level `m` of the tree of maxima over `v_{n}` (`n = L²` sites;
/// level 0 is `v_n` itself, level `m` has `2^(L − m)` entries).
fn level(l: usize, n: usize, m: usize) -> usize {
    if m == 0 {
        n << l
    } else {
        ((n + 2) << l) - (1 << (l + 1 - m))
    }
}

/// Length of the workspace of an `L × L` lattice: the vectors `v_0 … v_{L²}` and the tree of
/// maxima (`(L² + 2) · 2^L − 1` tropical numbers).
pub fn workspace_len(l: usize) -> usize {
    ((l * l + 2) << l) - 1
}

/// Adds site `k` (row `k / L`, column `k % L`): `v_{k+1}` from `v_k`, both in `work`
/// (`v_k` at `k · 2^L`), as in the [module](self) documentation. `jh` holds the `L(L − 1)`
/// horizontal couplings (bond `(r, c)–(r, c + 1)` at `r(L − 1) + c`), `jv` the vertical ones
/// (bond `(r − 1, c)–(r, c)` at `(r − 1)L + c`), `h` the fields.
#[i]
pub fn site_step<T: Real + TropicalBase>(
    work: &mut [Tropical<T>],
    jh: &mut [Tropical<T>],
    jv: &mut [Tropical<T>],
    h: &mut [Tropical<T>],
    l: usize,
    k: usize,
) {
    for sigma in 0..1usize << l {
        let a = Tropical::<T>::one();
        let b = Tropical::<T>::one();
        routine! {
            a *= work[(k << l) + (sigma & !(1 << (k % l)))];
            b *= work[(k << l) + (sigma | (1 << (k % l)))];
            if k >= l {
                if up(sigma, k % l) {
                    a /= jv[k - l];
                    b *= jv[k - l];
                } else {
                    a *= jv[k - l];
                    b /= jv[k - l];
                }
            }
        }
        work[((k + 1) << l) + sigma] *= a + b;
        uncompute!();
        dealloc!(a = Tropical::<T>::one(), b = Tropical::<T>::one());
        if k % l > 0 {
            if up(sigma, k % l) == up(sigma, k % l - 1) {
                work[((k + 1) << l) + sigma] *= jh[(k / l) * (l - 1) + k % l - 1];
            } else {
                work[((k + 1) << l) + sigma] /= jh[(k / l) * (l - 1) + k % l - 1];
            }
        }
        if up(sigma, k % l) {
            work[((k + 1) << l) + sigma] *= h[k];
        } else {
            work[((k + 1) << l) + sigma] /= h[k];
        }
    }
}

/// The tree of maxima over `v_{L²}`: level `m + 1` entry `i` is the max of level `m`'s
/// entries `i` and `i + 2^(L − m − 1)` (the spin of column `L − m − 1` maximised out).
#[i]
pub fn max_tree<T: Real + TropicalBase>(work: &mut [Tropical<T>], l: usize) {
    for m in 0..l {
        for i in 0..1usize << (l - m - 1) {
            work[level(l, l * l, m + 1) + i] *=
                work[level(l, l * l, m) + i] + work[level(l, l * l, m) + i + (1 << (l - m - 1))];
        }
    }
}

/// `out *= max_s (−H(s))` (tropical: `out += −E₀` on the stored value): the contraction is
/// computed into `work` (all tropical ones, `workspace_len(L)` of them, on entry and on
/// exit), read, and uncomputed.
#[i]
pub fn tropical_max<T: Real + TropicalBase>(
    out: &mut Tropical<T>,
    work: &mut [Tropical<T>],
    jh: &mut [Tropical<T>],
    jv: &mut [Tropical<T>],
    h: &mut [Tropical<T>],
    l: usize,
) {
    routine! {
        for k in 0..l * l {
            site_step(work, jh, jv, h, l, k);
        }
        max_tree(work, l);
    }
    out *= work[level(l, l * l, l)];
    uncompute!();
}

/// An `L × L` spin glass: couplings and fields as in the [module](self) documentation.
#[derive(Clone, Debug, PartialEq)]
pub struct Lattice {
    /// The side `L`.
    pub l: usize,
    /// Horizontal couplings, `(r, c)–(r, c + 1)` at `r(L − 1) + c`.
    pub jh: Vec<f64>,
    /// Vertical couplings, `(r, c)–(r + 1, c)` at `rL + c`.
    pub jv: Vec<f64>,
    /// Local fields, site `(r, c)` at `rL + c`.
    pub h: Vec<f64>,
}

impl Lattice {
    /// Random `±1` couplings and zero fields, from a seed.
    pub fn random(l: usize, seed: u64) -> Lattice {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut pm = |n: usize| -> Vec<f64> {
            (0..n)
                .map(|_| if rng.gen::<bool>() { 1.0 } else { -1.0 })
                .collect()
        };
        let jh = pm(l * l.saturating_sub(1));
        let jv = pm(l * l.saturating_sub(1));
        Lattice {
            l,
            jh,
            jv,
            h: vec![0.0; l * l],
        }
    }

    /// `H(s)` of a configuration (`s[r L + c] = ±1`).
    pub fn energy(&self, s: &[i8]) -> f64 {
        let l = self.l;
        assert_eq!(s.len(), l * l, "one spin per site");
        let mut e = 0.0;
        for r in 0..l {
            for c in 0..l {
                let k = r * l + c;
                let si = s[k] as f64;
                e -= self.h[k] * si;
                if c + 1 < l {
                    e -= self.jh[r * (l - 1) + c] * si * s[k + 1] as f64;
                }
                if r + 1 < l {
                    e -= self.jv[k] * si * s[k + l] as f64;
                }
            }
        }
        e
    }
}

/// `E₀` by enumerating all `2^(L²)` configurations (`L ≤ 5`).
pub fn brute_force(lattice: &Lattice) -> f64 {
    let n = lattice.l * lattice.l;
    assert!(n <= 25, "2^{n} configurations are too many");
    let mut s = vec![0i8; n];
    let mut best = f64::INFINITY;
    for bits in 0u64..1 << n {
        for (k, v) in s.iter_mut().enumerate() {
            *v = if (bits >> k) & 1 == 1 { 1 } else { -1 };
        }
        best = best.min(lattice.energy(&s));
    }
    best
}

fn tropicals(v: &[f64]) -> Vec<Tropical<f64>> {
    v.iter().map(|&x| Tropical(x)).collect()
}

/// `E₀` by the reversible tropical contraction [`tropical_max`].
pub fn ground_energy(lattice: &Lattice) -> f64 {
    let l = lattice.l;
    let mut work = vec![Tropical::one(); workspace_len(l)];
    let mut out = Tropical::one();
    let (mut jh, mut jv, mut h) = (
        tropicals(&lattice.jh),
        tropicals(&lattice.jv),
        tropicals(&lattice.h),
    );
    tropical_max(&mut out, &mut work, &mut jh, &mut jv, &mut h, l);
    -out.0
}

/// `−E₀` and its gradients by reversal, with respect to the horizontal couplings, the
/// vertical couplings and the fields: [`tropical_max`] forward (the value), then its adjoint
/// program `tropical_max_adjoint` from the seed 1 on `out`.
pub fn tropical_gradient(lattice: &Lattice) -> (f64, Vec<f64>, Vec<f64>, Vec<f64>) {
    let l = lattice.l;
    let mut work = vec![Tropical::one(); workspace_len(l)];
    let mut work_grad = vec![Tropical(0.0); work.len()];
    let (mut out, mut out_grad) = (Tropical::one(), Tropical(1.0));
    let (mut jh, mut jv, mut h) = (
        tropicals(&lattice.jh),
        tropicals(&lattice.jv),
        tropicals(&lattice.h),
    );
    let mut jh_grad = vec![Tropical(0.0); jh.len()];
    let mut jv_grad = vec![Tropical(0.0); jv.len()];
    let mut h_grad = vec![Tropical(0.0); h.len()];
    tropical_max(&mut out, &mut work, &mut jh, &mut jv, &mut h, l);
    let value = out.0;
    tropical_max_adjoint(
        &mut out,
        &mut out_grad,
        &mut work,
        &mut work_grad,
        &mut jh,
        &mut jh_grad,
        &mut jv,
        &mut jv_grad,
        &mut h,
        &mut h_grad,
        l,
        (),
    );
    let plain = |g: Vec<Tropical<f64>>| g.into_iter().map(|t| t.0).collect::<Vec<_>>();
    (value, plain(jh_grad), plain(jv_grad), plain(h_grad))
}

/// `(E₀, s*)`: the ground-state energy and one ground state, `s*ᵢ = ∂(−E₀)/∂hᵢ` from
/// [`tropical_gradient`] (each `±1`).
pub fn ground_state(lattice: &Lattice) -> (f64, Vec<i8>) {
    let (neg_e0, _, _, h_grad) = tropical_gradient(lattice);
    let spins = h_grad
        .iter()
        .map(|&g| {
            assert!(g == 1.0 || g == -1.0, "a field gradient of {g}, not ±1");
            g as i8
        })
        .collect();
    (-neg_e0, spins)
}

/// `E₀` by ordinary dynamic programming over the same frontier (plain Rust, `f64` max and
/// `+`), the reference for lattices too large for [`brute_force`].
pub fn dynamic_programming(lattice: &Lattice) -> f64 {
    let l = lattice.l;
    let mut v = vec![0.0f64; 1 << l];
    for k in 0..l * l {
        let (r, c) = (k / l, k % l);
        let mut next = vec![0.0f64; 1 << l];
        for (sigma, out) in next.iter_mut().enumerate() {
            let s = if up(sigma, c) { 1.0 } else { -1.0 };
            let mut best = f64::NEG_INFINITY;
            for old in [-1.0f64, 1.0] {
                let idx = if old > 0.0 {
                    sigma | 1 << c
                } else {
                    sigma & !(1 << c)
                };
                let bond = if r > 0 {
                    lattice.jv[k - l] * old * s
                } else {
                    0.0
                };
                best = best.max(v[idx] + bond);
            }
            if c > 0 {
                let left = if up(sigma, c - 1) { 1.0 } else { -1.0 };
                best += lattice.jh[r * (l - 1) + c - 1] * s * left;
            }
            *out = best + lattice.h[k] * s;
        }
        v = next;
    }
    -v.into_iter().fold(f64::NEG_INFINITY, f64::max)
}
