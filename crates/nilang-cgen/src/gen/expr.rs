//! Places and plain Rust expressions (conditions, indices, constants, ancilla values) as
//! C++, and the end of a loop's range.

use super::*;

impl Translator<'_> {
    /// A dataview as a C++ place. A field of a value built by `new!` is the variable that
    /// holds it (`z.re` is `a` after `let z = new!(Complex { re: a, im: b })`).
    pub(super) fn view(&self, v: &Dataview) -> R<String> {
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
    pub(super) fn expr(&self, e: &Expr) -> R<String> {
        let bad = |what: &str| bad_expr(e, what);
        Ok(match e {
            Expr::Lit(l) => literal(e, &l.lit)?,
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
            Expr::MethodCall(m) => self.method_call(e, m)?,
            Expr::Call(c) => self.scalar_call(e, c)?,
            _ => return bad("expression"),
        })
    }

    /// A method call of a scalar or a slice: `x.len()` of a slice parameter, the float
    /// methods `nl_*` or `<cmath>` provides.
    pub(super) fn method_call(&self, e: &Expr, m: &syn::ExprMethodCall) -> R<String> {
        let bad = |what: &str| bad_expr(e, what);
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
        Ok(format!("{f}({})", all.join(", ")))
    }

    /// A call of the scalar type's constructors: `T::zero()`, `T::one()`, `T::lit(x)`,
    /// `T::from(x)` (and `f64::…`).
    pub(super) fn scalar_call(&self, e: &Expr, c: &syn::ExprCall) -> R<String> {
        let bad = |what: &str| bad_expr(e, what);
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
                s if Some(s) == self.sig.scalar.as_deref() => Some(self.scalar().to_string()),
                "f64" => Some("double".to_string()),
                _ => None,
            }
        } else {
            None
        };
        Ok(match (ty, segs.last().map(String::as_str), args.len()) {
            (Some(t), Some("zero"), 0) => format!("nl_lit<{t}>(0.0)"),
            (Some(t), Some("one"), 0) => format!("nl_lit<{t}>(1.0)"),
            (Some(t), Some("lit" | "from"), 1) => format!("nl_lit<{t}>({})", args[0]),
            _ => return bad("call"),
        })
    }

    /// The end of the range of the loop `s`; for a broadcast's loop (`RangeSpec::broadcast`)
    /// the length of its slices: when two differ, `nl_same_len` records the failure (as
    /// `broadcast_len` fails in Rust) and gives the shorter.
    pub(super) fn range_end(&self, s: &Stmt, range: &RangeSpec) -> R<String> {
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

/// A literal as C++: integers of their suffix's C++ type, floats as `double`.
fn literal(e: &Expr, lit: &syn::Lit) -> R<String> {
    let bad = |what: &str| bad_expr(e, what);
    Ok(match lit {
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
    })
}

/// The error for an expression (or a part of it, `what`) with no C++ translation.
fn bad_expr(e: &Expr, what: &str) -> R<String> {
    Err((
        format!(
            "{what} `{}` has no C++ translation",
            nilang_ir::text::expr_text(e)
        ),
        Some(syn::spanned::Spanned::span(e)),
    ))
}
