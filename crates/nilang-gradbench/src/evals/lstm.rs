//! `lstm`: ADBench's LSTM loss (diagonal weight matrices) and its gradient with respect to the
//! main and extra parameters.
//!
//! `l` layers of `b` cells, a sequence of `c` one-hot characters of `b` bits. Per step `t` the
//! input `x = seq[t] ⊙ w_in` runs through the layers (each cell: gates
//! `f = σ(x·w_f + b_f)`, `i = σ(h·w_i + b_i)`, `o = σ(x·w_o + b_o)`, `g = tanh(h·w_c + b_c)`,
//! then `c ← c·f + i·g`, `h ← o·tanh c`; a layer's new `h` is the next layer's input); the
//! prediction `y = h_last ⊙ w_out + b_out` is normalised by ADBench's `log(Σ exp y + 2)` and
//! scored against `seq[t + 1]`. The loss is `−Σ ygold·ynorm / ((c − 1)·b)`.
//!
//! The reversible program keeps the whole state history: `hist` holds `(h, c)` of every layer
//! at every step (the initial state at step 0) and `ys` every step's prediction, so each state
//! update is an accumulation into a fresh zero slot (`c_{t+1} += c_t·f + i·g`). Everything else
//! lives in ancillas that routines allocate, use and uncompute: a cell's input and four gates,
//! `tanh c_{t+1}`, a step's LogSumExp. Each is computed once by the forward (the unchecked
//! forward skips uncomputations that only restore a routine's own ancillas), so the objective
//! costs what ADBench's does: three `exp` and two `tanh` per cell, `b` `exp` and a `log` per
//! step. A layer's cells are one loop ([`lstm_layer`], on the layer's slices of the history and
//! the parameters) whose indices are affine in the cell, so it checks bounds once per layer and
//! step. The gradient is the generated `lstm_objective_grad` (the inverse program walks the
//! steps backwards).

use super::{decode, flatten, timed, unknown_function, Fresh};
use crate::limits::{Need, ANSWER_NUMBER_BYTES};
use crate::runs::Timing;
use nilang::{i, Loss, Real};
use serde::Deserialize;
use serde_json::{json, Value};

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

/// The `lstm` input.
#[derive(Clone, Debug, Deserialize)]
pub struct Input {
    /// `2l` rows of `4b`: per layer the weights then the biases (forget, input, output, change).
    pub main_params: Vec<Vec<f64>>,
    /// 3 rows of `b`: input weights, output weights, output biases.
    pub extra_params: Vec<Vec<f64>>,
    /// `2l` rows of `b`: per layer the hidden state then the cell state.
    pub state: Vec<Vec<f64>>,
    /// `c` rows of `b`: the (one-hot) sequence.
    pub sequence: Vec<Vec<f64>>,
}

/// An LSTM problem, flattened row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Sizes.
    pub dims: Dims,
    /// Main parameters, `2l × 4b`.
    pub main: Vec<f64>,
    /// Extra parameters, `3 × b`.
    pub extra: Vec<f64>,
    /// Initial state, `2l × b`.
    pub state: Vec<f64>,
    /// Sequence, `c × b`.
    pub seq: Vec<f64>,
}

/// The working memory of the objective's runs on one problem, kept across the runs of a
/// message (as GradBench's C++ tools keep theirs): the parameters' copies the program runs on,
/// the state history (the initial state, then zeros) and the predictions (zeros), and each
/// step's gold sum (recomputed in every run, as part of the objective).
#[derive(Clone, Debug)]
pub struct Buffers {
    main: Vec<f64>,
    extra: Vec<f64>,
    hist: Vec<f64>,
    ys: Vec<f64>,
    gold_sums: Vec<f64>,
}

impl Problem {
    /// A seeded problem of `l` layers, `c` characters of `b` entries: parameters and state
    /// from [`crate::seeded::uniform`], a one-hot sequence as ADBench's.
    pub fn random(l: usize, c: usize, b: usize, seed: u64) -> Problem {
        let seq: Vec<f64> = (0..c)
            .flat_map(|t| (0..b).map(move |i| ((t * 7 + seed as usize) % b == i) as i32 as f64))
            .collect();
        let uniform = crate::seeded::uniform;
        Problem {
            dims: Dims { l, c, b },
            main: uniform(seed, 8 * l * b),
            extra: uniform(seed + 1, 3 * b),
            state: uniform(seed + 2, 2 * l * b),
            seq,
        }
    }

    /// Checks and flattens an input.
    pub fn from_input(i: &Input) -> Result<Problem, String> {
        let rows = i.main_params.len();
        if rows == 0 || !rows.is_multiple_of(2) {
            return Err(format!(
                "bad `lstm` input: `main_params` needs 2l > 0 rows, got {rows}"
            ));
        }
        let l = rows / 2;
        let b4 = i.main_params[0].len();
        if b4 == 0 || !b4.is_multiple_of(4) {
            return Err(format!(
                "bad `lstm` input: `main_params` rows need 4b > 0 entries, got {b4}"
            ));
        }
        let b = b4 / 4;
        let c = i.sequence.len();
        if c < 2 {
            return Err("bad `lstm` input: `sequence` needs at least 2 characters".into());
        }
        if i.extra_params.len() != 3 || i.state.len() != 2 * l {
            return Err(format!(
                "bad `lstm` input: need 3 rows of `extra_params` and {} of `state`, got {} and {}",
                2 * l,
                i.extra_params.len(),
                i.state.len()
            ));
        }
        Ok(Problem {
            dims: Dims { l, c, b },
            main: flatten("main_params", &i.main_params, 4 * b)?,
            extra: flatten("extra_params", &i.extra_params, b)?,
            state: flatten("state", &i.state, b)?,
            seq: flatten("sequence", &i.sequence, b)?,
        })
    }

    /// Reads an ADBench `lstm` file (`l c b`, main parameters, extra parameters, state,
    /// sequence).
    pub fn from_adbench(text: &str) -> Result<Problem, String> {
        let mut nums = text.split_whitespace().map(|s| {
            s.parse::<f64>()
                .map_err(|e| format!("bad number `{s}` in ADBench lstm file: {e}"))
        });
        let mut next = || {
            nums.next()
                .unwrap_or(Err("ADBench lstm file ends early".into()))
        };
        let (l, c, b) = (next()? as usize, next()? as usize, next()? as usize);
        let mut take = |n: usize| (0..n).map(|_| next()).collect::<Result<Vec<f64>, String>>();
        let main = take(8 * l * b)?;
        let extra = take(3 * b)?;
        let state = take(2 * l * b)?;
        let seq = take(c * b)?;
        if l == 0 || b == 0 || c < 2 {
            return Err(format!("bad ADBench lstm sizes l = {l}, c = {c}, b = {b}"));
        }
        Ok(Problem {
            dims: Dims { l, c, b },
            main,
            extra,
            state,
            seq,
        })
    }

    /// The eval's JSON input for this problem.
    pub fn to_json(&self) -> Value {
        let Dims { l, c, b } = self.dims;
        json!({
            "main_params": super::rows(&self.main, 2 * l, 4 * b),
            "extra_params": super::rows(&self.extra, 3, b),
            "state": super::rows(&self.state, 2 * l, b),
            "sequence": super::rows(&self.seq, c, b),
        })
    }

    fn gold_sums(&self) -> Vec<f64> {
        (0..self.dims.c).map(|t| self.gold_sum(t)).collect()
    }

    /// The sum of step `t`'s gold bits.
    fn gold_sum(&self, t: usize) -> f64 {
        let b = self.dims.b;
        self.seq[t * b..(t + 1) * b].iter().sum()
    }

    fn hist(&self) -> Vec<f64> {
        let mut hist = vec![0.0; self.dims.hist_len()];
        hist[..self.state.len()].copy_from_slice(&self.state);
        hist
    }

    /// Working memory for this problem's objective runs ([`Buffers`]).
    pub fn buffers(&self) -> Buffers {
        Buffers {
            main: self.main.clone(),
            extra: self.extra.clone(),
            hist: self.hist(),
            ys: vec![0.0; self.dims.ys_len()],
            gold_sums: self.gold_sums(),
        }
    }

    /// The loss, by running [`lstm_objective`] forward.
    pub fn objective(&self) -> f64 {
        self.objective_in(&mut self.buffers())
    }

    /// The loss, by running [`lstm_objective`] forward in `b` (reset from the problem first).
    pub fn objective_in(&self, b: &mut Buffers) -> f64 {
        b.main.copy_from_slice(&self.main);
        b.extra.copy_from_slice(&self.extra);
        b.hist[..self.state.len()].copy_from_slice(&self.state);
        b.hist[self.state.len()..].fill(0.0);
        b.ys.fill(0.0);
        for (t, g) in b.gold_sums.iter_mut().enumerate() {
            *g = self.gold_sum(t);
        }
        let mut loss = 0.0;
        lstm_objective(
            &mut loss,
            &mut b.main,
            &mut b.extra,
            &mut b.hist,
            &mut b.ys,
            &self.seq,
            &b.gold_sums,
            self.dims,
        );
        loss
    }

    /// The gradient with respect to the main then the extra parameters (row-major,
    /// concatenated), by running [`lstm_objective_inv`] on gradient values.
    pub fn gradient(&self) -> Result<Vec<f64>, String> {
        let mut loss = 0.0;
        let (mut main, mut extra) = (self.main.clone(), self.extra.clone());
        let (mut hist, mut ys) = (self.hist(), vec![0.0; self.dims.ys_len()]);
        let (_gl, gmain, gextra, _gh, _gy) = lstm_objective_grad(
            Loss::arg(0),
            &mut loss,
            &mut main,
            &mut extra,
            &mut hist,
            &mut ys,
            &self.seq,
            &self.gold_sums(),
            self.dims,
        )
        .map_err(|e| e.to_string())?;
        Ok(gmain.iter().chain(&gextra).map(|v| v.g).collect())
    }

    /// Plain Rust loss, as ADBench computes it (the reference for tests).
    pub fn reference(&self, main: &[f64], extra: &[f64]) -> f64 {
        let Dims { l, c, b } = self.dims;
        let sig = |x: f64| 1.0 / (1.0 + (-x).exp());
        let mut state = self.state.clone();
        let mut total = 0.0;
        for t in 0..c - 1 {
            let mut input: Vec<f64> = (0..b).map(|i| self.seq[t * b + i] * extra[i]).collect();
            for j in 0..l {
                let p = &main[8 * b * j..8 * b * (j + 1)];
                let (hs, rest) = state[2 * b * j..2 * b * (j + 1)].split_at_mut(b);
                for i in 0..b {
                    let f = sig(input[i] * p[i] + p[4 * b + i]);
                    let ig = sig(hs[i] * p[b + i] + p[5 * b + i]);
                    let o = sig(input[i] * p[2 * b + i] + p[6 * b + i]);
                    let g = (hs[i] * p[3 * b + i] + p[7 * b + i]).tanh();
                    rest[i] = rest[i] * f + ig * g;
                    hs[i] = o * rest[i].tanh();
                }
                input = hs.to_vec();
            }
            let y: Vec<f64> = (0..b)
                .map(|i| input[i] * extra[b + i] + extra[2 * b + i])
                .collect();
            let lse = (y.iter().map(|v| v.exp()).sum::<f64>() + 2.0).ln();
            let gold = &self.seq[(t + 1) * b..(t + 2) * b];
            total += gold.iter().zip(&y).map(|(g, y)| g * (y - lse)).sum::<f64>();
        }
        -total / ((c - 1) * b) as f64
    }
}

/// The memory `function` needs on `p` ([`Need`]): the state history (`c` steps of `l` layers
/// of `2b`) and the predictions (`(c − 1)·b`), 8 bytes a value for the objective and 40 for
/// the Jacobian (the history as gradient values too: measured 41 at `l = 2`, `c = 20000`,
/// `b = 8`); for the Jacobian, the answer (every parameter's derivative).
pub fn need(function: &str, p: &Problem) -> Result<(), String> {
    let Dims { l, c, b } = p.dims;
    let mut need = Need::new("lstm");
    let per_value = if function == "jacobian" { 40 } else { 8 };
    need.add("sequence", &[c, l, 2 * b], per_value)?;
    need.add("sequence", &[c, b], per_value)?;
    if function == "jacobian" {
        need.add("main_params", &[8 * l + 3, b], 8 + ANSWER_NUMBER_BYTES)?;
    }
    Ok(())
}

/// The `lstm` functions: `objective` and `jacobian`. The sizes are checked before the state
/// history is allocated ([`need`]).
pub fn evaluate(function: &str, input: &Value) -> Result<(Value, Vec<Timing>), String> {
    let p = Problem::from_input(&decode("lstm", input)?)?;
    need(function, &p)?;
    match function {
        "objective" => {
            let mut b = p.buffers();
            timed(input, || Ok(p.objective_in(&mut b)), |v| json!(v))
        }
        "jacobian" => timed(input, || p.gradient(), |g| json!(g)),
        _ => Err(unknown_function(
            "lstm",
            function,
            &["objective", "jacobian"],
        )),
    }
}
