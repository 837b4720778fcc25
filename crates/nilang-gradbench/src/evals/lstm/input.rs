//! `lstm`'s input, checked into a [`Problem`]; ADBench's data files, seeded problems, and the
//! problem back to JSON.

use super::Dims;
use crate::evals::{flatten, rows};
use serde::Deserialize;
use serde_json::{json, Value};

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
            "main_params": rows(&self.main, 2 * l, 4 * b),
            "extra_params": rows(&self.extra, 3, b),
            "state": rows(&self.state, 2 * l, b),
            "sequence": rows(&self.seq, c, b),
        })
    }
}
