//! Statements and expressions of the IR → C++ text.

mod expr;
mod fields;
mod simple;

use crate::check::Sites;
use crate::sig::{scalar_type, Elem, Shape, Signature};
use crate::CgenError;
use nilang_ir::ast::*;
use proc_macro2::Span;
use std::collections::{HashMap, HashSet};
use std::fmt::Write;
use syn::Expr;

#[derive(Clone, Debug)]
struct Var {
    cname: String,
    /// Instructions may change it (a `&mut` parameter or an ancilla).
    writable: bool,
    /// A slice parameter (`x`, `x_len`).
    slice: bool,
}

/// Translates one program (the forward body or the inverse body) of a function.
pub(crate) struct Translator<'a> {
    sig: &'a Signature,
    /// The sites of the runtime checks the text makes (slice accesses, broadcast lengths).
    sites: &'a Sites,
    frames: Vec<HashMap<String, Var>>,
    declared: Vec<HashSet<String>>,
    counter: usize,
    out: String,
    indent: usize,
}

type R<T> = Result<T, (String, Option<Span>)>;

fn unsupported<T>(what: impl Into<String>) -> R<T> {
    Err((what.into(), None))
}

impl<'a> Translator<'a> {
    pub(crate) fn new(sig: &'a Signature, sites: &'a Sites) -> Self {
        let mut top = HashMap::new();
        let mut names = HashSet::new();
        for p in &sig.params {
            top.insert(
                p.name.clone(),
                Var {
                    cname: p.name.clone(),
                    writable: p.mutable,
                    slice: p.shape == Shape::Slice,
                },
            );
            names.insert(p.name.clone());
            names.insert(format!("{}_len", p.name));
        }
        Translator {
            sig,
            sites,
            frames: vec![top],
            declared: vec![names],
            counter: 0,
            out: String::new(),
            indent: 1,
        }
    }

    /// The C++ body of `stmts`, or the first statement that has no translation.
    pub(crate) fn body(mut self, stmts: &[Stmt]) -> Result<String, CgenError> {
        self.block_inner(stmts)?;
        Ok(self.out)
    }

    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn fresh(&mut self, p: &str) -> String {
        self.counter += 1;
        format!("__{p}{}", self.counter)
    }

    fn lookup(&self, name: &str) -> Option<&Var> {
        self.frames.iter().rev().find_map(|f| f.get(name))
    }

    fn scalar(&self) -> &str {
        self.sig.scalar.as_deref().unwrap_or("double")
    }

    fn push(&mut self) {
        self.frames.push(HashMap::new());
        self.declared.push(HashSet::new());
    }

    fn pop(&mut self) {
        self.frames.pop();
        self.declared.pop();
    }

    fn block_inner(&mut self, stmts: &[Stmt]) -> Result<(), CgenError> {
        for s in stmts {
            self.stmt(s)?;
        }
        Ok(())
    }

    fn block(&mut self, stmts: &[Stmt]) -> Result<(), CgenError> {
        self.push();
        self.indent += 1;
        let r = self.block_inner(stmts);
        self.indent -= 1;
        self.pop();
        r
    }

    fn err(&self, s: &Stmt, (msg, span): (String, Option<Span>)) -> CgenError {
        CgenError::new(&self.sig.name, &s.source, Some(span.unwrap_or(s.span)), msg)
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), CgenError> {
        match &s.kind {
            StmtKind::If { pre, then, els, .. } => {
                let c = self.expr(pre).map_err(|e| self.err(s, e))?;
                self.line(&format!("if ({c}) {{ // {}", one_line(&s.source)));
                self.block(then)?;
                if els.is_empty() {
                    self.line("}");
                } else {
                    self.line("} else {");
                    self.block(els)?;
                    self.line("}");
                }
                Ok(())
            }
            StmtKind::While { pre, body, .. } => {
                let c = self.expr(pre).map_err(|e| self.err(s, e))?;
                // a loop stops once a check of its thread failed (its results are discarded)
                self.line(&format!(
                    "while (!__nl->failed && ({c})) {{ // {}",
                    one_line(&s.source)
                ));
                self.block(body)?;
                self.line("}");
                Ok(())
            }
            StmtKind::For { var, range, body } => self.for_loop(s, var, range, body),
            StmtKind::NoCheck(body) => self.block_inner(body),
            StmtKind::Routine { compute, body } => {
                self.block_inner(&nilang_ir::reverse::routine_steps(compute, body))
            }
            _ => {
                let text = self.simple(s).map_err(|e| self.err(s, e))?;
                for l in text.lines() {
                    self.line(l);
                }
                Ok(())
            }
        }
    }

    /// A `for` loop as a counted C++ loop over its number of iterations (stepped, reversed), which
    /// stops once a check of its thread failed.
    fn for_loop(
        &mut self,
        s: &Stmt,
        var: &syn::Ident,
        range: &RangeSpec,
        body: &[Stmt],
    ) -> Result<(), CgenError> {
        let r = (|| -> R<(String, String, String)> {
            let step = match &range.step {
                Some(e) => self.expr(e)?,
                None => "1".into(),
            };
            Ok((self.expr(&range.start)?, self.range_end(s, range)?, step))
        })()
        .map_err(|e| self.err(s, e))?;
        let (start, end, step) = r;
        let k = self.fresh("k");
        let (s0, e0, st, n) = (
            self.fresh("start"),
            self.fresh("end"),
            self.fresh("step"),
            self.fresh("n"),
        );
        self.line(&format!("{{ // {}", one_line(&s.source)));
        self.indent += 1;
        self.line(&format!(
            "const long long {s0} = (long long)({start}), {e0} = (long long)({end}), {st} = (long long)({step});"
        ));
        let count = if range.inclusive {
            format!("{s0} > {e0} ? 0 : ({e0} - {s0}) / {st} + 1")
        } else {
            format!("{s0} >= {e0} ? 0 : ({e0} - {s0} - 1) / {st} + 1")
        };
        self.line(&format!("const long long {n} = {count};"));
        let idx = if range.rev {
            format!("{n} - 1 - {k}")
        } else {
            k.clone()
        };
        self.line(&format!(
            "for (long long {k} = 0; {k} < {n} && !__nl->failed; ++{k}) {{"
        ));
        self.indent += 1;
        self.push();
        let cname = format!("{var}");
        self.line(&format!("const long long {cname} = {s0} + {st} * ({idx});"));
        self.frames.last_mut().unwrap().insert(
            var.to_string(),
            Var {
                cname,
                writable: false,
                slice: false,
            },
        );
        let r = self.block(body);
        self.pop();
        self.indent -= 1;
        self.line("}");
        self.indent -= 1;
        self.line("}");
        r
    }
}

pub(crate) fn elem_ctype<'s>(e: &'s Elem, scalar: &'s str) -> &'s str {
    match e {
        Elem::Real => scalar,
        Elem::F64 => "double",
        Elem::Int(c) => c,
        Elem::Bool => "bool",
    }
}

fn type_text(ty: &syn::Type) -> String {
    nilang_ir::text::tokens_text(&quote::ToTokens::to_token_stream(ty))
}

fn one_line(s: &str) -> String {
    s.replace('\n', " ").replace("*/", "* /")
}

/// What a parallel loop's kernel (`crate::par`) needs to translate the loop's body alone.
impl Translator<'_> {
    /// Binds `name` to the C++ scalar variable `cname` in the innermost frame: the loop
    /// variable, or a reduction's per-iteration partial in place of its target.
    pub(crate) fn bind(&mut self, name: &str, cname: &str, writable: bool) {
        self.declared.last_mut().unwrap().insert(cname.to_string());
        self.frames.last_mut().unwrap().insert(
            name.to_string(),
            Var {
                cname: cname.to_string(),
                writable,
                slice: false,
            },
        );
    }

    /// The expression `e` of the statement `s` as C++.
    pub(crate) fn expr_of(&self, s: &Stmt, e: &Expr) -> Result<String, CgenError> {
        self.expr(e).map_err(|err| self.err(s, err))
    }

    /// The C++ start and end of the range of the loop `s`.
    pub(crate) fn range_bounds(
        &self,
        s: &Stmt,
        range: &RangeSpec,
    ) -> Result<(String, String), CgenError> {
        let start = self.expr_of(s, &range.start)?;
        let end = self.range_end(s, range).map_err(|e| self.err(s, e))?;
        Ok((start, end))
    }
}
