//! The GradBench protocol, tool side: one JSON message per line in, one JSON response per
//! line out, with the message's `id`.
//!
//! * `start` → `{"id", "tool": "nilang"}`
//! * `define` → `{"id", "success"}`: `true` for the modules in [`MODULES`], otherwise `false`
//!   with an `error`.
//! * `evaluate` → `{"id", "success": true, "output", "timings"}`, or `{"id", "success":
//!   false, "error"}` for an unknown module or function, a malformed input, or a failure
//!   while computing (a reversibility check, a panic).
//! * any other kind (`analysis`, …) → `{"id"}`.
//!
//! A line that is not a JSON object, or has no `kind`, is answered with `success: false` and
//! an `error` (and the `id` when there is one, read from the line even where it is not valid
//! JSON: [`readable_id`]). A result that is not finite (JSON has no NaN or infinity) is a
//! failure too, never a `null` output. Nothing a message contains stops the tool.

use crate::evals::{self, Engine, MODULES};
use serde_json::{json, Value};
use std::io::{self, BufRead, Write};
use std::panic::{self, AssertUnwindSafe};

/// The tool's name in the `start` response.
pub const TOOL_NAME: &str = "nilang";

/// The protocol state of the tool: the modules defined so far.
#[derive(Debug, Default)]
pub struct Tool {
    defined: Vec<String>,
    engine: Engine,
}

impl Tool {
    /// A tool with no module defined.
    pub fn new() -> Tool {
        Tool::default()
    }

    /// A tool with no module defined that answers with the evals' natural programs where they
    /// have one (`--natural`, [`evals::natural`]) when `natural` is set.
    pub fn with_natural(natural: bool) -> Tool {
        Tool::with_engine(if natural {
            Engine::Natural
        } else {
            Engine::Expert
        })
    }

    /// A tool with no module defined that answers by `engine` where it has a program for the
    /// function asked (`--engine`, [`Engine`]), by the expert programs otherwise.
    pub fn with_engine(engine: Engine) -> Tool {
        Tool {
            engine,
            ..Tool::default()
        }
    }

    /// Whether `module` was defined by a successful `define` message.
    pub fn is_defined(&self, module: &str) -> bool {
        self.defined.iter().any(|m| m == module)
    }

    /// The response line (without newline) to one message line; `None` for a blank line.
    pub fn handle_line(&mut self, line: &str) -> Option<String> {
        let line = line.trim();
        if line.is_empty() {
            return None;
        }
        let response = match serde_json::from_str::<Value>(line) {
            Ok(message) => self.handle(&message),
            Err(e) => failure(readable_id(line), format!("invalid JSON message: {e}")),
        };
        Some(response.to_string())
    }

    /// The response to one message.
    pub fn handle(&mut self, message: &Value) -> Value {
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        if !message.is_object() {
            return failure(id, "a message must be a JSON object".into());
        }
        let Some(kind) = message.get("kind").and_then(Value::as_str) else {
            return failure(id, "message has no string field `kind`".into());
        };
        match kind {
            "start" => json!({"id": id, "tool": TOOL_NAME}),
            "define" => match message.get("module").and_then(Value::as_str) {
                Some(module) if MODULES.contains(&module) => {
                    if !self.is_defined(module) {
                        self.defined.push(module.to_string());
                    }
                    json!({"id": id, "success": true})
                }
                Some(module) => failure(
                    id,
                    format!(
                        "module `{module}` is not implemented by nilang (implemented: {})",
                        MODULES.join(", ")
                    ),
                ),
                None => failure(id, "`define` message has no string field `module`".into()),
            },
            "evaluate" => {
                let module = message.get("module").and_then(Value::as_str);
                let function = message.get("function").and_then(Value::as_str);
                let (Some(module), Some(function)) = (module, function) else {
                    return failure(
                        id,
                        "`evaluate` message needs string fields `module` and `function`".into(),
                    );
                };
                let Some(input) = message.get("input") else {
                    return failure(id, "`evaluate` message has no field `input`".into());
                };
                let engine = self.engine;
                let result = guarded(|| evals::evaluate_with(module, function, input, engine));
                match result.and_then(finite) {
                    Ok((output, timings)) => {
                        json!({"id": id, "success": true, "output": output, "timings": timings})
                    }
                    Err(error) => failure(id, error),
                }
            }
            _ => json!({"id": id}),
        }
    }
}

/// An evaluation's result, unless its output holds a `null`: JSON has no NaN or infinity, and
/// serde_json writes a non-finite `f64` as `null`, which an eval would read as a missing value.
/// No eval's output holds a `null` otherwise.
fn finite<T>((output, timings): (Value, T)) -> Result<(Value, T), String> {
    fn has_null(v: &Value) -> bool {
        match v {
            Value::Null => true,
            Value::Array(a) => a.iter().any(has_null),
            Value::Object(o) => o.values().any(has_null),
            _ => false,
        }
    }
    if has_null(&output) {
        return Err(
            "the result is not finite (a NaN or an infinity, which JSON cannot hold)".into(),
        );
    }
    Ok((output, timings))
}

/// The `id` of a line that is not valid JSON, where it can still be read: the value (a number
/// or a string) of the first `"id"` key at the top level of the object; `null` otherwise.
pub fn readable_id(line: &str) -> Value {
    let bytes = line.as_bytes();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (k, &b) in bytes.iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' if depth == 1 && line[k..].starts_with("\"id\"") => {
                let rest = line[k + 4..].trim_start();
                if let Some(value) = rest.strip_prefix(':') {
                    let mut values = serde_json::Deserializer::from_str(value).into_iter::<Value>();
                    if let Some(Ok(id @ (Value::Number(_) | Value::String(_)))) = values.next() {
                        return id;
                    }
                }
                return Value::Null;
            }
            b'"' => in_string = true,
            _ => {}
        }
    }
    Value::Null
}

fn failure(id: Value, error: String) -> Value {
    json!({"id": id, "success": false, "error": error})
}

/// Runs `f`, turning a reversibility error or any other panic into `Err`.
pub fn guarded<R>(f: impl FnOnce() -> Result<R, String>) -> Result<R, String> {
    match panic::catch_unwind(AssertUnwindSafe(|| nilang::catch(f))) {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => Err(format!("reversibility check failed: {e}")),
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("unknown panic");
            Err(format!("panic while evaluating: {msg}"))
        }
    }
}

/// Serves the protocol until `input` ends (or `output` closes): one response line on `output`
/// per message line of `input`. A line that is not UTF-8 is answered like any malformed line.
pub fn serve(input: impl BufRead, output: impl Write) -> io::Result<()> {
    serve_tool(Tool::new(), input, output)
}

/// [`serve`] with `tool` (a [`Tool::with_natural`], say).
pub fn serve_tool(
    mut tool: Tool,
    mut input: impl BufRead,
    mut output: impl Write,
) -> io::Result<()> {
    let mut line = String::new();
    loop {
        line.clear();
        let response = match input.read_line(&mut line) {
            Ok(0) => return Ok(()),
            Ok(_) => match tool.handle_line(&line) {
                Some(r) => r,
                None => continue,
            },
            Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                json!({"id": null, "success": false, "error": format!("unreadable line: {e}")})
                    .to_string()
            }
            Err(e) => return Err(e),
        };
        if writeln!(output, "{response}")
            .and_then(|_| output.flush())
            .is_err()
        {
            // the eval stopped reading: nothing left to do
            return Ok(());
        }
    }
}

/// Serves the protocol on stdin and stdout (the `nilang-gradbench` binary, `nilang gradbench`);
/// a panic inside an evaluation (answered with `success: false`) is reported on stderr in one
/// line.
pub fn serve_stdio() -> io::Result<()> {
    serve_stdio_tool(Tool::new())
}

/// [`serve_stdio`] with `tool`.
pub fn serve_stdio_tool(tool: Tool) -> io::Result<()> {
    panic::set_hook(Box::new(|info| eprintln!("nilang-gradbench: {info}")));
    serve_tool(tool, io::stdin().lock(), io::stdout().lock())
}
