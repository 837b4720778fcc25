//! `lstm`'s reversible program ([`lstm_objective`]: per step the layers, [`lstm_layer`], then
//! the prediction's score, [`lstm_score`]) and the sizes and offsets it reads ([`Dims`]).

use crate::evals::Fresh;
use nilang::{i, Real};

/// Sizes of an LSTM problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    /// Layers.
    pub l: usize,
    /// Characters in the sequence.
    pub c: usize,
    /// Bits per character (cells per layer).
    pub b: usize,
}

impl Dims {
    /// Index of `h` of cell `i` of layer `j` at step `t` in the state history (`c` at `+ b`).
    #[inline(always)]
    pub fn h(&self, t: usize, j: usize, i: usize) -> usize {
        t * self.step() + j * 2 * self.b + i
    }

    /// Entries of the state history per step (`l` layers of `2b`).
    #[inline(always)]
    pub fn step(&self) -> usize {
        2 * self.l * self.b
    }

    /// Index of the prediction `y_i` at step `t`.
    #[inline(always)]
    pub fn y(&self, t: usize, i: usize) -> usize {
        t * self.b + i
    }

    /// Length of the state history (`c` steps of `l` layers of `2b` values).
    pub fn hist_len(&self) -> usize {
        self.c * self.l * 2 * self.b
    }

    /// `1 / ((c − 1)·b)`, the loss normalisation.
    pub fn scale(&self) -> f64 {
        1.0 / ((self.c - 1) * self.b) as f64
    }

    /// Length of the prediction history (`c − 1` steps of `b` values).
    pub fn ys_len(&self) -> usize {
        (self.c - 1) * self.b
    }
}

/// Layer `j` at step `t`, cell by cell: `c' += c·f + i·g`, `h' += o·tanh(c')` (primes: step
/// `t + 1`, slots that must hold zero). `state` is the history from layer `j` at step `t` on:
/// `(h, c)` at `0..2b`, `(h', c')` at `next..next + 2b` (`next` = [`Dims::step`]), and, for a
/// layer other than the first, its input (the new `h` of the layer below) at `next − 2b`. `p`
/// holds the layer's `8b` parameters; the first layer's input is `extra[i]·x[i]`, `x` the
/// step's one-hot character.
///
/// Every index is affine in the cell `i`, so the loop checks bounds once; a cell's input, gates
/// and `tanh c'` live in ancillas of its routines' own, so the forward computes each once.
#[i(nocheck)]
pub fn lstm_layer<T: Real>(
    state: &mut [T],
    p: &mut [T],
    extra: &mut [T],
    x: &[f64],
    next: usize,
    b: usize,
    first: bool,
) {
    for i in 0..b {
        routine! {
            let (inp, zf, zi, zo, zc) = (T::fresh(), T::fresh(), T::fresh(), T::fresh(), T::fresh());
            let (fg, ig, og, cg) = (T::fresh(), T::fresh(), T::fresh(), T::fresh());
            if first {
                inp += extra[i] * T::lit(x[i]);
            } else {
                inp += identity(state[next - 2 * b + i]);
            }
            zf += inp * p[i];
            zf += p[4 * b + i];
            fg += sigmoid(zf);
            zi += state[i] * p[b + i];
            zi += p[5 * b + i];
            ig += sigmoid(zi);
            zo += inp * p[2 * b + i];
            zo += p[6 * b + i];
            og += sigmoid(zo);
            zc += state[i] * p[3 * b + i];
            zc += p[7 * b + i];
            cg += tanh(zc);
        }
        state[next + b + i] += state[b + i] * fg;
        state[next + b + i] += ig * cg;
        routine! {
            let tc = T::fresh();
            tc += tanh(state[next + b + i]);
        }
        state[next + i] += og * tc;
        uncompute!();
        uncompute!();
    }
}

/// `loss += ADBench's LSTM loss`. `hist` holds the initial state in its first `2lb` entries
/// and zeros after (filled with the state history); `ys` is zero (filled with the
/// predictions). `seq` is the `c × b` sequence, `gold_sums[t]` the sum of `seq[t]`.
///
/// Per step: [`lstm_layer`] for each layer, then [`lstm_score`].
#[i(nocheck)]
#[allow(clippy::too_many_arguments)]
pub fn lstm_objective<T: Real>(
    loss: &mut T,
    main: &mut [T],
    extra: &mut [T],
    hist: &mut [T],
    ys: &mut [T],
    seq: &[f64],
    gold_sums: &[f64],
    dims: Dims,
) {
    for t in 0..dims.c - 1 {
        for j in 0..dims.l {
            lstm_layer(
                hist[dims.h(t, j, 0)..dims.h(t + 1, j, 0) + 2 * dims.b],
                main[8 * dims.b * j..8 * dims.b * (j + 1)],
                extra,
                &seq[t * dims.b..(t + 1) * dims.b],
                dims.step(),
                dims.b,
                j == 0,
            );
        }
        lstm_score(
            loss,
            ys[dims.y(t, 0)..dims.y(t + 1, 0)],
            hist[dims.h(t + 1, dims.l - 1, 0)..dims.h(t + 1, dims.l - 1, dims.b)],
            extra,
            &seq[(t + 1) * dims.b..(t + 2) * dims.b],
            gold_sums[t + 1],
            dims.scale(),
            dims.b,
        );
    }
}

/// One step's prediction and score: `y += h ⊙ w_out + b_out` (`y` zero: the step's slots of
/// the prediction history; `h` the last layer's new hidden state; `w_out`, `b_out` in
/// `extra[b..3b]`), then `loss += (lse·Σ gold − Σ gold ⊙ y)·scale` with
/// `lse = log(Σ exp y + 2)` in ancillas of its routine's own (computed once forward). `gold`
/// is the next character, `gold_sum` its sum.
#[i(nocheck)]
#[allow(clippy::too_many_arguments)]
pub fn lstm_score<T: Real>(
    loss: &mut T,
    y: &mut [T],
    h: &mut [T],
    extra: &mut [T],
    gold: &[f64],
    gold_sum: f64,
    scale: f64,
    b: usize,
) {
    for i in 0..b {
        y[i] += h[i] * extra[b + i];
        y[i] += extra[2 * b + i];
    }
    routine! {
        let (s, lse) = (T::fresh(), T::fresh());
        for i in 0..b {
            s += exp(y[i]);
        }
        s += identity(2.0);
        lse += log(s);
    }
    for i in 0..b {
        loss -= y[i] * T::lit(gold[i] * scale);
    }
    loss += lse * T::lit(gold_sum * scale);
    uncompute!();
}
