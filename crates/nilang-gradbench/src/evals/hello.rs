//! `hello`: `square(x) = x²` and `double(x)`, its derivative `2x` by reversal.

use super::{timed, unknown_function};
use crate::runs::Timing;
use nilang::{i, Loss, Real};
use serde_json::{json, Value};

/// `y += x²`.
#[i(nocheck)]
pub fn isquare<T: Real>(y: &mut T, x: &mut T) {
    y += square(x);
}

/// `x²`, by running [`isquare`] forward.
pub fn square_value(x: f64) -> f64 {
    let (mut y, mut x) = (0.0, x);
    isquare(&mut y, &mut x);
    y
}

/// `d(x²)/dx`, by running [`isquare_inv`] on gradient values.
pub fn double_value(x: f64) -> Result<f64, String> {
    let (mut y, mut x) = (0.0, x);
    let (_gy, gx) = isquare_grad(Loss::arg(0), &mut y, &mut x).map_err(|e| e.to_string())?;
    Ok(gx.g)
}

/// The `hello` functions: `square` and `double`; the input is a number.
pub fn evaluate(function: &str, input: &Value) -> Result<(Value, Vec<Timing>), String> {
    let x = input
        .as_f64()
        .ok_or_else(|| format!("bad `hello` input: expected a number, got {input}"))?;
    // `hello` inputs are bare numbers: no `Runs` fields, one run.
    let once = Value::Null;
    match function {
        "square" => timed(&once, || Ok(square_value(x)), |y| json!(y)),
        "double" => timed(&once, || double_value(x), |y| json!(y)),
        _ => Err(unknown_function("hello", function, &["square", "double"])),
    }
}
