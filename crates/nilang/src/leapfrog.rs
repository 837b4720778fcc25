//! The round-off study of the ICLR paper's Appendix F (Figure 6): a reversible leapfrog
//! integrator of the solar system, with the acceleration written as in Listing 25 (computed
//! and uncomputed on an ancilla) and as in Listing 26 (computed and uncomputed on an input,
//! which accumulates round-off), against an irreversible integrator and a higher-precision
//! ([`DoubleDouble`]) reference.
//!
//! **Initial conditions.** The Sun and the four giant planets (Jupiter, Saturn, Uranus,
//! Neptune) as tabulated in the n-body program of the Computer Language Benchmarks Game
//! (heliocentric positions in AU and velocities in AU/day, from JPL ephemerides; masses in
//! solar masses; the Sun's velocity offsets the total momentum). Units: AU, years, solar
//! masses, so `G = 4π²`. Time step `dt = 0.01` years.
//!
//! **The integrator.** One step is a kick and a drift (Eqs. (8)–(10) of the paper):
//! `vᵢ += Σⱼ G mⱼ (xⱼ − xᵢ)/|xⱼ − xᵢ|³ · dt`, then `xᵢ += vᵢ dt` (the tabulated velocities
//! are taken as `v_{1/2}`). Both updates are `+=` instructions, so the reversible step's
//! inverse runs it backwards; its memory is the state alone, whatever the number of steps.
//! Each variant computes exactly the same floating-point operations as [`regular_step`] on
//! its forward run: Listing 25's forward run is bit for bit the irreversible integrator.
//!
//! ```
//! use nilang::leapfrog::{max_state_difference, run_reversible, run_reversible_inv, solar_system};
//!
//! // 200 steps forward and back: Listing 25 (ancilla) against Listing 26 (on the input)
//! let round_trip = |cumulative| {
//!     let mut b = solar_system();
//!     run_reversible(&mut b, 200, cumulative);
//!     run_reversible_inv(&mut b, 200, cumulative);
//!     max_state_difference(&b, &solar_system())
//! };
//! let (ancilla, cumulative) = (round_trip(false), round_trip(true));
//! assert!(10.0 * ancilla < cumulative); // 4.4e-16 against 3.5e-14 on x86-64
//! ```

use crate::numbers::DoubleDouble;
use crate::real::Real;
use nilang_macros::i;

/// `G` in AU³ / (solar mass · year²): `4π²`, so that a circular orbit of 1 AU around one
/// solar mass takes one year.
///
/// ```
/// use nilang::leapfrog::G;
///
/// let speed = (G * 1.0 / 1.0).sqrt(); // √(GM/r), in AU per year
/// let period = 2.0 * std::f64::consts::PI * 1.0 / speed;
/// assert!((period - 1.0).abs() < 1e-15);
/// ```
pub const G: f64 = 4.0 * core::f64::consts::PI * core::f64::consts::PI;
/// The time step, in years: `1.0 / DT` steps of [`run_reversible`] are one year.
///
/// ```
/// use nilang::leapfrog::{run_reversible, solar_system, DT};
///
/// let mut b = solar_system();
/// let start = b.x[1]; // Jupiter
/// run_reversible(&mut b, (1.0 / DT).round() as usize, false);
/// let angle = |p: [f64; 3]| p[1].atan2(p[0]);
/// let degrees = (angle(b.x[1]) - angle(start)).to_degrees();
/// // 33° in a year: near its perihelion (4.98 AU), Jupiter moves faster than its mean 30°
/// assert!((33.0..34.0).contains(&degrees), "{degrees}");
/// ```
pub const DT: f64 = 0.01;
const DAYS_PER_YEAR: f64 = 365.24;

/// Positions, velocities and masses of a system of bodies.
///
/// ```
/// use nilang::leapfrog::solar_system;
///
/// let b = solar_system();
/// assert_eq!((b.x.len(), b.v.len(), b.m.len()), (5, 5, 5)); // the Sun and four planets
/// assert_eq!(b.x[0], [0.0; 3]); // heliocentric
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Bodies<T> {
    /// Positions (AU).
    pub x: Vec<[T; 3]>,
    /// Velocities (AU/year).
    pub v: Vec<[T; 3]>,
    /// Masses (solar masses).
    pub m: Vec<f64>,
}

/// The Sun, Jupiter, Saturn, Uranus and Neptune (the Benchmarks Game's n-body table), with the
/// Sun's velocity set so that the total momentum is zero.
///
/// ```
/// let b = nilang::leapfrog::solar_system();
/// let p: f64 = (0..5).map(|i| b.m[i] * b.v[i][0]).sum();
/// assert!(p.abs() < 1e-15); // no total momentum
/// ```
pub fn solar_system() -> Bodies<f64> {
    #[rustfmt::skip]
    let table: [([f64; 3], [f64; 3], f64); 4] = [
        // Jupiter
        ([4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01],
         [1.66007664274403694e-03, 7.69901118419740425e-03, -6.90460016972063023e-05],
         9.54791938424326609e-04),
        // Saturn
        ([8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01],
         [-2.76742510726862411e-03, 4.99852801234917238e-03, 2.30417297573763929e-05],
         2.85885980666130812e-04),
        // Uranus
        ([1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01],
         [2.96460137564761618e-03, 2.37847173959480950e-03, -2.96589568540237556e-05],
         4.36624404335156298e-05),
        // Neptune
        ([1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01],
         [2.68067772490389322e-03, 1.62824170038242295e-03, -9.51592254519715870e-05],
         5.15138902046611451e-05),
    ];
    let mut b = Bodies {
        x: vec![[0.0; 3]],
        v: vec![[0.0; 3]],
        m: vec![1.0],
    };
    for (x, v, m) in table {
        b.x.push(x);
        b.v.push(v.map(|c| c * DAYS_PER_YEAR));
        b.m.push(m);
    }
    let mut p = [0.0; 3];
    for (v, m) in b.v.iter().zip(&b.m) {
        for k in 0..3 {
            p[k] += v[k] * m;
        }
    }
    b.v[0] = p.map(|c| -c / b.m[0]);
    b
}

impl Bodies<f64> {
    /// The same system in another precision.
    ///
    /// ```
    /// use nilang::leapfrog::solar_system;
    /// use nilang::numbers::DoubleDouble;
    ///
    /// let b = solar_system().convert(DoubleDouble::new);
    /// assert_eq!(b.x[1][0].to_f64(), solar_system().x[1][0]);
    /// ```
    pub fn convert<T>(&self, f: impl Fn(f64) -> T) -> Bodies<T> {
        Bodies {
            x: self.x.iter().map(|p| p.map(&f)).collect(),
            v: self.v.iter().map(|p| p.map(&f)).collect(),
            m: self.m.clone(),
        }
    }
}

/// `y += G m_b r / |r|³`, the gravitational pull along a separation `r`, every intermediate in
/// an ancilla uncomputed exactly. Both listings below compute `r = r_b − r_a` and call this.
///
/// ```
/// use nilang::leapfrog::{pull, pull_inv};
///
/// // a unit mass at distance 2 along x, G = 1: a pull of 1/4 towards it
/// let (mut y, mut r) = ([0.0; 3], [2.0, 0.0, 0.0]);
/// pull(&mut y, &mut r, 1.0, 1.0);
/// assert_eq!(y, [0.25, 0.0, 0.0]);
/// pull_inv(&mut y, &mut r, 1.0, 1.0);
/// assert_eq!(y, [0.0; 3]);
/// ```
#[i(nocheck)]
pub fn pull<T: Real>(y: &mut [T; 3], r: &mut [T; 3], mb: f64, g: f64) {
    let (d, anc1, sq, anc2, anc3, anc4) = (
        T::zero(),
        T::zero(),
        T::zero(),
        T::zero(),
        T::zero(),
        T::zero(),
    );
    routine! {
        d += square(r[0]);
        d += square(r[1]);
        d += square(r[2]);
        anc1 += sqrt(d);
        sq += square(anc1);
        anc2 += sq * anc1;
        anc3 += g * mb;
        anc4 += anc3 / anc2;
    }
    y[0] += anc4 * r[0];
    y[1] += anc4 * r[1];
    y[2] += anc4 * r[2];
    uncompute!();
    dealloc!(
        d = T::zero(),
        anc1 = T::zero(),
        sq = T::zero(),
        anc2 = T::zero(),
        anc3 = T::zero(),
        anc4 = T::zero()
    );
}

/// Listing 25: `y += G m_b (r_b − r_a) / |r_b − r_a|³`, with `r_b − r_a` in an ancilla `rc`,
/// uncomputed exactly.
///
/// ```
/// use nilang::leapfrog::{acceleration, acceleration_inv};
///
/// let (mut y, mut ra, mut rb) = ([0.0f64; 3], [1.0, 0.0, 0.0], [1.0, 3.0, 0.0]);
/// acceleration(&mut y, &mut ra, &mut rb, 2.0, 1.0);
/// assert!((y[1] - 2.0 / 9.0).abs() < 1e-15); // G m / d² towards b
/// acceleration_inv(&mut y, &mut ra, &mut rb, 2.0, 1.0);
/// assert_eq!((y, rb), ([0.0; 3], [1.0, 3.0, 0.0])); // r_b untouched: the difference was an ancilla
/// ```
#[i(nocheck)]
pub fn acceleration<T: Real>(y: &mut [T; 3], ra: &mut [T; 3], rb: &mut [T; 3], mb: f64, g: f64) {
    let rc = [T::zero(); 3];
    routine! {
        rc[0] += rb[0] - ra[0];
        rc[1] += rb[1] - ra[1];
        rc[2] += rb[2] - ra[2];
    }
    pull(y, rc, mb, g);
    uncompute!();
    dealloc!(rc = [T::zero(); 3]);
}

/// Listing 26: the same, but `r_b − r_a` is computed in place in `r_b` and uncomputed by
/// `r_b += r_a`, which does not give `r_b` back exactly: the round-off accumulates in the
/// positions.
///
/// ```
/// use nilang::leapfrog::acceleration_cumulative;
///
/// let (mut y, mut ra, mut rb) = ([0.0; 3], [0.7, 0.0, 0.0], [0.1, 3.0, 0.0]);
/// acceleration_cumulative(&mut y, &mut ra, &mut rb, 2.0, 1.0);
/// // r_b was turned into r_b − r_a and back: (0.1 − 0.7) + 0.7 is not 0.1 in f64
/// assert_eq!(rb[0], 0.1f64 - 0.7 + 0.7);
/// assert_ne!(rb[0], 0.1);
/// ```
#[i(nocheck)]
pub fn acceleration_cumulative<T: Real>(
    y: &mut [T; 3],
    ra: &mut [T; 3],
    rb: &mut [T; 3],
    mb: f64,
    g: f64,
) {
    routine! {
        rb[0] -= ra[0];
        rb[1] -= ra[1];
        rb[2] -= ra[2];
    }
    pull(y, rb, mb, g);
    uncompute!();
}

/// One reversible leapfrog step (kick, then drift) with the acceleration of Listing 25, or of
/// Listing 26 when `cumulative`. `gdt` is `G·dt`.
///
/// ```
/// use nilang::leapfrog::{leapfrog_step, leapfrog_step_inv, solar_system, DT, G};
///
/// let mut b = solar_system();
/// leapfrog_step(&mut b.x, &mut b.v, &b.m, G * DT, DT, false);
/// assert_ne!(b.x, solar_system().x);
/// leapfrog_step_inv(&mut b.x, &mut b.v, &b.m, G * DT, DT, false);
/// assert!(b.x.iter().flatten().zip(solar_system().x.iter().flatten()).all(|(a, c)| (a - c).abs() < 1e-14));
/// ```
#[i(nocheck, nograd)]
pub fn leapfrog_step<T: Real>(
    x: &mut [[T; 3]],
    v: &mut [[T; 3]],
    m: &[f64],
    gdt: f64,
    dt: f64,
    cumulative: bool,
) {
    for i in 0..m.len() {
        for j in 0..m.len() {
            if i != j {
                if cumulative {
                    acceleration_cumulative(v[i], x[i], x[j], m[j], gdt);
                } else {
                    acceleration(v[i], x[i], x[j], m[j], gdt);
                }
            }
        }
    }
    for i in 0..m.len() {
        x[i][0] += dt * v[i][0];
        x[i][1] += dt * v[i][1];
        x[i][2] += dt * v[i][2];
    }
}

/// `steps` reversible steps forward.
///
/// ```
/// use nilang::leapfrog::{max_state_difference, run_reversible, run_reversible_inv, solar_system};
///
/// // Listing 25 (ancilla): 100 steps forward and back give the start again, to round-off
/// let mut b = solar_system();
/// run_reversible(&mut b, 100, false);
/// run_reversible_inv(&mut b, 100, false);
/// assert!(max_state_difference(&b, &solar_system()) < 1e-12);
/// ```
pub fn run_reversible<T: Real>(b: &mut Bodies<T>, steps: usize, cumulative: bool) {
    for _ in 0..steps {
        leapfrog_step(&mut b.x, &mut b.v, &b.m, G * DT, DT, cumulative);
    }
}

/// `steps` reversible steps backward (the inverse program).
///
/// ```
/// use nilang::leapfrog::{run_reversible, run_reversible_inv, solar_system};
///
/// let mut b = solar_system();
/// run_reversible_inv(&mut b, 10, false); // 0.1 years into the past
/// run_reversible(&mut b, 10, false);
/// assert!((b.x[1][0] - solar_system().x[1][0]).abs() < 1e-12);
/// ```
pub fn run_reversible_inv<T: Real>(b: &mut Bodies<T>, steps: usize, cumulative: bool) {
    for _ in 0..steps {
        leapfrog_step_inv(&mut b.x, &mut b.v, &b.m, G * DT, DT, cumulative);
    }
}

/// The arithmetic the irreversible integrator needs.
///
/// ```
/// use nilang::leapfrog::{regular_step, solar_system, Arith};
///
/// // the irreversible integrator in single precision
/// let mut b = solar_system().convert(|v| v as f32);
/// regular_step(&mut b);
/// assert_eq!(<f32 as Arith>::to_f64(b.m[0] as f32), 1.0);
/// ```
pub trait Arith:
    Copy
    + core::ops::Add<Output = Self>
    + core::ops::Sub<Output = Self>
    + core::ops::Mul<Output = Self>
    + core::ops::Div<Output = Self>
{
    /// A constant.
    fn from_f64(v: f64) -> Self;
    /// The value as `f64`.
    fn to_f64(self) -> f64;
    /// Square root.
    fn sqrt(self) -> Self;
}

impl Arith for f64 {
    fn from_f64(v: f64) -> Self {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
}

impl Arith for f32 {
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
}

impl Arith for DoubleDouble {
    fn from_f64(v: f64) -> Self {
        DoubleDouble::new(v)
    }
    fn to_f64(self) -> f64 {
        DoubleDouble::to_f64(self)
    }
    fn sqrt(self) -> Self {
        DoubleDouble::sqrt(self)
    }
}

/// One irreversible step, the same operations in the same order as the reversible ones.
///
/// ```
/// use nilang::leapfrog::{regular_step, run_reversible, solar_system};
///
/// // Listing 25's forward run is bit for bit the irreversible integrator
/// let (mut a, mut b) = (solar_system(), solar_system());
/// for _ in 0..20 {
///     regular_step(&mut a);
/// }
/// run_reversible(&mut b, 20, false);
/// assert_eq!(a, b);
/// ```
pub fn regular_step<T: Arith>(b: &mut Bodies<T>) {
    let n = b.m.len();
    let (gdt, dt) = (T::from_f64(G * DT), T::from_f64(DT));
    for i in 0..n {
        for j in 0..n {
            if i != j {
                let (ra, rb) = (b.x[i], b.x[j]);
                let rc = [rb[0] - ra[0], rb[1] - ra[1], rb[2] - ra[2]];
                let d = rc[0] * rc[0] + rc[1] * rc[1] + rc[2] * rc[2];
                let r = d.sqrt();
                let r3 = (r * r) * r;
                let a = (gdt * T::from_f64(b.m[j])) / r3;
                for k in 0..3 {
                    b.v[i][k] = b.v[i][k] + a * rc[k];
                }
            }
        }
    }
    for i in 0..n {
        for k in 0..3 {
            b.x[i][k] = b.x[i][k] + dt * b.v[i][k];
        }
    }
}

/// The mean over the planets (not the Sun) of the distance between their positions in `a`
/// and in `reference`.
///
/// ```
/// use nilang::leapfrog::{mean_position_error, regular_step, solar_system};
/// use nilang::numbers::DoubleDouble;
///
/// let (mut a, mut reference) = (solar_system(), solar_system().convert(DoubleDouble::new));
/// for _ in 0..100 {
///     regular_step(&mut a);
///     regular_step(&mut reference);
/// }
/// let err = mean_position_error(&a, &reference, |v| v, |v| v.to_f64());
/// assert!(err > 0.0 && err < 1e-12); // f64 round-off against double-double
/// ```
pub fn mean_position_error<A: Copy, B: Copy>(
    a: &Bodies<A>,
    reference: &Bodies<B>,
    fa: impl Fn(A) -> f64,
    fb: impl Fn(B) -> f64,
) -> f64 {
    let n = a.m.len();
    let mut sum = 0.0;
    for i in 1..n {
        let d2: f64 = (0..3)
            .map(|k| (fa(a.x[i][k]) - fb(reference.x[i][k])).powi(2))
            .sum();
        sum += d2.sqrt();
    }
    sum / (n - 1) as f64
}

/// The largest difference of any coordinate of position or velocity between `a` and `b`.
///
/// ```
/// use nilang::leapfrog::{max_state_difference, solar_system};
/// assert_eq!(max_state_difference(&solar_system(), &solar_system()), 0.0);
/// ```
pub fn max_state_difference<T: Real>(a: &Bodies<T>, b: &Bodies<T>) -> f64 {
    let mut e: f64 = 0.0;
    for (p, q) in a.x.iter().chain(&a.v).zip(b.x.iter().chain(&b.v)) {
        for k in 0..3 {
            e = e.max((p[k].val() - q[k].val()).abs());
        }
    }
    e
}
