//! Table 1 of Smeding & Vákár (POPL 2023), shared by `benches/table1.rs`
//! (criterion) and `examples/table1.rs` (median/ratio table).
//!
//! The four programs are written once, generic over [`Ring`], a bound every
//! engine's scalar satisfies, so each engine differentiates the same code.
//! Each engine is used through its documented gradient API, reusing its tape
//! across calls where the API allows it (the fastest legitimate use).
#![allow(dead_code, clippy::redundant_closure)]

use core::ops::{Add, Mul, Sub};

/// What the Table 1 programs need from a scalar.
pub trait Ring:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Mul<f64, Output = Self>
    + Sub<f64, Output = Self>
{
}
impl<T> Ring for T where
    T: Copy
        + Add<Output = T>
        + Sub<Output = T>
        + Mul<Output = T>
        + Mul<f64, Output = T>
        + Sub<f64, Output = T>
{
}

/// Scalar multiplication `(x, y) ↦ x·y`.
pub fn scalar_mul<T: Ring>(x: &[T]) -> T {
    x[0] * x[1]
}

/// Dot product of the two halves of `x`.
pub fn dot<T: Ring>(x: &[T]) -> T {
    let n = x.len() / 2;
    let (a, b) = x.split_at(n);
    let mut s = a[0] * b[0];
    for i in 1..n {
        s = s + a[i] * b[i];
    }
    s
}

/// `sum(M v)` for an `m × m` row-major matrix followed by a length-`m` vector.
pub fn sum_mat_vec<T: Ring>(x: &[T], m: usize) -> T {
    let (mat, v) = x.split_at(m * m);
    let row_dot = |r: usize| {
        let row = &mat[r * m..(r + 1) * m];
        let mut s = row[0] * v[0];
        for c in 1..m {
            s = s + row[c] * v[c];
        }
        s
    };
    let mut total = row_dot(0);
    for r in 1..m {
        total = total + row_dot(r);
    }
    total
}

/// `rotate_vec_by_quat` (Krawiec et al. 2022): rotate `v = x[0..3]` by the
/// unit quaternion `q = (w, u) = x[3..7]`:
/// `v' = (2w² − 1) v + 2 (u·v) u + 2 w (u × v)`.
pub fn rotate_vec_by_quat<T: Ring>(x: &[T]) -> [T; 3] {
    let (v, w, u) = ([x[0], x[1], x[2]], x[3], [x[4], x[5], x[6]]);
    let s = w * w * 2.0 - 1.0;
    let d = (u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) * 2.0;
    let w2 = w * 2.0;
    let cross = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    [
        s * v[0] + d * u[0] + w2 * cross[0],
        s * v[1] + d * u[1] + w2 * cross[1],
        s * v[2] + d * u[2] + w2 * cross[2],
    ]
}

/// The scalar-valued Table 1 programs.
#[derive(Clone, Copy, Debug)]
pub enum Kernel {
    /// [`scalar_mul`]
    Mul,
    /// [`dot`]
    Dot,
    /// [`sum_mat_vec`] with the given side length.
    MatVec(usize),
}

impl Kernel {
    pub fn eval<T: Ring>(self, x: &[T]) -> T {
        match self {
            Kernel::Mul => scalar_mul(x),
            Kernel::Dot => dot(x),
            Kernel::MatVec(m) => sum_mat_vec(x, m),
        }
    }

    /// Input for problem size `n` (Table 1's scaling parameter).
    pub fn for_size(name: &str, n: usize) -> (Kernel, Vec<f64>) {
        let input = |len: usize| (0..len).map(|i| 0.5 + 0.001 * i as f64).collect();
        match name {
            "scalar_mult" => (Kernel::Mul, vec![1.5, -0.75]),
            "dot_product" => (Kernel::Dot, input(2 * n)),
            "sum_mat_vec" => {
                let m = (n as f64).sqrt().round() as usize;
                (Kernel::MatVec(m), input(m * m + m))
            }
            _ => panic!("unknown kernel {name}"),
        }
    }
}

/// The input of `rotate_vec_by_quat`: a vector and a unit quaternion.
pub fn rotate_input() -> Vec<f64> {
    let (w, u) = (0.9f64, [0.1f64, -0.3, 0.2]);
    let norm = (w * w + u.iter().map(|a| a * a).sum::<f64>()).sqrt();
    vec![
        1.0,
        2.0,
        3.0,
        w / norm,
        u[0] / norm,
        u[1] / norm,
        u[2] / norm,
    ]
}

// ---- one adapter per engine -------------------------------------------------

/// This crate.
pub mod ours {
    use super::*;
    use nilang_dualrev::{grad, record};

    pub fn gradient(k: Kernel, x: &[f64]) -> Vec<f64> {
        grad(|xs| k.eval(xs), x).unwrap().1
    }

    pub fn rotate_jacobian(x: &[f64]) -> Vec<Vec<f64>> {
        record(|xs| rotate_vec_by_quat(xs), x).unwrap().jacobian()
    }
}

/// `echidna` (Adept-style thread-local tape).
pub mod echidna_engine {
    use super::*;
    use echidna::tape::{Tape, TapeGuard};
    use echidna::Reverse;

    pub fn gradient(k: Kernel, x: &[f64]) -> Vec<f64> {
        echidna::grad(|xs| k.eval(xs), x)
    }

    /// Record once, then one reverse sweep per output.
    pub fn rotate_jacobian(tape: &mut Tape<f64>, x: &[f64]) -> Vec<Vec<f64>> {
        tape.clear();
        let vars: Vec<Reverse<f64>> = x
            .iter()
            .map(|&v| {
                let (i, v) = tape.new_variable(v);
                Reverse::from_tape(v, i)
            })
            .collect();
        let out = {
            let _g = TapeGuard::new(tape);
            rotate_vec_by_quat(&vars)
        };
        out.iter()
            .map(|o| tape.reverse(o.index())[..x.len()].to_vec())
            .collect()
    }
}

/// `reverse` (tape borrowed by every variable).
pub mod reverse_engine {
    use super::*;
    use reverse::{Gradient, Tape};

    pub fn gradient(tape: &Tape, k: Kernel, x: &[f64]) -> Vec<f64> {
        tape.clear();
        let vars = tape.add_vars(x);
        let y = k.eval(&vars);
        y.grad().wrt(&vars)
    }

    pub fn rotate_jacobian(tape: &Tape, x: &[f64]) -> Vec<Vec<f64>> {
        tape.clear();
        let vars = tape.add_vars(x);
        let out = rotate_vec_by_quat(&vars);
        out.iter().map(|o| o.grad().wrt(&vars)).collect()
    }
}

/// `easy-ml` (Wengert list of records).
pub mod easy_ml_engine {
    use super::*;
    use easy_ml::differentiation::{Record, WengertList};

    pub fn gradient(list: &WengertList<f64>, k: Kernel, x: &[f64]) -> Vec<f64> {
        list.clear();
        let vars: Vec<Record<f64>> = x.iter().map(|&v| Record::variable(v, list)).collect();
        let y = k.eval(&vars);
        let d = y.derivatives();
        vars.iter().map(|v| d[v]).collect()
    }

    pub fn rotate_jacobian(list: &WengertList<f64>, x: &[f64]) -> Vec<Vec<f64>> {
        list.clear();
        let vars: Vec<Record<f64>> = x.iter().map(|&v| Record::variable(v, list)).collect();
        let out = rotate_vec_by_quat(&vars);
        out.iter()
            .map(|o| {
                let d = o.derivatives();
                vars.iter().map(|v| d[v]).collect()
            })
            .collect()
    }
}

/// Every engine's result must agree before anything is timed.
pub fn cross_check() {
    let echidna_tape = &mut echidna::tape::Tape::<f64>::new();
    let reverse_tape = reverse::Tape::new();
    let easy_list = easy_ml::differentiation::WengertList::<f64>::new();
    let close = |a: &[f64], b: &[f64], what: &str| {
        assert_eq!(a.len(), b.len(), "{what}");
        for (x, y) in a.iter().zip(b) {
            assert!(
                (x - y).abs() <= 1e-12 * (1.0 + x.abs()),
                "{what}: {x} vs {y}"
            );
        }
    };
    for name in ["scalar_mult", "dot_product", "sum_mat_vec"] {
        let (k, x) = Kernel::for_size(name, 100);
        let g = ours::gradient(k, &x);
        close(&g, &echidna_engine::gradient(k, &x), name);
        close(&g, &reverse_engine::gradient(&reverse_tape, k, &x), name);
        close(&g, &easy_ml_engine::gradient(&easy_list, k, &x), name);
    }
    let x = rotate_input();
    let j = ours::rotate_jacobian(&x);
    for (name, other) in [
        ("echidna", echidna_engine::rotate_jacobian(echidna_tape, &x)),
        (
            "reverse",
            reverse_engine::rotate_jacobian(&reverse_tape, &x),
        ),
        ("easy-ml", easy_ml_engine::rotate_jacobian(&easy_list, &x)),
    ] {
        for (a, b) in j.iter().zip(&other) {
            close(a, b, name);
        }
    }
}
