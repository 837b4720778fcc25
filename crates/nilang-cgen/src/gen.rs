//! Statements and expressions of the IR → C++ text.

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
            StmtKind::For { var, range, body } => {
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

    /// A statement without nested blocks, as C++ text.
    fn simple(&mut self, s: &Stmt) -> R<String> {
        let comment = format!("// {}", one_line(&s.source));
        match &s.kind {
            StmtKind::Instr(i) => {
                let target = self.view(&i.target)?;
                let method =
                    match (i.op, i.args.len()) {
                        (AccOp::Add, 1) => "nl_add1",
                        (AccOp::Sub, 1) => "nl_sub1",
                        (AccOp::Add, 2) => "nl_add2",
                        (AccOp::Sub, 2) => "nl_sub2",
                        (AccOp::Mul | AccOp::Div, _) => return unsupported(
                            "`*=` and `/=` (multiplicative number systems) have no C++ translation",
                        ),
                        _ => return unsupported("an instruction takes one or two operands"),
                    };
                let prim = match &i.prim {
                    Prim::Builtin(info) => format!("nl_{}", info.runtime),
                    Prim::User(p) => {
                        return unsupported(format!(
                            "user primitive `{}` has no C++ translation (only the built-in primitives do)",
                            quote::quote!(#p).to_string().replace(' ', "")
                        ))
                    }
                };
                let mut t = format!("{{ {comment}\n    auto __y = {target};\n");
                let mut locals = Vec::new();
                let mut stores = String::new();
                for (k, a) in i.args.iter().enumerate() {
                    let (src, store) = self.operand(a)?;
                    let l = format!("__a{k}");
                    writeln!(
                        t,
                        "    decltype(__y) {l} = nl_cv<decltype(__y)>::from({src});"
                    )
                    .unwrap();
                    if store {
                        writeln!(stores, "    nl_store({src}, {l});").unwrap();
                    }
                    locals.push(l);
                }
                writeln!(t, "    {method}<{prim}>(__y, {});", locals.join(", ")).unwrap();
                writeln!(t, "    {target} = __y;").unwrap();
                t.push_str(&stores);
                t.push('}');
                Ok(t)
            }
            StmtKind::XorExpr { target, expr } => {
                let t = self.view(target)?;
                let e = self.expr(expr)?;
                Ok(format!("{t} ^= ({e}); {comment}"))
            }
            StmtKind::Builtin {
                op: BuiltinOp::Swap,
                args,
                ..
            } if self.is_built(&args[0]) || self.is_built(&args[1]) => {
                self.swap_built(&args[0], &args[1], &comment)
            }
            StmtKind::Builtin { op, args, operand } => {
                let places = args.iter().map(|a| self.view(a)).collect::<R<Vec<_>>>()?;
                Ok(match op {
                    BuiltinOp::Swap => {
                        let (a, b) = (&places[0], &places[1]);
                        format!(
                            "{{ auto __a = {a}; auto __b = {b}; {a} = __b; {b} = __a; }} {comment}"
                        )
                    }
                    BuiltinOp::Neg
                    | BuiltinOp::Inc
                    | BuiltinOp::Dec
                    | BuiltinOp::Conj
                    | BuiltinOp::Flip
                    | BuiltinOp::Inv => {
                        let f = match op {
                            BuiltinOp::Neg => "nl_negate",
                            BuiltinOp::Inc => "nl_inc",
                            BuiltinOp::Dec => "nl_dec",
                            BuiltinOp::Flip => "nl_flip",
                            BuiltinOp::Inv => "nl_inv",
                            _ => "nl_conj",
                        };
                        let a = &places[0];
                        format!("{{ auto __a = {a}; {f}(__a); {a} = __a; }} {comment}")
                    }
                    BuiltinOp::Hadamard => {
                        let (a, b) = (&places[0], &places[1]);
                        format!(
                            "{{ auto __a = {a}; auto __b = {b}; nl_hadamard(__a, __b); {a} = __a; {b} = __b; }} {comment}"
                        )
                    }
                    BuiltinOp::Rot | BuiltinOp::IRot => {
                        let f = if *op == BuiltinOp::Rot {
                            "nl_rot"
                        } else {
                            "nl_irot"
                        };
                        let (a, b) = (&places[0], &places[1]);
                        let theta = operand
                            .as_ref()
                            .ok_or_else(|| ("a rotation has an angle".to_string(), None))?;
                        let (src, store) = self.operand(theta)?;
                        let st = if store {
                            format!(" nl_store({src}, __t);")
                        } else {
                            String::new()
                        };
                        format!(
                            "{{ {comment}\n    auto __a = {a}; auto __b = {b};\n    decltype(__a) __t = nl_cv<decltype(__a)>::from({src});\n    {f}(__a, __b, __t);\n    {a} = __a; {b} = __b;{st}\n}}"
                        )
                    }
                })
            }
            StmtKind::Alloc(bindings) => {
                let mut t = String::new();
                for b in bindings {
                    if let Some(of) = nilang_ir::zeros::zero_like_of(&b.value) {
                        // a zero of another place's type (`expand!`, `mapfoldl!`)
                        let place = self.expr(of)?;
                        let cname = self.declare_ancilla(&b.name);
                        writeln!(
                            t,
                            "auto {cname} = {place}; {cname} = nl_lit<decltype({cname})>(0.0); {comment}"
                        )
                        .unwrap();
                        continue;
                    }
                    let value = self.expr(&b.value)?;
                    let ty = match &b.ty {
                        Some(ty) => match scalar_type(ty, self.sig.scalar.as_deref()) {
                            Some(e) => elem_ctype(&e, self.scalar()).to_string(),
                            None => {
                                return unsupported(format!(
                                    "ancilla type `{}` has no C++ translation",
                                    type_text(ty)
                                ))
                            }
                        },
                        None => "auto".to_string(),
                    };
                    let cname = self.declare_ancilla(&b.name);
                    writeln!(t, "{ty} {cname} = {value}; {comment}").unwrap();
                }
                Ok(t.trim_end().to_string())
            }
            StmtKind::Dealloc(bindings) => {
                for b in bindings {
                    let name = b.name.to_string();
                    if self.take_fields(&name).is_empty() {
                        for f in self.frames.iter_mut().rev() {
                            if f.remove(&name).is_some() {
                                break;
                            }
                        }
                    }
                }
                Ok(format!("{comment} (not checked in C++)"))
            }
            StmtKind::Call { call, uncall } => {
                let name = match &call.callee {
                    Callee::Path(p) => {
                        let last = p
                            .path
                            .segments
                            .last()
                            .ok_or_else(|| ("empty path".to_string(), None))?;
                        let mut name = last.ident.to_string();
                        if *uncall {
                            name.push_str("_inv");
                        }
                        if let syn::PathArguments::AngleBracketed(a) = &last.arguments {
                            let mut tys = Vec::new();
                            for g in &a.args {
                                match g {
                                    syn::GenericArgument::Type(ty) => {
                                        match scalar_type(ty, self.sig.scalar.as_deref()) {
                                            Some(e) => {
                                                tys.push(elem_ctype(&e, self.scalar()).to_string())
                                            }
                                            None => {
                                                return unsupported(format!(
                                                    "type argument `{}`",
                                                    type_text(ty)
                                                ))
                                            }
                                        }
                                    }
                                    _ => return unsupported("only type arguments in a turbofish"),
                                }
                            }
                            name = format!("{name}<{}>", tys.join(", "));
                        }
                        name
                    }
                    Callee::Method { .. } => {
                        return unsupported(
                            "method calls have no C++ translation; call a free reversible function",
                        )
                    }
                };
                let mut args = Vec::new();
                for a in &call.args {
                    let arg = match a {
                        CallArg::View(v) => self.call_view(v)?,
                        CallArg::Shared(e) => match nilang_ir::parse::dataview(e) {
                            Some(v) => self.call_view(&v)?,
                            None => self.expr(e)?,
                        },
                        CallArg::Value(e) => match nilang_ir::parse::dataview(e) {
                            Some(v) if self.lookup(&v.root.to_string()).is_some() => {
                                self.call_view(&v)?
                            }
                            _ => self.expr(e)?,
                        },
                    };
                    args.push(arg);
                }
                args.insert(0, "__nl".to_string());
                Ok(format!("{name}({}); {comment}", args.join(", ")))
            }
            StmtKind::Stack { .. } => unsupported(
                "stacks allocate memory: no C++ translation (kernels use ancillas only)",
            ),
            StmtKind::Safe(_) => unsupported("`safe!` blocks hold plain Rust: no C++ translation"),
            StmtKind::Fields(f) => {
                self.move_fields(f)?;
                Ok(format!("{comment} (its fields stay in their variables)"))
            }
            StmtKind::If { .. }
            | StmtKind::While { .. }
            | StmtKind::For { .. }
            | StmtKind::NoCheck(_)
            | StmtKind::Routine { .. } => {
                unreachable!("compound statements are translated by `stmt`")
            }
        }
    }

    fn call_view(&self, v: &Dataview) -> R<String> {
        if v.path.is_empty() {
            if let Some(var) = self.lookup(&v.root.to_string()) {
                if var.slice {
                    return Ok(format!("{0}, {0}_len", var.cname));
                }
            }
        }
        self.view(v)
    }

    /// An operand as C++ text, and whether it is stored back after the instruction.
    fn operand(&self, o: &Operand) -> R<(String, bool)> {
        match o {
            Operand::View(v) => {
                let text = self.view(v)?;
                let writable = self
                    .lookup(&self.built_field(v).0)
                    .map(|v| v.writable)
                    .unwrap_or(false);
                Ok((text, writable))
            }
            Operand::Const(e) => Ok((format!("({})", self.expr(e)?), false)),
        }
    }

    /// A dataview as a C++ place. A field of a value built by `new!` is the variable that
    /// holds it (`z.re` is `a` after `let z = new!(Complex { re: a, im: b })`).
    fn view(&self, v: &Dataview) -> R<String> {
        let (key, fields) = self.built_field(v);
        let Some(var) = self.lookup(&key) else {
            let what = if self.is_built(v) {
                "is a value built by `new!`, whose fields C++ holds in separate variables: \
                 use its fields (or `swap` it with another built value)"
            } else {
                "is not a parameter, ancilla or loop variable"
            };
            return Err((format!("`{}` {what}", v.text()), Some(v.span)));
        };
        let mut s = var.cname.clone();
        for (k, a) in v.path[fields..].iter().enumerate() {
            match a {
                // every element access is checked against its slice's length (`nl_at`)
                Access::Index(e) if k == 0 && var.slice => {
                    let i = self.expr(e)?;
                    let site = self.sites.site(&self.sig.name, Some(&key), &v.text());
                    s = format!("nl_at(__nl, {s}, {s}_len, (long long)({i}), {site})");
                }
                Access::Index(_) => {
                    return Err((
                        format!(
                            "`{}` indexes a place that is not a slice (C++ indexes slices of \
                             scalars only)",
                            v.text()
                        ),
                        Some(v.span),
                    ))
                }
                Access::Field(_) => {
                    return Err((
                        format!(
                            "field access `{}` has no C++ translation (scalars and slices only)",
                            v.text()
                        ),
                        Some(v.span),
                    ))
                }
            }
        }
        Ok(s)
    }

    /// A plain Rust expression (conditions, indices, constants, ancilla values) as C++.
    fn expr(&self, e: &Expr) -> R<String> {
        let bad = |what: &str| -> R<String> {
            Err((
                format!(
                    "{what} `{}` has no C++ translation",
                    nilang_ir::text::expr_text(e)
                ),
                Some(syn::spanned::Spanned::span(e)),
            ))
        };
        Ok(match e {
            Expr::Lit(l) => match &l.lit {
                syn::Lit::Int(i) => {
                    let digits = i.base10_digits();
                    match i.suffix() {
                        "" | "i64" | "isize" => format!("((long long){digits}LL)"),
                        "i32" => format!("((int){digits})"),
                        "u64" | "usize" => format!("((unsigned long long){digits}ULL)"),
                        "u32" => format!("((unsigned int){digits}U)"),
                        "f64" => format!("{digits}.0"),
                        _ => return bad("literal"),
                    }
                }
                syn::Lit::Float(f) => {
                    let mut d = f.base10_digits().to_string();
                    if !d.contains(['.', 'e', 'E']) {
                        d.push_str(".0");
                    }
                    match f.suffix() {
                        "" | "f64" => d,
                        _ => return bad("literal"),
                    }
                }
                syn::Lit::Bool(b) => b.value.to_string(),
                _ => return bad("literal"),
            },
            Expr::Path(p) => {
                if p.qself.is_none() && p.path.segments.len() == 1 {
                    let name = p.path.segments[0].ident.to_string();
                    match self.lookup(&name) {
                        Some(v) => v.cname.clone(),
                        None => return bad("unknown name"),
                    }
                } else {
                    let last = p
                        .path
                        .segments
                        .last()
                        .map(|s| s.ident.to_string())
                        .unwrap_or_default();
                    let is_f64 = p.path.segments.iter().any(|s| s.ident == "f64");
                    match (is_f64, last.as_str()) {
                        (true, "PI") => "3.141592653589793".into(),
                        (true, "E") => "2.718281828459045".into(),
                        (true, "EPSILON") => "2.220446049250313e-16".into(),
                        _ => return bad("path"),
                    }
                }
            }
            Expr::Paren(p) => format!("({})", self.expr(&p.expr)?),
            Expr::Group(g) => self.expr(&g.expr)?,
            Expr::Binary(b) => {
                use syn::BinOp::*;
                let op = match b.op {
                    Add(_) => "+",
                    Sub(_) => "-",
                    Mul(_) => "*",
                    Div(_) => "/",
                    Rem(_) => "%",
                    And(_) => "&&",
                    Or(_) => "||",
                    BitXor(_) => "^",
                    BitAnd(_) => "&",
                    BitOr(_) => "|",
                    Shl(_) => "<<",
                    Shr(_) => ">>",
                    Eq(_) => "==",
                    Lt(_) => "<",
                    Le(_) => "<=",
                    Ne(_) => "!=",
                    Ge(_) => ">=",
                    Gt(_) => ">",
                    _ => return bad("operator"),
                };
                format!("({} {op} {})", self.expr(&b.left)?, self.expr(&b.right)?)
            }
            Expr::Unary(u) => match u.op {
                syn::UnOp::Neg(_) => format!("(-{})", self.expr(&u.expr)?),
                syn::UnOp::Not(_) => format!("(!{})", self.expr(&u.expr)?),
                syn::UnOp::Deref(_) => self.expr(&u.expr)?,
                _ => return bad("operator"),
            },
            Expr::Cast(c) => match scalar_type(&c.ty, self.sig.scalar.as_deref()) {
                Some(Elem::Real) => return bad("cast to the scalar type"),
                Some(el) => format!("(({})({}))", elem_ctype(&el, "double"), self.expr(&c.expr)?),
                None => return bad("cast"),
            },
            Expr::Index(_) | Expr::Field(_) => match nilang_ir::parse::dataview(e) {
                Some(v) => self.view(&v)?,
                None => return bad("expression"),
            },
            Expr::MethodCall(m) => {
                let method = m.method.to_string();
                if method == "len" && m.args.is_empty() {
                    if let Expr::Path(p) = &*m.receiver {
                        if let Some(id) = p.path.get_ident() {
                            if let Some(v) = self.lookup(&id.to_string()) {
                                if v.slice {
                                    return Ok(format!("{}_len", v.cname));
                                }
                            }
                        }
                    }
                    return bad("`len` of a non-slice");
                }
                let r = self.expr(&m.receiver)?;
                let args = m.args.iter().map(|a| self.expr(a)).collect::<R<Vec<_>>>()?;
                let f = match (method.as_str(), args.len()) {
                    ("val", 0) => "nl_val",
                    ("abs", 0) => "nl_abs",
                    ("signum", 0) => "nl_signum",
                    ("sqrt", 0) => "sqrt",
                    ("exp", 0) => "exp",
                    ("ln", 0) => "log",
                    ("sin", 0) => "sin",
                    ("cos", 0) => "cos",
                    ("tan", 0) => "tan",
                    ("tanh", 0) => "tanh",
                    ("powi", 1) => "nl_powi",
                    ("powf", 1) => "pow",
                    ("min", 1) => "nl_min",
                    ("max", 1) => "nl_max",
                    _ => return bad("method call"),
                };
                let mut all = vec![r];
                all.extend(args);
                format!("{f}({})", all.join(", "))
            }
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else {
                    return bad("call");
                };
                let segs: Vec<String> = p
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                let args = c.args.iter().map(|a| self.expr(a)).collect::<R<Vec<_>>>()?;
                let ty = if segs.len() == 2 {
                    match segs[0].as_str() {
                        s if Some(s) == self.sig.scalar.as_deref() => {
                            Some(self.scalar().to_string())
                        }
                        "f64" => Some("double".to_string()),
                        _ => None,
                    }
                } else {
                    None
                };
                match (ty, segs.last().map(String::as_str), args.len()) {
                    (Some(t), Some("zero"), 0) => format!("nl_lit<{t}>(0.0)"),
                    (Some(t), Some("one"), 0) => format!("nl_lit<{t}>(1.0)"),
                    (Some(t), Some("lit" | "from"), 1) => format!("nl_lit<{t}>({})", args[0]),
                    _ => return bad("call"),
                }
            }
            _ => return bad("expression"),
        })
    }
}

impl Translator<'_> {
    /// The end of the range of the loop `s`; for a broadcast's loop (`RangeSpec::broadcast`)
    /// the length of its slices: when two differ, `nl_same_len` records the failure (as
    /// `broadcast_len` fails in Rust) and gives the shorter.
    fn range_end(&self, s: &Stmt, range: &RangeSpec) -> R<String> {
        let Some(b) = &range.broadcast else {
            return self.expr(&range.end);
        };
        let mut lengths = b
            .slices
            .iter()
            .map(|s| self.expr(&syn::parse_quote!(#s.len())));
        let first = lengths.next().unwrap_or_else(|| Ok("0LL".to_string()))?;
        let site = self.sites.site(&self.sig.name, None, &s.source);
        lengths.try_fold(first, |all, l| {
            Ok(format!("nl_same_len(__nl, {site}, {all}, {})", l?))
        })
    }
}

/// Reversible constructors (`new!`, `fields!`) in C++: a built value is not a C++ object but
/// its fields, each in the variable it was built from, registered under the field's path
/// (`z.re`, `t.0.re` for nested values). Building and taking apart only rename, so both
/// directions and their gradients (the same statements on `gvar`) cost nothing, and no C++
/// type is needed for the user's struct.
impl Translator<'_> {
    /// The variables registered under `key` or its fields (`key.…`), removed from every
    /// scope, with the path below `key` of each (`""`, `".re"`).
    fn take_fields(&mut self, key: &str) -> Vec<(String, Var)> {
        let below = format!("{key}.");
        let mut moved = Vec::new();
        for frame in &mut self.frames {
            let keys: Vec<String> = frame
                .keys()
                .filter(|k| *k == key || k.starts_with(&below))
                .cloned()
                .collect();
            for k in keys {
                let var = frame.remove(&k).expect("a key just listed");
                moved.push((k[key.len()..].to_string(), var));
            }
        }
        moved.sort_by(|a, b| a.0.cmp(&b.0));
        moved
    }

    /// The variables of a built value, by their path below it (`.re`), in order.
    fn fields_of(&self, key: &str) -> Vec<(String, &Var)> {
        let below = format!("{key}.");
        let mut fields: Vec<(String, &Var)> = Vec::new();
        for frame in self.frames.iter().rev() {
            for (k, var) in frame {
                if k.starts_with(&below) && !fields.iter().any(|(f, _)| *f == k[key.len()..]) {
                    fields.push((k[key.len()..].to_string(), var));
                }
            }
        }
        fields.sort_by(|a, b| a.0.cmp(&b.0));
        fields
    }

    /// Whether a dataview names a whole value built by `new!` (not one of its scalars).
    fn is_built(&self, v: &Dataview) -> bool {
        let (key, fields) = self.built_field(v);
        fields == v.path.len() && self.lookup(&key).is_none() && !self.fields_of(&key).is_empty()
    }

    /// The key of a dataview's leading fields of built values (`z.re` for `z.re`, `t.0.re` for
    /// `t.0.re[i]`) and how many of its accesses that key covers.
    fn built_field(&self, v: &Dataview) -> (String, usize) {
        let mut key = v.root.to_string();
        let mut fields = 0;
        for a in &v.path {
            match a {
                Access::Field(m) if self.lookup(&key).is_none() => {
                    key = format!("{key}.{}", nilang_ir::constructors::member_text(m));
                    fields += 1;
                }
                _ => break,
            }
        }
        (key, fields)
    }

    /// A new ancilla in the current scope: its C++ name (renamed if the scope has one of that
    /// name already).
    fn declare_ancilla(&mut self, name: &syn::Ident) -> String {
        let name = name.to_string();
        let mut cname = name.clone();
        let mut n = 1;
        while self.declared.last().unwrap().contains(&cname) {
            n += 1;
            cname = format!("{name}__{n}");
        }
        self.declared.last_mut().unwrap().insert(cname.clone());
        let var = Var {
            cname: cname.clone(),
            writable: true,
            slice: false,
        };
        self.frames.last_mut().unwrap().insert(name, var);
        cname
    }

    /// `new!` moves its parts' variables under the whole's fields; `fields!` moves them back
    /// to the parts' names.
    fn move_fields(&mut self, f: &Fields) -> R<()> {
        let whole = f.whole.to_string();
        for part in &f.parts {
            let member = format!(
                "{whole}.{}",
                nilang_ir::constructors::member_text(&part.member)
            );
            let var = part.var.to_string();
            let (from, to) = if f.construct {
                (&var, &member)
            } else {
                (&member, &var)
            };
            let moved = self.take_fields(from);
            if moved.is_empty() {
                return Err((format!("`{from}` is not a live ancilla here"), None));
            }
            let frame = self.frames.last_mut().expect("a scope");
            for (path, v) in moved {
                frame.insert(format!("{to}{path}"), v);
            }
        }
        if !f.construct {
            self.take_fields(&whole);
        }
        Ok(())
    }

    /// `swap(t, u)` of two built values: the swap of each pair of fields.
    fn swap_built(&self, a: &Dataview, b: &Dataview, comment: &str) -> R<String> {
        let (ka, kb) = (self.built_field(a).0, self.built_field(b).0);
        let (fa, fb) = (self.fields_of(&ka), self.fields_of(&kb));
        let paths = |f: &[(String, &Var)]| f.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>();
        if !self.is_built(a) || !self.is_built(b) || paths(&fa) != paths(&fb) {
            return Err((
                format!(
                    "`swap({}, {})`: both must be values built by `new!` with the same fields",
                    a.text(),
                    b.text()
                ),
                Some(a.span),
            ));
        }
        let mut t = format!("{{ {comment}\n");
        for ((_, x), (_, y)) in fa.iter().zip(&fb) {
            let (x, y) = (&x.cname, &y.cname);
            writeln!(
                t,
                "    {{ auto __a = {x}; auto __b = {y}; {x} = __b; {y} = __a; }}"
            )
            .unwrap();
        }
        t.push('}');
        Ok(t)
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
