//! The user-facing wrapper (the paper's `Wrap`, §3.3 and Appendix A).
//!
//! `Wrap` turns a program `σ → τ` into `σ → (τ, τ̲ ⊸ σ̲)`: the primal result
//! together with a function from output cotangents to input cotangents. Here:
//!
//! * the input `σ` is a slice of `f64`; *Interleave* numbers its scalars
//!   with IDs `1..=n` and hands the program a slice of [`DualRev`];
//! * the output `τ` is anything implementing [`Deinterleave`] (a scalar, a
//!   tuple, an array, a `Vec`, an `Option`, your own struct), which lists its
//!   scalars in a fixed order;
//! * `τ̲ ⊸ σ̲` is [`Pullback::vjp`], which seeds the staging array with the
//!   output cotangent and resolves it (§7/§8.1/§8.2); a Jacobian is one such
//!   sweep per output.

use core::fmt;

use crate::dual::DualRev;
use crate::tape::{record_with, ResolveStats, Tape, MAX_IDS};

/// Errors reported by the differentiation API.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A cotangent did not have one entry per output scalar.
    CotangentLength {
        /// Number of output scalars.
        expected: usize,
        /// Length of the cotangent that was passed.
        found: usize,
    },
    /// An output index was out of range.
    OutputIndex {
        /// The requested index.
        index: usize,
        /// Number of output scalars.
        outputs: usize,
    },
    /// The computation needed more IDs than a tape can hold (`u32::MAX`).
    TapeOverflow,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::CotangentLength { expected, found } => write!(
                f,
                "cotangent has {found} entries but the function has {expected} output scalars"
            ),
            Error::OutputIndex { index, outputs } => write!(
                f,
                "output index {index} out of range for {outputs} output scalars"
            ),
            Error::TapeOverflow => write!(
                f,
                "the computation needs more than {MAX_IDS} scalar IDs (tape overflow)"
            ),
        }
    }
}

impl std::error::Error for Error {}

/// Lists the [`DualRev`] scalars inside a function's result, in a fixed order
/// (the paper's *Deinterleave*, §3.3).
///
/// Implemented for `DualRev`, tuples of up to six elements, arrays, slices,
/// `Vec`, `Box` and `Option` (a `None` has no scalars). For your own output
/// struct, push the fields in any fixed order:
///
/// ```
/// use nilang_dualrev::{Deinterleave, DualRev};
/// struct Vec3<S> { x: S, y: S, z: S }
/// impl Deinterleave for Vec3<DualRev> {
///     fn deinterleave(&self, out: &mut Vec<DualRev>) {
///         out.extend([self.x, self.y, self.z]);
///     }
/// }
/// ```
pub trait Deinterleave {
    /// Append every output scalar of `self` to `out`.
    fn deinterleave(&self, out: &mut Vec<DualRev>);
}

impl Deinterleave for DualRev {
    #[inline]
    fn deinterleave(&self, out: &mut Vec<DualRev>) {
        out.push(*self);
    }
}

impl<T: Deinterleave> Deinterleave for [T] {
    fn deinterleave(&self, out: &mut Vec<DualRev>) {
        for t in self {
            t.deinterleave(out);
        }
    }
}

impl<T: Deinterleave, const N: usize> Deinterleave for [T; N] {
    fn deinterleave(&self, out: &mut Vec<DualRev>) {
        self[..].deinterleave(out);
    }
}

impl<T: Deinterleave> Deinterleave for Vec<T> {
    fn deinterleave(&self, out: &mut Vec<DualRev>) {
        self[..].deinterleave(out);
    }
}

impl<T: Deinterleave + ?Sized> Deinterleave for Box<T> {
    fn deinterleave(&self, out: &mut Vec<DualRev>) {
        (**self).deinterleave(out);
    }
}

impl<T: Deinterleave> Deinterleave for Option<T> {
    fn deinterleave(&self, out: &mut Vec<DualRev>) {
        if let Some(t) = self {
            t.deinterleave(out);
        }
    }
}

macro_rules! tuple_deinterleave {
    ($($t:ident $i:tt),+) => {
        impl<$($t: Deinterleave),+> Deinterleave for ($($t,)+) {
            fn deinterleave(&self, out: &mut Vec<DualRev>) {
                $(self.$i.deinterleave(out);)+
            }
        }
    };
}
tuple_deinterleave!(A 0);
tuple_deinterleave!(A 0, B 1);
tuple_deinterleave!(A 0, B 1, C 2);
tuple_deinterleave!(A 0, B 1, C 2, D 3);
tuple_deinterleave!(A 0, B 1, C 2, D 3, E 4);
tuple_deinterleave!(A 0, B 1, C 2, D 3, E 4, F 5);

/// Run `f` on fresh input scalars for `x` while recording; returns the tape
/// and `f`'s result.
fn run<R>(x: &[f64], f: impl FnOnce(&[DualRev]) -> R) -> Result<(Box<Tape>, R), Error> {
    let mut tape = Tape::begin(x.len());
    if tape.overflowed {
        tape.recycle();
        return Err(Error::TapeOverflow);
    }
    let tag = tape.tag;
    let input = |(i, &v): (usize, &f64)| DualRev {
        value: v,
        id: (i + 1) as u32,
        tag,
    };
    // Small inputs live on the stack, so a tiny gradient call allocates only
    // its result vector.
    const SMALL: usize = 8;
    let out = if x.len() <= SMALL {
        let mut buf = [DualRev::constant(0.0); SMALL];
        for (slot, d) in buf.iter_mut().zip(x.iter().enumerate().map(input)) {
            *slot = d;
        }
        let xs = &buf[..x.len()];
        record_with(&mut tape, || f(xs))
    } else {
        let xs: Vec<DualRev> = x.iter().enumerate().map(input).collect();
        record_with(&mut tape, || f(&xs))
    };
    if tape.overflowed {
        tape.recycle();
        return Err(Error::TapeOverflow);
    }
    Ok((tape, out))
}

/// Value and gradient of a scalar function `f: ℝⁿ → ℝ` at `x`, with one
/// reverse sweep.
///
/// ```
/// use nilang_dualrev::{grad, Scalar};
/// fn f<S: Scalar>(x: &[S]) -> S { x[0] * x[1].sin() }
/// let (v, g) = grad(|x| f(x), &[2.0, 0.5]).unwrap();
/// assert_eq!(v, f(&[2.0, 0.5]));
/// assert!((g[0] - 0.5f64.sin()).abs() < 1e-15);
/// assert!((g[1] - 2.0 * 0.5f64.cos()).abs() < 1e-15);
/// ```
///
/// # Errors
/// [`Error::TapeOverflow`] if the computation needs more than `u32::MAX` IDs.
pub fn grad<F>(f: F, x: &[f64]) -> Result<(f64, Vec<f64>), Error>
where
    F: FnOnce(&[DualRev]) -> DualRev,
{
    let (mut tape, y) = run(x, f)?;
    let seed = if y.tag == tape.tag {
        Some((y.id, 1.0))
    } else {
        None
    };
    let g = tape.resolve(seed).0.to_vec();
    tape.recycle();
    Ok((y.value, g))
}

/// Record `f` at `x` and return its [`Pullback`]: the primal result plus the
/// ability to pull back any number of output cotangents.
///
/// # Errors
/// [`Error::TapeOverflow`] if the computation needs more than `u32::MAX` IDs.
pub fn record<O, F>(f: F, x: &[f64]) -> Result<Pullback<O>, Error>
where
    O: Deinterleave,
    F: FnOnce(&[DualRev]) -> O,
{
    let (tape, output) = run(x, f)?;
    let mut outputs = Vec::new();
    output.deinterleave(&mut outputs);
    Ok(Pullback {
        tape: Some(tape),
        output,
        outputs,
    })
}

/// Output values and full Jacobian of `f: ℝⁿ → ℝᵐ` at `x`, using one reverse
/// sweep per output scalar.
///
/// Layout: `J[i][j] = ∂ output_i / ∂ x_j`, i.e. `m` rows of length `n`, where
/// outputs are numbered in [`Deinterleave`] order.
///
/// # Errors
/// [`Error::TapeOverflow`] if the computation needs more than `u32::MAX` IDs.
pub fn jacobian<O, F>(f: F, x: &[f64]) -> Result<(Vec<f64>, Vec<Vec<f64>>), Error>
where
    O: Deinterleave,
    F: FnOnce(&[DualRev]) -> O,
{
    let mut p = record(f, x)?;
    let j = p.jacobian();
    Ok((p.values(), j))
}

/// Output values and vector–Jacobian product `cotangentᵀ · J` of `f` at `x`
/// (one reverse sweep).
///
/// # Errors
/// [`Error::CotangentLength`] if `cotangent.len()` differs from the number of
/// output scalars; [`Error::TapeOverflow`] as for [`grad`].
pub fn vjp<O, F>(f: F, x: &[f64], cotangent: &[f64]) -> Result<(Vec<f64>, Vec<f64>), Error>
where
    O: Deinterleave,
    F: FnOnce(&[DualRev]) -> O,
{
    let mut p = record(f, x)?;
    let g = p.vjp(cotangent)?;
    Ok((p.values(), g))
}

/// A recorded computation: its output and the reverse derivative
/// `τ̲ ⊸ σ̲` (§3.3), backed by one tape that can be resolved repeatedly.
pub struct Pullback<O> {
    // Always `Some` until dropped; an Option so Drop can recycle it.
    tape: Option<Box<Tape>>,
    output: O,
    outputs: Vec<DualRev>,
}

impl<O> Pullback<O> {
    fn tape(&mut self) -> &mut Tape {
        self.tape.as_mut().expect("tape present until drop")
    }

    /// The function's result (its scalars are [`DualRev`]s; read values with
    /// [`Scalar::value`](crate::Scalar::value)).
    pub fn output(&self) -> &O {
        &self.output
    }

    /// Primal values of the output scalars, in [`Deinterleave`] order.
    pub fn values(&self) -> Vec<f64> {
        self.outputs.iter().map(|d| d.value).collect()
    }

    /// Number of input scalars.
    pub fn num_inputs(&self) -> usize {
        self.tape.as_ref().map_or(0, |t| t.n_inputs)
    }

    /// Number of output scalars.
    pub fn num_outputs(&self) -> usize {
        self.outputs.len()
    }

    /// Number of IDs recorded (constant sink + inputs + primitive operations);
    /// memory use is linear in this.
    pub fn num_ids(&self) -> usize {
        self.tape.as_ref().map_or(0, |t| t.len())
    }

    /// Vector–Jacobian product: the input cotangent for the given output
    /// cotangent (one entry per output scalar).
    ///
    /// # Errors
    /// [`Error::CotangentLength`] on a length mismatch.
    pub fn vjp(&mut self, cotangent: &[f64]) -> Result<Vec<f64>, Error> {
        self.vjp_with_stats(cotangent).map(|(g, _)| g)
    }

    /// Like [`vjp`](Self::vjp), also reporting how many backpropagators were
    /// invoked during resolution.
    ///
    /// # Errors
    /// [`Error::CotangentLength`] on a length mismatch.
    pub fn vjp_with_stats(&mut self, cotangent: &[f64]) -> Result<(Vec<f64>, ResolveStats), Error> {
        if cotangent.len() != self.outputs.len() {
            return Err(Error::CotangentLength {
                expected: self.outputs.len(),
                found: cotangent.len(),
            });
        }
        let outputs = core::mem::take(&mut self.outputs);
        let tape = self.tape();
        let tag = tape.tag;
        let seeds = outputs
            .iter()
            .zip(cotangent)
            .filter(|(d, _)| d.tag == tag)
            .map(|(d, &c)| (d.id, c));
        let (g, stats) = tape.resolve(seeds);
        let g = g.to_vec();
        self.outputs = outputs;
        Ok((g, stats))
    }

    /// Gradient of output scalar `index` (one row of the Jacobian).
    ///
    /// # Errors
    /// [`Error::OutputIndex`] if `index` is out of range.
    pub fn gradient_of(&mut self, index: usize) -> Result<Vec<f64>, Error> {
        let Some(&d) = self.outputs.get(index) else {
            return Err(Error::OutputIndex {
                index,
                outputs: self.outputs.len(),
            });
        };
        let tape = self.tape();
        let seed = (d.tag == tape.tag).then_some((d.id, 1.0));
        Ok(tape.resolve(seed).0.to_vec())
    }

    /// The full Jacobian, `J[i][j] = ∂ output_i / ∂ input_j`, by one reverse
    /// sweep per output scalar.
    pub fn jacobian(&mut self) -> Vec<Vec<f64>> {
        (0..self.outputs.len())
            .map(|i| self.gradient_of(i).expect("index in range"))
            .collect()
    }
}

impl<O> Drop for Pullback<O> {
    fn drop(&mut self) {
        if let Some(t) = self.tape.take() {
            t.recycle();
        }
    }
}
