//! `llsq`: the linear least-squares objective of cmpad,
//! `y(x) = ½ Σᵢ (sᵢ − Σⱼ xⱼ tᵢʲ)²` with `tᵢ = −1 + 2i/(n−1)` and `sᵢ = sign(tᵢ)`, and its
//! gradient.
//!
//! The program ([`llsq_objective`]) writes the residuals to an output vector and adds their
//! half squares to the objective: nothing is uncomputed, so the gradient (the program run
//! forward, then backward on gradient values) costs two passes over the `n·m` terms, as a
//! hand-written gradient does. The powers `tᵢʲ` are computed once per block of points in each
//! direction by running products into a buffer the program reads ([`Rows`]).

use super::{decode, timed, unknown_function};
use crate::limits::{Need, ANSWER_NUMBER_BYTES};
use crate::runs::Timing;
use nilang::{i, Real};
use serde::Deserialize;
use serde_json::{json, Value};

/// `tᵢ = −1 + 2i/(n−1)`.
pub fn t(i: usize, n: usize) -> f64 {
    -1.0 + i as f64 * 2.0 / (n as f64 - 1.0)
}

/// `sign(tᵢ)`, with `sign(0) = 0`.
pub fn s(i: usize, n: usize) -> f64 {
    let t = t(i, n);
    if t > 0.0 {
        1.0
    } else if t < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// How many sample points [`sub_dots`] handles at once.
pub const BLOCK: usize = 4;

/// The powers `tᵢʲ` (`j < m`) of a block of `width` consecutive sample points `i0, i0 + 1, …`,
/// interleaved: entry `width·j + k` is `t_{i0+k}ʲ`. A cache: [`Rows::at`] recomputes it in
/// place when asked for another block. The program asks once per block in each direction, so
/// each block's powers are computed once per run (forward or inverse), into the same buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct Rows {
    /// `(i0, width)` of the block held (`width = 0`: none).
    key: (usize, usize),
    n: usize,
    m: usize,
    p: Vec<f64>,
}

impl Rows {
    /// The powers of the first block [`llsq_objective`] reads (`n` points, `m` coefficients).
    pub fn first(n: usize, m: usize) -> Rows {
        let mut rows = Rows {
            key: (0, 0),
            n,
            m,
            p: Vec::with_capacity(BLOCK * m),
        };
        if n >= BLOCK {
            rows.at(0, BLOCK);
        } else if n > 0 {
            rows.at(0, 1);
        }
        rows
    }

    /// The powers of the last block [`llsq_objective`] reads.
    pub fn last(n: usize, m: usize) -> Rows {
        let mut rows = Rows::first(n, m);
        if !n.is_multiple_of(BLOCK) {
            rows.at(n - 1, 1);
        } else if n > 0 {
            rows.at(n - BLOCK, BLOCK);
        }
        rows
    }

    /// The powers of the `width` points from `i0` (recomputed in place if it holds another
    /// block). Each point's powers are four interleaved running products
    /// (`t^(j+4) = tʲ·t⁴`) kept in registers: short independent chains of multiplications.
    pub fn at(&mut self, i0: usize, width: usize) -> &[f64] {
        if self.key != (i0, width) {
            match width {
                1 => self.fill::<1>(i0),
                BLOCK => self.fill::<BLOCK>(i0),
                _ => panic!("llsq::Rows: blocks of 1 or {BLOCK} points"),
            }
            self.key = (i0, width);
        }
        &self.p
    }

    fn fill<const W: usize>(&mut self, i0: usize) {
        let ts: [f64; W] = std::array::from_fn(|k| t(i0 + k, self.n));
        // q[l][k] = t_kˡ, then t_k^(4c+l) after c steps of ·t_k⁴
        let mut q = [[1.0; W]; 4];
        for l in 1..4 {
            for k in 0..W {
                q[l][k] = q[l - 1][k] * ts[k];
            }
        }
        let step: [f64; W] = std::array::from_fn(|k| q[3][k] * ts[k]);
        self.p.resize(W * self.m, 0.0);
        let mut chunks = self.p.chunks_exact_mut(4 * W);
        for c in &mut chunks {
            for l in 0..4 {
                for k in 0..W {
                    c[W * l + k] = q[l][k];
                    q[l][k] *= step[k];
                }
            }
        }
        for (l, c) in chunks.into_remainder().chunks_exact_mut(W).enumerate() {
            c.copy_from_slice(&q[l]);
        }
    }
}

/// `r_k −= Σⱼ x[j]·p[4j + k]` for the four points `k` of a block ([`Rows`] layout): four
/// independent chains of subtractions, and each `x[j]` read once for all four.
#[i(nocheck)]
#[inline]
pub fn sub_dots<T: Real>(r0: &mut T, r1: &mut T, r2: &mut T, r3: &mut T, x: &mut [T], p: &[f64]) {
    for j in 0..x.len() {
        r0 -= x[j] * p[4 * j];
        r1 -= x[j] * p[4 * j + 1];
        r2 -= x[j] * p[4 * j + 2];
        r3 -= x[j] * p[4 * j + 3];
    }
}

/// `r −= Σⱼ x[j]·p[j]`, one point.
#[i(nocheck)]
#[inline]
pub fn sub_dot<T: Real>(r: &mut T, x: &mut [T], p: &[f64]) {
    for j in 0..x.len() {
        r -= x[j] * p[j];
    }
}

/// `r[i] += sᵢ − Σⱼ x[j] tᵢʲ` (the residuals, for `r` zero on entry) and `out += ½ Σᵢ r[i]²`
/// over `i < n`.
///
/// The residuals are computed [`BLOCK`] points at a time ([`sub_dots`]: one chain of
/// multiply–adds per point, interleaved), from powers computed once per block into a buffer
/// the program reads ([`Rows`]), and kept in the output `r` rather than uncomputed: the
/// forward program does the `n·m` multiply–adds once, and the inverse (the gradient's reverse
/// sweep) once more.
#[i(nocheck)]
pub fn llsq_objective<T: Real>(out: &mut T, x: &mut [T], r: &mut [T], n: usize) {
    let rows = Rows::first(n, x.len());
    for i in 0..n {
        r[i] += identity(s(i, n));
    }
    for b in 0..n / BLOCK {
        sub_dots(
            r[BLOCK * b],
            r[BLOCK * b + 1],
            r[BLOCK * b + 2],
            r[BLOCK * b + 3],
            x,
            rows.at(BLOCK * b, BLOCK),
        );
    }
    for i in BLOCK * (n / BLOCK)..n {
        sub_dot(r[i], x, rows.at(i, 1));
    }
    for i in 0..n {
        expand! {
            out += square(r[i]) * 0.5;
        }
    }
    dealloc!(rows = Rows::last(n, x.len()));
}

/// The `llsq` input.
#[derive(Clone, Debug, Deserialize)]
pub struct Input {
    /// The coefficients.
    pub x: Vec<f64>,
    /// The number of sample points.
    pub n: usize,
}

/// `y(x)` by running [`llsq_objective`] forward.
pub fn primal(x: &[f64], n: usize) -> f64 {
    let (mut out, mut x, mut r) = (0.0, x.to_vec(), vec![0.0; n]);
    llsq_objective(&mut out, &mut x, &mut r, n);
    out
}

/// `∇y(x)` by [`llsq_objective_vjp`]: the program forward, then its adjoint with the
/// gradients in buffers of their own (seeded with 1 on the objective).
pub fn gradient(x: &[f64], n: usize) -> Result<Vec<f64>, String> {
    let (mut out, mut x, mut r) = (0.0, x.to_vec(), vec![0.0; n]);
    let (mut out_grad, mut x_grad, mut r_grad) = (1.0, vec![0.0; x.len()], vec![0.0; n]);
    llsq_objective_vjp(
        &mut out,
        &mut out_grad,
        &mut x,
        &mut x_grad,
        &mut r,
        &mut r_grad,
        n,
        (),
    );
    Ok(x_grad)
}

/// Plain Rust objective (the reference for tests).
pub fn reference(x: &[f64], n: usize) -> f64 {
    let mut sum = 0.0;
    for i in 0..n {
        let mut r = s(i, n);
        for (j, xj) in x.iter().enumerate() {
            r -= xj * t(i, n).powi(j as i32);
        }
        sum += r * r;
    }
    sum / 2.0
}

/// The memory `function` needs on `inp` ([`Need`]): the residuals (and their gradient), the
/// coefficients' copy (and its gradient, and the answer), the powers of two blocks of points.
pub fn need(function: &str, inp: &Input) -> Result<(), String> {
    let mut need = Need::new("llsq");
    let copies = if function == "gradient" { 2 } else { 1 };
    let m = inp.x.len();
    need.add("n", &[copies, inp.n], 8)?;
    need.add("x", &[copies + 2 * BLOCK, m], 8)?;
    need.add("x", &[m], ANSWER_NUMBER_BYTES)
}

/// The `llsq` functions: `primal` and `gradient`.
pub fn evaluate(function: &str, input: &Value) -> Result<(Value, Vec<Timing>), String> {
    let inp: Input = decode("llsq", input)?;
    if inp.n < 2 {
        return Err(format!(
            "bad `llsq` input: `n` must be at least 2 (tᵢ divides by n − 1), got {}",
            inp.n
        ));
    }
    need(function, &inp)?;
    match function {
        "primal" => timed(input, || Ok(primal(&inp.x, inp.n)), |y| json!(y)),
        "gradient" => timed(input, || gradient(&inp.x, inp.n), |g| json!(g)),
        _ => Err(unknown_function("llsq", function, &["primal", "gradient"])),
    }
}
